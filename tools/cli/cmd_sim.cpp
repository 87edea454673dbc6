// choreo sim FILE|--generate SPEC: run a schedule in choreo's discrete-event simulator.
#include <fmt/core.h>
#include <sys/resource.h>

#include <chrono>
#include <filesystem>
#include <optional>

#include "choreo/coll/generators.hpp"
#include "choreo/core/binary_schedule.hpp"
#include "choreo/core/error.hpp"
#include "choreo/core/io.hpp"
#include "choreo/core/run_result.hpp"
#include "choreo/core/validate.hpp"
#include "choreo/sim/engine.hpp"
#include "choreo/sim/schedule_file.hpp"
#include "choreo/sim/trace.hpp"
#include "choreo/sim/validate.hpp"
#include "cli/common.hpp"
#include "cli/network_options.hpp"
#include "command_line.hpp"

namespace choreo::cli {
namespace {

struct SimArgs {
  std::string file, generate, network = "ideal", placement = "linear", sharing = "serialize";
  sim::LogGOPS params;
  double link_G = -1;
  std::int64_t hop_latency = 0;
  TcpSpec tcp;
  bool tcp_options_given = false;
  int top_links = 5;
  std::string ops_csv, trace, output, label;
  std::vector<std::string> noise;
  bool no_validate = false;
  bool revalidate = false;
  bool dma_receive = false;
  bool compact_form = false;
};

std::size_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::size_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

/// A binary schedule (.cbs), simulated in place from its mapping: load_binary checks its
/// structure (what the engine indexes), sim::validate its semantics (matching, deadlocks),
/// unless the file says it passed when it was written.
CompactSchedule load_binary_file(const SimArgs& a, std::string& algorithm) {
  BinaryScheduleInfo info;
  CompactSchedule s = load_binary(a.file, &info);
  algorithm = std::move(info.algorithm);
  if (!a.no_validate && (!info.validated || a.revalidate)) sim::validate(s);
  return s;
}

/// "collective:algorithm" of a generator spec.
std::string generated_algorithm(const std::string& spec) {
  return spec.substr(0, spec.find(':', spec.find(':') + 1));
}

/// The schedule to simulate; `name` and `algorithm` describe it for the output, and `slots`
/// gets its ops' slots when a trace is asked for (a generated schedule has none).
CompactSchedule load(const SimArgs& a, std::string& name, std::string& algorithm,
                     std::vector<int>& slots, double& build_seconds) {
  auto start = std::chrono::steady_clock::now();
  CompactSchedule s = [&] {
    if (!a.generate.empty()) {
      name = a.generate;
      algorithm = generated_algorithm(a.generate);
      return coll::generate(a.generate);
    }
    name = a.file;
    if (is_binary_schedule(a.file)) return load_binary_file(a, algorithm);
    if (a.trace.empty() && std::filesystem::path(a.file).extension() != ".json") {
      // Straight into the compact form (GOAL text streams; no Schedule): what a file of
      // millions of ops needs. A trace wants the ops' slots, which only a Schedule keeps;
      // JSON is read whole anyway, and goes through a Schedule as before.
      sim::LoadedSchedule loaded = sim::load_compact(a.file);
      algorithm = std::move(loaded.algorithm);
      if (!a.no_validate) sim::validate(loaded.schedule);
      return std::move(loaded.schedule);
    }
    Schedule schedule = load_schedule(a.file);
    algorithm = schedule.algorithm;
    if (!a.no_validate) validate(schedule);
    slots = sim::op_slots(schedule);
    return choreo::compact(schedule);
  }();
  build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return s;
}

/// The simulation as a run result, so `choreo report` shows it beside real runs.
template <class Schedule>
RunResult as_run(const SimArgs& a, const std::string& name, const std::string& algorithm,
                 const Schedule& s, const sim::SimResult& r) {
  RunResult run;
  run.label = a.label;
  run.schedule = name;
  run.algorithm = algorithm;
  run.engine = fmt::format("choreo sim, {} ({})", a.network, a.sharing);
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
  return {{"port_buffer", a.tcp.port_buffer},
          {"mss", a.tcp.mss},
          {"initial_window", a.tcp.initial_window},
          {"rto_min", a.tcp.rto_min},
          {"segments", r.tcp.segments},
          {"drops", r.tcp.drops},
          {"retransmissions", r.tcp.retransmissions},
          {"timeouts", r.tcp.timeouts},
          {"fast_retransmits", r.tcp.fast_retransmits},
          {"fullest_port", r.tcp.fullest_port}};
}

/// The generated schedule a `--generate` run simulates when nothing asks for its ops one by
/// one: shared rank shapes (8 bytes an op) where the generator builds them, which is what lets
/// a 2^23-rank allreduce fit in memory.
std::optional<ShapedSchedule> shaped_generated(const SimArgs& a, const sim::SimOptions& options) {
  if (a.generate.empty() || options.record_ops || a.compact_form) return std::nullopt;
  return coll::generate_shaped(a.generate);
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
        {"peak_rss_bytes", peak_rss_bytes()},
        {"retries", r.retries},
        {"placement", a.placement},
        {"noise", a.noise},
        {"links", links_json(r)}};
    if (a.sharing == "tcp") out["tcp"] = tcp_json(a, r);
    return print_json(out);
  }
  fmt::print("schedule     {} ({} ranks, {} ops)\n", name, schedule.ranks(), schedule.op_count());
  fmt::print("model        LogGOPS L={} o={} g={} G={} O={} S={} (ns, ns/byte)\n", p.L, p.o, p.g,
             p.G, p.O, p.S);
  fmt::print("network      {} ({}), placement {}\n", a.network, a.sharing, a.placement);
  fmt::print("makespan     {} ns ({})\n", r.makespan,
             human_seconds(static_cast<double>(r.makespan) * 1e-9));
  if (schedule.ranks() <= 16)
    for (int h = 0; h < schedule.ranks(); ++h)
      fmt::print("  rank {:>3}   {} ns\n", h, r.finish[static_cast<std::size_t>(h)]);
  fmt::print("events       {} in {:.3f} s: {:.3g} events/s (schedule built in {:.3f} s)\n",
             r.events, r.wall_seconds, events_per_second, build_seconds);
  print_links(r, a.top_links);
  if (a.sharing == "tcp")
    fmt::print(
        "tcp          {} segments, {} dropped, {} resent ({} timeouts, {} fast retransmits); "
        "fullest port {} of {}\n",
        r.tcp.segments, r.tcp.drops, r.tcp.retransmissions, r.tcp.timeouts, r.tcp.fast_retransmits,
        human_bytes(static_cast<double>(r.tcp.fullest_port)),
        human_bytes(static_cast<double>(a.tcp.port_buffer)));
  fmt::print("memory       schedule {}, simulator state {}, process peak {}\n",
             human_bytes(static_cast<double>(r.schedule_bytes)),
             human_bytes(static_cast<double>(r.state_bytes)),
             human_bytes(static_cast<double>(peak_rss_bytes())));
}

