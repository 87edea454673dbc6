// choreo select COLL: predict every algorithm of a collective with paper 001's step model
// (calibrated tables, collisions on the topology), name the winners and the crossovers, and
// export the decision as Open MPI or MPICH tuning files.
#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "choreo/core/error.hpp"
#include "choreo/model/profile.hpp"
#include "choreo/select/rules_export.hpp"
#include "choreo/select/select.hpp"
#include "choreo/topo/platform.hpp"
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
  double confidence = 0.95;  // a new winner must win in this share of the table draws
  int ranks = 0;
  bool no_collisions = false;
};

/// Bootstrap draws of the profile's tables behind the confidence of each winner: 100 keeps
/// `select` under a few seconds (about 0.2 ms a prediction) and resolves 95% to a draw.
constexpr int kTableDraws = 100;

/// The cost tables: from a calibrated profile, or Hockney's alpha + M / bandwidth.
model::CostTables tables_of(const SelectArgs& a, const MachineProfile* profile) {
  model::CostTables t;
  if (profile != nullptr) {
    t = select::tables_from_profile(*profile, select::parse_model_tables(a.tables));
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

int ranks_of(const SelectArgs& a, const NetworkSpec& network) {
  if (a.ranks > 0) return a.ranks;
  switch (network.kind) {
    case NetworkSpec::Kind::Torus:
    case NetworkSpec::Kind::Mesh: {
      int nodes = 1;
      for (int d : network.dims) nodes *= d;
      return nodes;
    }
    case NetworkSpec::Kind::Switch:
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

/// Predicted time against size, one line per algorithm, log-log, through gnuplot; the
/// decision drawn under them as a wide grey band, the crossovers as dotted lines.
void plot(const select::Selection& s, const select::Request& r, const SelectArgs& a,
          bool extrapolated, const std::string& file) {
  const bool svg = file.size() > 4 && file.substr(file.size() - 4) == ".svg";
  double low = std::numeric_limits<double>::infinity(), high = 0;
  for (const auto& c : s.curves)
    for (const auto& t : c.seconds)
      if (t && *t > 0) low = std::min(low, *t), high = std::max(high, *t);
  const std::string xtics = size_tics(s.sizes.front(), s.sizes.back());
  const std::string ytics = time_tics(low, high);
  const std::string machine =
      a.profile.empty()
          ? fmt::format("Hockney {} + M / {}", a.alpha, a.bandwidth)
          : fmt::format("profile {} ({} tables)",
                        std::filesystem::path(a.profile).filename().string(), r.tables.source);
  // Double-quoted for its line break; quotes and backslashes in names would end it early.
  std::string title = fmt::format("{} on {} ranks, {} ({}){}\\n{}{}", r.collective, r.ranks,
                                  a.topology, a.placement, r.collisions ? "" : ", collisions off",
                                  machine, extrapolated ? ", extrapolated (see the notes)" : "");
  std::replace(title.begin(), title.end(), '"', '\'');
  for (std::size_t at = title.find('\\'); at != std::string::npos; at = title.find('\\', at + 2))
    if (title.compare(at, 2, "\\n") != 0) title[at] = '/';
  std::string script = fmt::format(
      "set terminal {} size 900,560 noenhanced font 'sans,11'\nset output {}\n"
      "set logscale xy\nset xtics ({})\nset ytics ({})\nset xlabel 'bytes per rank'\n"
      "set ylabel 'predicted time per call'\nset title \"{}\"\nset xrange [{}:{}]\n"
      "set key top left\nset grid\n",
      svg ? "svg" : "pngcairo", gnuplot_quoted(file), xtics, ytics, title, s.sizes.front(),
      s.sizes.back());
  for (const auto& x : s.crossovers)
    script += fmt::format(
        "set arrow from {0},graph 0 to {0},graph 1 nohead dt 3 lc rgb '#888888'\n", x.bytes);
  std::string plots = "'-' using 1:2 with lines lw 9 lc rgb '#d0d0d0' title 'chosen'";
  // Okabe and Ito's colour-blind-safe palette, strongest first (gnuplot's 4th is a pale yellow).
  constexpr std::array<const char*, 7> colours = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                                  "#E69F00", "#56B4E9", "#000000"};
  std::size_t drawn = 0;
  for (const auto& c : s.curves)
    if (c.unavailable.empty())
      plots +=
          fmt::format(", '-' using 1:2 with linespoints pt 7 ps 0.6 lw 1.5 lc rgb '{}' title '{}'",
                      colours[drawn++ % colours.size()], c.algorithm);
  script += fmt::format("plot {}\n", plots);
  for (std::size_t i = 0; i < s.sizes.size(); ++i)
    for (const auto& c : s.curves)
      if (c.algorithm == s.winners[i] && c.seconds[i])
        script += fmt::format("{} {}\n", s.sizes[i], *c.seconds[i]);
  script += "e\n";
  for (const auto& c : s.curves) {
    if (!c.unavailable.empty()) continue;
    for (std::size_t i = 0; i < s.sizes.size(); ++i)
      if (c.seconds[i]) script += fmt::format("{} {}\n", s.sizes[i], *c.seconds[i]);
    script += "e\n";
  }
  run_gnuplot(script, file);
}

nlohmann::json as_json(const select::Selection& s, const select::Request& r, const SelectArgs& a,
                       const std::vector<std::string>& notes) {
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
  return {{"format", "choreo.select/1"},
          {"collective", r.collective},
          {"ranks", r.ranks},
          {"topology", a.topology},
          {"placement", a.placement},
          {"collisions", r.collisions},
          {"profile", a.profile},
          {"tables", r.tables.source},
          {"sizes", s.sizes},
          {"algorithms", curves},
          {"winners", s.winners},
          {"fastest", s.fastest},
          {"confidence", s.confidence.empty() ? nlohmann::json() : nlohmann::json(s.confidence)},
          {"crossovers", crossovers},
          {"notes", notes}};
}

void print_table(const select::Selection& s, const select::Request& r, const SelectArgs& a,
                 const std::vector<std::string>& notes) {
  fmt::print(
      "{} on {} ranks, {} ({} placement), collisions {}, {} tables; predicted time per call\n",
      r.collective, r.ranks, a.topology, a.placement, r.collisions ? "on" : "off", r.tables.source);
  for (const auto& note : notes) fmt::print("note: {}\n", note);
  fmt::print("{:>10}", "bytes");
  for (const auto& c : s.curves) fmt::print(" {:>12}", c.algorithm);
  fmt::print("  winner{}\n", s.confidence.empty() ? "" : " (share of table draws it wins)");
  for (std::size_t i = 0; i < s.sizes.size(); ++i) {
    fmt::print("{:>10}", human_bytes(static_cast<double>(s.sizes[i])));
    for (const auto& c : s.curves)
      fmt::print(" {:>12}", c.seconds[i] ? human_seconds(*c.seconds[i]) : "-");
    std::string sure;
    if (!s.confidence.empty()) {
      sure = fmt::format(" ({:.0f}%)", 100 * s.confidence[i]);
      if (s.fastest[i] != s.winners[i])
        sure = fmt::format(" (kept: {} is fastest in {:.0f}% of draws, below {:.0f}%)",
                           s.fastest[i], 100 * s.confidence[i], 100 * r.confidence);
    }
    fmt::print("  {}{}\n", s.winners[i], sure);
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

/// "0 B", "1023 B", "1 KiB", "128 KiB": exact, in KiB, MiB or GiB only when they divide.
std::string exact_bytes(std::int64_t bytes) {
  static constexpr const char* units[] = {"B", "KiB", "MiB", "GiB"};
  std::size_t unit = 0;
  while (unit + 1 < std::size(units) && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++unit;
  }
  return fmt::format("{} {}", bytes, units[unit]);
}

std::string range_text(const ChangedRange& r) {
  if (!r.to_bytes) return exact_bytes(r.from_bytes) + "+";
  if (*r.to_bytes == r.from_bytes) return exact_bytes(r.from_bytes);
  return fmt::format("{}-{}", exact_bytes(r.from_bytes), exact_bytes(*r.to_bytes));
}

std::string_view bytes_meaning(std::string_view collective) {
  if (collective == "allgather") return "bytes from each rank";
  if (collective == "alltoall") return "bytes to each rank";
  if (collective == "allreduce") return "bytes of the vector";
  return "bytes of the message";
}

bool is_mpich(const std::string& format) { return format == "mpich-json"; }

/// What the exported file changes (docs/selection.md), as lines of text.
std::vector<std::string> change_lines(const std::vector<DecisionChanges>& changes,
                                      const std::string& format) {
  std::vector<std::string> lines;
  for (const DecisionChanges& d : changes) {
    if (is_mpich(format)) {
      lines.push_back(fmt::format(
          "what the file changes: {}, comm_size {} (intra-communicators), {}:", d.collective,
          d.comm_size, bytes_meaning(d.collective)));
      std::size_t width = 0;
      for (const ChangedRange& r : d.ranges) width = std::max(width, range_text(r).size());
      for (const ChangedRange& r : d.ranges) {
        const std::string& now = r.algorithm.empty() ? r.library_function : r.algorithm;
        const std::string& was = r.stock_algorithm.empty() ? r.stock : r.stock_algorithm;
        lines.push_back(fmt::format("  {:<{}}  {} (MPICH stock: {}{})", range_text(r), width, now,
                                    was, r.library_function == r.stock ? "; unchanged" : ""));
      }
      if (d.collective == "alltoall")
        lines.push_back("  alltoall with MPI_IN_PLACE keeps MPICH's stock decision");
      if (d.collective == "allreduce")
        lines.push_back(
            "  allreduce with a non-commutative or user-defined op, or fewer elements than the "
            "largest power of two <= comm_size, keeps MPICH's stock decision");
    } else {
      lines.push_back(fmt::format("what the file forces: {}, comm_size {}, {}:", d.collective,
                                  d.comm_size, bytes_meaning(d.collective)));
      std::size_t width = 0;
      for (const ChangedRange& r : d.ranges) width = std::max(width, range_text(r).size());
      for (const ChangedRange& r : d.ranges)
        lines.push_back(fmt::format("  {:<{}}  {} (coll_tuned_{}_algorithm {})", range_text(r),
                                    width, r.algorithm, d.collective, r.library_function));
    }
  }
  lines.push_back(is_mpich(format)
                      ? "every other collective, communicator size and kind: MPICH 4.0.2's stock "
                        "decisions"
                      : "everything else: Open MPI's fixed decision rules (other communicator "
                        "sizes have algorithm 0 in the file, other collectives are not in it), or "
                        "coll_tuned_<coll>_algorithm where you set one");
  return lines;
}

nlohmann::json changes_json(const std::vector<DecisionChanges>& changes,
                            const std::string& format) {
  nlohmann::json out = nlohmann::json::array();
  for (const DecisionChanges& d : changes) {
    nlohmann::json ranges = nlohmann::json::array();
    for (const ChangedRange& r : d.ranges) {
      nlohmann::json range = {{"from_bytes", r.from_bytes},
                              {"to_bytes", r.to_bytes ? nlohmann::json(*r.to_bytes) : nullptr},
                              {"algorithm", r.algorithm}};
      if (is_mpich(format)) {
        range["function"] = r.library_function;
        range["stock_function"] = r.stock;
        range["stock_algorithm"] = r.stock_algorithm;
        range["unchanged"] = r.library_function == r.stock;
      } else {
        range["ompi_algorithm"] = r.library_function;
      }
      ranges.push_back(std::move(range));
    }
    out.push_back({{"collective", d.collective}, {"comm_size", d.comm_size}, {"ranges", ranges}});
  }
  return out;
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
  cmd->add_option("--export", a->export_format,
                  "Write the decision as a tuning file: ompi-rules (Open MPI coll_tuned rules, "
                  "classic format: Open MPI 4.1 and 5.0), ompi5-rules (the same in Open MPI 5's "
                  "rule-file-version-2 format), or mpich-json (MPICH 4.0.2's own selection with "
                  "the decision spliced in); prints what the file changes")
      ->check(CLI::IsMember({"ompi-rules", "ompi5-rules", "mpich-json"}));
  cmd->add_option("-o,--output", a->output, "File for --export");
  cmd->add_option("--plot", a->plot, "Also draw predicted time against size (.png or .svg)");
  cmd->add_option("--confidence", a->confidence,
                  "With a profile: the choice changes only where the new fastest algorithm wins "
                  "in at least this share of 100 bootstrap draws of the profile's tables "
                  "(default 0.95; 0: wherever the medians say)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->callback([a, &global] {
    if (!a->export_format.empty() && a->output.empty())
      throw Error("--export needs -o FILE for the rules");
    select::Request r;
    r.collective = a->collective;
    r.network = placed_network(a->topology, a->placement);
    r.ranks = ranks_of(*a, r.network);
    std::optional<MachineProfile> profile;
    if (!a->profile.empty()) profile = read_profile(a->profile);
    r.tables = tables_of(*a, profile ? &*profile : nullptr);
    r.collisions = !a->no_collisions;
    r.sizes = select::size_range(a->sizes, a->factor);
    r.only = split_list(a->algorithms);
    // A decision to export may only pick what the library runs: without --algorithms, only
    // those are candidates (choreo's own pipelined bcast, e.g., is not in Open MPI).
    if (!a->export_format.empty() && r.only.empty())
      r.only = exportable_algorithms(
          r.collective, is_mpich(a->export_format) ? TuningLibrary::Mpich : TuningLibrary::OpenMpi);
    std::vector<std::string> notes;
    if (profile) {
      notes = select::extrapolation_notes(*profile, r);
      if (a->confidence > 0) {
        r.confidence = a->confidence;
        r.table_draws =
            select::resampled_tables(*profile, select::parse_model_tables(a->tables), kTableDraws);
        for (auto& t : r.table_draws) t.hop_latency = r.tables.hop_latency;
      }
    }
    const select::Selection s = select::select_algorithms(r);
    std::vector<DecisionChanges> changes;
    if (!a->export_format.empty()) {
      const auto decisions = std::vector<CollectiveDecision>{decision_of(s, r)};
      std::string text;
      if (is_mpich(a->export_format)) {
        text = mpich_csel_json(decisions);
        changes = mpich_export_changes(decisions);
      } else {
        text = ompi_rules_text(decisions, a->export_format == "ompi5-rules" ? OmpiRulesFormat::v2
                                                                            : OmpiRulesFormat::v1);
        changes = ompi_export_changes(decisions);
      }
      std::ofstream out(a->output);
      if (!(out << text)) throw Error(fmt::format("cannot write {}", a->output));
    }
    if (!a->plot.empty()) plot(s, r, *a, !notes.empty(), a->plot);
    if (global.json) {
      auto j = as_json(s, r, *a, notes);
      if (!a->export_format.empty()) {
        const std::vector<std::string> lines = change_lines(changes, a->export_format);
        j["export"] = {{"format", a->export_format},
                       {"file", a->output},
                       {"changes", changes_json(changes, a->export_format)},
                       {"everything_else", lines.back()}};
      }
      print_json(j);
      return;
    }
    print_table(s, r, *a, notes);
    if (!a->export_format.empty()) {
      fmt::print("wrote {} ({})\n", a->output, a->export_format);
      for (const std::string& line : change_lines(changes, a->export_format))
        fmt::print("{}\n", line);
    }
  });
}

}  // namespace choreo::cli
