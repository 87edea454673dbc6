#pragma once
// `jitter sweep` as both tools run it: `choreo jitter sweep` one point after another, and
// `choreo-mpi sweep jitter` with the trials spread over MPI ranks. The options, the points
// they stand for and the output (CSV, JSON or the summary line, figures) are defined here
// once, so the two commands take the same options and write the same bytes.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "choreo/jitter/params.hpp"
#include "choreo/jitter/study.hpp"
#include "cli/jitter_plot.hpp"

namespace choreo::cli {

/// The command line of a jitter sweep, as parsed.
struct JitterSweepArgs {
  jitter::JitterParams params;
  double net_period = -1, net_duration = -1;  // -1: follow the OS jitter's
  std::string log2_ranks = "1:16";
  std::vector<std::int64_t> ranks;
  std::string axis = "tcomm";  // tcomm: Tcomm/duration, duty: duration/period, none
  std::string x_range;         // empty: the axis's default
  int steps_per_decade = 1;
  std::string coupling = "exchange", redundant_cost = "free";
  std::vector<std::string> algorithms{"butterfly"};
  jitter::StudyOptions study;
  bool auto_t = false;
  double curve_x = 1e-2;
  std::string output, plot;
};

/// Adds the sweep's options to `cmd`; `args` must outlive the parse.
void add_jitter_sweep_options(CLI::App& cmd, JitterSweepArgs& args);

/// One point of the sweep: the parameters at x and P, and the study options for it.
struct JitterSweepPoint {
  double x = 0;
  jitter::JitterParams params;
  std::int64_t ranks = 0;
  jitter::StudyOptions study;
};

/// Every point, in the order the sweep reports them (x outer, P inner), and the x values
/// that are out of reach (Tcomm below alpha).
struct JitterSweepPlan {
  std::vector<JitterSweepPoint> points;
  std::vector<double> skipped_x;
};

/// Resolves the options into points and checks every one as run_point would, so a bad
/// option fails before any work. Throws choreo::Error; prints nothing.
JitterSweepPlan plan_jitter_sweep(const JitterSweepArgs& args);

/// The sweep's output: the CSV (a row as each point is added), the progress lines on
/// stderr, and at finish() the figures and the JSON document or summary line on stdout.
class JitterSweepOutput {
 public:
  /// Opens the CSV and makes the figures' folder, reports the skipped x values on stderr,
  /// and starts the clock. Throws choreo::Error when a file cannot be written.
  JitterSweepOutput(const JitterSweepArgs& args, const JitterSweepPlan& plan);

  /// Point number size() of the plan, with its result.
  void add(const JitterSweepPoint& point, const jitter::PointResult& result);
  std::size_t size() const { return points_.size(); }

  /// Writes the figures (--plot) and prints the JSON document (`json`) or the summary line.
  void finish(bool json);

 private:
  const JitterSweepArgs& args_;
  std::size_t total_ = 0;
  std::vector<double> skipped_x_;
  std::ofstream csv_;
  std::vector<JitterPoint> points_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace choreo::cli
