#include "cli/gnuplot.hpp"

#include <fmt/core.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <utility>

#include "choreo/core/error.hpp"

namespace choreo::cli {

std::string gnuplot_quoted(const std::string& path) {
  if (path.find_first_of("'\n\r") != std::string::npos)
    throw Error(
        fmt::format("cannot plot to {}: gnuplot takes no quote or line break in a file "
                    "name; rename it",
                    path));
  return "'" + path + "'";
}

void run_gnuplot(const std::string& script, const std::string& output) {
  if (!std::ofstream(output, std::ios::trunc))
    throw Error(
        fmt::format("cannot write {}: check that its folder exists and is writable", output));
  FILE* gp = popen("gnuplot >/dev/null 2>&1", "w");
  if (gp == nullptr) throw Error("cannot run gnuplot: install it (apt-get install gnuplot)");
  fmt::print(gp, "{}", script);
  if (pclose(gp) != 0)
    throw Error(fmt::format("gnuplot failed to write {} (is gnuplot installed?)", output));
}

namespace {

std::string size_label(std::int64_t bytes) {
  constexpr std::array<const char*, 4> units = {"B", "KiB", "MiB", "GiB"};
  std::size_t unit = 0;
  while (unit + 1 < units.size() && bytes >= 1024 && bytes % 1024 == 0) bytes /= 1024, ++unit;
  return fmt::format("{} {}", bytes, units[unit]);
}

std::string time_label(double seconds) {
  constexpr std::array<std::pair<double, const char*>, 4> units = {
      {{1, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}}};
  for (const auto& [scale, name] : units)
    if (seconds >= scale * 0.999) return fmt::format("{:g} {}", seconds / scale, name);
  return fmt::format("{:g} s", seconds);
}

void append(std::string& list, const std::string& label, double at) {
  list += fmt::format("{}'{}' {:g}", list.empty() ? "" : ", ", label, at);
}

}  // namespace

std::string size_tics(std::int64_t low, std::int64_t high) {
  std::int64_t step = 4;
  while (step < (std::int64_t{1} << 40) && low > 0 &&
         static_cast<double>(low) * std::pow(static_cast<double>(step), 8) <
             static_cast<double>(high))
    step *= 4;
  std::int64_t b = 1;
  while (b < low) b *= 4;
  std::string list;
  for (; b <= high; b *= step) append(list, size_label(b), static_cast<double>(b));
  return list;
}

std::string time_tics(double low, double high) {
  std::string list;
  if (!(low > 0) || !(high >= low)) return list;
  for (double t = std::pow(10, std::floor(std::log10(low))); t <= high * 10; t *= 10)
    append(list, time_label(t), t);
  return list;
}

std::string power_of_two_tics(int low_exponent, int high_exponent) {
  const int step = high_exponent - low_exponent > 12 ? 4 : 2;
  std::string list;
  for (int e = low_exponent; e <= high_exponent; e += step) append(list, fmt::format("2^{}", e), e);
  return list;
}

}  // namespace choreo::cli