void run(const SimArgs& a, const Global& global) {
  if (a.file.empty() == a.generate.empty())
    throw Error("give either a schedule FILE or --generate SPEC (see --help)");
  if (a.tcp_options_given && a.sharing != "tcp")
    throw Error(
        "--switch-buffer, --mss, --initial-window and --rto set the tcp rule's switch: "
        "add --sharing tcp (with --network switch)");
  sim::SimOptions options;
  options.params = a.params;
  options.network = placed_network(a.network, a.placement);
  options.network.sharing = parse_sharing(a.sharing);
  options.network.link_G = a.link_G;
  options.network.hop_latency = a.hop_latency;
  options.network.tcp = a.tcp;
  options.record_ops = !a.ops_csv.empty() || !a.trace.empty();
  options.dma_receive = a.dma_receive;
  for (const auto& n : a.noise) sim::add_noise(options.noise, n);
  const auto start = std::chrono::steady_clock::now();
  if (auto shaped = shaped_generated(a, options)) {
    const double build_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return report(a, global, a.generate, generated_algorithm(a.generate), *shaped,
                  sim::simulate(*shaped, options), build_seconds);
  }
  std::string name;
  double build_seconds = 0;
  std::string algorithm;
  std::vector<int> slots;
  CompactSchedule schedule = load(a, name, algorithm, slots, build_seconds);
  sim::SimResult r = sim::simulate(schedule, options);
  if (!a.ops_csv.empty()) write_text_file(a.ops_csv, sim::ops_csv(schedule, r));
  if (!a.trace.empty()) {
    if (schedule.op_count() > 2'000'000)
      throw Error(fmt::format("a Chrome trace of {} ops would not open; trace a smaller run",
                              schedule.op_count()));
    write_text_file(a.trace, sim::chrome_trace(schedule, r, slots));
  }
  report(a, global, name, algorithm, schedule, r, build_seconds);
}

}  // namespace

