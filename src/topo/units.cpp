// SimGrid's spellings of bandwidth, latency and host speed. choreo parses them itself (rather
// than passing the user's text through) so that mistakes such as "1G" or "1Gbs" fail at once
// with a message, instead of deep inside smpirun, and so that the simulator sees the same
// numbers as SimGrid does.
#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include "choreo/core/error.hpp"
#include "choreo/topo/platform.hpp"

namespace choreo {
namespace {

// A unit is a prefix followed by a base unit; each scales by multiplier / divisor. Keeping
// the divisor separate lets "50us" compute 50 / 1e6, which rounds to exactly the double
// nearest 5e-5, where 50 * 1e-6 would not.
struct Scale {
  std::string_view name;
  double multiplier = 1;
  double divisor = 1;
};

// Decimal prefixes, then binary ones (2^10, 2^20, 2^30, 2^40).
constexpr std::array<Scale, 9> kRatePrefixes{{{"", 1, 1},
                                              {"k", 1e3, 1},
                                              {"M", 1e6, 1},
                                              {"G", 1e9, 1},
                                              {"T", 1e12, 1},
                                              {"Ki", 1024.0, 1},
                                              {"Mi", 1048576.0, 1},
                                              {"Gi", 1073741824.0, 1},
                                              {"Ti", 1099511627776.0, 1}}};
constexpr std::array<Scale, 5> kTimePrefixes{
    {{"", 1, 1}, {"m", 1, 1e3}, {"u", 1, 1e6}, {"n", 1, 1e9}, {"p", 1, 1e12}}};

constexpr std::array<Scale, 2> kBandwidthBases{{{"bps", 1, 8}, {"Bps", 1, 1}}};
constexpr std::array<Scale, 1> kSecondBase{{{"s", 1, 1}}};
constexpr std::array<Scale, 1> kFlopBase{{{"f", 1, 1}}};

struct Quantity {
  std::string_view name;  // "bandwidth": starts every error message
  std::span<const Scale> prefixes;
  std::span<const Scale> bases;
  std::string_view accepted;  // the accepted units, for error messages
  std::string_view example;   // how to write it, for error messages
};

constexpr Quantity kBandwidth{
    "bandwidth", kRatePrefixes, kBandwidthBases,
    "bps, kbps, Mbps, Gbps, Tbps (bits/s) and Bps, kBps, MBps, GBps, TBps (bytes/s), also with "
    "Ki, Mi, Gi, Ti",
    "1Gbps (bits/s) or 125MBps (bytes/s)"};
constexpr Quantity kLatency{"latency", kTimePrefixes, kSecondBase, "s, ms, us, ns, ps",
                            "50us or 1.5ms"};
constexpr Quantity kSpeed{"host speed", kRatePrefixes, kFlopBase,
                          "f, kf, Mf, Gf, Tf (flop/s), also with Ki, Mi, Gi, Ti", "1Gf or 100Mf"};

const Scale* find_scale(std::span<const Scale> scales, std::string_view name) {
  for (const Scale& scale : scales) {
    if (scale.name == name) return &scale;
  }
  return nullptr;
}

[[noreturn]] void fail(const Quantity& quantity, std::string_view text, std::string_view what) {
  throw Error(fmt::format("{} '{}' {}: write e.g. {}; accepted units: {}", quantity.name, text,
                          what, quantity.example, quantity.accepted));
}

// Splits `unit` into its prefix and base; {nullptr, nullptr} when it is not prefix + base.
std::pair<const Scale*, const Scale*> split_unit(const Quantity& quantity, std::string_view unit) {
  for (const Scale& base : quantity.bases) {
    if (!unit.ends_with(base.name)) continue;
    const Scale* prefix =
        find_scale(quantity.prefixes, unit.substr(0, unit.size() - base.name.size()));
    if (prefix != nullptr) return {prefix, &base};
  }
  return {nullptr, nullptr};
}

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

double parse_quantity(const Quantity& quantity, std::string_view raw) {
  const std::string_view text = trim(raw);
  if (text.empty()) fail(quantity, raw, "is empty");

  double number = 0;
  const char* const end = text.data() + text.size();
  const auto [number_end, status] = std::from_chars(text.data(), end, number);
  if (status == std::errc::result_out_of_range) fail(quantity, raw, "is out of range");
  if (status != std::errc{}) fail(quantity, raw, "does not start with a number");
  if (!std::isfinite(number)) fail(quantity, raw, "is not finite");
  if (number < 0) fail(quantity, raw, "is negative");

  const std::string_view unit = trim(std::string_view(number_end, end));
  // Zero is zero in every unit: "--hop-latency 0" means what its "(default 0)" says.
  if (unit.empty() && number == 0) return 0;
  // A lone prefix ("1G") is the common slip: say the unit is missing, not unknown.
  if (unit.empty() || find_scale(quantity.prefixes, unit) != nullptr) {
    fail(quantity, raw, "has no unit");
  }
  const auto [prefix, base] = split_unit(quantity, unit);
  if (prefix == nullptr) fail(quantity, raw, fmt::format("has an unknown unit '{}'", unit));

  const double value =
      number * prefix->multiplier * base->multiplier / (prefix->divisor * base->divisor);
  if (!std::isfinite(value)) fail(quantity, raw, "is out of range");
  return value;
}

// Picks the prefix that leaves the smallest mantissa >= 1 ("125MBps", not "0.125GBps" or
// "125000kBps"). The tolerance keeps 1e-6 s, whose mantissa in us is 0.99999999999999989,
// from becoming "1000ns"; twelve significant digits then hide such last-bit noise.
std::string format_quantity(double value, std::span<const Scale> prefixes, std::string_view base) {
  constexpr double kAlmostOne = 1 - 1e-12;
  const auto mantissa_in = [value](const Scale& prefix) {
    return value * prefix.divisor / prefix.multiplier;
  };
  const Scale* chosen = nullptr;
  const Scale* largest_mantissa = &prefixes.front();
  for (const Scale& prefix : prefixes) {
    if (prefix.name.ends_with('i')) continue;  // binary prefixes are for input only
    const double mantissa = mantissa_in(prefix);
    if (mantissa >= kAlmostOne && (chosen == nullptr || mantissa < mantissa_in(*chosen))) {
      chosen = &prefix;
    }
    if (mantissa > mantissa_in(*largest_mantissa)) largest_mantissa = &prefix;
  }
  // Below every prefix (or zero): the finest unit, e.g. "0.5Bps", "0s".
  if (chosen == nullptr) chosen = value == 0 ? &prefixes.front() : largest_mantissa;
  return fmt::format("{:.12g}{}{}", mantissa_in(*chosen), chosen->name, base);
}

}  // namespace

/// A rate of zero never moves a byte or runs a flop: refused here rather than as an
/// infinite time later. (A zero latency is fine.)
double positive_quantity(const Quantity& quantity, std::string_view text) {
  const double value = parse_quantity(quantity, text);
  if (value == 0) fail(quantity, text, "is zero");
  return value;
}

double parse_bandwidth(std::string_view text) { return positive_quantity(kBandwidth, text); }
double parse_latency(std::string_view text) { return parse_quantity(kLatency, text); }
double parse_speed(std::string_view text) { return positive_quantity(kSpeed, text); }

std::string format_bandwidth(double bytes_per_second) {
  return format_quantity(bytes_per_second, kRatePrefixes, "Bps");
}
std::string format_bandwidth_bits(double bytes_per_second) {
  return format_quantity(bytes_per_second * 8, kRatePrefixes, "bps");
}
std::string format_latency(double seconds) { return format_quantity(seconds, kTimePrefixes, "s"); }
std::string format_speed(double flops) { return format_quantity(flops, kRatePrefixes, "f"); }

}  // namespace choreo
