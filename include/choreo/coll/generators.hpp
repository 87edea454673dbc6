#pragma once
// Collective algorithm generators: each builds the schedule of one MPI collective algorithm
// directly as a CompactSchedule (through CompactBuilder), so a 2^20-rank butterfly
// allreduce (63M ops) is built in seconds without a choreo::Schedule in between.
// choreo::expand() turns the result into a Schedule when a file or the MPI executor needs one.
//
// All generators accept any number of ranks P >= 1 unless stated otherwise, throw
// choreo::Error on bad arguments (and when the schedule would exceed the 2^32 ops the
// simulator can index), and use only `requires` (completion) dependencies. Op handles below
// are in program order; "X requires Y" means X starts only after Y completed. Ranks in peer
// expressions are mod P.
//
// Tags are steps: in every generator below the messages with tag s are exactly those of one
// step, numbered 0, 1, 2, ... in the order they happen (except allreduce_recursive_doubling's
// fold, tagged k and k+1 though it comes first and last), so a cost model can time a
// schedule step by step (paper 001). All generators but allreduce_recursive_doubling,
// bcast_binomial and allgather_ring emit no message of 0 bytes (nor the calc after one): a step
// whose pieces are empty has no ops, and with bytes == 0 the schedule has none at all.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "choreo/core/compact_schedule.hpp"
#include "choreo/core/shaped_schedule.hpp"

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
CompactSchedule allreduce_recursive_doubling(int ranks, std::int64_t bytes,
                                             std::int64_t reduce_ns = 0);
/// The same schedule as a ShapedSchedule: the butterfly's ranks share one program shape (the
/// fold adds two), so an op costs 8 bytes; what a 2^23-rank simulation needs.
ShapedSchedule allreduce_recursive_doubling_shaped(int ranks, std::int64_t bytes,
                                                   std::int64_t reduce_ns = 0);

/// Ring allreduce (MPICH's MPIR_Allreduce_intra_ring; Open MPI's ring without segmentation).
/// The vector is cut into P chunks, chunk c of bytes/P bytes plus one for c < bytes % P (chunks
/// are empty when bytes < P). Rank r, with right = r+1 and left = r-1 (mod P):
///
/// Reduce-scatter, step s = 0..P-2 (tag s):
///   send_s(right, chunk (r-s) mod P), recv_s(left, chunk (r-s-1) mod P)
///   calc_s(reduce_ns * chunk / bytes, rounded to nearest) -- requires send_s and recv_s
///   send_s and recv_s require calc_{s-1}. Rank r then holds chunk (r+1) mod P fully reduced.
/// Allgather, step t = 0..P-2 (tag P-1+t):
///   send(right, chunk (r+1-t) mod P), recv(left, chunk (r-t) mod P)
///   both require the previous step's ops (its calc, or its send and recv).
/// Messages of empty chunks are not emitted, nor the calc of an empty receive; the next step
/// then requires the last step that had ops. bytes == 0 or P == 1 yields no ops.
/// 2(P-1)*bytes bytes in all.
CompactSchedule allreduce_ring(int ranks, std::int64_t bytes, std::int64_t reduce_ns = 0);

/// Rabenseifner's allreduce (MPICH's MPIR_Allreduce_intra_reduce_scatter_allgather, Open
/// MPI's redscat_allgather): with the fold of allreduce_recursive_doubling (p2, k, rem; virtual
/// ranks v) and the vector cut into p2 chunks (as allreduce_ring cuts it into P):
///
///   step 0 (tag 0), only if rem > 0: rank 2j+1 sends the whole vector to 2j, which receives
///     it and reduces it: calc(reduce_ns) requiring the receive.
///   halving, round i = 0..k-1 (tag f+i, f = 1 if rem > 0 else 0): v and v XOR 2^i split the
///     chunk range v holds (all p2 at first) in halves; the lower rank keeps the lower half.
///     send(partner, the other half), recv(partner, the kept half) -- both require the last
///     step's ops; calc(reduce_ns * received / bytes, rounded) requires both. Afterwards v
///     holds one chunk (bit-reversed v) fully reduced.
///   doubling, round i = k-1..0 (tag f+k+(k-1-i)): send(partner, all chunks v holds),
///     recv(partner, its as many chunks) -- both require the last step's ops.
///   step f+2k (tag f+2k), only if rem > 0: rank 2j sends the result (bytes) to 2j+1,
///     requiring the last doubling round; 2j+1's receive requires its own step-0 send.
/// Messages of no chunks (bytes < p2) are not emitted, nor the calc of an empty receive;
/// bytes == 0 or P == 1 yields no ops.
CompactSchedule allreduce_rabenseifner(int ranks, std::int64_t bytes, std::int64_t reduce_ns = 0);

