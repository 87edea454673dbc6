// choreo report RUN.json...: one table row per run result (choreo-mpi run -o RUN.json).
#include <fmt/core.h>

#include <filesystem>

#include "choreo/error.hpp"
#include "choreo/io.hpp"
#include "choreo/run_result.hpp"
#include "cli/common.hpp"

namespace choreo::cli {

void add_report_command(CLI::App& app, const Global& global) {
  auto files = std::make_shared<std::vector<std::string>>();
  auto* cmd =
      app.add_subcommand("report", "Tabulate run results side by side (from choreo-mpi run -o)");
  cmd->add_option("RUN", *files, "Run result files (choreo.run/1 JSON)")->required();
  cmd->callback([files, &global] {
    std::vector<RunResult> runs;
    for (const auto& f : *files) {
      try {
        runs.push_back(run_result_from_json(read_text_file(f)));
      } catch (const Error& e) {
        throw Error(fmt::format("{}: {}", f, e.what()));
      }
    }
    if (global.json) {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& r : runs) out.push_back(nlohmann::json::parse(run_result_to_json(r)));
      return print_json(out);
    }
    const char* row = "{:<24} {:<20} {:>6} {:<10} {:>9} {:>11} {:>11} {:>11} {:>11}  {}\n";
    fmt::print(fmt::runtime(row), "run", "schedule", "ranks", "algorithm", "messages", "bytes/iter",
               "median", "min", "max", "verified");
    for (const auto& r : runs)
      fmt::print(fmt::runtime(row), r.label, std::filesystem::path(r.schedule).filename().string(),
                 r.ranks, r.algorithm, r.messages,
                 human_bytes(static_cast<double>(r.bytes_per_iteration)), human_seconds(r.median),
                 human_seconds(r.min), human_seconds(r.max),
                 r.engine.starts_with("choreo sim")
                     ? std::string("simulated")
                     : human_bytes(static_cast<double>(r.bytes_verified)));
  });
}

}  // namespace choreo::cli
