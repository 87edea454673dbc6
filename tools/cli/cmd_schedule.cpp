// choreo schedule --algo ALGO p.json -o s.json: turn a pattern into a schedule, and report
// what paper 000 reports for it (slots, delays, contention, predicted makespan), or, for
// openshop, the makespan in bytes against the largest bytes through one port, or, for auto,
// the exchange planner's candidates and choice (schedule_auto.cpp).
#include <fmt/core.h>

#include <cmath>

#include "choreo/core/error.hpp"
#include "choreo/core/io.hpp"
#include "choreo/core/validate.hpp"
#include "choreo/sched/schedulers.hpp"
#include "choreo/topo/platform.hpp"
#include "cli/common.hpp"
#include "cli/schedule_auto.hpp"
#include "command_line.hpp"

namespace choreo::cli {
namespace {

struct ScheduleArgs {
  std::string algo = "direct", in, out;
  std::int64_t delta_ns = 400000;  // paper 000's best delay on its 1 GbE cluster (Fig. 5)
  SlotModel model;
  double ns_per_byte = 8;  // openshop: 1 Gb/s
  std::string bandwidth;   // openshop: sets ns_per_byte
  bool paced = false;      // every slot lasts δ, not only the empty ones
  std::string profile;     // auto: the machine the exchange planner predicts on
  ModelOverrides given;    // auto: --L, --o, --G as given (the others use their defaults)
};

double ns_per_byte(const ScheduleArgs& a) {
  if (a.bandwidth.empty()) return a.ns_per_byte;
  return 1e9 / parse_bandwidth(a.bandwidth);  // never 0: parse_bandwidth refuses it
}

int count_delays(const Schedule& s) {
  int delays = 0;
  for (const auto& program : s.programs)
    for (const Op& op : program.ops) delays += op.kind == OpKind::Delay;
  return delays;
}

/// The open-shop plan's report: makespan and the port bound in bytes and in time.
nlohmann::json report_open_shop(const Pattern& pattern, const TimedPlan& plan, const Schedule& s,
                                double ns_per_byte) {
  const std::int64_t makespan = makespan_bytes(pattern, plan);
  const std::int64_t bound = port_bytes_lower_bound(pattern);
  auto ns = [&](std::int64_t bytes) {
    return std::llround(static_cast<double>(bytes) * ns_per_byte);
  };
  return {{"ns_per_byte", ns_per_byte},
          {"makespan_bytes", makespan},
          {"makespan_ns", ns(makespan)},
          {"port_bytes_lower_bound_ns", ns(bound)},
          {"port_ratio",
           bound > 0 ? nlohmann::json(static_cast<double>(makespan) / static_cast<double>(bound))
                     : nlohmann::json()},
          {"delays", count_delays(s)}};
}

void run(const ScheduleArgs& a, const Global& global) {
  const double ns = ns_per_byte(a);  // bad options fail before any work
  if (a.out.empty() && a.algo != "auto")
    throw Error(fmt::format("--algo {} writes a schedule: give it a file with -o s.json", a.algo));
  const Pattern pattern = load_pattern(a.in);
  if (a.algo == "auto") {
    const Schedule kept = schedule_auto(pattern, a.profile, a.given, global);
    validate(kept);
    if (!a.out.empty()) save_schedule(kept, a.out);
    return;
  }
  Schedule s;
  nlohmann::json report{{"output", a.out},
                        {"algorithm", a.algo},
                        {"port_bytes_lower_bound", port_bytes_lower_bound(pattern)}};
  if (a.algo == "direct") {
    s = schedule_direct(pattern);
  } else if (a.algo == "openshop") {
    const TimedPlan plan = plan_open_shop(pattern);
    s = schedule_from_timed_plan(pattern, plan, ns);  // checks the plan
    report.update(report_open_shop(pattern, plan, s, ns));
  } else if (a.algo == "phases") {
    s = schedule_phases(pattern);
  } else if (a.algo == "pairwise") {
    s = schedule_pairwise(pattern);
  } else {
    const SlotPlan plan = a.algo == "ring"    ? plan_ring(pattern)
                          : a.algo == "delay" ? plan_delay_insertion(pattern)
                                              : plan_optimal(pattern);
    check_plan(pattern, plan, a.algo != "ring");  // the slotted schedulers promise no contention
    s = schedule_from_plan(pattern, plan, a.delta_ns,
                           a.paced ? Pacing::EverySlot : Pacing::EmptySlots);
    const PlanReport r = report_plan(pattern, plan, a.model);
    report.update(
        {{"slots", r.slots},
         {"delays", count_delays(s)},
         {"paced", a.paced},
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
  const auto bound = report["port_bytes_lower_bound"].get<std::int64_t>();
  const std::string port_bound =
      fmt::format("port bound (largest bytes through one port) {} B ({})", bound,
                  human_bytes(static_cast<double>(bound)));
  if (report.contains("makespan_bytes")) {
    const auto makespan = report["makespan_bytes"].get<std::int64_t>();
    fmt::print("makespan {} B ({}), {} at {:g} ns/B; delays {}\n", makespan,
               human_bytes(static_cast<double>(makespan)),
               human_seconds(report["makespan_ns"].get<double>() * 1e-9),
               report["ns_per_byte"].get<double>(), report["delays"].get<int>());
    fmt::print("{}, {}; ratio {}\n", port_bound,
               human_seconds(report["port_bytes_lower_bound_ns"].get<double>() * 1e-9),
               report["port_ratio"].is_null()
                   ? std::string("- (nothing to send)")
                   : fmt::format("{:.3f}", report["port_ratio"].get<double>()));
    return;
  }
  if (report.contains("slots")) {
    fmt::print("slots {} (degree bound {}), delays {}, contention pairs (eq. 12) {}\n",
               report["slots"].get<int>(), report["degree_bound"].get<int>(),
               report["delays"].get<int>(), report["contention_pairs"].get<std::int64_t>());
    if (report["predicted_ns"].is_null())
      fmt::print("predicted makespan: none (the model assumes no contention), lower bound {}\n",
                 human_seconds(report["lower_bound_ns"].get<double>() * 1e-9));
    else
      fmt::print("predicted makespan (eqs. 13-16) {}, lower bound {}, ratio {}\n",
                 human_seconds(report["predicted_ns"].get<double>() * 1e-9),
                 human_seconds(report["lower_bound_ns"].get<double>() * 1e-9),
                 report["ratio"].is_null() ? std::string("- (nothing to send)")
                                           : fmt::format("{:.3f}", report["ratio"].get<double>()));
  }
  fmt::print("{}\n", port_bound);
}

}  // namespace

void add_schedule_command(CLI::App& app, const Global& global) {
  auto a = std::make_shared<ScheduleArgs>();
  auto* cmd = app.add_subcommand("schedule", "Schedule a pattern: the send order of every rank");
  cmd->add_option("PATTERN", a->in, "Pattern file (.json)")->required();
  cmd->add_option(
         "--algo", a->algo,
         "direct: receives, then sends to r+1, r+2, ... at once; ring: Thakur's ring "
         "(slots, no delays); delay: paper 000's delay insertion (Algorithms 1-2); "
         "optimal: fewest contention-free slots (edge colouring); phases: those slots "
         "separated by barriers (CC-MPI); pairwise: Open MPI's MPI_Alltoallv (P-1 lock-step "
         "exchanges, 0 bytes where the pattern has none; a baseline); openshop: unequal sizes, "
         "shortest makespan in "
         "bytes (open-shop list scheduling), sends timed by delays; auto: the exchange "
         "planner's candidates, each predicted by choreo sim, and the one it keeps "
         "(-o writes that one)")
      ->check(CLI::IsMember(
          {"direct", "ring", "delay", "optimal", "phases", "pairwise", "openshop", "auto"}));
  cmd->add_option("--profile", a->profile,
                  "auto: predict on this machine profile's LogGP fit (`choreo-mpi calibrate`) "
                  "instead of LogGOPSim's defaults");
  cmd->add_option("--delta", a->delta_ns,
                  "Delay per empty slot: ns, or with a unit (default 400000 = 400us, paper 000)")
      ->transform(choreo::tools::time_ns())
      ->check(choreo::tools::at_least(0));
  cmd->add_flag("--paced", a->paced,
                "ring, delay, optimal: every slot lasts --delta (time-slotted), not only the empty "
                "ones; set --delta to one message's port time");
  // auto predicts on its own model (LogGOPSim's defaults or the profile's fit); what is given
  // here replaces those parameters, so `--algo auto --G 8` plans for 1 Gb/s.
  auto* L_option = cmd->add_option("--L", a->model.L, "Prediction model: latency, ns or e.g. 100us")
                       ->transform(choreo::tools::time_ns())
                       ->check(choreo::tools::at_least(0));
  auto* o_option = cmd->add_option("--o", a->model.o, "Prediction model: overhead, ns or e.g. 2us")
                       ->transform(choreo::tools::time_ns())
                       ->check(choreo::tools::at_least(0));
  auto* G_option =
      cmd->add_option("--G", a->model.G,
                      "Prediction model: gap per byte, ns/B or a bandwidth (1Gbps = 8)")
          ->transform(choreo::tools::per_byte_ns())
          ->check(choreo::tools::at_least(0));
  auto* per_byte =
      cmd->add_option("--ns-per-byte", a->ns_per_byte,
                      "openshop: ns a byte holds a port, for the delays (default 8: 1 Gb/s)")
          ->transform(choreo::tools::per_byte_ns())
          ->check(choreo::tools::positive());
  cmd->add_option("--bandwidth", a->bandwidth,
                  "openshop: port bandwidth instead of --ns-per-byte, e.g. 1Gbps or 125MBps")
      ->excludes(per_byte);
  cmd->add_option("-o,--output", a->out,
                  "Schedule file to write (.json or .goal); optional with --algo auto");
  cmd->callback([a, &global, L_option, o_option, G_option] {
    if (L_option->count() > 0) a->given.L = a->model.L;
    if (o_option->count() > 0) a->given.o = a->model.o;
    if (G_option->count() > 0) a->given.G = a->model.G;
    run(*a, global);
  });
}

}  // namespace choreo::cli
