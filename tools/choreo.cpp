// choreo: design, check and convert MPI communication schedules.
#include <fmt/core.h>

#include <CLI/CLI.hpp>

#include "choreo/core/error.hpp"
#include "cli/cmd_jitter.hpp"
#include "cli/common.hpp"
#include "command_line.hpp"

int main(int argc, char** argv) {
  CLI::App app{"choreo: schedules, models and executors for MPI collective communication"};
  app.set_version_flag("--version", std::string("choreo ") + CHOREO_VERSION);
  app.require_subcommand(1);
  app.fallthrough();  // `choreo validate s.json --json` as well as `choreo --json validate ...`
  choreo::cli::Global global;
  app.add_flag("--json", global.json, "Print results as JSON instead of a table");

  choreo::cli::add_validate_command(app, global);
  choreo::cli::add_convert_command(app, global);
  choreo::cli::add_pattern_command(app, global);
  choreo::cli::add_schedule_command(app, global);
  choreo::cli::add_platform_command(app, global);
  choreo::cli::add_report_command(app, global);
  choreo::cli::add_generate_command(app, global);
  choreo::cli::add_select_command(app, global);
  choreo::cli::add_sim_command(app, global);
  choreo::cli::add_compare_command(app, global);
  choreo::cli::add_import_command(app, global);
  choreo::cli::add_redist_command(app, global);
  choreo::cli::add_jitter_command(app, global);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return choreo::tools::report_parse_error(app, e, "choreo");
  } catch (const choreo::Error& e) {
    fmt::print(stderr, "choreo: error: {}\n", e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "choreo: error: out of memory; give a smaller input\n");
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "choreo: internal error: {} (please report it)\n", e.what());
    return 2;
  }
  return 0;
}
