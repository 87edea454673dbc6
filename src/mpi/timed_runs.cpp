#include "timed_runs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <new>
#include <vector>

#include "../core/stats.hpp"
#include "choreo/core/error.hpp"

namespace choreo::mpi::detail {

namespace {
/// agree_on_failure through a FaultWatch: the same protocol, nonblocking. The blocking one
/// below stays on MPI_Allreduce and MPI_Bcast: libchoreo_pmpi calls it too, and there an
/// MPI_Wait of its own would pass through the interposed MPI_Wait (and CHOREO_RECORD).
void agree_on_failure(const std::string& local, FaultWatch& watch, const std::string& what) {
  const MPI_Comm comm = watch.control();
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int mine = local.empty() ? size : rank, first = size;
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Iallreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm, &request);
  watch.wait_all({&request, 1}, what);
  if (first == size) return;
  int length = rank == first ? static_cast<int>(local.size()) : 0;
  MPI_Ibcast(&length, 1, MPI_INT, first, comm, &request);
  watch.wait_all({&request, 1}, what);
  std::string message = rank == first ? local : std::string(static_cast<std::size_t>(length), ' ');
  MPI_Ibcast(message.data(), length, MPI_CHAR, first, comm, &request);
  watch.wait_all({&request, 1}, what);
  throw Error(message);
}
}  // namespace

void agree_on_failure(const std::string& local, MPI_Comm comm) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int mine = local.empty() ? size : rank, first = size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size) return;
  int length = rank == first ? static_cast<int>(local.size()) : 0;
  MPI_Bcast(&length, 1, MPI_INT, first, comm);
  std::string message = rank == first ? local : std::string(static_cast<std::size_t>(length), ' ');
  MPI_Bcast(message.data(), length, MPI_CHAR, first, comm);
  throw Error(message);
}

void collectively(MPI_Comm comm, const std::function<void()>& check) {
  std::string failure;
  try {
    check();
  } catch (const Error& e) {
    failure = e.what();
  } catch (const std::bad_alloc&) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    failure = fmt::format("rank {} ran out of memory; give it smaller buffers or fewer ops", rank);
  }
  agree_on_failure(failure, comm);
}

std::string library_version() {
  // Room for any MPI's string, not only this header's: libchoreo_pmpi.so asks before it knows
  // which MPI it runs under, and MPICH's string (up to 8192) outgrows Open MPI's 256.
  std::vector<char> text(std::max(MPI_MAX_LIBRARY_VERSION_STRING, 8192) + 1, '\0');
  int length = 0;
  MPI_Get_library_version(text.data(), &length);
  std::string version(text.data(), static_cast<std::size_t>(std::max(0, length)));
  // First line only, and for Open MPI only up to its first comma (the rest is packaging).
  version = version.substr(0, version.find_first_of("\n,"));
  std::replace(version.begin(), version.end(), '\t', ' ');
  while (!version.empty() && (version.back() == ' ' || version.back() == '\r')) version.pop_back();
  return version;
}

void sleep_for(std::int64_t nanoseconds) {
  timespec request{static_cast<time_t>(nanoseconds / 1000000000),
                   static_cast<long>(nanoseconds % 1000000000)};
  timespec remaining{};
  while (nanosleep(&request, &remaining) != 0) request = remaining;  // resume after signals
}

void check_options(const RunOptions& options) {
  if (options.warmup < 0 || options.repetitions < 1)
    throw Error(fmt::format("need warm-up >= 0 and repetitions >= 1, not {} and {}", options.warmup,
                            options.repetitions));
  if (!(options.timeout_seconds >= 0 && options.timeout_seconds <= 1e9))
    throw Error(fmt::format("the timeout must be 0 (none) or up to 1e9 s, not {}",
                            options.timeout_seconds));
}

RunResult time_iterations(MPI_Comm comm, const RunOptions& options, const TimedBody& body,
                          double expected_idle_seconds) {
  RunResult result;
  result.warmup = options.warmup;
  result.repetitions = options.repetitions;
  result.engine = library_version();
  FaultWatch watch(
      comm, options.timeout_seconds > 0 ? options.timeout_seconds + expected_idle_seconds : 0);
  const MPI_Comm control = watch.control();
  MPI_Request request = MPI_REQUEST_NULL;
  std::int64_t checked = 0;
  const int iterations = options.warmup + options.repetitions;
  for (int iteration = 0; iteration < iterations; ++iteration) {
    const std::string name = fmt::format("iteration {} of {} ({})", iteration, iterations,
                                         iteration < options.warmup ? "warm-up" : "timed");
    body.prepare();
    watch.set_phase("the barrier before " + name);
    MPI_Ibarrier(control, &request);
    watch.wait_all({&request, 1}, "the barrier");
    watch.set_phase(name);
    double start = MPI_Wtime();
    body.execute(watch);
    double local = MPI_Wtime() - start;
    watch.set_phase("the check after " + name + " (its own ops done)");
    agree_on_failure(body.verify(iteration, checked), watch, "the check");
    double slowest = 0;
    MPI_Iallreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, control, &request);
    watch.wait_all({&request, 1}, "the check");
    if (iteration >= options.warmup) result.seconds.push_back(slowest);
  }
  watch.set_phase("the sum of bytes checked");
  MPI_Iallreduce(&checked, &result.bytes_verified, 1, MPI_INT64_T, MPI_SUM, control, &request);
  watch.wait_all({&request, 1}, "the end");
  result.median = result.seconds.empty() ? 0 : stats::median(result.seconds);
  result.min = *std::min_element(result.seconds.begin(), result.seconds.end());
  result.max = *std::max_element(result.seconds.begin(), result.seconds.end());
  return result;
}

}  // namespace choreo::mpi::detail
