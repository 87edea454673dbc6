#include "redist_run.hpp"

#include <fmt/core.h>
#include <mpi.h>

#include <nlohmann/json.hpp>
#include <vector>

#include "choreo/error.hpp"
#include "choreo/human.hpp"
#include "choreo/redist/measure.hpp"
#include "choreo/redist/mpi.hpp"

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
  if (name == "both") return {Method::Datatype, Method::Pack};
  if (name == "pack") return {Method::Pack};
  if (name == "datatype") return {Method::Datatype};
  throw Error(fmt::format("--method '{}': use datatype, pack or both", name));
}

redist::RedistStats max_stats(MPI_Comm comm, const redist::RedistStats& s) {
  redist::RedistStats m = s;
  m.plan_seconds = redist::max_over(comm, s.plan_seconds);
  m.setup_seconds = redist::max_over(comm, s.setup_seconds);
  m.buffer_bytes = redist::max_over(comm, s.buffer_bytes);
  m.metadata_bytes = redist::max_over(comm, s.metadata_bytes);
  return m;
}

MethodResult run_method(Method method, const redist::ArrayDistribution& from,
                        const redist::ArrayDistribution& to, const RedistRunArgs& args,
                        redist::LocalArrays& arrays) {
  redist::RedistOptions options;
  options.method = method;
  options.comm_sets.reduce_by_gcd = !args.no_gcd;
  options.comm_sets.reduce_to_period = !args.no_period;
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
          {"peak_extra_bytes", r.peak_extra_bytes},
          {"bytes_verified", r.run.bytes_verified}};
}

void print(const RedistRunArgs& args, const redist::Plan& plan,
           const std::vector<MethodResult>& results, std::int64_t array_bytes) {
  const redist::PlanTotals totals = plan.totals();
  fmt::print("redistribution  {} {} -> {} (doubles)\n", args.shape, redist::to_string(plan.from),
             redist::to_string(plan.to));
  fmt::print("MPI             {}\n", results.front().run.engine);
  fmt::print("messages        {} ({} elements), local copies {} ({} elements)\n", totals.messages,
             totals.message_elements, totals.local_copies, totals.copy_elements);
  fmt::print("iterations      {} timed after {} warm-up\n", args.reps, args.warmup);
  fmt::print("{:<9} {:>11} {:>11} {:>11} {:>11} {:>12} {:>13}  {}\n", "method", "median", "min",
             "plan", "setup", "buffers", "peak extra", "verified");
  for (const MethodResult& r : results)
    fmt::print("{:<9} {:>11} {:>11} {:>11} {:>11} {:>12} {:>13}  {}, every element checked: OK\n",
               redist::to_string(r.method), human_seconds(r.run.median), human_seconds(r.run.min),
               human_seconds(r.stats.plan_seconds), human_seconds(r.stats.setup_seconds),
               human_bytes(static_cast<double>(r.stats.buffer_bytes)),
               r.peak_extra_bytes < 0 ? std::string("?")
                                      : human_bytes(static_cast<double>(r.peak_extra_bytes)),
               human_bytes(static_cast<double>(r.run.bytes_verified)));
  fmt::print("array           {} per rank at most (source + target local arrays)\n",
             human_bytes(static_cast<double>(array_bytes)));
}

}  // namespace

CLI::App* add_redist_command(CLI::App& app, RedistRunArgs& args) {
  auto* redist = app.add_subcommand("redist", "Block-cyclic array redistribution (paper 002)");
  redist->require_subcommand(1);
  auto* run = redist->add_subcommand(
      "run",
      "Redistribute an array of doubles holding a function of the global index, check every "
      "element on every rank, print median times (slowest rank) and memory");
  run->add_option("--shape", args.shape, "Global extents, e.g. 2000x2000")->required();
  run->add_option("--from", args.from, "Source distribution, e.g. 'cyclic,cyclic@2x2'")->required();
  run->add_option("--to", args.to, "Target distribution, e.g. 'cyclic(50),cyclic(50)@2x2'")
      ->required();
  run->add_option("--method", args.method, "datatype (default), pack or both")
      ->check(CLI::IsMember({"datatype", "pack", "both"}));
  run->add_option("--reps", args.reps, "Timed iterations (default 10)")->check(CLI::PositiveNumber);
  run->add_option("--warmup", args.warmup, "Untimed iterations first (default 2)")
      ->check(CLI::NonNegativeNumber);
  run->add_flag("--no-gcd-reduction", args.no_gcd, "Compute comm sets without reduction (1)");
  run->add_flag("--no-period-reduction", args.no_period, "Compute comm sets without reduction (2)");
  run->add_flag("--json", args.json, "Print the result as JSON (choreo.redist-run/1)");
  return redist;
}

void redist_run(const RedistRunArgs& args, int rank) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Every rank parses the same text, so every rank throws the same error.
  const std::vector<std::int64_t> shape = redist::parse_shape(args.shape);
  const redist::ArrayDistribution from = redist::parse_distribution(args.from, shape, size);
  const redist::ArrayDistribution to = redist::parse_distribution(args.to, shape, size);
  const std::vector<Method> methods = methods_of(args.method);
  redist::LocalArrays arrays = redist::make_arrays(from, to, rank);
  redist::warm_up_transport(MPI_COMM_WORLD, std::int64_t{8} << 20);
  std::vector<MethodResult> results;
  for (Method method : methods) results.push_back(run_method(method, from, to, args, arrays));
  const std::int64_t array_bytes = redist::max_over(
      MPI_COMM_WORLD,
      static_cast<std::int64_t>((arrays.source.size() + arrays.target.size()) * sizeof(double)));
  if (rank != 0) return;
  const redist::Plan plan = redist::make_plan(from, to);
  if (!args.json) return print(args, plan, results, array_bytes);
  nlohmann::json out = {{"format", "choreo.redist-run/1"},
                        {"shape", shape},
                        {"from", redist::to_string(from)},
                        {"to", redist::to_string(to)},
                        {"ranks", size},
                        {"mpi", results.front().run.engine},
                        {"warmup", args.warmup},
                        {"repetitions", args.reps},
                        {"array_bytes_per_rank", array_bytes},
                        {"methods", nlohmann::json::array()}};
  for (const MethodResult& r : results) out["methods"].push_back(to_json(r));
  fmt::print("{}\n", out.dump(2));
}

}  // namespace choreo::tools
