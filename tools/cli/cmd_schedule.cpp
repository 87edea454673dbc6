// choreo schedule --algo ALGO p.json -o s.json: turn a pattern into a schedule, and report
// what paper 000 reports for it (slots, delays, contention, predicted makespan).
#include <fmt/core.h>

#include "choreo/io.hpp"
#include "choreo/sched.hpp"
#include "choreo/validate.hpp"
#include "cli/common.hpp"

namespace choreo::cli {
namespace {

struct Args {
  std::string algo = "direct", in, out;
  std::int64_t delta_ns = 400000;  // paper 000's best delay on its 1 GbE cluster (Fig. 5)
  SlotModel model;
};

void run(const Args& a, const Global& global) {
  const Pattern pattern = load_pattern(a.in);
  Schedule s;
  nlohmann::json report{{"output", a.out}, {"algorithm", a.algo}};
  if (a.algo == "direct") {
    s = schedule_direct(pattern);
  } else if (a.algo == "phases") {
    s = schedule_phases(pattern);
  } else {
    const SlotPlan plan = a.algo == "ring"    ? plan_ring(pattern)
                          : a.algo == "delay" ? plan_delay_insertion(pattern)
                                              : plan_optimal(pattern);
    check_plan(pattern, plan, a.algo != "ring");  // the slotted schedulers promise no contention
    s = schedule_from_plan(pattern, plan, a.delta_ns);
    const PlanReport r = report_plan(pattern, plan, a.model);
    report.update(
        {{"slots", r.slots},
         {"delays", r.delays},
         {"contention_pairs", r.contention_pairs},
         {"degree_bound", r.degree_bound},
         {"predicted_ns", r.predicted_ns >= 0 ? nlohmann::json(r.predicted_ns) : nlohmann::json()},
         {"lower_bound_ns", r.lower_bound_ns},
         {"ratio", r.predicted_ns >= 0 && r.lower_bound_ns > 0
                       ? nlohmann::json(static_cast<double>(r.predicted_ns) /
                                        static_cast<double>(r.lower_bound_ns))
                       : nlohmann::json()}});
  }
  validate(s);  // a scheduler's output must always pass; fail loudly if it does not
  save_schedule(s, a.out);
  report.update(
      {{"ranks", s.ranks}, {"messages", s.message_count()}, {"bytes", s.message_bytes()}});
  if (global.json) return print_json(report);
  fmt::print("wrote {}: {} schedule, {} ranks, {} messages, {}\n", a.out, s.algorithm, s.ranks,
             s.message_count(), human_bytes(static_cast<double>(s.message_bytes())));
  if (!report.contains("slots")) return;
  fmt::print("slots {} (degree bound {}), delays {}, contention pairs (eq. 12) {}\n",
             report["slots"].get<int>(), report["degree_bound"].get<int>(),
             report["delays"].get<int>(), report["contention_pairs"].get<std::int64_t>());
  if (report["predicted_ns"].is_null())
    fmt::print("predicted makespan: none (the model assumes no contention), lower bound {}\n",
               human_seconds(report["lower_bound_ns"].get<double>() * 1e-9));
  else
    fmt::print("predicted makespan (eqs. 13-16) {}, lower bound {}, ratio {:.3f}\n",
               human_seconds(report["predicted_ns"].get<double>() * 1e-9),
               human_seconds(report["lower_bound_ns"].get<double>() * 1e-9),
               report["ratio"].get<double>());
}

}  // namespace

void add_schedule_command(CLI::App& app, const Global& global) {
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("schedule", "Schedule a pattern: the send order of every rank");
  cmd->add_option("PATTERN", a->in, "Pattern file (.json)")->required();
  cmd->add_option("--algo", a->algo,
                  "direct: receives, then sends to r+1, r+2, ... at once; ring: Thakur's ring "
                  "(slots, no delays); delay: paper 000's delay insertion (Algorithms 1-2); "
                  "optimal: fewest contention-free slots (edge colouring); phases: those slots "
                  "separated by barriers (CC-MPI)")
      ->check(CLI::IsMember({"direct", "ring", "delay", "optimal", "phases"}));
  cmd->add_option("--delta", a->delta_ns, "Delay per empty slot, ns (default 400000, paper 000)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--L", a->model.L, "Prediction model: latency, ns")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--o", a->model.o, "Prediction model: overhead, ns")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--G", a->model.G, "Prediction model: gap per byte, ns")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("-o,--output", a->out, "Schedule file to write (.json or .goal)")->required();
  cmd->callback([a, &global] { run(*a, global); });
}

}  // namespace choreo::cli
