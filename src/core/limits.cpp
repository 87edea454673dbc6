// The limits of include/choreo/core/limits.hpp and the overflow error of
// include/choreo/core/checked.hpp.
#include "choreo/core/limits.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>

#include "choreo/core/checked.hpp"
#include "choreo/core/error.hpp"
#include "human.hpp"

namespace choreo {

namespace limits {
namespace {
[[noreturn]] void out_of_range(std::string_view what, std::int64_t value, std::int64_t low,
                               std::string_view high) {
  throw Error(
      fmt::format("{} = {} is out of range: choreo takes {} to {} (docs/formats.md, Limits)", what,
                  value, low, high));
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

std::int64_t check_elements(std::span<const std::int64_t> extents, std::string_view what) {
  std::int64_t elements = 1;
  for (const std::int64_t extent : extents) {
    if (extent < 0)
      throw Error(fmt::format("{}: an extent of {}; extents are 0 or more", what, extent));
    if (extent != 0 && elements > kMaxElements / extent) {
      // The product may not fit 64 bits: say how large it is as a double.
      long double product = 1;
      for (const std::int64_t e : extents) product *= static_cast<long double>(e);
      throw Error(
          fmt::format("{}: {:.3g} elements, more than choreo takes (2^50; "
                      "docs/formats.md, Limits)",
                      what, static_cast<double>(product)));
    }
    elements *= extent;
  }
  if (elements > kMaxElements)
    throw Error(
        fmt::format("{}: {} elements, more than choreo takes (2^50; docs/formats.md, "
                    "Limits)",
                    what, elements));
  return elements;
}

void check_allocation(std::int64_t bytes, std::string_view what) {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return;  // unknown: let the allocation decide
  const long double memory = static_cast<long double>(pages) * static_cast<long double>(page_size);
  if (static_cast<long double>(bytes) > memory)
    throw Error(fmt::format("{}: {} ({} B), more than this machine's {} of memory", what,
                            human_bytes(static_cast<double>(bytes)), bytes,
                            human_bytes(static_cast<double>(memory))));
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
    throw Error(
        fmt::format("{}: {} does not fit a 64-bit integer; use smaller values", what, value));
  return std::llround(value);
}

}  // namespace choreo
