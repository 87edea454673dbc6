#pragma once
// The recorder (CHOREO_RECORD=DIR): every rank writes its MPI calls to DIR/rank-<r>.ctr in the
// trace format of include/choreo/replay/trace_format.hpp, for `choreo import`. The wrappers in
// record_*.cpp test on() first and otherwise call MPI at once: unset, recording costs one load per
// call. Records are built in one reused Event under a lock (calls may come from several threads)
// and encoded into a buffer written out in chunks; MPI_Finalize writes the rest.
#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>

#include "choreo/replay/trace_format.hpp"
#include "runtime.hpp"

namespace choreo::intercept::record {

/// True between a successful open() and close().
inline std::atomic<bool> active{false};

/// Whether this call is the program's and is recorded (choreo's own MPI calls never are).
inline bool on() { return active.load(std::memory_order_relaxed) && choreo_depth == 0; }

/// Opens DIR/rank-<r>.ctr and writes its header; says why and stays off if it cannot.
void open(const std::string& dir, int world_rank, const std::string& mpi_library);
/// Starts the computation clock anew: MPI_Init's own work (choreo's set-up included) is no
/// computation of the program's.
void initialised();
/// Writes the End record and the rest of the buffer (MPI_Finalize).
void close();

/// The trace's id of `comm`; a communicator not seen before (made by a function the recorder
/// does not wrap) gets one now, with a CommCreate record of kNoParent.
std::uint32_t comm_id(MPI_Comm comm);
/// After a call that made `created` (or MPI_COMM_NULL) from `parent`: its CommCreate record.
void comm_created(MPI_Comm parent, MPI_Comm created, std::int64_t start_ns);

/// The trace's spelling of a peer (kAnySource, kProcNull) and a tag (kAnyTag).
int peer(int rank);
int tag(int tag);
std::int64_t bytes(int count, MPI_Datatype type);
/// A receive's status as the trace keeps it.
trace::Status status(const MPI_Status& status);

/// Writes one record of `kind`: `fill` sets its fields (on the reused event, under the lock),
/// the gap is from the previous record's end to `start_ns`, the duration from there to now.
/// `fill` may call new_request and completed below, which need the lock too.
template <class Fill>
void write(trace::Kind kind, std::int64_t start_ns, Fill&& fill);

/// Under write's lock: a new request id for `handle`, remembered until it completes (or, when
/// persistent, until MPI_Request_free).
std::uint64_t new_request(MPI_Request handle, bool receive, bool persistent);
/// Under write's lock: the id of a persistent request being started (0 if unknown).
std::uint64_t started(MPI_Request handle);
/// Under write's lock: adds the completion of `handle` (as it was before the call) to the
/// event, if the recorder made it; `status` is read for receives.
void completed(trace::Event& event, MPI_Request handle, const MPI_Status& status);
/// Under write's lock: forgets `handle` (MPI_Request_free); its id, or 0 if unknown.
std::uint64_t freed(MPI_Request handle);

/// Records the completions of a Wait or Test call over `before` (the handles as they were
/// before it): every handle with `all` (statuses[i] is handle i's), else those at `indices`
/// (statuses[k] is indices[k]'s, as MPI_Waitsome returns them).
/// Nothing is written when none of them is the recorder's, so a Test that completes nothing
/// leaves its time to the computation around it.
void completions(std::int64_t start_ns, std::span<const MPI_Request> before,
                 const MPI_Status* statuses, std::span<const int> indices, bool all);

/// Runs a blocking collective `call` and records it: `describe` fills the collective's bytes,
/// root and counts.
template <class Call, class Describe>
int collective(trace::Collective which, MPI_Comm comm, Call&& call, Describe&& describe) {
  if (!on()) return call();
  const std::uint32_t id = comm_id(comm);
  const std::int64_t start = now_ns();
  const int result = call();
  write(trace::Kind::Collective, start, [&](trace::Event& e) {
    e.collective = which;
    e.comm = id;
    describe(e);
  });
  return result;
}

namespace detail {
std::mutex& lock();
/// The reused event, cleared, with its kind, gap and duration set (under the lock).
trace::Event& begin(trace::Kind kind, std::int64_t start_ns);
/// Encodes the event and writes a chunk out when the buffer is full (under the lock).
void commit();
}  // namespace detail

template <class Fill>
void write(trace::Kind kind, std::int64_t start_ns, Fill&& fill) {
  const std::lock_guard guard(detail::lock());
  trace::Event& event = detail::begin(kind, start_ns);
  fill(event);
  detail::commit();
}

}  // namespace choreo::intercept::record
