// choreo report RUN.json...: one table row per run result (choreo-mpi run -o RUN.json), and,
// on request, each run against a baseline run and against the pattern's port bound, as a
// table and as a bar chart (report_plot.cpp).
#include <fmt/core.h>

#include <filesystem>
#include <optional>

#include "choreo/core/error.hpp"
#include "choreo/core/io.hpp"
#include "choreo/core/run_result.hpp"
#include "choreo/sched/schedulers.hpp"
#include "choreo/topo/platform.hpp"
#include "cli/common.hpp"
#include "cli/report_plot.hpp"

namespace choreo::cli {
namespace {

struct ReportArgs {
  std::vector<std::string> files;
  std::string baseline;       // a run's label: every run's speed-up against it
  std::string bound_pattern;  // with bandwidth: the port bound of this pattern
  std::string bandwidth;
  std::string plot, title;
};

std::vector<RunResult> read_runs(const std::vector<std::string>& files) {
  std::vector<RunResult> runs;
  for (const auto& f : files) {
    try {
      runs.push_back(run_result_from_json(read_text_file(f)));
    } catch (const Error& e) {
      throw Error(fmt::format("{}: {}", f, e.what()));
    }
  }
  return runs;
}

const RunResult* find_baseline(const std::vector<RunResult>& runs, const std::string& label) {
  if (label.empty()) return nullptr;
  const RunResult* found = nullptr;
  for (const auto& r : runs)
    if (r.label == label) {
      if (found != nullptr)
        throw Error(fmt::format(
            "--baseline '{}': two runs have that label; give each run its own (--label)", label));
      found = &r;
    }
  if (found == nullptr) {
    std::string labels;
    for (const auto& r : runs) labels += fmt::format("{}'{}'", labels.empty() ? "" : ", ", r.label);
    throw Error(
        fmt::format("--baseline '{}': no run has that label; the runs are {}", label, labels));
  }
  if (!(found->median > 0))
    throw Error(
        fmt::format("--baseline '{}': its median time is 0, nothing can be compared to it", label));
  return found;
}

/// The pattern's port bound in seconds: the largest bytes through one rank's send or receive
/// port at `bandwidth`. No schedule of the pattern can be faster on a full-duplex network.
std::optional<double> port_bound_seconds(const ReportArgs& a) {
  if (a.bound_pattern.empty()) return std::nullopt;
  const double bytes_per_second = parse_bandwidth(a.bandwidth);
  return static_cast<double>(port_bytes_lower_bound(load_pattern(a.bound_pattern))) /
         bytes_per_second;
}

std::vector<ReportRow> rows_of(const std::vector<RunResult>& runs, const RunResult* baseline,
                               std::optional<double> bound) {
  std::vector<ReportRow> rows;
  for (const auto& r : runs) {
    ReportRow row{r.label.empty() ? r.algorithm : r.label, r.median, r.min, r.max, {}, {}};
    if (baseline != nullptr && r.median > 0) row.speedup = baseline->median / r.median;
    if (bound && *bound > 0) row.of_bound = r.median / *bound;
    rows.push_back(row);
  }
  return rows;
}

void print_runs(const std::vector<RunResult>& runs) {
  const char* row = "{:<24} {:<20} {:>6} {:<14} {:>9} {:>11} {:>11} {:>11} {:>11}  {}\n";
  fmt::print(fmt::runtime(row), "run", "schedule", "ranks", "algorithm", "messages", "bytes/iter",
             "median", "min", "max", "verified");
  for (const auto& r : runs)
    fmt::print(
        fmt::runtime(row), r.label, std::filesystem::path(r.schedule).filename().string(), r.ranks,
        r.algorithm, r.messages, human_bytes(static_cast<double>(r.bytes_per_iteration)),
        human_seconds(r.median), human_seconds(r.min), human_seconds(r.max),
        r.engine.starts_with("choreo sim") ? std::string("simulated")
                                           : human_bytes(static_cast<double>(r.bytes_verified)));
}

void print_comparison(const std::vector<ReportRow>& rows, const ReportArgs& a,
                      std::optional<double> bound) {
  fmt::print("\n");
  if (bound)
    fmt::print(
        "port bound {} (largest bytes through one port of {} at {}; no schedule is faster)\n",
        human_seconds(*bound), std::filesystem::path(a.bound_pattern).filename().string(),
        a.bandwidth);
  const char* row = "{:<24} {:>11} {:>26} {:>12}\n";
  fmt::print(fmt::runtime(row), "run", "median",
             a.baseline.empty() ? std::string("-") : fmt::format("vs {}", a.baseline),
             bound ? "x port bound" : "-");
  for (const auto& r : rows)
    fmt::print(fmt::runtime(row), r.label, human_seconds(r.median), speedup_text(r, a.baseline),
               r.of_bound ? fmt::format("{:.3f}", *r.of_bound) : std::string("-"));
}

nlohmann::json comparison_json(const std::vector<RunResult>& runs,
                               const std::vector<ReportRow>& rows, const ReportArgs& a,
                               std::optional<double> bound) {
  nlohmann::json out = {
      {"format", "choreo.report/1"},
      {"baseline", a.baseline.empty() ? nlohmann::json() : nlohmann::json(a.baseline)},
      {"port_bound_seconds", bound ? nlohmann::json(*bound) : nlohmann::json()},
      {"runs", nlohmann::json::array()}};
  for (std::size_t i = 0; i < runs.size(); ++i) {
    auto run = nlohmann::json::parse(run_result_to_json(runs[i]));
    run["speedup_vs_baseline"] =
        rows[i].speedup ? nlohmann::json(*rows[i].speedup) : nlohmann::json();
    run["ratio_to_port_bound"] =
        rows[i].of_bound ? nlohmann::json(*rows[i].of_bound) : nlohmann::json();
    out["runs"].push_back(run);
  }
  return out;
}

void run(const ReportArgs& a, const Global& global) {
  if (!a.bound_pattern.empty() && a.bandwidth.empty())
    throw Error("--bound PATTERN needs the port bandwidth: add --bandwidth, e.g. 1Gbps");
  if (a.bound_pattern.empty() && !a.bandwidth.empty())
    throw Error(
        "--bandwidth is for the port bound: add --bound PATTERN (the pattern the runs ran)");
  const std::vector<RunResult> runs = read_runs(a.files);
  const RunResult* baseline = find_baseline(runs, a.baseline);
  const std::optional<double> bound = port_bound_seconds(a);
  const std::vector<ReportRow> rows = rows_of(runs, baseline, bound);
  const bool compare = baseline != nullptr || bound.has_value();
  if (!a.plot.empty()) plot_report(rows, bound, a.baseline, a.title, a.plot);
  if (global.json) {
    if (!compare) {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& r : runs) out.push_back(nlohmann::json::parse(run_result_to_json(r)));
      return print_json(out);
    }
    return print_json(comparison_json(runs, rows, a, bound));
  }
  print_runs(runs);
  if (compare) print_comparison(rows, a, bound);
  if (!a.plot.empty()) fmt::print("wrote {}\n", a.plot);
}

}  // namespace

void add_report_command(CLI::App& app, const Global& global) {
  auto a = std::make_shared<ReportArgs>();
  auto* cmd =
      app.add_subcommand("report", "Tabulate run results side by side (from choreo-mpi run -o)");
  cmd->add_option("RUN", a->files, "Run result files (choreo.run/1 JSON)")->required();
  cmd->add_option("--baseline", a->baseline,
                  "The label of the run to compare with: every run's speed-up against it (its "
                  "median over each run's median)");
  cmd->add_option("--bound", a->bound_pattern,
                  "The pattern the runs ran (.json): its port bound (largest bytes through one "
                  "port / --bandwidth) and each run's ratio to it");
  cmd->add_option("--bandwidth", a->bandwidth, "Port bandwidth for --bound, e.g. 1Gbps or 125MBps");
  cmd->add_option("--plot", a->plot,
                  "Also draw the runs as bars (median, min-max whiskers) with the bound and the "
                  "speed-ups (.png or .svg)");
  cmd->add_option("--title", a->title, "Title of the --plot figure");
  cmd->callback([a, &global] { run(*a, global); });
}

}  // namespace choreo::cli
