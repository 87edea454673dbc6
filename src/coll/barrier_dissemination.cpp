// Dissemination barrier (MPICH's MPIR_Barrier_intra_dissemination; Hensgen, Finkel and
// Manber): ceil(log2 P) rounds of empty messages, in round i to r + 2^i and from r - 2^i
// (the per-rank program: rooted_rank_programs.hpp).
#include "arguments.hpp"
#include "choreo/coll/generators.hpp"
#include "rooted_rank_programs.hpp"

namespace choreo::coll {

CompactSchedule barrier_dissemination(int ranks) {
  constexpr const char* kName = "barrier_dissemination";
  detail::check_ranks(kName, ranks);
  const auto rounds = static_cast<std::uint64_t>(detail::binomial_steps(ranks));
  const auto ops = 2 * static_cast<std::uint64_t>(ranks) * rounds;
  CompactBuilder b(ranks, detail::checked_op_count(kName, ranks, ops));
  for (int r = 0; r < ranks; ++r) {
    b.begin_rank(r);
    detail::barrier_dissemination_rank(b, ranks, r);
  }
  return b.finish();
}

}  // namespace choreo::coll