/// Binomial-tree broadcast in MPICH's order. With vr = (r - root + P) % P, a non-root rank
/// receives `bytes` from its parent (vr with its lowest set bit cleared), then sends to the
/// children vr + 2^j (those < P) for j from just below its lowest set bit down to 0; the root
/// sends to vr + 2^j for j from the highest power of two < P down. Every send requires the
/// receive. A message over a link of bit 2^j has tag k-1-j, its step (k = ceil(log2 P)).
/// P - 1 messages.
CompactSchedule bcast_binomial(int ranks, std::int64_t bytes, int root = 0);

/// Open MPI's split-binary-tree broadcast (ompi_coll_base_bcast_intra_split_bintree, Open MPI
/// 3.x's choice from 2 KiB to 362 KiB with 1 KiB segments). Relative ranks s form Open MPI's
/// binary tree (level l holds 2^l-1 .. 2^(l+1)-2; s's children are s + 2^l and s + 2^(l+1)):
/// the odd ranks' subtree under s = 1 gets the first half (bytes/2) and the even ranks'
/// under s = 2 the second, in `segment`-byte pieces (tag: the piece). The root sends piece g
/// of each half in turn, blocking; an inner rank keeps the next piece's receive posted while
/// it forwards the previous one to its children, blocking; a leaf receives blocking. Then odd
/// s and s + 1 swap halves (tag: the larger piece count); with P even the root sends the
/// second half to s = P-1. M == 0 or P == 1: no ops.
CompactSchedule bcast_split_bintree(int ranks, std::int64_t bytes, int root = 0,
                                    std::int64_t segment = 1024);

/// Van de Geijn's broadcast (MPICH's MPIR_Bcast_intra_scatter_ring_allgather): the message
/// is cut into P pieces of ceil(bytes/P) bytes, the last ones shorter or empty; with
/// vr = (r - root + P) % P and K = ceil(log2 P):
///
///   scatter (tags 0..K-1): vr > 0 receives pieces [vr, vr + low(vr)) (low = lowest set bit)
///     from vr - low(vr) with tag K-1-log2(low(vr)); then it sends, like the root (whose
///     low is 2^K), pieces [vr + 2^j, vr + 2^(j+1)) to vr + 2^j (those < P) for j from just
///     below log2(low(vr)) down to 0, tag K-1-j. Every send requires the receive.
///   ring allgather, step t = 0..P-2 (tag K+t): send piece (vr-t) mod P to r+1 and receive
///     piece (vr-t-1) mod P from r-1; both require the previous step's send and receive,
///     and step 0's require the rank's scatter receive and sends (MPICH's blocking sends).
/// Messages of no bytes (a piece or subtree past the end of the message) are not emitted;
/// the next step then requires the last step that had ops. Like MPICH, a rank also receives
/// in the ring the pieces of its own scatter subtree. bytes == 0 or P == 1 yields no ops.
CompactSchedule bcast_scatter_allgather(int ranks, std::int64_t bytes, int root = 0);

/// Ring allgather: P-1 steps; in step s (tag s) rank r sends one block of bytes_per_rank to
/// r+1 and receives one from r-1 (mod P).
///   send_s requires recv_{s-1} (it forwards the block that just arrived)
///   recv_s requires recv_{s-1} (one receive outstanding at a time, as in a sendrecv loop)
/// P*(P-1) messages of bytes_per_rank.
CompactSchedule allgather_ring(int ranks, std::int64_t bytes_per_rank);

/// Recursive-doubling allgather: log2(p2) rounds on the largest power of two p2 <= P; in
/// round i rank r exchanges everything it has gathered so far with r XOR 2^i (virtual ranks).
///   send_i(partner), recv_i(partner) -- both require recv_{i-1} (if i > 0)
/// P a power of two: round i has tag i and moves bytes_per_rank * 2^i.
/// Otherwise (the fold of allreduce_recursive_doubling, not MPICH's in-butterfly fix-up):
///   step 0 (tag 0): rank 2j+1 sends its block to 2j; round 0 of 2j requires that receive.
///   round i (tag i+1): the blocks of the real ranks behind v's 2^i virtual ranks (two for
///     each virtual rank < rem).
///   step k+1 (tag k+1): 2j sends the (P-1) * bytes_per_rank it lacks to 2j+1, requiring
///     recv_{k-1}; 2j+1's receive requires its step-0 send.
/// bytes_per_rank == 0 yields no ops. P(P-1) * bytes_per_rank bytes in all.
CompactSchedule allgather_recursive_doubling(int ranks, std::int64_t bytes_per_rank);

