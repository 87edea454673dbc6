// choreo schedule --algo auto (schedule_auto.hpp).
#include "cli/schedule_auto.hpp"

#include <fmt/core.h>

#include "choreo/model/profile.hpp"
#include "choreo/sched/exchange_plan.hpp"
#include "choreo/sched/schedulers.hpp"

namespace choreo::cli {
namespace {

/// The schedule plan_exchange's kept candidate runs: the same deterministic schedulers.
Schedule schedule_of(const Pattern& pattern, const ExchangePlan& plan) {
  switch (plan.algorithm) {
    case ExchangeAlgorithm::Direct:
      return schedule_direct(pattern);
    case ExchangeAlgorithm::Ring:
      return schedule_from_plan(pattern, plan_ring(pattern), 0);
    case ExchangeAlgorithm::Delay:
      return schedule_from_plan(pattern, plan_delay_insertion(pattern), plan.delta_ns);
    case ExchangeAlgorithm::OptimalPaced:
      return schedule_from_plan(pattern, plan_optimal(pattern), plan.delta_ns, Pacing::EverySlot);
    case ExchangeAlgorithm::Auto:
    case ExchangeAlgorithm::Optimal:
      break;
  }
  return schedule_from_plan(pattern, plan_optimal(pattern), plan.delta_ns);
}

nlohmann::json to_json(const ExchangePlan& plan, const ExchangeModel& model) {
  nlohmann::json candidates = nlohmann::json::array();
  for (const ExchangeCandidate& c : plan.candidates)
    candidates.push_back({{"algorithm", to_string(c.algorithm)},
                          {"predicted_ns", c.predicted_ns},
                          {"slots", c.slots},
                          {"delays", c.delays},
                          {"delta_ns", c.delta_ns},
                          {"simulated", c.simulated}});
  const sim::LogGOPS& p = model.params;
  return {{"kept", to_string(plan.algorithm)},
          {"predicted_ns", plan.predicted_ns},
          {"direct_ns", plan.direct_ns},
          {"delta_ns", plan.delta_ns},
          {"degree_bound", plan.degree_bound},
          {"model", {{"L", p.L}, {"o", p.o}, {"g", p.g}, {"G", p.G}, {"O", p.O}, {"S", p.S}}},
          {"candidates", candidates}};
}

void print_table(const ExchangePlan& plan) {
  fmt::print("{:<14} {:>14} {:>6} {:>7} {:>11} {}\n", "candidate", "predicted", "slots", "delays",
             "delta", "by");
  for (const ExchangeCandidate& c : plan.candidates)
    fmt::print("{:<14} {:>14} {:>6} {:>7} {:>11} {}{}\n", to_string(c.algorithm),
               human_seconds(static_cast<double>(c.predicted_ns) * 1e-9), c.slots, c.delays,
               c.delta_ns > 0 ? human_seconds(static_cast<double>(c.delta_ns) * 1e-9) : "-",
               c.simulated ? "choreo sim" : "paper 000's model",
               c.algorithm == plan.algorithm ? "  <- kept" : "");
  fmt::print("kept {}: {} against {} for direct (MPI_Alltoallv's stand-in), {:.3f}x\n",
             to_string(plan.algorithm),
             human_seconds(static_cast<double>(plan.predicted_ns) * 1e-9),
             human_seconds(static_cast<double>(plan.direct_ns) * 1e-9),
             plan.predicted_ns > 0
                 ? static_cast<double>(plan.direct_ns) / static_cast<double>(plan.predicted_ns)
                 : 1.0);
}

}  // namespace

Schedule schedule_auto(const Pattern& pattern, const std::string& profile,
                       const ModelOverrides& overrides, const Global& global) {
  ExchangeModel model = profile.empty() ? ExchangeModel::defaults()
                                        : ExchangeModel::from_profile(read_profile(profile));
  if (overrides.L) model.params.L = *overrides.L;
  if (overrides.o) model.params.o = *overrides.o;
  if (overrides.G) model.params.G = *overrides.G;
  const ExchangePlan plan = plan_exchange(pattern, model);
  if (global.json)
    print_json(to_json(plan, model));
  else
    print_table(plan);
  return schedule_of(pattern, plan);
}

}  // namespace choreo::cli
