#include "fault_watch.hpp"

#include <fmt/format.h>

#include <vector>

namespace choreo::mpi {

bool Fault::wait_for_others(double grace_seconds) const {
  MPI_Request barrier = MPI_REQUEST_NULL;
  if (MPI_Ibarrier(faults_, &barrier) != MPI_SUCCESS) return false;
  const double end = MPI_Wtime() + grace_seconds;
  int done = 0;
  while (!done && MPI_Wtime() < end)
    if (MPI_Test(&barrier, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return false;
  return done != 0;
}

namespace detail {
namespace {

constexpr int kNoticeTag = 1;
/// Clock and notice are checked once per this many empty polls: often enough to react within
/// microseconds, rarely enough that MPI_Wtime and MPI_Test cost nothing measurable.
constexpr unsigned kPollsPerCheck = 64;

/// Notices are sent with MPI_Isend and never waited for (the process ends after a Fault), so
/// their buffer must outlive the watch.
int g_notice_origin = -1;

}  // namespace

FaultWatch::FaultWatch(MPI_Comm comm, double timeout_seconds) : timeout_(timeout_seconds) {
  MPI_Comm_rank(comm, &rank_);
  MPI_Comm_size(comm, &size_);
  MPI_Comm_dup(comm, &control_);
  MPI_Comm_dup(comm, &faults_);
  MPI_Comm_set_errhandler(control_, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(faults_, MPI_ERRORS_RETURN);
  MPI_Irecv(notice_from_, 1, MPI_INT, MPI_ANY_SOURCE, kNoticeTag, faults_, &notice_);
}

FaultWatch::~FaultWatch() {
  if (faulted_) return;  // operations are pending on both communicators: leave them be
  MPI_Cancel(&notice_);
  MPI_Wait(&notice_, MPI_STATUS_IGNORE);
  MPI_Comm_free(&faults_);
  MPI_Comm_free(&control_);
  delete notice_from_;
}

std::string FaultWatch::error_text(int code) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    return fmt::format("MPI error {}", code);
  std::string message(text, static_cast<std::size_t>(length));
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  return message;
}

void FaultWatch::fail(const std::string& reason, const PendingText& pending) {
  faulted_ = true;
  int flag = 0;
  MPI_Test(&notice_, &flag, MPI_STATUS_IGNORE);
  if (!flag) {
    // This rank is the first it knows of: tell the others, so none waits out its timeout.
    g_notice_origin = rank_;
    for (int r = 0; r < size_; ++r) {
      if (r == rank_) continue;
      MPI_Request request = MPI_REQUEST_NULL;
      MPI_Isend(&g_notice_origin, 1, MPI_INT, r, kNoticeTag, faults_, &request);
      MPI_Request_free(&request);
    }
  }
  std::string line = fmt::format("rank {}, {}: {}", rank_, phase_, reason);
  if (pending) {
    const std::string what = pending();
    if (!what.empty()) line += "; " + what;
  }
  throw Fault(line, faults_);
}

void FaultWatch::fail_on_error(int code, const std::string& call, const PendingText& pending) {
  fail(fmt::format("MPI error in {}: {}", call, error_text(code)), pending);
}

void FaultWatch::check(double last_progress, const PendingText& pending) {
  int flag = 0;
  MPI_Test(&notice_, &flag, MPI_STATUS_IGNORE);
  if (flag)
    fail(fmt::format("stopped because rank {} could not go on (its line says why)", *notice_from_),
         pending);
  const double waited = MPI_Wtime() - last_progress;
  if (timeout_ > 0 && waited > timeout_)
    fail(fmt::format("nothing completed for {:.3g} s, beyond the timeout of {:.3g} s", waited,
                     timeout_),
         pending);
}

int FaultWatch::wait_some(std::span<MPI_Request> requests, int* indices, MPI_Status* statuses,
                          const std::function<std::string(int)>& describe,
                          const PendingText& pending) {
  const double start = MPI_Wtime();
  for (unsigned polls = 1;; ++polls) {
    int count = 0;
#ifdef CHOREO_SMPI
    // Simulated time does not pass while a rank polls, so a poll loop would never end:
    // block, and let SimGrid report a deadlock (it stops the simulation when nothing can run).
    const int code =
        MPI_Waitsome(static_cast<int>(requests.size()), requests.data(), &count, indices, statuses);
#else
    const int code =
        MPI_Testsome(static_cast<int>(requests.size()), requests.data(), &count, indices, statuses);
#endif
    if (code == MPI_ERR_IN_STATUS) {
      for (int k = 0; k < count; ++k)
        if (statuses[k].MPI_ERROR != MPI_SUCCESS)
          fail(fmt::format("MPI error on {}: {}", describe(indices[k]),
                           error_text(statuses[k].MPI_ERROR)),
               pending);
    } else if (code != MPI_SUCCESS) {
      fail_on_error(code, "MPI_Testsome", pending);
    }
    if (count == MPI_UNDEFINED) return 0;
    if (count > 0) return count;
    if (polls % kPollsPerCheck == 0) check(start, pending);
  }
}

void FaultWatch::wait_all(std::span<MPI_Request> requests, const std::string& what) {
  const double start = MPI_Wtime();
  const PendingText pending = [&] { return "waiting for every rank to reach " + what; };
  for (unsigned polls = 1;; ++polls) {
    int done = 0;
#ifdef CHOREO_SMPI
    const int code = MPI_Waitall(static_cast<int>(requests.size()), requests.data(),
                                 MPI_STATUSES_IGNORE);  // as in wait_some
    done = 1;
#else
    const int code =
        MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE);
#endif
    if (code != MPI_SUCCESS) fail_on_error(code, what, pending);
    if (done) return;
    if (polls % kPollsPerCheck == 0) check(start, pending);
  }
}

}  // namespace detail
}  // namespace choreo::mpi
