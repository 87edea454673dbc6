// The limits of include/choreo/limits.hpp and the overflow error of include/choreo/checked.hpp.
#include "choreo/limits.hpp"

#include <fmt/format.h>

#include <cmath>

#include "choreo/checked.hpp"
#include "choreo/error.hpp"

namespace choreo {

namespace limits {
namespace {
[[noreturn]] void out_of_range(std::string_view what, std::int64_t value, std::int64_t low,
                               std::string_view high) {
  throw Error(fmt::format("{} = {} is out of range: choreo takes {} to {} (docs/formats.md, Limits)",
                          what, value, low, high));
}
}  // namespace

int check_ranks(std::int64_t ranks, std::string_view what) {
  if (ranks < 1 || ranks > kMaxRanks) out_of_range(what, ranks, 1, "2^24 = 16777216 ranks");
  return static_cast<int>(ranks);
}

std::int64_t check_bytes(std::int64_t bytes, std::string_view what) {
  if (bytes < 0 || bytes > kMaxBytes) out_of_range(what, bytes, 0, "2^50 bytes (1 PiB)");
  return bytes;
}

std::int64_t check_nanoseconds(std::int64_t nanoseconds, std::string_view what) {
  if (nanoseconds < 0 || nanoseconds > kMaxNanoseconds)
    out_of_range(what, nanoseconds, 0, "10^15 ns (10^6 s)");
  return nanoseconds;
}

std::int64_t check_ops(std::int64_t ops, std::string_view what) {
  if (ops < 0 || ops > kMaxOps) out_of_range(what, ops, 0, "2^32 - 2 ops");
  return ops;
}

}  // namespace limits

void throw_overflow(std::string_view what, long double a, char op, long double b, int bits) {
  throw Error(fmt::format("{}: {:.0f} {} {:.0f} does not fit {}-bit integers; use smaller values",
                          what, a, op, b, bits));
}

std::int64_t checked_llround(double value, std::string_view what) {
  // 2^63 is exact in a double; every double below it rounds into the int64 range.
  if (!std::isfinite(value) || value >= 9223372036854775808.0 || value < -9223372036854775808.0)
    throw Error(fmt::format("{}: {} does not fit a 64-bit integer; use smaller values", what,
                            value));
  return std::llround(value);
}

}  // namespace choreo
