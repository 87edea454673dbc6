// Binomial-tree gather and scatter (MPICH's MPIR_Gather_intra_binomial and
// MPIR_Scatter_intra_binomial): relative to the root, vr's subtree is the ranks vr ..
// vr + low(vr) - 1 (low: its lowest set bit); a message over the link of bit 2^j carries the
// blocks of the child's subtree, min(2^j, P - child) blocks. Gather goes up the tree,
// smallest subtree first; scatter is its mirror image, largest subtree first.
#include <algorithm>
#include <vector>

#include "arguments.hpp"
#include "choreo/coll.hpp"

namespace choreo::coll {
namespace {

/// Bytes of the subtree below child vr (relative) over the link of bit `mask`.
std::int64_t subtree_bytes(std::int64_t vr, std::int64_t mask, std::int64_t ranks,
                           std::int64_t bytes_per_rank) {
  return std::min(mask, ranks - vr) * bytes_per_rank;
}

/// Builds gather (up) or scatter (down); each op of a rank requires the one before.
sim::CompactSchedule binomial_tree(const char* name, bool up, int ranks,
                                   std::int64_t bytes_per_rank, int root) {
  detail::check_per_rank_bytes(name, ranks, bytes_per_rank);
  detail::check_root(name, ranks, root);
  sim::CompactBuilder b(
      ranks, detail::checked_op_count(name, ranks, 2 * static_cast<std::uint64_t>(ranks)));
  int steps = 0;
  while ((std::int64_t{1} << steps) < ranks) ++steps;
  for (int r = 0; r < ranks; ++r) {
    b.begin_rank(r);
    if (bytes_per_rank == 0) continue;
    const std::int64_t vr = (r - root + ranks) % ranks;
    const auto world = [&](std::int64_t v) { return static_cast<int>((v + root) % ranks); };
    // Links of this rank, in gather order: children by growing bit, then the parent.
    struct Link {
      bool child;
      std::int64_t peer, bytes;
      int bit;
    };
    std::vector<Link> links;
    int bit = 0;
    for (std::int64_t mask = 1; mask < ranks; mask *= 2, ++bit) {
      if ((vr & mask) != 0) {
        links.push_back({false, vr - mask, subtree_bytes(vr, mask, ranks, bytes_per_rank), bit});
        break;
      }
      if (vr + mask < ranks)
        links.push_back(
            {true, vr + mask, subtree_bytes(vr + mask, mask, ranks, bytes_per_rank), bit});
    }
    if (!up) std::reverse(links.begin(), links.end());
    std::uint32_t last = detail::kNoOp;
    for (const Link& link : links) {
      // Tag = step: gather's bit j is step j, scatter's is step steps-1-j (largest first).
      const int tag = up ? link.bit : steps - 1 - link.bit;
      const bool receives = link.child == up;
      const std::uint32_t op = receives ? b.recv(world(link.peer), link.bytes, tag)
                                        : b.send(world(link.peer), link.bytes, tag);
      if (last != detail::kNoOp) b.requires_completed(op, last);
      last = op;
    }
  }
  return b.finish();
}

}  // namespace

sim::CompactSchedule gather_binomial(int ranks, std::int64_t bytes_per_rank, int root) {
  return binomial_tree("gather_binomial", true, ranks, bytes_per_rank, root);
}

sim::CompactSchedule scatter_binomial(int ranks, std::int64_t bytes_per_rank, int root) {
  return binomial_tree("scatter_binomial", false, ranks, bytes_per_rank, root);
}

}  // namespace choreo::coll
