// choreo jitter sweep: paper 004's simulation study of the jitter-resilient butterfly
// allreduce, over P and one noise axis, to CSV, JSON and gnuplot figures. The options and the
// output are jitter_sweep.hpp's, shared with `choreo-mpi sweep jitter`.
#include "cli/cmd_jitter.hpp"

#include <memory>

#include "choreo/jitter/study.hpp"
#include "cli/jitter_sweep.hpp"

namespace choreo::cli {
namespace {

void run(const JitterSweepArgs& a, const Global& global) {
  const JitterSweepPlan plan = plan_jitter_sweep(a);
  JitterSweepOutput output(a, plan);
  for (const JitterSweepPoint& point : plan.points)
    output.add(point, jitter::run_point(point.params, point.ranks, point.study));
  output.finish(global.json);
}

}  // namespace

void add_jitter_command(CLI::App& app, const Global& global) {
  auto* jitter_cmd = app.add_subcommand(
      "jitter", "Paper 004: the jitter-resilient butterfly allreduce under OS and network noise");
  jitter_cmd->require_subcommand(1);
  auto a = std::make_shared<JitterSweepArgs>();
  auto* cmd = jitter_cmd->add_subcommand(
      "sweep", "Simulate plain and resilient butterfly allreduce over P and one noise axis");
  add_jitter_sweep_options(*cmd, *a);
  cmd->callback([a, &global] { run(*a, global); });
}

}  // namespace choreo::cli
