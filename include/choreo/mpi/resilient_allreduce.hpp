#pragma once
// choreo::resilient_allreduce: the jitter-resilient butterfly allreduce of paper 004
// (Matsumoto & Suda) on real MPI. A butterfly (recursive doubling) allreduce followed by T
// redundant exchanges of the final result with the partners of the first T stages; every rank
// keeps the first copy of the result it can get, its own or a partner's, and returns.
//
//   double local[3] = {...}, global[3];
//   choreo::resilient_allreduce(local, global, 3, MPI_DOUBLE, MPI_SUM, comm, 2);
//
// Protocol (docs/jitter.md, "Real MPI: choreo::resilient_allreduce"): with p2 the largest
// power of two <= P and K = log2(p2), ranks fold as in MPICH (rank 2j+1, j < P - p2, hands its
// vector to 2j and gets the result back), and butterfly rank v exchanges with v ^ 2^s in
// stage s. Each rank posts its T copy receives (from v ^ 2^j, j < T) first, so a copy that
// arrives while it still waits for a butterfly partner ends the wait: the rank takes it and
// skips its remaining stages. What it still owes: every partner of a stage it skipped gets
// the final result in place of the partial it expected (marked as final by its tag, so the
// partner takes it as its own shortcut), and every copy partner gets its copy. Each ordered
// pair of ranks therefore exchanges exactly one stage message and, for the first T stages,
// one copy per call, whatever the timing: nobody waits for a message that never comes, and
// no message is left over.
//
// Messages that a rank no longer needs (the partial of a slow partner, copies after it has
// the result) are still received, but not waited for: their requests and buffers are carried
// on the communicator and completed by later calls (or resilient_allreduce_complete, or
// MPI_Comm_free / MPI_Finalize). Waiting for them before returning would tie every rank to its
// slowest partner again and undo the method.
#include <mpi.h>

#include <cstdint>

namespace choreo {

/// Allreduce of `count` elements of `type` with the commutative `op` over `comm`, with T
/// redundant exchanges (0 <= T <= floor(log2(size of comm)); T = 0 is the plain butterfly).
/// The arguments are those of MPI_Allreduce (sendbuf may be MPI_IN_PLACE) plus T, which, like
/// count, type and op, must be the same on every rank. Collective and blocking: recvbuf holds
/// the result on return, and both buffers are free to reuse (the messages still in flight
/// use the library's own buffers).
///
/// Throws choreo::Error, on every rank alike and before any message, when T is out of range,
/// op is not commutative (MPI_Op_commutative) or MPI_OP_NULL, count is negative or type is
/// MPI_DATATYPE_NULL.
///
/// Matching: the messages travel on a duplicate of `comm` made at the first call and cached
/// on it (an attribute), so they never meet the caller's. Calls on one communicator must not
/// run concurrently (as for MPI collectives); calls on different communicators from
/// different threads need MPI_THREAD_MULTIPLE. Cost: K + 2 + T vectors of scratch per call
/// still in flight (at most kResilientMaxInFlight of them), and two copies per call (the input
/// into scratch, the result out of it).
void resilient_allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                         MPI_Op op, MPI_Comm comm, int T);

/// How many earlier calls on one communicator may still have messages in flight before a call
/// waits for the oldest; bounds the scratch memory kept per communicator.
inline constexpr int kResilientMaxInFlight = 4;

/// Local: waits until every message of this rank's earlier calls on `comm` has been sent and
/// received (it waits only for messages other ranks send in calls they have entered, so it
/// cannot deadlock). Nothing to do if resilient_allreduce was never called on `comm`.
void resilient_allreduce_complete(MPI_Comm comm);

/// What this rank's calls on a communicator did; all zero before the first call.
struct ResilientStats {
  std::int64_t calls = 0;  ///< calls that moved data (count > 0 and more than one rank)
  /// Calls in which this rank took the result from a partner (a copy, or a final result sent
  /// in place of a partial) before its own butterfly finished.
  std::int64_t copies_taken = 0;
  std::int64_t pending_requests = 0;  ///< requests of earlier calls not yet complete
  int calls_in_flight = 0;            ///< earlier calls still holding requests and buffers
  /// A message that no receive has taken is waiting on the private communicator
  /// (MPI_Iprobe). Once every rank has called resilient_allreduce_complete and they have
  /// synchronised, this must be false: the protocol sends nothing nobody receives.
  bool message_waiting = false;
};

/// Local. Tests the carried requests (which may let MPI complete some) and counts those still
/// pending; waits for nothing.
ResilientStats resilient_allreduce_stats(MPI_Comm comm);

}  // namespace choreo
