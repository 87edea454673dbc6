// The delay δ that delay insertion sleeps per empty slot must suit the machine (paper 000
// found 400 µs on its 1 GbE cluster by sweeping it on a gather, Fig. 5). This runs that
// sweep: the gather of all ranks to rank 0, scheduled by Algorithm 1, for every δ in
// [from, to], each run with every byte verified; the δ with the lowest median wins.
#include "calibrate_delay.hpp"

#include <fmt/core.h>
#include <mpi.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "../src/core/human.hpp"
#include "choreo/core/error.hpp"
#include "choreo/mpi/executor.hpp"
#include "choreo/sched/schedulers.hpp"

namespace choreo::tools {

void calibrate_delay(const CalibrateDelayArgs& a, int rank) {
  if (a.steps < 1 || a.to_ns < a.from_ns || a.from_ns < 0)
    throw Error("calibrate-delay needs 0 <= --from <= --to and --steps >= 1");
  int ranks = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const Pattern gather = patterns::gather(ranks, a.bytes);
  const SlotPlan plan = plan_delay_insertion(gather);
  // With no empty slot (2 ranks: one sender, one slot) no delay is ever slept, and the sweep
  // would crown whichever delay the noise favoured.
  const Schedule probe = schedule_from_plan(gather, plan, 1);
  const bool has_delay = std::ranges::any_of(probe.programs, [](const Program& program) {
    return std::ranges::any_of(program.ops, [](const Op& op) { return op.kind == OpKind::Delay; });
  });
  if (!has_delay)
    throw Error(fmt::format(
        "calibrate-delay: a gather of {} ranks has no empty slot, so the delay changes nothing "
        "and the sweep would measure noise; run it with at least 3 ranks",
        ranks));
  mpi::RunOptions options{a.warmup, a.reps};

  nlohmann::json rows = nlohmann::json::array();
  std::int64_t best = a.from_ns;
  double best_median = -1;
  if (rank == 0 && !a.json)
    fmt::print("{:>12} {:>12} {:>12} {:>12}\n", "delta", "median", "min", "max");
  for (int i = 0; i < a.steps; ++i) {
    const std::int64_t delta =
        a.steps == 1 ? a.from_ns : a.from_ns + (a.to_ns - a.from_ns) * i / (a.steps - 1);
    const RunResult r = mpi::run(schedule_from_plan(gather, plan, delta), MPI_COMM_WORLD, options);
    if (best_median < 0 || r.median < best_median) {
      best_median = r.median;
      best = delta;
    }
    rows.push_back({{"delta_ns", delta}, {"median", r.median}, {"min", r.min}, {"max", r.max}});
    if (rank == 0 && !a.json)
      fmt::print("{:>12} {:>12} {:>12} {:>12}\n", human_seconds(static_cast<double>(delta) * 1e-9),
                 human_seconds(r.median), human_seconds(r.min), human_seconds(r.max));
  }
  if (rank != 0) return;
  if (a.json) {
    fmt::print("{}\n",
               nlohmann::json{
                   {"ranks", ranks}, {"bytes", a.bytes}, {"sweep", rows}, {"best_delta_ns", best}}
                   .dump(2));
    return;
  }
  fmt::print("best delay {} ns ({}): gather of {} ranks x {} B, median {}; every byte verified\n",
             best, human_seconds(static_cast<double>(best) * 1e-9), ranks, a.bytes,
             human_seconds(best_median));
}

}  // namespace choreo::tools
