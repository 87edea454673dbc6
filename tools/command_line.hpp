#pragma once
// What choreo and choreo-mpi share on the command line: number checks whose messages say the
// bound plainly (CLI11's PositiveNumber quotes DBL_MAX in 309 digits), and the one-line,
// exit-1 answer to a command-line mistake.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <string>

#include "choreo/error.hpp"
#include "choreo/select.hpp"  // parse_size

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
