// Pairwise-exchange alltoall (Open MPI's ompi_coll_base_alltoall_intra_pairwise): a local copy
// of the own block, then P-1 sendrecv steps at increasing distance.
#include "alltoall_rank_programs.hpp"
#include "arguments.hpp"
#include "choreo/coll/generators.hpp"
#include "steps.hpp"

namespace choreo::coll {

namespace {
constexpr const char* kAlltoallPairwiseName = "alltoall_pairwise";
}  // namespace

CompactSchedule alltoall_pairwise(int ranks, std::int64_t bytes_per_rank) {
  detail::check_per_rank_bytes(kAlltoallPairwiseName, ranks, bytes_per_rank);
  const auto p = static_cast<std::uint64_t>(ranks);
  // A copy, then a send and a receive a step, each requiring the previous step's two.
  const std::uint64_t ops = p * (1 + 2 * (p - 1));
  return detail::build_in_steps(
      kAlltoallPairwiseName, ranks, ops, [&](CompactBuilder& b, detail::Frontier& order, int r) {
        if (bytes_per_rank == 0) return;    // nothing moves; MPI libraries return at once
        order.add(b.copy(bytes_per_rank));  // Open MPI's step 0, the sendrecv with itself
        order.end_step();
        detail::alltoall_pairwise_rank(b, order, ranks, r, bytes_per_rank);
      });
}

}  // namespace choreo::coll