void add_sim_command(CLI::App& app, const Global& global) {
  auto a = std::make_shared<SimArgs>();
  auto* cmd = app.add_subcommand(
      "sim", "Simulate a schedule under LogGOPS (LogGOPSim's semantics); times in ns");
  cmd->add_option("FILE", a->file, "Schedule (.json, .goal or .cbs)");
  cmd->add_option("--generate", a->generate,
                  "Simulate a generated collective instead of a file, e.g. "
                  "allreduce:recdbl:ranks=65536:bytes=8");
  cmd->add_flag("--compact-form", a->compact_form,
                "Store --generate's schedule op by op (about 35 B an op) instead of once per "
                "shape of rank program (8 B an op, the default where the generator builds it: "
                "allreduce:recdbl); the results are the same");
  cmd->add_option("--network", a->network,
                  "ideal (no contention, LogGOPSim's LogGP mode), switch[:NODES] (one crossbar), "
                  "torus:AxBxC or mesh:AxBxC (dimension-order routing)");
  cmd->add_option("--sharing", a->sharing,
                  "How messages share a link: serialize (one at a time, FIFO; default), fair "
                  "(equal bandwidth shares) or tcp (switch only: TCP segments into output ports "
                  "with finite buffers that drop, retransmitted after timeouts)");
  add_placement_option(*cmd, a->placement);
  cmd->add_option("--link-G", a->link_G,
                  "ns per byte a message holds each link of its route, or that link's bandwidth "
                  "(default: G)")
      ->transform(choreo::tools::per_byte_ns());
  cmd->add_option("--hop-latency", a->hop_latency,
                  "Added per link crossed: ns or e.g. 100ns (default 0)")
      ->transform(choreo::tools::time_ns())
      ->check(choreo::tools::at_least(0));
  cmd->add_option("--switch-buffer", a->tcp.port_buffer,
                  "tcp: bytes each switch output port holds, e.g. 512KiB (default 256KiB)")
      ->transform(choreo::tools::byte_size())
      ->check(choreo::tools::at_least(1));
  cmd->add_option("--mss", a->tcp.mss, "tcp: payload bytes per segment (default 1448)")
      ->transform(choreo::tools::byte_size())
      ->check(choreo::tools::at_least(1));
  cmd->add_option("--initial-window", a->tcp.initial_window,
                  "tcp: segments a connection sends before its first ACK (default 10, Linux)")
      ->check(choreo::tools::at_least(1));
  cmd->add_option("--rto", a->tcp.rto_min,
                  "tcp: retransmission timeout before backoff: ns or e.g. 200ms (default 200ms, "
                  "Linux's minimum)")
      ->transform(choreo::tools::time_ns())
      ->check(choreo::tools::at_least(1));
  cmd->add_option("--top-links", a->top_links, "Busiest links to list (default 5)");
  cmd->add_option("--noise", a->noise,
                  "Noise, repeatable (times in ns, or with a unit: 50us): "
                  "os:period=T,duration=T[,phase=random|same], "
                  "trace:PATH[,phase=random|same] (LogGOPSim's start<TAB>duration format), "
                  "net:period=T,duration=T, seed=N");
  cmd->add_option("-o,--output", a->output,
                  "Also write the result as a run (choreo.run/1 JSON) for `choreo report`");
  cmd->add_option("--label", a->label, "Free text naming this run in reports");
  cmd->add_option("--ops-csv", a->ops_csv, "Write every op's start and end (ns) to this CSV");
  cmd->add_option("--trace", a->trace,
                  "Write a Chrome trace (JSON; open it in ui.perfetto.dev): a process per rank, "
                  "a track per kind of op (overlapping ops on extra lanes), an arrow from each "
                  "send to its receive, each op's bytes, peer, tag, slot and index as arguments");
  cmd->add_option("--L", a->params.L, "Latency: ns or e.g. 2.5us (default 2500)")
      ->transform(choreo::tools::time_ns())
      ->check(choreo::tools::at_least(0));
  cmd->add_option("--o", a->params.o, "CPU overhead per message: ns or e.g. 1.5us (default 1500)")
      ->transform(choreo::tools::time_ns())
      ->check(choreo::tools::at_least(0));
  cmd->add_option("--g", a->params.g, "NIC gap per message: ns or e.g. 1us (default 1000)")
      ->transform(choreo::tools::time_ns())
      ->check(choreo::tools::at_least(0));
  cmd->add_option("--G", a->params.G,
                  "NIC gap per byte: ns/B or a bandwidth, 1Gbps = 8 (default 6)")
      ->transform(choreo::tools::per_byte_ns())
      ->check(choreo::tools::at_least(0));
  cmd->add_option("--O", a->params.O, "CPU overhead per byte: ns/B or a bandwidth (default 0)")
      ->transform(choreo::tools::per_byte_ns())
      ->check(choreo::tools::at_least(0));
  cmd->add_option("--S", a->params.S, "Largest eager message: bytes or e.g. 64K (default 65535)")
      ->transform(choreo::tools::byte_size())
      ->check(choreo::tools::at_least(0));
  cmd->add_flag("--dma-receive", a->dma_receive,
                "The receiving CPU pays o + (s-1)O and the NIC alone moves the bytes (LogGOPSim "
                "keeps the CPU busy for (s-1)G too, so a rank cannot send while it receives)");
  cmd->add_flag("--no-validate", a->no_validate,
                "Skip `choreo validate`'s checks of a FILE (faster for huge files)");
  cmd->add_flag("--revalidate", a->revalidate,
                "Check a .cbs even if it was validated when written (its header says so; "
                "choreo generate and convert validate what they write)");
  cmd->callback([a, cmd, &global] {
    for (const char* name : {"--switch-buffer", "--mss", "--initial-window", "--rto"})
      a->tcp_options_given = a->tcp_options_given || cmd->count(name) > 0;
    run(*a, global);
  });
}

}  // namespace choreo::cli
