#pragma once
// Each rank's command list of a persistent collective, made locally from the collective's
// sizes (private): no MPI call, no check that the ranks agree. The *_init calls check and
// agree first; the interposition library calls these with what MPI already requires to be
// the same on every rank.
//
// A rank builds only its own program (PlanBuilder on the algorithm's per-rank code), in the
// time and memory of its own messages plus O(log P) arithmetic (docs/persistent.md, "Init that
// scales"). The *_plans_from_full_schedule functions build the same plans the old way, out of
// the generator's schedule of every rank: the reference of the tests and of
// bench/persist_init_scale.cpp, not for use at init.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "choreo/persist/options.hpp"
#include "plan.hpp"

namespace choreo::persist::detail {

/// What a broadcast's plan depends on besides the ranks.
struct BcastShape {
  std::string algorithm;  ///< "binomial", "kary_pipeline", "multitree" or "multitree_torus"
  std::int64_t bytes = 0;
  int root = 0, arity = 0, parts = 1;
  std::int64_t segment_bytes = 0;  ///< pipelined algorithms only
  std::array<int, 3> torus{};      ///< multitree_torus: the torus
  std::vector<int> node_of_rank;   ///< multitree_torus: each rank's node; empty: rank r on r
};

/// The shape of a broadcast of `bytes` from `root` with options' arity, parts and segment
/// size (Hockney's rule with options' alpha and beta when it is 0). Throws choreo::Error on
/// a bad option (a negative segment size, parts > arity, ...).
BcastShape bcast_shape(const std::string& algorithm, std::int64_t bytes, int root, int ranks,
                       const Options& options);

/// Rank `rank`'s broadcast: every message of the binomial tree is the whole buffer; a
/// pipelined message is its segment (the tag), at the segment's offset.
Plan bcast_plan(const BcastShape& shape, int ranks, int rank);
Plan bcast_plan(const std::string& algorithm, std::int64_t bytes, int root, int ranks, int rank,
                const Options& options);
/// An allreduce of `count` elements of `element_size` bytes: "recdbl" or "ring". Reductions
/// combine the receive's bytes in scratch into the vector in the user buffer.
Plan allreduce_plan(const std::string& algorithm, std::int64_t count, int element_size, int ranks,
                    int rank);
/// The ring allgather of blocks of `block_bytes`, in place in the user buffer.
Plan allgather_plan(std::int64_t block_bytes, int ranks, int rank);

/// The binomial reduce of `count` elements of `element_size` bytes to `root`: the root
/// accumulates in the user buffer (recvbuf), the other ranks with children in scratch; a leaf
/// sends straight from its input (sendbuf).
Plan reduce_plan(std::int64_t count, int element_size, int root, int ranks, int rank);
/// The binomial gather (or, with up false, scatter) of blocks of `block_bytes` to (from)
/// `root`. The user buffer is recvbuf, the send buffer sendbuf; inner ranks hold their
/// subtree's blocks in scratch, and a root other than 0 rotates into rank order through it.
Plan gather_plan(std::int64_t block_bytes, int root, int ranks, int rank);
Plan scatter_plan(std::int64_t block_bytes, int root, int ranks, int rank);
/// The pairwise-exchange alltoall of blocks of `block_bytes`: the own block copied from
/// sendbuf, P-1 sendrecv steps. In place, recvbuf is copied to scratch first and sent from.
Plan alltoall_plan(std::int64_t block_bytes, bool in_place, int ranks, int rank);
/// The blocks of an irregular collective, in bytes: each rank's block size and its offset in
/// the buffer that holds every rank's (the caller's counts and displacements times the size).
struct VectorBlocks {
  std::vector<std::int64_t> bytes, offsets;
};
/// gatherv (gather true) or scatterv, linear: the root moves a message per rank with a
/// non-empty block (`blocks` matters at the root only), the others their `my_bytes`.
Plan gatherv_plan(const VectorBlocks& blocks, std::int64_t my_bytes, int root, int ranks, int rank,
                  bool gather);
/// allgatherv round the ring: step s sends block r-s to r+1 and receives block r-s-1 from r-1,
/// in place in recvbuf.
Plan allgatherv_plan(const VectorBlocks& blocks, int ranks, int rank);
/// The ring reduce-scatter of blocks of counts[b] elements of `element_size` bytes (MPI's
/// recvcounts; all equal for reduce_scatter_block): P-1 steps reduce into scratch, then the
/// own block is copied to recvbuf's start. The input is sendbuf, or recvbuf in place.
Plan reduce_scatter_plan(const std::vector<std::int64_t>& counts, int element_size, bool in_place,
                         int ranks, int rank);
/// One message of a neighbourhood exchange: its peer (a rank; the caller leaves out
/// MPI_PROC_NULL), tag, bytes and offset in its buffer (recvbuf for a receive, sendbuf for a send).
struct NeighborMessage {
  int peer = 0, tag = 0;
  std::int64_t bytes = 0, offset = 0;
};
/// The direct neighbourhood exchange: every receive, then every send, all posted at start
/// (MPI's non-overtaking order then pairs repeated edges with equal tags in list order).
/// Empty messages are left out: init checked that both sides of each edge know its count.
Plan neighbor_alltoallv_plan(const std::vector<NeighborMessage>& receives,
                             const std::vector<NeighborMessage>& sends);
/// The dissemination barrier: empty messages only.
Plan barrier_plan(int ranks, int rank);

/// The same plans read out of the generator's schedule of all P ranks (plan_from_schedule),
/// for each rank of `of_ranks` from one schedule: O(P x a rank's messages) time and memory
/// however few ranks are asked for. Tests and benchmarks only.
std::vector<Plan> bcast_plans_from_full_schedule(const BcastShape& shape, int ranks,
                                                 const std::vector<int>& of_ranks);
std::vector<Plan> allreduce_plans_from_full_schedule(const std::string& algorithm,
                                                     std::int64_t count, int element_size,
                                                     int ranks, const std::vector<int>& of_ranks);
std::vector<Plan> allgather_plans_from_full_schedule(std::int64_t block_bytes, int ranks,
                                                     const std::vector<int>& of_ranks);

}  // namespace choreo::persist::detail
