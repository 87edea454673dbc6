// choreo sim FILE|--generate SPEC: run a schedule in choreo's discrete-event simulator.
#include <fmt/core.h>
#include <sys/resource.h>

#include "choreo/core/error.hpp"
#include "choreo/core/io.hpp"
#include "choreo/core/run_result.hpp"
#include "choreo/sim/engine.hpp"
#include "choreo/sim/trace.hpp"
#include "cli/common.hpp"
#include "cli/sim_load.hpp"
#include "cli/sim_model_options.hpp"

namespace choreo::cli {
namespace {

struct SimArgs {
  SimSource source;
  SimModelArgs model;
  int top_links = 5;
  std::string ops_csv, trace, output, label;
};

std::size_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::size_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

/// The simulation as a run result, so `choreo report` shows it beside real runs.
template <class Schedule>
RunResult as_run(const SimArgs& a, const std::string& name, const std::string& algorithm,
                 const Schedule& s, const sim::SimResult& r) {
  RunResult run;
  run.label = a.label;
  run.schedule = name;
  run.algorithm = algorithm;
  run.engine = fmt::format("choreo sim, {} ({})", a.model.network, a.model.sharing);
  run.ranks = s.ranks();
  run.repetitions = 1;
  run.median = run.min = run.max = static_cast<double>(r.makespan) * 1e-9;
  run.seconds = {run.median};
  for (OpIndex i = 0; i < s.op_count(); ++i)
    if (s.kind(i) == OpKind::Send) {
      ++run.messages;
      run.bytes_per_iteration += s.amount(i);
    }
  return run;
}

/// Link loads: busy time and its share of the makespan (utilisation).
nlohmann::json links_json(const sim::SimResult& r) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& l : r.links)
    out.push_back(
        {{"link", l.name},
         {"busy_ns", l.busy_ns},
         {"messages", l.messages},
         {"utilisation",
          r.makespan > 0 ? static_cast<double>(l.busy_ns) / static_cast<double>(r.makespan) : 0}});
  return out;
}

void print_links(const sim::SimResult& r, int top) {
  if (r.links.empty()) return;
  double total = 0;
  for (const auto& l : r.links) total += static_cast<double>(l.busy_ns);
  const double makespan = static_cast<double>(std::max<std::int64_t>(r.makespan, 1));
  fmt::print("links        {} carried data; mean utilisation {:.1f}%; busiest:\n", r.links.size(),
             100 * total / static_cast<double>(r.links.size()) / makespan);
  for (std::size_t i = 0; i < r.links.size() && i < static_cast<std::size_t>(top); ++i)
    fmt::print("  {:<22} {:>5.1f}%  {} messages\n", r.links[i].name,
               100 * static_cast<double>(r.links[i].busy_ns) / makespan, r.links[i].messages);
}

/// What the tcp rule's switch dropped and resent.
nlohmann::json tcp_json(const SimArgs& a, const sim::SimResult& r) {
  return {{"port_buffer", a.model.tcp.port_buffer},
          {"mss", a.model.tcp.mss},
          {"initial_window", a.model.tcp.initial_window},
          {"rto_min", a.model.tcp.rto_min},
          {"segments", r.tcp.segments},
          {"drops", r.tcp.drops},
          {"retransmissions", r.tcp.retransmissions},
          {"timeouts", r.tcp.timeouts},
          {"fast_retransmits", r.tcp.fast_retransmits},
          {"fullest_port", r.tcp.fullest_port}};
}

