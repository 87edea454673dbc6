#pragma once
// Shared pieces of the `choreo` command line: each subcommand lives in its own cmd_*.cpp
// and registers itself on the CLI11 app; the callback does the work and may throw
// choreo::Error, which main() turns into one line on stderr and exit code 1.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "../../src/core/human.hpp"
#include "choreo/core/compact_schedule.hpp"

namespace choreo::cli {

/// Options every subcommand sees.
struct Global {
  bool json = false;  ///< print machine-readable JSON instead of a table
};

void add_validate_command(CLI::App& app, const Global& global);
void add_convert_command(CLI::App& app, const Global& global);
void add_pattern_command(CLI::App& app, const Global& global);
void add_schedule_command(CLI::App& app, const Global& global);
void add_platform_command(CLI::App& app, const Global& global);
void add_report_command(CLI::App& app, const Global& global);
void add_sim_command(CLI::App& app, const Global& global);
void add_generate_command(CLI::App& app, const Global& global);
void add_select_command(CLI::App& app, const Global& global);
void add_redist_command(CLI::App& app, const Global& global);
void add_import_command(CLI::App& app, const Global& global);
void add_compare_command(CLI::App& app, const Global& global);

/// Prints JSON to stdout, indented, with a trailing newline.
void print_json(const nlohmann::json& value);

/// Writes a .cbs after sim::validate, with the header's validated flag when it passed (then
/// `choreo sim` does not validate it again). A schedule that fails is still written, without
/// the flag, and a note on stderr says why. Returns whether it passed.
bool save_binary_validated(const CompactSchedule& schedule, const std::string& algorithm,
                           const std::string& path);

}  // namespace choreo::cli
