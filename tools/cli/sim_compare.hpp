#pragma once
// The settings comparison, as both tools run it: `choreo compare` part after part, and
// `choreo-mpi sweep compare` with the parts spread over MPI ranks. Every schedule (a FILE or a
// generator spec) is simulated under every setting (a string of `choreo sim`'s model options),
// a setting with noise once per trial (noise seeds seed, seed+1, ...). The options, the parts
// they stand for and the output (the table or JSON on stdout, the CSV) are defined here once,
// so the two commands take the same options and write the same bytes.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "choreo/sim/engine.hpp"
#include "cli/sim_load.hpp"

namespace choreo::cli {

/// The command line, as parsed.
struct SimCompareArgs {
  std::vector<std::string> files, generate;
  std::vector<std::string> settings;
  int trials = 1;
  bool no_validate = false;
  std::string csv, plot;
};

/// Adds the comparison's options to `cmd`; `args` must outlive the parse.
void add_sim_compare_options(CLI::App& cmd, SimCompareArgs& args);

/// One setting: its name, its options as given and the simulator's options they make.
struct CompareSetting {
  std::string name, options;
  sim::SimOptions sim;
  int trials = 1;  ///< the requested trials with noise, else 1 (a quiet run is deterministic)
};

/// One simulation: a schedule under a setting, in trial `trial` (noise seed: the setting's
/// seed + trial).
struct ComparePart {
  std::size_t schedule = 0, setting = 0;
  int trial = 0;
};

/// The schedules, the settings and every part in the order the comparison reports them
/// (schedule, then setting, then trial).
struct ComparePlan {
  std::vector<SimSource> schedules;
  std::vector<CompareSetting> settings;
  std::vector<ComparePart> parts;
};

/// Resolves the options and checks every setting, so a bad one fails before any simulation.
/// Throws choreo::Error naming the setting and the problem; prints nothing.
ComparePlan plan_compare(const SimCompareArgs& args);

/// What one part measured.
struct PartResult {
  std::int64_t makespan = 0, events = 0;
};

/// Runs parts in plan order, keeping the schedule of the last part loaded (a rank that runs
/// every k-th part loads each schedule once).
class CompareRunner {
 public:
  explicit CompareRunner(const ComparePlan& plan) : plan_(plan) {}
  PartResult run(const ComparePart& part);
  /// The name a schedule is reported by (its file or spec).
  static std::string name_of(const SimSource& source);

 private:
  const ComparePlan& plan_;
  std::size_t loaded_ = static_cast<std::size_t>(-1);
  SimSchedule schedule_;
};

/// The comparison's output: the CSV (--csv: a row per part), the figure (--plot: a panel per
/// schedule, a bar per setting at its median makespan, whiskers from the least to the
/// greatest), and the table or the JSON document on stdout: per schedule and setting the
/// median, least and greatest makespan over its trials and the median's ratio to the first
/// setting's.
class CompareOutput {
 public:
  /// Opens the CSV and the figure's file. Throws choreo::Error when one cannot be written.
  CompareOutput(const SimCompareArgs& args, const ComparePlan& plan);
  /// Writes everything; `results` are the parts' in plan order.
  void finish(const std::vector<PartResult>& results, bool json);

 private:
  const ComparePlan& plan_;
  std::string plot_;
  std::ofstream csv_;
};

}  // namespace choreo::cli
