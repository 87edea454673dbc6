// Bruck's alltoall (Open MPI's ompi_coll_base_alltoall_intra_bruck): a local rotation,
// ceil(log2 P) steps each moving the blocks whose index has bit i set, an inverse rotation.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "arguments.hpp"
#include "choreo/coll.hpp"
#include "choreo/error.hpp"
#include "steps.hpp"

namespace choreo::coll {

namespace {

constexpr const char* kName = "alltoall_bruck";

/// How many of the block indices 1..P-1 have bit `bit` set.
std::int64_t blocks_with_bit(std::int64_t p, int bit) {
  const std::int64_t period = std::int64_t{2} << bit, half = std::int64_t{1} << bit;
  return p / period * half + std::max<std::int64_t>(0, p % period - half);
}

}  // namespace

sim::CompactSchedule alltoall_bruck(int ranks, std::int64_t bytes_per_rank) {
  detail::check_ranks(kName, ranks);
  detail::check_non_negative(kName, "bytes_per_rank", bytes_per_rank);
  if (bytes_per_rank > std::numeric_limits<std::int64_t>::max() / ranks)
    throw Error(fmt::format("{}: {} ranks x {} bytes overflows a 64-bit byte count", kName, ranks,
                            bytes_per_rank));
  const std::int64_t p = ranks, m = bytes_per_rank;
  const int steps = detail::ceil_log2(p);
  // Per rank: 2 rotations, and a send, a receive and a copy a step.
  const auto ops = static_cast<std::uint64_t>(p) * (2 + 3 * static_cast<std::uint64_t>(steps));
  sim::CompactBuilder b(ranks, detail::checked_op_count(kName, ranks, ops), 2 * ops);
  detail::Frontier order;
  for (int r = 0; r < ranks; ++r) {
    b.begin_rank(r);
    if (m == 0) continue;  // nothing moves; MPI libraries return at once
    order.reset();
    // Rotation: block i of the work buffer is the one for rank (r + i) mod P.
    order.add(b.copy(p * m));
    order.end_step();
    for (int i = 0; i < steps; ++i) {
      const std::int64_t distance = std::int64_t{1} << i, bytes = blocks_with_bit(p, i) * m;
      const std::uint32_t send = b.send(detail::mod_add(r, distance, ranks), bytes, i);
      const std::uint32_t recv = b.recv(detail::mod_sub(r, distance, ranks), bytes, i);
      order.gate(b, send);  // sends what the rotation and the previous copies put in place
      order.gate(b, recv);  // a sendrecv loop: one step at a time
      // The received blocks go where the sent ones were (Open MPI receives into the receive
      // buffer and copies back): after the send read them, and after the receive.
      const std::uint32_t copy = b.copy(bytes);
      b.requires_completed(copy, send);
      b.requires_completed(copy, recv);
      order.add(copy);
      order.end_step();
    }
    // Inverse rotation: block i came from rank (r - i) mod P and goes to receive block r - i.
    order.gate(b, b.copy(p * m));
  }
  return b.finish();
}

}  // namespace choreo::coll
