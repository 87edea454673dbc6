// Binomial-tree reduce (MPICH's MPIR_Reduce_intra_binomial for a commutative op): relative to
// the root, each rank receives and reduces its children's vectors, smallest subtree first,
// then sends the result to its parent (the per-rank program: rooted_rank_programs.hpp).
#include "arguments.hpp"
#include "choreo/coll/generators.hpp"
#include "rooted_rank_programs.hpp"

namespace choreo::coll {

CompactSchedule reduce_binomial(int ranks, std::int64_t bytes, int root, std::int64_t reduce_ns) {
  constexpr const char* kName = "reduce_binomial";
  detail::check_ranks(kName, ranks);
  detail::check_non_negative(kName, "bytes", bytes);
  detail::check_non_negative(kName, "reduce_ns", reduce_ns);
  detail::check_root(kName, ranks, root);
  CompactBuilder b(ranks,
                   detail::checked_op_count(kName, ranks, 3 * static_cast<std::uint64_t>(ranks)));
  for (int r = 0; r < ranks; ++r) {
    b.begin_rank(r);
    detail::reduce_binomial_rank(b, ranks, r, root, bytes, reduce_ns);
  }
  return b.finish();
}

}  // namespace choreo::coll
