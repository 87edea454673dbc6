#include "human.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>

namespace choreo {

std::string human_bytes(double bytes) {
  static constexpr std::array<const char*, 5> units{"B", "KiB", "MiB", "GiB", "TiB"};
  std::size_t u = 0;
  while (std::fabs(bytes) >= 1024 && u + 1 < units.size()) {
    bytes /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{:.1f} {}", bytes, units[u]);
}

std::string human_seconds(double seconds) {
  double a = std::fabs(seconds);
  if (a < 1e-6) return fmt::format("{:.0f} ns", seconds * 1e9);
  if (a < 1e-3) return fmt::format("{:.2f} us", seconds * 1e6);
  if (a < 1) return fmt::format("{:.3f} ms", seconds * 1e3);
  return fmt::format("{:.3f} s", seconds);
}

}  // namespace choreo
