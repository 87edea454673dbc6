// choreo compare: schedules under several simulated settings side by side (sim_compare.hpp).
#include <fmt/core.h>

#include <chrono>
#include <memory>

#include "cli/common.hpp"
#include "cli/sim_compare.hpp"

namespace choreo::cli {

void add_compare_command(CLI::App& app, const Global& global) {
  auto a = std::make_shared<SimCompareArgs>();
  auto* cmd = app.add_subcommand(
      "compare",
      "Simulate schedules under several settings side by side: every FILE and --generate spec "
      "under every --setting (choreo sim's model options), noisy settings over --trials seeds; "
      "median, range and ratio to the first setting. choreo-mpi sweep compare spreads the same "
      "work over MPI ranks and prints the same bytes");
  add_sim_compare_options(*cmd, *a);
  cmd->callback([a, &global] {
    const ComparePlan plan = plan_compare(*a);
    CompareOutput output(*a, plan);
    CompareRunner runner(plan);
    std::vector<PartResult> results;
    results.reserve(plan.parts.size());
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < plan.parts.size(); ++i) {
      results.push_back(runner.run(plan.parts[i]));
      const bool schedule_done =
          i + 1 == plan.parts.size() || plan.parts[i + 1].schedule != plan.parts[i].schedule;
      if (schedule_done)
        fmt::print(stderr, "compare: schedule {}/{} done ({:.1f} s)\n", plan.parts[i].schedule + 1,
                   plan.schedules.size(),
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    output.finish(results, global.json);
  });
}

}  // namespace choreo::cli
