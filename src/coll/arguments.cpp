#include "arguments.hpp"

#include <fmt/format.h>

#include <limits>

#include "choreo/core/compact_schedule.hpp"
#include "choreo/core/error.hpp"

namespace choreo::coll::detail {

void check_ranks(const char* generator, int ranks) {
  if (ranks < 1) throw Error(fmt::format("{}: ranks must be at least 1, not {}", generator, ranks));
}

void check_non_negative(const char* generator, const char* name, std::int64_t value) {
  if (value < 0)
    throw Error(fmt::format("{}: {} must be 0 or more, not {}", generator, name, value));
}

void check_root(const char* generator, int ranks, int root) {
  if (root < 0 || root >= ranks)
    throw Error(fmt::format("{}: root {} is not a rank of 0..{}", generator, root, ranks - 1));
}

void check_per_rank_bytes(const char* generator, int ranks, std::int64_t bytes_per_rank) {
  check_ranks(generator, ranks);
  check_non_negative(generator, "bytes_per_rank", bytes_per_rank);
  if (bytes_per_rank > std::numeric_limits<std::int64_t>::max() / ranks)
    throw Error(fmt::format("{}: {} ranks x {} bytes overflows a 64-bit byte count", generator,
                            ranks, bytes_per_rank));
}

std::size_t checked_op_count(const char* generator, int ranks, std::uint64_t ops) {
  // The simulator indexes ops with OpIndex; refuse early rather than after filling memory.
  constexpr std::uint64_t kLimit = std::numeric_limits<OpIndex>::max() - 1;
  if (ops > kLimit)
    throw Error(
        fmt::format("{}: {} ranks need {} ops, more than the {} the simulator can index; "
                    "use fewer ranks",
                    generator, ranks, ops, kLimit));
  return static_cast<std::size_t>(ops);
}

}  // namespace choreo::coll::detail
