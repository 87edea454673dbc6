#pragma once
// Paper 004's jitter-resilient allreduce as a schedule: the butterfly of
// allreduce_recursive_doubling followed by T redundant exchanges of the result, each rank
// going on with the first copy of the result it holds. The "first of" is the IR's first-of
// group (Op::requires_any), so the simulator and the MPI executor run the real thing, and the
// GOAL writer says what LogGOPSim cannot (docs/formats.md).
#include <cstdint>

#include "choreo/core/compact_schedule.hpp"

namespace choreo::coll {

/// With p2 the largest power of two <= P, K = log2(p2) and rem = P - p2 (the fold and virtual
/// ranks v of allreduce_recursive_doubling), each rank of the butterfly runs, in program order:
///
///   round i = 0..K-1 (tag i): send_i, recv_i(v XOR 2^i, bytes), calc_i(reduce_ns), exactly as
///     allreduce_recursive_doubling (send_i, recv_i require calc_{i-1}; calc_i both)
///   rrecv_j, j = 0..T-1 (tag K+2+j): recv(v XOR 2^j, bytes)  -- no dependency: posted at once,
///     into a buffer of its own, so a copy that comes early is taken as soon as it lands
///   ready: calc(0)  -- requires_any {calc_{K-1}, rrecv_0, ..., rrecv_{T-1}}: the result is
///     there once this rank reduced it or the first copy arrived, whichever comes first
///   rsend_j, j = 0..T-1 (tag K+2+j): send(v XOR 2^j, bytes)  -- requires ready: a rank
///     forwards the result it holds, computed or received
///
/// The redundant partners are those of the first T butterfly stages: after stage j the ranks
/// that differ in bits > j run independent sub-allreduces, so one undelayed sub-group rescues
/// the others (paper 004, section 3.2). Every copy is still sent and received: the schedule
/// completes when all of them arrived, and the MPI executor checks each one.
///
/// P not a power of two (the fold): rank 2j+1 runs send(2j, bytes, tag K) and
/// recv(2j, bytes, tag K+1) requiring it; rank 2j first runs recv(2j+1, bytes, tag K) and a
/// calc(reduce_ns) that round 0 requires, and last send(2j+1, bytes, tag K+1) requiring ready.
/// P == 1 yields an empty program. T must be in 0..K (choreo::Error otherwise); T = 0 is
/// allreduce_recursive_doubling plus the ready op.
CompactSchedule allreduce_resilient(int ranks, std::int64_t bytes, int redundant,
                                    std::int64_t reduce_ns = 0);

}  // namespace choreo::coll
