// Ring allgather: each block travels P-1 hops around the ring, one step at a time.
#include "allgather_rank_programs.hpp"
#include "arguments.hpp"
#include "choreo/coll/generators.hpp"

namespace choreo::coll {

namespace {
constexpr const char* kAllgatherRingName = "allgather_ring";
}  // namespace

CompactSchedule allgather_ring(int ranks, std::int64_t bytes_per_rank) {
  detail::check_ranks(kAllgatherRingName, ranks);
  detail::check_non_negative(kAllgatherRingName, "bytes_per_rank", bytes_per_rank);
  const auto p = static_cast<std::uint64_t>(ranks);
  // Two dependencies a step (send and recv on the previous recv).
  CompactBuilder b(ranks, detail::checked_op_count(kAllgatherRingName, ranks, 2 * p * (p - 1)),
                   2 * p * (p - 1));
  for (int r = 0; r < ranks; ++r) {
    b.begin_rank(r);
    detail::allgather_ring_rank(b, ranks, r, bytes_per_rank);
  }
  return b.finish();
}

}  // namespace choreo::coll
