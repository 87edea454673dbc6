// MPI_Wait*, MPI_Test*, recorded (CHOREO_RECORD): which of the recorder's requests completed,
// with the status of each receive (the source and tag an MPI_ANY_SOURCE or MPI_ANY_TAG receive
// matched). A program that passes MPI_STATUS(ES)_IGNORE gets them read into the recorder's own.
#include <vector>

#include "next.hpp"
#include "persistent_requests.hpp"
#include "record.hpp"

using namespace choreo::intercept;

namespace {

/// Per thread, so that calls from several threads do not share them.
thread_local std::vector<MPI_Request> before_call;
thread_local std::vector<MPI_Status> own_statuses;

std::span<const MPI_Request> copy_of(int count, const MPI_Request* requests) {
  before_call.assign(requests, requests + count);
  return before_call;
}

MPI_Status* statuses_for(int count, MPI_Status* statuses) {
  if (statuses != MPI_STATUSES_IGNORE) return statuses;
  own_statuses.resize(static_cast<std::size_t>(std::max(count, 1)));
  return own_statuses.data();
}

}  // namespace

extern "C" int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  if (!record::on()) return persistent::Wait(request, status);
  const MPI_Request before = *request;
  MPI_Status own;
  MPI_Status* kept = status == MPI_STATUS_IGNORE ? &own : status;
  const std::int64_t start = now_ns();
  const int result = persistent::Wait(request, kept);
  const int index = 0;
  record::completions(start, {&before, 1}, kept, {&index, 1}, false);
  return result;
}

extern "C" int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  if (!record::on()) return persistent::Test(request, flag, status);
  const MPI_Request before = *request;
  MPI_Status own;
  MPI_Status* kept = status == MPI_STATUS_IGNORE ? &own : status;
  const std::int64_t start = now_ns();
  const int result = persistent::Test(request, flag, kept);
  const int index = 0;
  if (*flag) record::completions(start, {&before, 1}, kept, {&index, 1}, false);
  return result;
}

extern "C" int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  if (!record::on()) return persistent::Waitall(count, requests, statuses);
  const auto before = copy_of(count, requests);
  MPI_Status* kept = statuses_for(count, statuses);
  const std::int64_t start = now_ns();
  const int result = persistent::Waitall(count, requests, kept);
  record::completions(start, before, kept, {}, true);
  return result;
}

extern "C" int MPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  if (!record::on()) return persistent::Testall(count, requests, flag, statuses);
  const auto before = copy_of(count, requests);
  MPI_Status* kept = statuses_for(count, statuses);
  const std::int64_t start = now_ns();
  const int result = persistent::Testall(count, requests, flag, kept);
  if (*flag) record::completions(start, before, kept, {}, true);
  return result;
}

extern "C" int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  if (!record::on()) return persistent::Waitany(count, requests, index, status);
  const auto before = copy_of(count, requests);
  MPI_Status own;
  MPI_Status* kept = status == MPI_STATUS_IGNORE ? &own : status;
  const std::int64_t start = now_ns();
  const int result = persistent::Waitany(count, requests, index, kept);
  if (*index != MPI_UNDEFINED) record::completions(start, before, kept, {index, 1}, false);
  return result;
}

extern "C" int MPI_Testany(int count, MPI_Request requests[], int* index, int* flag,
                           MPI_Status* status) {
  if (!record::on()) return persistent::Testany(count, requests, index, flag, status);
  const auto before = copy_of(count, requests);
  MPI_Status own;
  MPI_Status* kept = status == MPI_STATUS_IGNORE ? &own : status;
  const std::int64_t start = now_ns();
  const int result = persistent::Testany(count, requests, index, flag, kept);
  if (*flag && *index != MPI_UNDEFINED) record::completions(start, before, kept, {index, 1}, false);
  return result;
}

namespace {

/// MPI_Waitsome and MPI_Testsome, recorded: `call` runs with the statuses to fill.
template <class Call>
int some(const Call& call, int count, MPI_Request requests[], int* outcount, int indices[],
         MPI_Status statuses[]) {
  const auto before = copy_of(count, requests);
  MPI_Status* kept = statuses_for(count, statuses);
  const std::int64_t start = now_ns();
  const int result = call(kept);
  if (*outcount != MPI_UNDEFINED && *outcount > 0)
    record::completions(start, before, kept, {indices, static_cast<std::size_t>(*outcount)}, false);
  return result;
}

}  // namespace

extern "C" int MPI_Waitsome(int count, MPI_Request requests[], int* outcount, int indices[],
                            MPI_Status statuses[]) {
  auto call = [&](MPI_Status* kept) {
    return persistent::Waitsome(count, requests, outcount, indices, kept);
  };
  if (!record::on()) return call(statuses);
  return some(call, count, requests, outcount, indices, statuses);
}

extern "C" int MPI_Testsome(int count, MPI_Request requests[], int* outcount, int indices[],
                            MPI_Status statuses[]) {
  auto call = [&](MPI_Status* kept) {
    return persistent::Testsome(count, requests, outcount, indices, kept);
  };
  if (!record::on()) return call(statuses);
  return some(call, count, requests, outcount, indices, statuses);
}

// Not recorded (it completes nothing); wrapped so that a persistent collective the library runs
// itself reports its own state (persistent_requests.hpp).
extern "C" int MPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  return persistent::Request_get_status(request, flag, status);
}
