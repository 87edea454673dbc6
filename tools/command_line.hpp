#pragma once
// What choreo and choreo-mpi share on the command line: number checks whose messages say the
// bound plainly (CLI11's PositiveNumber quotes DBL_MAX in 309 digits), and the one-line,
// exit-1 answer to a command-line mistake.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <string>

#include "choreo/core/error.hpp"
#include "choreo/select/select.hpp"  // parse_size
#include "choreo/topo/platform.hpp"  // parse_latency, parse_bandwidth

namespace choreo::tools {

/// A number >= `min` ("must be at least 1, not 0").
inline CLI::Validator at_least(double min) {
  return CLI::Validator(
      [min](std::string& text) -> std::string {
        double value = 0;
        if (!CLI::detail::lexical_cast(text, value))
          return fmt::format("'{}' is not a number", text);
        if (!(value >= min)) return fmt::format("must be at least {}, not {}", min, text);
        return {};
      },
      fmt::format("NUMBER >= {}", min));
}

/// A number > 0.
inline CLI::Validator positive() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double value = 0;
        if (!CLI::detail::lexical_cast(text, value))
          return fmt::format("'{}' is not a number", text);
        if (!(value > 0)) return fmt::format("must be above 0, not {}", text);
        return {};
      },
      "NUMBER > 0");
}

/// A byte count as `select --sizes` writes it: "4096", "64K", "64KiB", "64M" (powers of 1024).
/// A transform: the option then reads the plain number of bytes.
inline CLI::Validator byte_size() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        try {
          text = std::to_string(select::parse_size(text));
        } catch (const Error& e) {
          return e.what();
        }
        return {};
      },
      "BYTES");
}

/// A time in the option's own unit (`unit_seconds`: 1e-9 for ns, 1 for s): a bare number is
/// read in that unit, as before units were accepted ("400000" ns); with a unit ("400us",
/// "1.5ms", "2s") it is converted. A transform: the option then reads the plain number,
/// rounded to a whole number when `whole` (integer options).
inline CLI::Validator time_in(double unit_seconds, bool whole) {
  return CLI::Validator(
      [unit_seconds, whole](std::string& text) -> std::string {
        double bare = 0;
        if (CLI::detail::lexical_cast(text, bare)) return {};  // already in the option's unit
        try {
          const double value = parse_latency(text) / unit_seconds;
          text = whole ? std::to_string(std::llround(value)) : fmt::format("{:.17g}", value);
        } catch (const Error& e) {
          return e.what();
        }
        return {};
      },
      unit_seconds == 1 ? "SECONDS" : "NS");
}
inline CLI::Validator time_ns() { return time_in(1e-9, true); }
inline CLI::Validator time_ns_fraction() { return time_in(1e-9, false); }
inline CLI::Validator time_seconds() { return time_in(1, false); }

/// A cost per byte in the option's unit (`unit_seconds` per byte: 1e-9 for ns/B): a bare number
/// in that unit, or a bandwidth ("1Gbps" is 8 ns/B, "10GBps" 0.1 ns/B).
inline CLI::Validator per_byte_in(double unit_seconds) {
  return CLI::Validator(
      [unit_seconds](std::string& text) -> std::string {
        double bare = 0;
        if (CLI::detail::lexical_cast(text, bare)) return {};
        try {
          text = fmt::format("{:.17g}", 1 / parse_bandwidth(text) / unit_seconds);
        } catch (const Error& e) {
          return e.what();
        }
        return {};
      },
      unit_seconds == 1 ? "S/BYTE" : "NS/BYTE");
}
inline CLI::Validator per_byte_ns() { return per_byte_in(1e-9); }

/// The answer to a command-line mistake: help and version print as CLI11 does (exit 0);
/// anything else is one line on stderr and exit code 1, like every other bad input.
inline int report_parse_error(const CLI::App& app, const CLI::ParseError& e, const char* tool) {
  if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
  std::string what = e.what();
  std::replace(what.begin(), what.end(), '\n', ' ');
  fmt::print(stderr, "{}: error: {}; see {} --help\n", tool, what, tool);
  return 1;
}

}  // namespace choreo::tools