/// Writes the run (-o) and prints the result, as JSON with --json.
template <class Schedule>
void report(const SimArgs& a, const Global& global, const std::string& name,
            const std::string& algorithm, const Schedule& schedule, const sim::SimResult& r,
            double build_seconds) {
  if (!a.output.empty())
    write_text_file(a.output, run_result_to_json(as_run(a, name, algorithm, schedule, r)));
  const double events_per_second =
      r.wall_seconds > 0 ? static_cast<double>(r.events) / r.wall_seconds : 0;
  const auto& p = a.model.params;
  if (global.json) {
    nlohmann::json out{
        {"schedule", name},
        {"network", a.model.network},
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
        {"peak_rss_bytes", peak_rss_bytes()},
        {"retries", r.retries},
        {"placement", a.model.placement},
        {"noise", a.model.noise},
        {"links", links_json(r)}};
    if (a.model.sharing == "tcp") out["tcp"] = tcp_json(a, r);
    return print_json(out);
  }
  fmt::print("schedule     {} ({} ranks, {} ops)\n", name, schedule.ranks(), schedule.op_count());
  fmt::print("model        LogGOPS L={} o={} g={} G={} O={} S={} (ns, ns/byte)\n", p.L, p.o, p.g,
             p.G, p.O, p.S);
  fmt::print("network      {} ({}), placement {}\n", a.model.network, a.model.sharing,
             a.model.placement);
  fmt::print("makespan     {} ns ({})\n", r.makespan,
             human_seconds(static_cast<double>(r.makespan) * 1e-9));
  if (schedule.ranks() <= 16)
    for (int h = 0; h < schedule.ranks(); ++h)
      fmt::print("  rank {:>3}   {} ns\n", h, r.finish[static_cast<std::size_t>(h)]);
  fmt::print("events       {} in {:.3f} s: {:.3g} events/s (schedule built in {:.3f} s)\n",
             r.events, r.wall_seconds, events_per_second, build_seconds);
  print_links(r, a.top_links);
  if (a.model.sharing == "tcp")
    fmt::print(
        "tcp          {} segments, {} dropped, {} resent ({} timeouts, {} fast retransmits); "
        "fullest port {} of {}\n",
        r.tcp.segments, r.tcp.drops, r.tcp.retransmissions, r.tcp.timeouts, r.tcp.fast_retransmits,
        human_bytes(static_cast<double>(r.tcp.fullest_port)),
        human_bytes(static_cast<double>(a.model.tcp.port_buffer)));
  fmt::print("memory       schedule {}, simulator state {}, process peak {}\n",
             human_bytes(static_cast<double>(r.schedule_bytes)),
             human_bytes(static_cast<double>(r.state_bytes)),
             human_bytes(static_cast<double>(peak_rss_bytes())));
}

void run(SimArgs a, const Global& global) {
  sim::SimOptions options = sim_options_of(a.model);
  options.record_ops = !a.ops_csv.empty() || !a.trace.empty();
  a.source.op_by_op = options.record_ops;
  a.source.slots = !a.trace.empty();
  const SimSchedule loaded = load_for_sim(a.source);
  if (loaded.shaped)
    return report(a, global, loaded.name, loaded.algorithm, *loaded.shaped,
                  sim::simulate(*loaded.shaped, options), loaded.build_seconds);
  const CompactSchedule& schedule = loaded.compact;
  sim::SimResult r = sim::simulate(schedule, options);
  if (!a.ops_csv.empty()) write_text_file(a.ops_csv, sim::ops_csv(schedule, r));
  if (!a.trace.empty()) {
    if (schedule.op_count() > 2'000'000)
      throw Error(fmt::format("a Chrome trace of {} ops would not open; trace a smaller run",
                              schedule.op_count()));
    write_text_file(a.trace, sim::chrome_trace(schedule, r, loaded.slots));
  }
  report(a, global, loaded.name, loaded.algorithm, schedule, r, loaded.build_seconds);
}

}  // namespace

void add_sim_command(CLI::App& app, const Global& global) {
  auto a = std::make_shared<SimArgs>();
  auto* cmd = app.add_subcommand(
      "sim", "Simulate a schedule under LogGOPS (LogGOPSim's semantics); times in ns");
  cmd->add_option("FILE", a->source.file, "Schedule (.json, .goal or .cbs)");
  cmd->add_option("--generate", a->source.generate,
                  "Simulate a generated collective instead of a file, e.g. "
                  "allreduce:recdbl:ranks=65536:bytes=8");
  cmd->add_flag("--compact-form", a->source.compact_form,
                "Store --generate's schedule op by op (about 35 B an op) instead of once per "
                "shape of rank program (8 B an op, the default where the generator builds it: "
                "allreduce:recdbl); the results are the same");
  add_sim_model_options(*cmd, a->model);
  cmd->add_option("--top-links", a->top_links, "Busiest links to list (default 5)");
  cmd->add_option("-o,--output", a->output,
                  "Also write the result as a run (choreo.run/1 JSON) for `choreo report`");
  cmd->add_option("--label", a->label, "Free text naming this run in reports");
  cmd->add_option("--ops-csv", a->ops_csv, "Write every op's start and end (ns) to this CSV");
  cmd->add_option("--trace", a->trace,
                  "Write a Chrome trace (JSON; open it in ui.perfetto.dev): a process per rank, "
                  "a track per kind of op (overlapping ops on extra lanes), an arrow from each "
                  "send to its receive, each op's bytes, peer, tag, slot and index as arguments");
  cmd->add_flag("--no-validate", a->source.no_validate,
                "Skip `choreo validate`'s checks of a FILE (faster for huge files)");
  cmd->add_flag("--revalidate", a->source.revalidate,
                "Check a .cbs even if it was validated when written (its header says so; "
                "choreo generate and convert validate what they write)");
  cmd->callback([a, cmd, &global] {
    note_tcp_options(*cmd, a->model);
    run(*a, global);
  });
}

}  // namespace choreo::cli
