// choreo select COLL: predict every algorithm of a collective with paper 001's step model
// (calibrated tables, collisions on the topology), name the winners and the crossovers, and
// export the decision as Open MPI or MPICH tuning files.
#include <fmt/core.h>
#include <fmt/ranges.h>

#include <cstdio>
#include <fstream>

#include "choreo/error.hpp"
#include "choreo/platform.hpp"
#include "choreo/profile.hpp"
#include "choreo/rules_export.hpp"
#include "choreo/select.hpp"
#include "cli/common.hpp"
#include "cli/gnuplot.hpp"
#include "cli/network_options.hpp"
#include "command_line.hpp"

namespace choreo::cli {
namespace {

struct SelectArgs {
  std::string collective, profile, topology = "ideal", placement = "linear", sizes = "8:64M";
  std::string alpha, bandwidth, memcpy_bandwidth = "10GBps", hop_latency = "0s";
  std::string algorithms, export_format, output, plot, tables = "auto";
  double factor = 2;
  int ranks = 0;
  bool no_collisions = false;
};

/// The cost tables: from a calibrated profile, or Hockney's alpha + M / bandwidth.
model::CostTables tables_of(const SelectArgs& a) {
  model::CostTables t;
  if (!a.profile.empty()) {
    t = select::tables_from_profile(read_profile(a.profile), select::parse_model_tables(a.tables));
  } else {
    if (a.alpha.empty() || a.bandwidth.empty())
      throw Error(
          "give a machine profile (--profile machine.json from `choreo-mpi calibrate`) or a "
          "Hockney model (--alpha 2us --bandwidth 10GBps)");
    const double alpha = parse_latency(a.alpha), bandwidth = parse_bandwidth(a.bandwidth);
    t.message = model::PiecewiseLinear({{0, alpha}, {1 << 30, alpha + (1 << 30) / bandwidth}});
    t.memcpy = model::PiecewiseLinear(
        {{0, 0.0}, {1 << 30, (1 << 30) / parse_bandwidth(a.memcpy_bandwidth)}});
  }
  t.hop_latency = parse_latency(a.hop_latency);
  return t;
}

int ranks_of(const SelectArgs& a, const sim::NetworkSpec& network) {
  if (a.ranks > 0) return a.ranks;
  switch (network.kind) {
    case sim::NetworkSpec::Kind::Torus:
    case sim::NetworkSpec::Kind::Mesh: {
      int nodes = 1;
      for (int d : network.dims) nodes *= d;
      return nodes;
    }
    case sim::NetworkSpec::Kind::Switch:
      if (network.nodes > 0) return network.nodes;
      [[fallthrough]];
    default:
      throw Error("say how many ranks: --ranks N (a torus or mesh defaults to one per node)");
  }
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t start = 0; start <= text.size();) {
    const auto comma = std::min(text.find(',', start), text.size());
    if (comma > start) out.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

/// Predicted time against size, one line per algorithm, log-log, through gnuplot.
void plot(const select::Selection& s, const select::Request& r, const std::string& file) {
  const bool svg = file.size() > 4 && file.substr(file.size() - 4) == ".svg";
  std::string script = fmt::format("set terminal {} size 800,500 noenhanced\nset output {}\n",
                                   svg ? "svg" : "pngcairo", gnuplot_quoted(file));
  script += fmt::format(
      "set logscale xy 2\nset xlabel 'bytes'\nset ylabel 'predicted seconds'\n"
      "set title '{} on {} ranks, {}{}'\nset key top left\nset grid\n",
      r.collective, r.ranks,
      r.network.kind == sim::NetworkSpec::Kind::Ideal ? "ideal network" : "with collisions",
      r.collisions ? "" : " (collisions off)");
  std::string plots;
  for (const auto& c : s.curves)
    if (c.unavailable.empty())
      plots += fmt::format("{}'-' using 1:2 with linespoints title '{}'", plots.empty() ? "" : ", ",
                           c.algorithm);
  script += fmt::format("plot {}\n", plots);
  for (const auto& c : s.curves) {
    if (!c.unavailable.empty()) continue;
    for (std::size_t i = 0; i < s.sizes.size(); ++i)
      if (c.seconds[i]) script += fmt::format("{} {}\n", s.sizes[i], *c.seconds[i]);
    script += "e\n";
  }
  run_gnuplot(script, file);
}

nlohmann::json as_json(const select::Selection& s, const select::Request& r, const SelectArgs& a) {
  nlohmann::json curves = nlohmann::json::array();
  for (const auto& c : s.curves) {
    nlohmann::json seconds = nlohmann::json::array();
    for (const auto& t : c.seconds) seconds.push_back(t ? nlohmann::json(*t) : nlohmann::json());
    curves.push_back({{"algorithm", c.algorithm}, {"seconds", seconds}});
    if (!c.unavailable.empty()) curves.back()["unavailable"] = c.unavailable;
  }
  nlohmann::json crossovers = nlohmann::json::array();
  for (const auto& x : s.crossovers)
    crossovers.push_back({{"from", x.from}, {"to", x.to}, {"bytes", x.bytes}});
  return {{"format", "choreo.select/1"}, {"collective", r.collective}, {"ranks", r.ranks},
          {"topology", a.topology},      {"placement", a.placement},   {"collisions", r.collisions},
          {"profile", a.profile},        {"tables", r.tables.source},  {"sizes", s.sizes},
          {"algorithms", curves},        {"winners", s.winners},       {"crossovers", crossovers}};
}

void print_table(const select::Selection& s, const select::Request& r, const SelectArgs& a) {
  fmt::print(
      "{} on {} ranks, {} ({} placement), collisions {}, {} tables; predicted time per call\n",
      r.collective, r.ranks, a.topology, a.placement, r.collisions ? "on" : "off", r.tables.source);
  fmt::print("{:>10}", "bytes");
  for (const auto& c : s.curves) fmt::print(" {:>12}", c.algorithm);
  fmt::print("  winner\n");
  for (std::size_t i = 0; i < s.sizes.size(); ++i) {
    fmt::print("{:>10}", human_bytes(static_cast<double>(s.sizes[i])));
    for (const auto& c : s.curves)
      fmt::print(" {:>12}", c.seconds[i] ? human_seconds(*c.seconds[i]) : "-");
    fmt::print("  {}\n", s.winners[i]);
  }
  for (const auto& c : s.curves)
    if (!c.unavailable.empty()) fmt::print("{} cannot run: {}\n", c.algorithm, c.unavailable);
  if (s.crossovers.empty()) fmt::print("no crossover: {} wins at every size\n", s.winners.front());
  for (const auto& x : s.crossovers)
    fmt::print("crossover: {} -> {} at {} B ({})\n", x.from, x.to, x.bytes,
               human_bytes(static_cast<double>(x.bytes)));
}

/// The winners as size rules, from 0 bytes on.
CollectiveDecision decision_of(const select::Selection& s, const select::Request& r) {
  CollectiveDecision d{r.collective, r.ranks, {{0, s.winners.front()}}};
  for (const auto& x : s.crossovers) d.rules.push_back({x.bytes, x.to});
  return d;
}

}  // namespace

void add_select_command(CLI::App& app, const Global& global) {
  auto a = std::make_shared<SelectArgs>();
  auto* cmd = app.add_subcommand(
      "select",
      "Predict every algorithm of a collective (paper 001's step model with collisions), pick "
      "the fastest per size, and export the choice as Open MPI or MPICH tuning files");
  cmd->add_option("COLL", a->collective, "allgather, bcast, allreduce or alltoall")->required();
  cmd->add_option("--profile", a->profile,
                  "Machine profile from `choreo-mpi calibrate` (message and memcpy tables)");
  cmd->add_option("--tables", a->tables,
                  "With a profile, which tables: collective (exchange among all ranks, memcpy of "
                  "fresh data), paper (ping-pong, cache-defeating memcpy), or auto (collective "
                  "when the profile has them; default)")
      ->check(CLI::IsMember({"auto", "collective", "paper"}));
  cmd->add_option("--alpha", a->alpha, "Without a profile: Hockney latency, e.g. 2us");
  cmd->add_option("--bandwidth", a->bandwidth, "Without a profile: bandwidth, e.g. 10GBps");
  cmd->add_option("--memcpy-bandwidth", a->memcpy_bandwidth,
                  "Without a profile: memcpy bandwidth (default 10GBps)");
  cmd->add_option("--topology", a->topology,
                  "ideal, switch[:NODES], torus:AxBxC or mesh:AxB... (default ideal: no "
                  "collisions)");
  add_placement_option(*cmd, a->placement);
  cmd->add_option("--ranks", a->ranks, "Ranks (default: one per torus/mesh node)")
      ->check(choreo::tools::positive());
  cmd->add_option("--sizes", a->sizes, "MIN:MAX bytes, e.g. 8:64M (default 8:64M)");
  cmd->add_option("--factor", a->factor, "Ratio of consecutive sizes (default 2)");
  cmd->add_option("--algorithms", a->algorithms, "Only these, comma-separated (default all)");
  cmd->add_option("--hop-latency", a->hop_latency,
                  "Latency per link beyond the calibrated pair's, e.g. 100ns (default 0)");
  cmd->add_flag("--no-collisions", a->no_collisions, "Time steps as t(M), ignoring the topology");
  cmd->add_option("--export", a->export_format, "Write the decision: ompi-rules or mpich-json")
      ->check(CLI::IsMember({"ompi-rules", "mpich-json"}));
  cmd->add_option("-o,--output", a->output, "File for --export");
  cmd->add_option("--plot", a->plot, "Also draw predicted time against size (.png or .svg)");
  cmd->callback([a, &global] {
    if (!a->export_format.empty() && a->output.empty())
      throw Error("--export needs -o FILE for the rules");
    select::Request r;
    r.collective = a->collective;
    r.network = placed_network(a->topology, a->placement);
    r.ranks = ranks_of(*a, r.network);
    r.tables = tables_of(*a);
    r.collisions = !a->no_collisions;
    r.sizes = select::size_range(a->sizes, a->factor);
    r.only = split_list(a->algorithms);
    // A decision to export may only pick what the library runs: without --algorithms, only
    // those are candidates (choreo's own pipelined bcast, e.g., is not in Open MPI).
    if (!a->export_format.empty() && r.only.empty())
      r.only = exportable_algorithms(r.collective, a->export_format == "ompi-rules"
                                                       ? TuningLibrary::OpenMpi
                                                       : TuningLibrary::Mpich);
    const select::Selection s = select::select_algorithms(r);
    if (!a->export_format.empty()) {
      const auto decisions = std::vector<CollectiveDecision>{decision_of(s, r)};
      const std::string text = a->export_format == "ompi-rules" ? ompi_rules_text(decisions)
                                                                : mpich_csel_json(decisions);
      std::ofstream out(a->output);
      if (!(out << text)) throw Error(fmt::format("cannot write {}", a->output));
    }
    if (!a->plot.empty()) plot(s, r, a->plot);
    if (global.json) {
      auto j = as_json(s, r, *a);
      if (!a->export_format.empty())
        j["export"] = {{"format", a->export_format}, {"file", a->output}};
      print_json(j);
      return;
    }
    print_table(s, r, *a);
    if (!a->export_format.empty()) fmt::print("wrote {} ({})\n", a->output, a->export_format);
  });
}

}  // namespace choreo::cli
