// Binomial-tree broadcast in MPICH's order (MPIR_Bcast_intra_binomial without the
// segmentation): receive from the parent, then send to the children, largest subtree first.
#include "arguments.hpp"
#include "bcast_rank_programs.hpp"
#include "choreo/coll/generators.hpp"

namespace choreo::coll {

namespace {

constexpr const char* kBcastBinomialName = "bcast_binomial";

}  // namespace

CompactSchedule bcast_binomial(int ranks, std::int64_t bytes, int root) {
  detail::check_ranks(kBcastBinomialName, ranks);
  detail::check_non_negative(kBcastBinomialName, "bytes", bytes);
  detail::check_root(kBcastBinomialName, ranks, root);
  // Every rank but the root receives once and each receive is one send.
  const auto messages = static_cast<std::uint64_t>(ranks) - 1;
  CompactBuilder b(ranks, detail::checked_op_count(kBcastBinomialName, ranks, 2 * messages));
  for (int r = 0; r < ranks; ++r) {
    b.begin_rank(r);
    detail::bcast_binomial_rank(b, r, ranks, root, bytes);
  }
  return b.finish();
}

}  // namespace choreo::coll
