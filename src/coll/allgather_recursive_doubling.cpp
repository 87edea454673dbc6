// Recursive-doubling allgather: the gathered block doubles every round (powers of two only).
#include <fmt/format.h>

#include <limits>

#include "arguments.hpp"
#include "choreo/coll.hpp"
#include "choreo/error.hpp"

namespace choreo::coll {

namespace {
constexpr const char* kName = "allgather_recursive_doubling";
}  // namespace

sim::CompactSchedule allgather_recursive_doubling(int ranks, std::int64_t bytes_per_rank) {
  detail::check_ranks(kName, ranks);
  detail::check_non_negative(kName, "bytes_per_rank", bytes_per_rank);
  if (!detail::is_power_of_two(ranks))
    throw Error(
        fmt::format("{}: ranks must be a power of two, not {}; use allgather_ring "
                    "for other counts",
                    kName, ranks));
  // The last round moves bytes_per_rank * P / 2 bytes in one message.
  if (bytes_per_rank > std::numeric_limits<std::int64_t>::max() / ranks)
    throw Error(fmt::format("{}: {} ranks x {} bytes overflows a 64-bit byte count", kName, ranks,
                            bytes_per_rank));
  const int rounds = detail::log2_exact(ranks);
  const auto ops = 2ull * static_cast<std::uint64_t>(ranks) * static_cast<std::uint64_t>(rounds);
  sim::CompactBuilder b(ranks, detail::checked_op_count(kName, ranks, ops));
  for (int r = 0; r < ranks; ++r) {
    b.begin_rank(r);
    std::uint32_t previous_recv = detail::kNoOp;
    for (int i = 0; i < rounds; ++i) {
      const int partner = r ^ (1 << i);
      const std::int64_t bytes = bytes_per_rank << i;
      const std::uint32_t send = b.send(partner, bytes, i);
      const std::uint32_t recv = b.recv(partner, bytes, i);
      if (previous_recv != detail::kNoOp) {
        // Round i sends everything gathered so far, including round i-1's block.
        b.requires_completed(send, previous_recv);
        b.requires_completed(recv, previous_recv);
      }
      previous_recv = recv;
    }
  }
  return b.finish();
}

}  // namespace choreo::coll
