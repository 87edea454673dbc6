#include "schedule_checks.hpp"

#include "choreo/core/compact_schedule.hpp"
#include "choreo/core/goal_io.hpp"
#include "choreo/core/json_io.hpp"
#include "choreo/core/validate.hpp"
#include "choreo/sim/engine.hpp"
#include "fuzz_support.hpp"

namespace choreo::fuzz {
namespace {

/// The largest size for which a step of the default LogGOPS model (G = 6 ns/B) stays within
/// the 10^15 ns the simulator takes per step.
constexpr std::int64_t kSimulatedBytes = std::int64_t{1} << 40;

bool small_enough_to_simulate(const Schedule& s) {
  std::int64_t ops = 0;
  for (const Program& p : s.programs) {
    ops += static_cast<std::int64_t>(p.ops.size());
    for (const Op& op : p.ops)
      if (op.bytes > kSimulatedBytes) return false;
  }
  return ops <= 4096;
}

}  // namespace

void check_schedule(const Schedule& s) {
  // A few bytes may declare millions of empty ranks (num_ranks 16777216): the reader's cost,
  // within the time limit; what follows is checked on schedules of up to 4096 ranks.
  if (s.ranks > 4096) return;
  // JSON round trip: exact.
  std::string json;
  if (accepted([&] { json = schedule_to_json(s); }))
    promise(schedule_from_json(json) == s, "schedule_from_json(schedule_to_json(s)) == s");
  // GOAL round trip: exact when the writer takes it (it refuses what GOAL cannot say).
  std::string goal;
  if (accepted([&] { goal = schedule_to_goal(s); })) {
    Schedule back;
    promise(accepted([&] { back = schedule_from_goal(goal); }), "the GOAL writer's output reads");
    promise(schedule_to_goal(back) == goal, "GOAL written, read and written again is the same");
  }
  // What validate accepts, the simulator finishes.
  if (!accepted([&] { validate(s); }) || !small_enough_to_simulate(s)) return;
  sim::SimResult result;
  promise(accepted([&] { result = sim::simulate(choreo::compact(s), sim::SimOptions{}); }),
          "a schedule validate accepts simulates");
  promise(result.makespan >= 0, "the makespan is not negative");
}

}  // namespace choreo::fuzz
