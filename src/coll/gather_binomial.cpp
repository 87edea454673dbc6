// Binomial-tree gather and scatter (MPICH's MPIR_Gather_intra_binomial and
// MPIR_Scatter_intra_binomial): relative to the root, vr's subtree is the ranks vr ..
// vr + low(vr) - 1 (low: its lowest set bit); a message over the link of bit 2^j carries the
// blocks of the child's subtree, min(2^j, P - child) blocks. Gather goes up the tree,
// smallest subtree first; scatter is its mirror image, largest subtree first (the per-rank
// program: rooted_rank_programs.hpp).
#include "arguments.hpp"
#include "choreo/coll/generators.hpp"
#include "rooted_rank_programs.hpp"

namespace choreo::coll {
namespace {

CompactSchedule binomial_tree(const char* name, bool up, int ranks, std::int64_t bytes_per_rank,
                              int root) {
  detail::check_per_rank_bytes(name, ranks, bytes_per_rank);
  detail::check_root(name, ranks, root);
  CompactBuilder b(ranks,
                   detail::checked_op_count(name, ranks, 2 * static_cast<std::uint64_t>(ranks)));
  for (int r = 0; r < ranks; ++r) {
    b.begin_rank(r);
    detail::binomial_tree_rank(b, up, ranks, r, root, bytes_per_rank);
  }
  return b.finish();
}

}  // namespace

CompactSchedule gather_binomial(int ranks, std::int64_t bytes_per_rank, int root) {
  return binomial_tree("gather_binomial", true, ranks, bytes_per_rank, root);
}

CompactSchedule scatter_binomial(int ranks, std::int64_t bytes_per_rank, int root) {
  return binomial_tree("scatter_binomial", false, ranks, bytes_per_rank, root);
}

}  // namespace choreo::coll
