#include "redist_run.hpp"

#include <fmt/core.h>
#include <fmt/ranges.h>
#include <mpi.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "../src/core/human.hpp"
#include "../src/mpi/timed_runs.hpp"  // collectively
#include "choreo/core/error.hpp"
#include "choreo/redist/measure.hpp"
#include "choreo/redist/mpi.hpp"
#include "choreo/redist/relabel.hpp"
#include "choreo/redist/scalapack.hpp"
#include "command_line.hpp"

namespace choreo::tools {
namespace {

using redist::Method;

struct MethodResult {
  Method method;
  RunResult run;
  redist::RedistStats stats;  ///< the largest value of each field over the ranks
  std::int64_t peak_extra_bytes = -1;
};

std::vector<Method> methods_of(const std::string& name) {
  if (name == "all") return {Method::Auto, Method::Datatype, Method::Pack, Method::Shared};
  if (name == "both") return {Method::Datatype, Method::Pack};
  if (name == "auto") return {Method::Auto};
  if (name == "pack") return {Method::Pack};
  if (name == "datatype") return {Method::Datatype};
  if (name == "shared") return {Method::Shared};
  throw Error(fmt::format("--method '{}': use auto, datatype, pack, shared, both or all", name));
}

/// The distributions of the command line: both text forms; --shape may be left out when both
/// are ScaLAPACK descriptors, which carry their extents.
std::pair<redist::ArrayDistribution, redist::ArrayDistribution> distributions(
    const RedistRunArgs& args, int size) {
  const bool descriptors = args.from.starts_with("desc:") && args.to.starts_with("desc:");
  if (args.shape.empty() && !descriptors)
    throw Error("--shape is needed unless both --from and --to are ScaLAPACK descriptors (desc:)");
  const std::vector<std::int64_t> shape =
      args.shape.empty() ? std::vector<std::int64_t>{} : redist::parse_shape(args.shape);
  auto from = redist::parse_any_distribution(args.from, shape, size);
  auto to = redist::parse_any_distribution(args.to, shape, size);
  for (const auto* d : {&from, &to})
    if (!shape.empty() && d->shape != shape)
      throw Error(fmt::format("{} describes a {} array but --shape is {}",
                              d == &from ? "--from" : "--to", fmt::join(d->shape, "x"),
                              args.shape));
  if (from.shape != to.shape)
    throw Error(fmt::format("--from describes a {} array and --to a {} one; give both the same",
                            fmt::join(from.shape, "x"), fmt::join(to.shape, "x")));
  return {std::move(from), std::move(to)};
}

std::string paths_text(const redist::RedistStats& s) {
  return fmt::format("{}/{}/{}/{}", s.direct_sides, s.datatype_sides, s.pack_sides, s.shared_sides);
}

redist::RedistStats max_stats(MPI_Comm comm, const redist::RedistStats& s) {
  redist::RedistStats m = s;
  m.plan_seconds = redist::max_over(comm, s.plan_seconds);
  m.setup_seconds = redist::max_over(comm, s.setup_seconds);
  m.buffer_bytes = redist::max_over(comm, s.buffer_bytes);
  m.metadata_bytes = redist::max_over(comm, s.metadata_bytes);
  for (int* paths : {&m.direct_sides, &m.datatype_sides, &m.pack_sides, &m.shared_sides, &m.sends})
    MPI_Allreduce(MPI_IN_PLACE, paths, 1, MPI_INT, MPI_SUM, comm);
  for (std::int64_t* bytes : {&m.send_bytes, &m.copy_bytes})
    MPI_Allreduce(MPI_IN_PLACE, bytes, 1, MPI_INT64_T, MPI_SUM, comm);
  return m;
}

MethodResult run_method(Method method, const redist::ArrayDistribution& from,
                        const redist::ArrayDistribution& to, const RedistRunArgs& args,
                        redist::LocalArrays& arrays) {
  redist::RedistOptions options;
  options.method = method;
  MethodResult result{method, {}, {}, -1};
  const redist::PeakMemory memory;
  redist::RedistPlan plan(MPI_COMM_WORLD, from, to, MPI_DOUBLE, options);
  result.run = redist::time_verified(MPI_COMM_WORLD, to, arrays, {args.warmup, args.reps}, [&] {
    plan.execute(arrays.source.data(), arrays.target.data());
  });
  result.peak_extra_bytes = redist::max_over(MPI_COMM_WORLD, memory.extra_bytes());
  result.stats = max_stats(MPI_COMM_WORLD, plan.stats());
  return result;
}

nlohmann::json to_json(const MethodResult& r) {
  return {{"method", redist::to_string(r.method)},
          {"median_seconds", r.run.median},
          {"min_seconds", r.run.min},
          {"max_seconds", r.run.max},
          {"plan_seconds", r.stats.plan_seconds},
          {"setup_seconds", r.stats.setup_seconds},
          {"buffer_bytes", r.stats.buffer_bytes},
          {"metadata_bytes", r.stats.metadata_bytes},
          {"paths",
           {{"direct", r.stats.direct_sides},
            {"datatype", r.stats.datatype_sides},
            {"pack", r.stats.pack_sides},
            {"shared", r.stats.shared_sides}}},
          {"peak_extra_bytes", r.peak_extra_bytes},
          {"bytes_verified", r.run.bytes_verified}};
}

void print(const redist::ArrayDistribution& from, const redist::ArrayDistribution& to,
           const std::vector<MethodResult>& results, const RedistRunArgs& args,
           std::int64_t array_bytes) {
  const redist::RedistStats& s = results.front().stats;
  fmt::print("redistribution  {} {} -> {} (doubles)\n", fmt::join(from.shape, "x"),
             redist::to_string(from), redist::to_string(to));
  fmt::print("MPI             {}\n", results.front().run.engine);
  fmt::print("messages        {} ({}), local copies {}\n", s.sends,
             human_bytes(static_cast<double>(s.send_bytes)),
             human_bytes(static_cast<double>(s.copy_bytes)));
  fmt::print("iterations      {} timed after {} warm-up\n", args.reps, args.warmup);
  fmt::print("{:<9} {:>11} {:>11} {:>11} {:>11} {:>12} {:>13} {:>12}  {}\n", "method", "median",
             "min", "plan", "setup", "buffers", "peak extra", "paths d/t/p/s", "verified");
  for (const MethodResult& r : results)
    fmt::print(
        "{:<9} {:>11} {:>11} {:>11} {:>11} {:>12} {:>13} {:>12}  {}, every element checked: OK\n",
        redist::to_string(r.method), human_seconds(r.run.median), human_seconds(r.run.min),
        human_seconds(r.stats.plan_seconds), human_seconds(r.stats.setup_seconds),
        human_bytes(static_cast<double>(r.stats.buffer_bytes)),
        r.peak_extra_bytes < 0 ? std::string("?")
                               : human_bytes(static_cast<double>(r.peak_extra_bytes)),
        paths_text(r.stats), human_bytes(static_cast<double>(r.run.bytes_verified)));
  fmt::print("array           {} per rank at most (source + target local arrays)\n",
             human_bytes(static_cast<double>(array_bytes)));
  fmt::print(
      "paths d/t/p/s   message sides sent or received directly / by datatype / packed / through "
      "shared memory\n");
}

}  // namespace

CLI::App* add_redist_command(CLI::App& app, RedistRunArgs& args) {
  auto* redist = app.add_subcommand("redist", "Block-cyclic array redistribution (paper 002)");
  redist->require_subcommand(1);
  auto* run = redist->add_subcommand(
      "run",
      "Redistribute an array of doubles holding a function of the global index, check every "
      "element on every rank, print median times (slowest rank) and memory");
  run->add_option("--shape", args.shape,
                  "Global extents, e.g. 2000x2000 (not needed when both distributions are "
                  "ScaLAPACK descriptors)");
  run->add_option("--from", args.from,
                  "Source distribution, e.g. 'cyclic,cyclic@2x2', or a ScaLAPACK descriptor "
                  "desc:M,N,MB,NB,RSRC,CSRC,LLD@PxQ[:col]")
      ->required();
  run->add_option("--to", args.to, "Target distribution, e.g. 'cyclic(50),cyclic(50)@2x2'")
      ->required();
  run->add_option("--method", args.method,
                  "auto (default: shared memory within a node, else per message side direct, "
                  "datatype when small, pack; measured against datatypes), datatype, pack, "
                  "shared (auto's paths, not measured), both (datatype and pack) or all four")
      ->check(CLI::IsMember({"auto", "datatype", "pack", "shared", "both", "all"}));
  run->add_option("--reps", args.reps, "Timed iterations (default 10)")
      ->check(choreo::tools::positive());
  run->add_option("--warmup", args.warmup, "Untimed iterations first (default 2)")
      ->check(choreo::tools::at_least(0));
  run->add_flag("--relabel", args.relabel,
                "Permute the target grid's ranks to keep the most data in place (relabel.hpp)");
  run->add_flag("--json", args.json, "Print the result as JSON (choreo.redist-run/1)");
  return redist;
}

void redist_run(const RedistRunArgs& args, int rank) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Every rank parses the same text, so every rank throws the same error.
  auto [from, to] = distributions(args, size);
  std::optional<redist::Relabelling> relabelling;
  if (args.relabel) {
    relabelling = redist::best_relabelling(from, to);
    to = redist::relabelled(to, *relabelling);
  }
  const std::vector<Method> methods = methods_of(args.method);
  redist::LocalArrays arrays;
  mpi::detail::collectively(MPI_COMM_WORLD, [&] { arrays = redist::make_arrays(from, to, rank); });
  redist::warm_up_transport(MPI_COMM_WORLD, std::int64_t{8} << 20);
  std::vector<MethodResult> results;
  for (Method method : methods) results.push_back(run_method(method, from, to, args, arrays));
  const std::int64_t array_bytes = redist::max_over(
      MPI_COMM_WORLD,
      static_cast<std::int64_t>((arrays.source.size() + arrays.target.size()) * sizeof(double)));
  if (rank != 0) return;
  if (!args.json) {
    if (relabelling)
      fmt::print("relabelled      {} of {} kept in place instead of {} ({} less to move)\n",
                 human_bytes(static_cast<double>(relabelling->kept_after * 8)),
                 human_bytes(static_cast<double>(relabelling->elements * 8)),
                 human_bytes(static_cast<double>(relabelling->kept_before * 8)),
                 human_bytes(static_cast<double>(
                     (relabelling->kept_after - relabelling->kept_before) * 8)));
    return print(from, to, results, args, array_bytes);
  }
  nlohmann::json out = {{"format", "choreo.redist-run/1"},
                        {"shape", from.shape},
                        {"from", redist::to_string(from)},
                        {"to", redist::to_string(to)},
                        {"ranks", size},
                        {"mpi", results.front().run.engine},
                        {"warmup", args.warmup},
                        {"repetitions", args.reps},
                        {"array_bytes_per_rank", array_bytes},
                        {"methods", nlohmann::json::array()}};
  for (const MethodResult& r : results) out["methods"].push_back(to_json(r));
  if (relabelling)
    out["relabelling"] = {{"ranks", relabelling->ranks},
                          {"kept_before_bytes", relabelling->kept_before * 8},
                          {"kept_after_bytes", relabelling->kept_after * 8}};
  fmt::print("{}\n", out.dump(2));
}

}  // namespace choreo::tools
