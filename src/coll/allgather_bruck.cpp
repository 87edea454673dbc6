// Bruck's allgather (Open MPI's ompi_coll_base_allgather_intra_bruck, paper 001's Fig. 2):
// ceil(log2 P) steps of doubling block counts, then a local rotation into rank order.
#include <algorithm>

#include "arguments.hpp"
#include "choreo/coll/generators.hpp"
#include "steps.hpp"

namespace choreo::coll {

namespace {
constexpr const char* kAllgatherBruckName = "allgather_bruck";
}  // namespace

CompactSchedule allgather_bruck(int ranks, std::int64_t bytes_per_rank) {
  detail::check_per_rank_bytes(kAllgatherBruckName, ranks, bytes_per_rank);
  const std::int64_t p = ranks, m = bytes_per_rank;
  const int steps = detail::ceil_log2(p);
  // Per rank: 4 copies and a send and a receive a step; each op requires at most 2.
  const auto ops = static_cast<std::uint64_t>(p) * (4 + 2 * static_cast<std::uint64_t>(steps));
  return detail::build_in_steps(
      kAllgatherBruckName, ranks, ops, [&](CompactBuilder& b, detail::Frontier& order, int r) {
        if (m == 0) return;  // nothing moves; MPI libraries return at once
        // The own block goes to block 0 of the receive buffer: step 0 sends it from there.
        order.add(b.copy(m));
        order.end_step();
        for (int i = 0; i < steps; ++i) {
          const std::int64_t distance = std::int64_t{1} << i;
          // Blocks 0..count-1 go to r - 2^i; as many arrive from r + 2^i into blocks 2^i...
          const std::int64_t bytes = std::min(distance, p - distance) * m;
          // The send reads what the copy and the previous steps put in blocks 0..
          detail::sendrecv_step(b, order, detail::mod_sub(r, distance, ranks), bytes,
                                detail::mod_add(r, distance, ranks), bytes, i);
        }
        if (r == 0) return;  // block j holds rank j's data already (Open MPI skips the rotation)
        // Block j holds rank (r + j) mod P's data; rotate down by r through a shift buffer.
        for (const std::int64_t bytes : {(p - r) * m, r * m, (p - r) * m}) {
          const std::uint32_t copy = b.copy(bytes);
          order.gate(b, copy);
          order.add(copy);
          order.end_step();
        }
      });
}

}  // namespace choreo::coll
