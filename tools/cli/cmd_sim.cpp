// choreo sim FILE|--generate SPEC: run a schedule in choreo's discrete-event simulator.
#include <fmt/core.h>
#include <sys/resource.h>

#include <chrono>

#include "choreo/coll.hpp"
#include "choreo/error.hpp"
#include "choreo/io.hpp"
#include "choreo/sim/engine.hpp"
#include "choreo/validate.hpp"
#include "cli/common.hpp"

namespace choreo::cli {
namespace {

struct Args {
  std::string file, generate, network = "ideal";
  sim::LogGOPS params;
  bool no_validate = false;
};

std::size_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::size_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

sim::CompactSchedule load(const Args& a, std::string& name, double& build_seconds) {
  auto start = std::chrono::steady_clock::now();
  sim::CompactSchedule s = [&] {
    if (!a.generate.empty()) {
      name = a.generate;
      return coll::generate(a.generate);
    }
    name = a.file;
    Schedule schedule = load_schedule(a.file);
    if (!a.no_validate) validate(schedule);
    return sim::compact(schedule);
  }();
  build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return s;
}

void run(const Args& a, const Global& global) {
  if (a.file.empty() == a.generate.empty())
    throw Error("give either a schedule FILE or --generate SPEC (see --help)");
  if (a.network != "ideal")
    throw Error(fmt::format("network '{}' is not available yet; use --network ideal", a.network));
  std::string name;
  double build_seconds = 0;
  sim::CompactSchedule schedule = load(a, name, build_seconds);
  sim::SimResult r = sim::simulate(schedule, sim::SimOptions{a.params, false});
  const double events_per_second =
      r.wall_seconds > 0 ? static_cast<double>(r.events) / r.wall_seconds : 0;
  const auto& p = a.params;
  if (global.json) {
    nlohmann::json out{
        {"schedule", name},
        {"network", a.network},
        {"params", {{"L", p.L}, {"o", p.o}, {"g", p.g}, {"G", p.G}, {"O", p.O}, {"S", p.S}}},
        {"ranks", schedule.ranks()},
        {"ops", schedule.op_count()},
        {"makespan", r.makespan},
        {"finish", r.finish},
        {"events", r.events},
        {"sim_seconds", r.wall_seconds},
        {"build_seconds", build_seconds},
        {"events_per_second", events_per_second},
        {"schedule_bytes", r.schedule_bytes},
        {"state_bytes", r.state_bytes},
        {"peak_rss_bytes", peak_rss_bytes()}};
    return print_json(out);
  }
  fmt::print("schedule     {} ({} ranks, {} ops)\n", name, schedule.ranks(), schedule.op_count());
  fmt::print("model        LogGOPS L={} o={} g={} G={} O={} S={} (ns, ns/byte), network {}\n", p.L,
             p.o, p.g, p.G, p.O, p.S, a.network);
  fmt::print("makespan     {} ns ({})\n", r.makespan,
             human_seconds(static_cast<double>(r.makespan) * 1e-9));
  if (schedule.ranks() <= 16)
    for (int h = 0; h < schedule.ranks(); ++h)
      fmt::print("  rank {:>3}   {} ns\n", h, r.finish[static_cast<std::size_t>(h)]);
  fmt::print("events       {} in {:.3f} s: {:.3g} events/s (schedule built in {:.3f} s)\n",
             r.events, r.wall_seconds, events_per_second, build_seconds);
  fmt::print("memory       schedule {}, simulator state {}, process peak {}\n",
             human_bytes(static_cast<double>(r.schedule_bytes)),
             human_bytes(static_cast<double>(r.state_bytes)),
             human_bytes(static_cast<double>(peak_rss_bytes())));
}

}  // namespace

void add_sim_command(CLI::App& app, const Global& global) {
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "sim", "Simulate a schedule under LogGOPS (LogGOPSim's semantics); times in ns");
  cmd->add_option("FILE", a->file, "Schedule (.json or .goal)");
  cmd->add_option("--generate", a->generate,
                  "Simulate a generated collective instead of a file, e.g. "
                  "allreduce:recdbl:ranks=65536:bytes=8");
  cmd->add_option("--network", a->network, "ideal (no contention)");
  cmd->add_option("--L", a->params.L, "Latency, ns (default 2500)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--o", a->params.o, "CPU overhead per message, ns (default 1500)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--g", a->params.g, "NIC gap per message, ns (default 1000)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--G", a->params.G, "NIC gap per byte, ns (default 6)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--O", a->params.O, "CPU overhead per byte, ns (default 0)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--S", a->params.S, "Largest eager message, bytes (default 65535)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--no-validate", a->no_validate,
                "Skip `choreo validate`'s checks of a FILE (faster for huge files)");
  cmd->callback([a, &global] { run(*a, global); });
}

}  // namespace choreo::cli