/// Bruck's allgather (Open MPI's ompi_coll_base_allgather_intra_bruck; paper 001's Fig. 2),
/// with K = ceil(log2 P) and M = bytes_per_rank, on rank r, each op requiring the one before
/// (a step's send and receive both the previous step's two):
///   copy(M)                -- the own block to block 0 of the receive buffer
///   step i = 0..K-1 (tag i): send(r - 2^i, c_i M), recv(r + 2^i, c_i M) (mod P),
///                            c_i = min(2^i, P - 2^i): blocks 0.. go out, blocks 2^i.. come
///                            in; block j then holds rank (r+j) mod P's block
///   r != 0 only, the rotation into rank order through a shift buffer:
///   copy((P-r) M)          -- blocks 0..P-r-1 to the shift buffer
///   copy(r M)              -- blocks P-r..P-1 down to blocks 0..r-1
///   copy((P-r) M)          -- the shift buffer back to blocks r..P-1
/// bytes_per_rank == 0 yields no ops. P(P-1)M bytes in all.
CompactSchedule allgather_bruck(int ranks, std::int64_t bytes_per_rank);

/// Neighbour-exchange allgather (Chen et al.; Open MPI's
/// ompi_coll_base_allgather_intra_neighborexchange), P even only: P/2 steps; step i (tag i)
/// is a sendrecv with one neighbour, requiring the previous step's send and receive:
///   step 0: M = bytes_per_rank with r XOR 1 (the own blocks: the pair now holds 2 blocks);
///   step i >= 1: 2M, the pair of blocks received last (the own pair at step 1), with r - 1
///     (even r) or r + 1 (odd r) for odd i, and the other neighbour for even i.
/// Odd P throws choreo::Error. bytes_per_rank == 0 yields no ops. P(P-1)M bytes in all.
CompactSchedule allgather_neighbor_exchange(int ranks, std::int64_t bytes_per_rank);

/// Pairwise-exchange alltoall (Open MPI's ompi_coll_base_alltoall_intra_pairwise);
/// M = bytes_per_rank is the block for each destination. On rank r, each op requiring the one
/// before (a step's send and receive both the previous step's two):
///   copy(M)                          -- the own block (Open MPI's sendrecv with itself)
///   step s = 1..P-1 (tag s-1): send(r + s, M), recv(r - s, M) (mod P)
/// bytes_per_rank == 0 yields no ops. P(P-1)M bytes in all.
CompactSchedule alltoall_pairwise(int ranks, std::int64_t bytes_per_rank);

/// Bruck's alltoall (Open MPI's ompi_coll_base_alltoall_intra_bruck), K = ceil(log2 P),
/// M = bytes_per_rank, n_i = how many of 1..P-1 have bit i set. On rank r, each op requiring
/// the one before (a step's send and receive both the previous copy):
///   copy(P M)                   -- rotation: work block j = the block for rank (r+j) mod P
///   step i = 0..K-1 (tag i):
///     send(r + 2^i, n_i M), recv(r - 2^i, n_i M) (mod P) -- the work blocks j with bit i set
///     copy(n_i M)               -- the received blocks into their places (Open MPI receives
///                                  into the receive buffer and copies back); requires both
///   copy(P M)                   -- inverse rotation: work block j came from rank (r-j) mod P
/// bytes_per_rank == 0 yields no ops. P M sum_i n_i bytes in all.
CompactSchedule alltoall_bruck(int ranks, std::int64_t bytes_per_rank);

/// Dissemination barrier (MPICH's MPIR_Barrier_intra_dissemination), K = ceil(log2 P) rounds;
/// in round i (tag i) rank r sends 0 bytes to r + 2^i and receives 0 bytes from r - 2^i
/// (mod P); both require the previous round's send and receive. 2KP ops; P == 1 has none.
CompactSchedule barrier_dissemination(int ranks);

/// Binomial-tree reduce (MPICH's MPIR_Reduce_intra_binomial, commutative op), vr = (r - root)
/// mod P: for mask = 1, 2, 4, ... (step s = log2 mask, the tag): if vr has the bit, send the
/// vector to vr - mask and stop; else, if vr + mask < P, receive the vector from it, then
/// calc(reduce_ns). Each op requires the one before. bytes == 0 yields no ops.
CompactSchedule reduce_binomial(int ranks, std::int64_t bytes, int root = 0,
                                std::int64_t reduce_ns = 0);

