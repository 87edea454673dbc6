// Bruck's alltoall (Open MPI's ompi_coll_base_alltoall_intra_bruck): a local rotation,
// ceil(log2 P) steps each moving the blocks whose index has bit i set, an inverse rotation.
#include <algorithm>

#include "arguments.hpp"
#include "choreo/coll/generators.hpp"
#include "steps.hpp"

namespace choreo::coll {

namespace {

constexpr const char* kAlltoallBruckName = "alltoall_bruck";

/// How many of the block indices 1..P-1 have bit `bit` set.
std::int64_t blocks_with_bit(std::int64_t p, int bit) {
  const std::int64_t period = std::int64_t{2} << bit, half = std::int64_t{1} << bit;
  return p / period * half + std::max<std::int64_t>(0, p % period - half);
}

}  // namespace

CompactSchedule alltoall_bruck(int ranks, std::int64_t bytes_per_rank) {
  detail::check_per_rank_bytes(kAlltoallBruckName, ranks, bytes_per_rank);
  const std::int64_t p = ranks, m = bytes_per_rank;
  const int steps = detail::ceil_log2(p);
  // Per rank: 2 rotations, and a send, a receive and a copy a step.
  const auto ops = static_cast<std::uint64_t>(p) * (2 + 3 * static_cast<std::uint64_t>(steps));
  return detail::build_in_steps(
      kAlltoallBruckName, ranks, ops, [&](CompactBuilder& b, detail::Frontier& order, int r) {
        if (m == 0) return;  // nothing moves; MPI libraries return at once
        // Rotation: block i of the work buffer is the one for rank (r + i) mod P.
        order.add(b.copy(p * m));
        order.end_step();
        for (int i = 0; i < steps; ++i) {
          const std::int64_t distance = std::int64_t{1} << i, bytes = blocks_with_bit(p, i) * m;
          // The send reads what the rotation and the previous copies put in place.
          const detail::SendRecv sendrecv =
              detail::gated_sendrecv(b, order, detail::mod_add(r, distance, ranks), bytes,
                                     detail::mod_sub(r, distance, ranks), bytes, i);
          // The received blocks go where the sent ones were (Open MPI receives into the receive
          // buffer and copies back): after the send read them, and after the receive.
          const std::uint32_t copy = b.copy(bytes);
          b.requires_completed(copy, sendrecv.send);
          b.requires_completed(copy, sendrecv.recv);
          order.add(copy);
          order.end_step();
        }
        // Inverse rotation: block i came from rank (r - i) mod P and goes to receive block r - i.
        order.gate(b, b.copy(p * m));
      });
}

}  // namespace choreo::coll
