#pragma once
// Collective algorithm generators: each builds the schedule of one MPI collective algorithm
// directly as a sim::CompactSchedule (through sim::CompactBuilder), so a 2^20-rank butterfly
// allreduce (63M ops) is built in seconds without a choreo::Schedule in between.
// sim::expand() turns the result into a Schedule when a file or the MPI executor needs one.
//
// All generators accept any number of ranks P >= 1 unless stated otherwise, throw
// choreo::Error on bad arguments (and when the schedule would exceed the 2^32 ops the
// simulator can index), and use only `requires` (completion) dependencies. Op handles below
// are in program order; "X requires Y" means X starts only after Y completed.
#include <cstdint>
#include <string>
#include <vector>

#include "choreo/sim/compact.hpp"

namespace choreo::coll {

/// Butterfly (recursive doubling) allreduce, paper 004's algorithm, with LogGOPSim schedgen's
/// event shape. With p2 the largest power of two <= P, k = log2(p2) and rem = P - p2:
///
/// Butterfly, round i = 0..k-1, on each participating rank (tag i, partner = r XOR 2^i in
/// virtual numbering):
///   send_i(partner, bytes), recv_i(partner, bytes)  -- both require calc_{i-1} (if i > 0)
///   calc_i(reduce_ns)                               -- requires send_i and recv_i
/// The calc (the local reduction) is emitted even when reduce_ns == 0 so the event structure
/// does not depend on the cost.
///
/// P not a power of two (MPICH/Rabenseifner fold): for j < rem, rank 2j+1 sits the butterfly
/// out and rank 2j stands in for both as virtual rank j; ranks r >= 2*rem are virtual r - rem.
///   rank 2j+1: send(2j, bytes, tag k); recv(2j, bytes, tag k+1) requiring that send
///   rank 2j:   recv(2j+1, bytes, tag k); calc(reduce_ns) requiring it; the butterfly, whose
///              round 0 requires that calc; send(2j+1, bytes, tag k+1) requiring calc_{k-1}
/// P == 1 yields an empty program.
sim::CompactSchedule allreduce_recursive_doubling(int ranks, std::int64_t bytes,
                                                  std::int64_t reduce_ns = 0);

/// Binomial-tree broadcast in MPICH's order. With vr = (r - root + P) % P, a non-root rank
/// receives `bytes` from its parent (vr with its lowest set bit cleared), then sends to the
/// children vr + 2^j (those < P) for j from just below its lowest set bit down to 0; the root
/// sends to vr + 2^j for j from the highest power of two < P down. Every send requires the
/// receive; all messages use tag 0 (each pair of ranks exchanges one message). P - 1 messages.
sim::CompactSchedule bcast_binomial(int ranks, std::int64_t bytes, int root = 0);

/// Ring allgather: P-1 steps; in step s (tag s) rank r sends one block of bytes_per_rank to
/// r+1 and receives one from r-1 (mod P).
///   send_s requires recv_{s-1} (it forwards the block that just arrived)
///   recv_s requires recv_{s-1} (one receive outstanding at a time, as in a sendrecv loop)
/// P*(P-1) messages of bytes_per_rank.
sim::CompactSchedule allgather_ring(int ranks, std::int64_t bytes_per_rank);

/// Recursive-doubling allgather, P a power of two only: log2(P) rounds; in round i (tag i)
/// rank r exchanges the bytes_per_rank * 2^i it has gathered so far with r XOR 2^i.
///   send_i(partner), recv_i(partner) -- both require recv_{i-1} (if i > 0)
sim::CompactSchedule allgather_recursive_doubling(int ranks, std::int64_t bytes_per_rank);

/// Builds a schedule from a text spec:
///
///   spec  := collective ":" algorithm { ":" key "=" integer }
///
/// Keys may come in any order, each at most once; integers are decimal. Generators:
///   allreduce:recdbl   ranks, bytes [, reduce_ns = 0]
///   bcast:binomial     ranks, bytes [, root = 0]
///   allgather:ring     ranks, bytes       (bytes = bytes per rank)
///   allgather:recdbl   ranks, bytes       (bytes = bytes per rank; ranks a power of two)
/// e.g. "allreduce:recdbl:ranks=1048576:bytes=8:reduce_ns=100". Unknown collectives,
/// algorithms and keys, missing or repeated keys and malformed numbers throw choreo::Error.
sim::CompactSchedule generate(const std::string& spec);

/// "collective:algorithm" of every generator generate() knows, e.g. "allgather:ring".
std::vector<std::string> generator_names();

}  // namespace choreo::coll