/// Binomial-tree gather (MPICH's MPIR_Gather_intra_binomial), M = bytes_per_rank, vr as for
/// reduce_binomial: for mask = 1, 2, ... (tag log2 mask): if vr has the bit, send the
/// subtree's min(mask, P - vr) blocks to vr - mask and stop; else, if c = vr + mask < P,
/// receive min(mask, P - c) blocks from c. Each op requires the one before. M == 0: no ops.
CompactSchedule gather_binomial(int ranks, std::int64_t bytes_per_rank, int root = 0);

/// Binomial-tree scatter (MPICH's MPIR_Scatter_intra_binomial): gather_binomial's messages
/// reversed, in the mirror order: receive the subtree's blocks from the parent, then send each
/// child its subtree's, largest first. The link of bit j is step K-1-j (K = ceil(log2 P)),
/// its tag. Each op requires the one before. M == 0: no ops.
CompactSchedule scatter_binomial(int ranks, std::int64_t bytes_per_rank, int root = 0);

/// Open MPI's linear gather with a synchronising handshake (ompi_coll_base_gather_intra_
/// linear_sync, Open MPI 3.x's choice for blocks above 6000 B): every other rank waits for a
/// 0-byte go-ahead from the root (tag 0), then sends its first `first_segment` bytes (tag 1)
/// and the rest (tag 2), all blocking. The root, rank by rank from root+1: posts the first
/// segment's receive, sends the go-ahead, posts the rest's receive, and waits for the first
/// segment before the next rank; at the end it copies its own block. M == 0: no ops.
CompactSchedule gather_linear_sync(int ranks, std::int64_t bytes_per_rank, int root = 0,
                                   std::int64_t first_segment = 1024);

/// Open MPI's linear scatter (ompi_coll_base_scatter_intra_basic_linear, Open MPI's choice for
/// blocks of 300 B and more): the root sends each rank its block, blocking, in rank order
/// 0..P-1, copying its own in its turn; every other rank receives once. M == 0: no ops.
CompactSchedule scatter_linear(int ranks, std::int64_t bytes_per_rank, int root = 0);

/// Builds a schedule from a text spec:
///
///   spec  := collective ":" algorithm { ":" key "=" integer }
///
/// Keys may come in any order, each at most once; integers are decimal. Generators:
///   allreduce:recdbl               ranks, bytes [, reduce_ns = 0]
///   allreduce:ring                 ranks, bytes [, reduce_ns = 0]
///   allreduce:rabenseifner         ranks, bytes [, reduce_ns = 0]
///   allreduce:resilient            ranks, bytes, T [, reduce_ns = 0]  (coll_resilient.hpp)
///   bcast:binomial                 ranks, bytes [, root = 0]
///   bcast:scatter_allgather        ranks, bytes [, root = 0]
///   bcast:kary_pipeline            ranks, bytes [, root = 0, arity = 2, segment = 0]
///   bcast:multitree                ranks, bytes [, root = 0, parts = 3, arity = 3, segment = 0]
///                                  (coll_pipeline.hpp; segment = 0: Hockney's rule)
///   allgather:ring                 ranks, bytes   (bytes = bytes per rank)
///   allgather:recdbl               ranks, bytes   (bytes = bytes per rank)
///   allgather:bruck                ranks, bytes   (bytes = bytes per rank)
///   allgather:neighbor             ranks, bytes   (bytes = bytes per rank; ranks even)
///   alltoall:pairwise              ranks, bytes   (bytes = bytes per destination)
///   alltoall:bruck                 ranks, bytes   (bytes = bytes per destination)
///   barrier:dissemination          ranks
///   reduce:binomial                ranks, bytes [, root = 0, reduce_ns = 0]
///   gather:binomial                ranks, bytes [, root = 0] (bytes = bytes per rank)
///   scatter:binomial               ranks, bytes [, root = 0] (bytes = bytes per rank)
/// e.g. "allreduce:recdbl:ranks=1048576:bytes=8:reduce_ns=100". Unknown collectives,
/// algorithms and keys, missing or repeated keys and malformed numbers throw choreo::Error.
CompactSchedule generate(const std::string& spec);
/// generate()'s schedule as a ShapedSchedule, for the generators that build one
/// (allreduce:recdbl); std::nullopt for the others. Same checks and errors as generate().
std::optional<ShapedSchedule> generate_shaped(const std::string& spec);

/// "collective:algorithm" of every generator generate() knows, e.g. "allgather:ring".
std::vector<std::string> generator_names();

}  // namespace choreo::coll
