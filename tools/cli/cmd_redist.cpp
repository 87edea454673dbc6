// choreo redist plan --shape 2000x2000 --from 'cyclic,cyclic@2x2' --to 'cyclic(50),cyclic(50)@2x2':
// the comm sets of every dimension (compact triplets), the messages per rank pair and the
// time the plan took (paper 002). The data movement runs under MPI: choreo-mpi redist run.
#include <fmt/core.h>
#include <fmt/ranges.h>

#include <chrono>
#include <memory>

#include "choreo/core/error.hpp"
#include "choreo/core/limits.hpp"
#include "choreo/redist/peak_memory.hpp"
#include "choreo/redist/plan.hpp"
#include "choreo/redist/rank_plan.hpp"
#include "choreo/redist/relabel.hpp"
#include "choreo/redist/scalapack.hpp"
#include "cli/common.hpp"
#include "command_line.hpp"

namespace choreo::cli {
namespace {

struct RedistArgs {
  std::string shape, from, to;
  std::int64_t ranks = 0;  ///< the communicator to check the grids against (0: any)
  std::int64_t element_bytes = 8;
  int show = 8;  ///< triplets printed per processor pair in the table
  bool no_gcd = false, no_period = false;
  std::int64_t rank = -1;  ///< >= 0: only this rank's plan (rank_plan.hpp)
  bool relabel = false;    ///< permute the target grid's ranks to keep the most in place
};

nlohmann::json relabel_json(const redist::Relabelling& r, std::int64_t element_bytes) {
  return {{"ranks", r.ranks},
          {"kept_before_bytes", r.kept_before * element_bytes},
          {"kept_after_bytes", r.kept_after * element_bytes},
          {"bytes_saved", (r.kept_after - r.kept_before) * element_bytes},
          {"array_bytes", r.elements * element_bytes}};
}

void print_relabel(const redist::Relabelling& r, const redist::ArrayDistribution& to,
                   std::int64_t element_bytes) {
  const auto bytes = [&](std::int64_t elements) {
    return human_bytes(static_cast<double>(elements * element_bytes));
  };
  fmt::print("relabelled      --to {}\n", redist::to_string(to));
  fmt::print("kept in place   {} of {} before, {} after: {} saved\n\n", bytes(r.kept_before),
             bytes(r.elements), bytes(r.kept_after), bytes(r.kept_after - r.kept_before));
}

std::string triplets_text(const std::vector<redist::Triplet>& list, int show) {
  std::vector<std::string> parts;
  for (const redist::Triplet& t : list) {
    if (static_cast<int>(parts.size()) == show) {
      parts.push_back(fmt::format("... ({} more)", list.size() - static_cast<std::size_t>(show)));
      break;
    }
    parts.push_back(redist::to_string(t));
  }
  return fmt::format("{}", fmt::join(parts, " "));
}

nlohmann::json dims_json(const redist::Plan& plan) {
  nlohmann::json dims = nlohmann::json::array();
  for (std::size_t d = 0; d < plan.dims.size(); ++d) {
    const redist::DimCommSets& c = plan.dims[d];
    nlohmann::json sets = nlohmann::json::array();
    for (int from = 0; from < c.source_procs; ++from)
      for (int to = 0; to < c.target_procs; ++to) {
        nlohmann::json triplets = nlohmann::json::array();
        for (const redist::Triplet& t : c.between(from, to))
          triplets.push_back({t.lower, t.upper, t.stride});
        if (!triplets.empty()) sets.push_back({{"from", from}, {"to", to}, {"triplets", triplets}});
      }
    dims.push_back({{"dim", d},
                    {"source_procs", c.source_procs},
                    {"target_procs", c.target_procs},
                    {"gcd_unit", c.gcd_unit},
                    {"period", c.period},
                    {"intersections", c.intersections},
                    {"sets", sets}});
  }
  return dims;
}

nlohmann::json to_json(const redist::Plan& plan, const RedistArgs& a, double seconds) {
  nlohmann::json transfers = nlohmann::json::array();
  for (const redist::Transfer& t : plan.transfers)
    transfers.push_back({{"source_rank", t.source_rank},
                         {"target_rank", t.target_rank},
                         {"local_copy", t.local_copy()},
                         {"elements", t.elements},
                         {"bytes", t.elements * a.element_bytes},
                         {"sections", t.section_count()}});
  const redist::PlanTotals s = plan.totals();
  return {{"format", "choreo.redist-plan/1"},
          {"shape", plan.from.shape},
          {"from", redist::to_string(plan.from)},
          {"to", redist::to_string(plan.to)},
          {"gcd_reduction", !a.no_gcd},
          {"period_reduction", !a.no_period},
          {"element_bytes", a.element_bytes},
          {"dims", dims_json(plan)},
          {"transfers", transfers},
          {"totals",
           {{"messages", s.messages},
            {"message_elements", s.message_elements},
            {"message_bytes", s.message_elements * a.element_bytes},
            {"local_copies", s.local_copies},
            {"copy_elements", s.copy_elements},
            {"sections", s.sections}}},
          {"plan_seconds", seconds}};
}

void print_table(const redist::Plan& plan, const RedistArgs& a, double seconds) {
  fmt::print("redistribution  {} {} -> {}\n", fmt::join(plan.from.shape, "x"),
             redist::to_string(plan.from), redist::to_string(plan.to));
  fmt::print("reductions      gcd {}, period {}\n", a.no_gcd ? "off" : "on",
             a.no_period ? "off" : "on");
  for (std::size_t d = 0; d < plan.dims.size(); ++d) {
    const redist::DimCommSets& c = plan.dims[d];
    fmt::print("\ndimension {}: {} -> {} processors, gcd unit {}, period {}, {} intersections\n", d,
               c.source_procs, c.target_procs, c.gcd_unit,
               c.period > 0 ? std::to_string(c.period) : std::string("-"), c.intersections);
    for (int from = 0; from < c.source_procs; ++from)
      for (int to = 0; to < c.target_procs; ++to)
        if (!c.between(from, to).empty())
          fmt::print("  {} -> {}  {}\n", from, to, triplets_text(c.between(from, to), a.show));
  }
  fmt::print("\n{:>6} {:>6} {:>12} {:>12} {:>9}\n", "from", "to", "elements", "bytes", "sections");
  for (const redist::Transfer& t : plan.transfers)
    fmt::print("{:>6} {:>6} {:>12} {:>12} {:>9}{}\n", t.source_rank, t.target_rank, t.elements,
               t.elements * a.element_bytes, t.section_count(),
               t.local_copy() ? "  (local copy)" : "");
  const redist::PlanTotals s = plan.totals();
  fmt::print("\nmessages        {} ({}, {} elements)\n", s.messages,
             human_bytes(static_cast<double>(s.message_elements * a.element_bytes)),
             s.message_elements);
  fmt::print("local copies    {} ({}, {} elements)\n", s.local_copies,
             human_bytes(static_cast<double>(s.copy_elements * a.element_bytes)), s.copy_elements);
  fmt::print("sections        {}\n", s.sections);
  fmt::print("plan time       {} (comm sets and sections, all ranks)\n", human_seconds(seconds));
}

/// One rank's plan: what it sends and receives, the time and memory it took.
void run_rank(const redist::ArrayDistribution& from, const redist::ArrayDistribution& to,
              const RedistArgs& a, const Global& global, nlohmann::json relabelling) {
  const int rank = static_cast<int>(a.rank);
  const redist::PeakMemory memory;
  const auto start = std::chrono::steady_clock::now();
  const redist::RankPlan plan = redist::plan_rank(from, to, rank);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::int64_t peak = memory.extra_bytes();
  const std::int64_t held = plan.bytes();
  const auto side_json = [&](const redist::RankSide& side) {
    nlohmann::json messages = nlohmann::json::array();
    for (const redist::PeerMessage& m : side.messages) {
      nlohmann::json dims = nlohmann::json::array();
      for (std::size_t d = 0; d < m.parts.size(); ++d) {
        nlohmann::json triplets = nlohmann::json::array();
        for (const redist::Triplet& t : side.dims[d][m.parts[d]].global)
          triplets.push_back({t.lower, t.upper, t.stride});
        dims.push_back(triplets);
      }
      messages.push_back({{"peer", m.peer},
                          {"elements", m.elements},
                          {"bytes", m.elements * a.element_bytes},
                          {"dims", dims}});
    }
    return messages;
  };
  if (global.json)
    return print_json({{"format", "choreo.redist-rank-plan/1"},
                       {"shape", from.shape},
                       {"from", redist::to_string(from)},
                       {"to", redist::to_string(to)},
                       {"rank", rank},
                       {"ranks", std::max(redist::grid_size(from), redist::grid_size(to))},
                       {"element_bytes", a.element_bytes},
                       {"sends", side_json(plan.sends)},
                       {"receives", side_json(plan.receives)},
                       {"pieces", plan.pieces},
                       {"plan_seconds", seconds},
                       {"plan_bytes", held},
                       {"peak_extra_bytes", peak},
                       {"relabelling", relabelling}});
  fmt::print("redistribution  {} {} -> {}, rank {}\n", fmt::join(from.shape, "x"),
             redist::to_string(from), redist::to_string(to), rank);
  fmt::print("{}", redist::to_text(plan, a.element_bytes, a.show));
  fmt::print("plan time       {} (this rank's comm sets and messages)\n", human_seconds(seconds));
  fmt::print("plan memory     {} held, {} peak resident rise\n",
             human_bytes(static_cast<double>(held)),
             peak < 0 ? std::string("?") : human_bytes(static_cast<double>(peak)));
}

void run(const RedistArgs& a, const Global& global) {
  if (a.element_bytes < 1 || a.element_bytes > limits::kMaxElementBytes)
    throw Error(fmt::format("--element-bytes must be 1 to {}, not {}", limits::kMaxElementBytes,
                            a.element_bytes));
  const std::vector<std::int64_t> shape = redist::parse_shape(a.shape);
  std::optional<int> ranks;
  if (a.ranks > 0) ranks = static_cast<int>(a.ranks);
  const redist::ArrayDistribution from = redist::parse_any_distribution(a.from, shape, ranks);
  redist::ArrayDistribution to = redist::parse_any_distribution(a.to, shape, ranks);
  for (const redist::ArrayDistribution* d :
       {&from, static_cast<const redist::ArrayDistribution*>(&to)})
    if (d->shape != shape)
      throw Error(fmt::format("{} describes a {} array but --shape is {}",
                              d == &from ? "--from" : "--to", fmt::join(d->shape, "x"), a.shape));
  nlohmann::json relabelling = nullptr;
  if (a.relabel) {
    const redist::Relabelling r = redist::best_relabelling(from, to);
    to = redist::relabelled(to, r);
    relabelling = relabel_json(r, a.element_bytes);
    if (!global.json) print_relabel(r, to, a.element_bytes);
  }
  if (a.rank >= 0) return run_rank(from, to, a, global, relabelling);
  redist::CommSetOptions options;
  options.reduce_by_gcd = !a.no_gcd;
  options.reduce_to_period = !a.no_period;
  const auto start = std::chrono::steady_clock::now();
  const redist::Plan plan = redist::make_plan(from, to, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (global.json) {
    nlohmann::json out = to_json(plan, a, seconds);
    out["relabelling"] = relabelling;
    return print_json(out);
  }
  print_table(plan, a, seconds);
}

}  // namespace

void add_redist_command(CLI::App& app, const Global& global) {
  auto* redist = app.add_subcommand(
      "redist", "Block-cyclic array redistribution (paper 002); run it with choreo-mpi redist run");
  redist->require_subcommand(1);
  auto args = std::make_shared<RedistArgs>();
  auto* plan = redist->add_subcommand(
      "plan",
      "Comm sets per dimension (compact triplets), messages and volumes per rank pair, and the "
      "time the plan took");
  plan->add_option("--shape", args->shape, "Global extents, e.g. 2000x2000")->required();
  plan->add_option(
          "--from", args->from,
          "Source distribution: DIST[,DIST...]@GRID[:row|:col|:first=R|:ranks=..|:src=..], "
          "DIST = block | cyclic | cyclic(n) | *; e.g. 'cyclic,cyclic@2x2'; or a ScaLAPACK "
          "descriptor desc:M,N,MB,NB,RSRC,CSRC,LLD@PxQ[:col]")
      ->required();
  plan->add_option("--to", args->to, "Target distribution, e.g. 'cyclic(50),cyclic(50)@2x2'")
      ->required();
  plan->add_option("--ranks", args->ranks,
                   "Check that both grids fit a communicator of this many ranks")
      ->check(choreo::tools::positive());
  plan->add_option("--element-bytes", args->element_bytes, "Bytes per element (default 8)");
  plan->add_option("--show", args->show, "Triplets printed per processor pair (default 8)")
      ->check(choreo::tools::at_least(0));
  plan->add_option("--rank", args->rank,
                   "Only this rank's plan: its sends and receives, computed from its own comm "
                   "sets (what every rank does under MPI), with the time and memory it took")
      ->check(choreo::tools::at_least(0));
  plan->add_flag("--relabel", args->relabel,
                 "Let the target grid's ranks be permuted: choose the permutation that keeps the "
                 "most data in place (a linear assignment), print it and the bytes saved, and "
                 "plan with it");
  plan->add_flag("--no-gcd-reduction", args->no_gcd, "Skip reduction (1), by gcd of block sizes");
  plan->add_flag("--no-period-reduction", args->no_period,
                 "Skip reduction (2), to one period lcm(m1 p1, m2 p2)");
  plan->callback([args, &global] { run(*args, global); });
}

}  // namespace choreo::cli
