// Ring allgather: each block travels P-1 hops around the ring, one step at a time.
#include "arguments.hpp"
#include "choreo/coll.hpp"

namespace choreo::coll {

namespace {
constexpr const char* kAllgatherRingName = "allgather_ring";
}  // namespace

sim::CompactSchedule allgather_ring(int ranks, std::int64_t bytes_per_rank) {
  detail::check_ranks(kAllgatherRingName, ranks);
  detail::check_non_negative(kAllgatherRingName, "bytes_per_rank", bytes_per_rank);
  const auto p = static_cast<std::uint64_t>(ranks);
  // Two dependencies a step (send and recv on the previous recv).
  sim::CompactBuilder b(ranks, detail::checked_op_count(kAllgatherRingName, ranks, 2 * p * (p - 1)),
                        2 * p * (p - 1));
  for (int r = 0; r < ranks; ++r) {
    b.begin_rank(r);
    const int right = r + 1 == ranks ? 0 : r + 1, left = r == 0 ? ranks - 1 : r - 1;
    std::uint32_t previous_recv = detail::kNoOp;
    for (int step = 0; step + 1 < ranks; ++step) {
      const std::uint32_t send = b.send(right, bytes_per_rank, step);
      const std::uint32_t recv = b.recv(left, bytes_per_rank, step);
      if (previous_recv != detail::kNoOp) {
        b.requires_completed(send, previous_recv);  // forwards the block that just arrived
        b.requires_completed(recv, previous_recv);  // one receive outstanding, as in sendrecv
      }
      previous_recv = recv;
    }
  }
  return b.finish();
}

}  // namespace choreo::coll
