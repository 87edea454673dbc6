// choreo-mpi: the part of choreo that runs under mpiexec (or smpirun).
//   mpiexec -n 4 choreo-mpi run s.json [--reps 10] [--warmup 2] [--json] [-o result.json]
//   mpiexec -n 4 choreo-mpi collective p.json --call alltoallv [--reps 10] [--json]
//   mpiexec -n 2 choreo-mpi calibrate -o machine.json [--quick] [--json]
//   mpiexec -n 4 choreo-mpi redist run --shape 2000x2000 --from F --to T [--method both]
//   mpiexec -n 4 choreo-mpi sweep jitter [choreo jitter sweep's options] [--json]
// Every rank parses the same command line and reads the same schedule; only rank 0 prints.
#include <fmt/core.h>
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>

#include "../src/core/human.hpp"
#include "calibrate.hpp"
#include "calibrate_delay.hpp"
#include "choreo/core/error.hpp"
#include "choreo/core/io.hpp"
#include "choreo/mpi/collective_baseline.hpp"
#include "choreo/mpi/executor.hpp"
#include "choreo/mpi/fault.hpp"
#include "command_line.hpp"
#include "redist_run.hpp"
#include "size_sweep.hpp"
#ifdef CHOREO_MPI_SWEEP
#include "sweep_mpi.hpp"
#endif

namespace {

struct RunArgs {
  std::string schedule, label, output;
  std::string call;      ///< collective: which MPI collective
  std::string generate;  ///< run: choreo's generator instead of a file, with --sizes
  std::string sizes;     ///< MIN:MAX: an OSU-style sweep
  choreo::mpi::RunOptions options;
  bool json = false;
};

void print_table(const choreo::RunResult& r) {
  fmt::print("schedule        {} (algorithm \"{}\", {} ranks)\n", r.schedule, r.algorithm, r.ranks);
  fmt::print("MPI             {}\n", r.engine);
  fmt::print("messages        {} per iteration, {}\n", r.messages,
             choreo::human_bytes(static_cast<double>(r.bytes_per_iteration)));
  fmt::print("iterations      {} timed after {} warm-up\n", r.repetitions, r.warmup);
  fmt::print("verified        {} received, every byte checked: OK\n",
             choreo::human_bytes(static_cast<double>(r.bytes_verified)));
  fmt::print("time/iteration  median {}   min {}   max {}   (slowest rank of each iteration)\n",
             choreo::human_seconds(r.median), choreo::human_seconds(r.min),
             choreo::human_seconds(r.max));
}

/// Every rank loads the file; they agree on failure so none waits in a collective.
template <typename Load>
auto load_everywhere(const std::string& path, int rank, Load load) {
  decltype(load(path)) loaded;
  int ok = 1, all_ok = 0;
  try {
    loaded = load(path);
  } catch (const choreo::Error& e) {
    ok = 0;
    if (rank == 0) fmt::print(stderr, "choreo-mpi: error: {}\n", e.what());
  }
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_ok) throw choreo::Error("");  // already reported
  return loaded;
}

/// What to run, checked alike on every rank before anything runs: a file, or a sweep of a
/// generated schedule (run) or of the call on generated patterns (collective).
bool is_sweep(const RunArgs& args, bool collective) {
  const bool file = !args.schedule.empty();
  if (!collective && !args.generate.empty() && file)
    throw choreo::Error("give a SCHEDULE file or --generate COLL:ALGO, not both");
  if (!collective && !args.generate.empty() && args.sizes.empty())
    throw choreo::Error("--generate needs the sizes to run: add --sizes MIN:MAX, e.g. 1:1M");
  if (!args.sizes.empty() && file)
    throw choreo::Error(fmt::format(
        "--sizes sweeps generated {}: a {} file has its own sizes; drop one of them",
        collective ? "patterns" : "schedules (--generate)", collective ? "PATTERN" : "SCHEDULE"));
  if (!args.sizes.empty()) return true;
  if (!file)
    throw choreo::Error(collective ? "give a PATTERN file, or --sizes MIN:MAX for a sweep"
                                   : "give a SCHEDULE file, or --generate COLL:ALGO --sizes "
                                     "MIN:MAX for a sweep");
  return false;
}

int run_command(const RunArgs& args, int rank, bool collective) {
  if (is_sweep(args, collective)) {
    choreo::tools::SweepArgs sweep{
        args.generate, args.call, choreo::select::size_range(args.sizes), args.options, args.label,
        args.output,   args.json};
    choreo::tools::run_sweep(sweep, MPI_COMM_WORLD);
    return 0;
  }
  choreo::RunResult result;
  if (collective) {
    const auto pattern = load_everywhere(args.schedule, rank, choreo::load_pattern);
    result = choreo::mpi::run_collective(pattern, choreo::mpi::parse_collective(args.call),
                                         MPI_COMM_WORLD, args.options);
  } else {
    const auto schedule = load_everywhere(args.schedule, rank, choreo::load_schedule);
    result = choreo::mpi::run(schedule, MPI_COMM_WORLD, args.options);
  }
  result.label = args.label;
  result.schedule = args.schedule;
  if (rank != 0) return 0;
  if (!args.output.empty())
    choreo::write_text_file(args.output, choreo::run_result_to_json(result));
  if (args.json)
    fmt::print("{}", choreo::run_result_to_json(result));
  else
    print_table(result);
  return 0;
}

void add_sweep_option(CLI::App* sub, RunArgs& args) {
  sub->add_option("--sizes", args.sizes,
                  "MIN:MAX bytes, e.g. 1:1M: one run per power of two, printed as OSU's "
                  "benchmarks print (size, then microseconds); bytes per rank pair (per rank for "
                  "allgather, the message for bcast); -o and --json write choreo.sweep/1");
}

void add_timing_options(CLI::App* sub, RunArgs& args) {
  sub->add_option("--warmup", args.options.warmup, "Untimed iterations first (default 2)")
      ->check(choreo::tools::at_least(0));
  sub->add_option("--reps", args.options.repetitions, "Timed iterations (default 10)")
      ->check(choreo::tools::positive());
  sub->add_option("--label", args.label, "Free text naming this run in reports");
  sub->add_option("-o,--output", args.output, "Also write the result as JSON to this file");
  sub->add_flag("--json", args.json, "Print the result as JSON (choreo.run/1)");
  sub->add_option("--timeout", args.options.timeout_seconds,
                  "Seconds a rank may wait with nothing completing before the run ends, each "
                  "rank printing what it still waits for; `run` adds the longest rank's calc "
                  "and delay time (default 60; 0: never; or e.g. 90s)")
      ->transform(choreo::tools::time_seconds())
      ->check(CLI::Range(0.0, 1e9));
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  CLI::App app{"choreo-mpi: run choreo schedules on MPI (under mpiexec or smpirun)"};
  app.set_version_flag("--version", std::string("choreo-mpi ") + CHOREO_VERSION);
  app.require_subcommand(1);
  RunArgs args;
  auto* run = app.add_subcommand(
      "run",
      "Run a schedule: persistent requests, warm-up, timed iterations; every received "
      "byte is verified. Prints the slowest rank's time per iteration (median, min, max).");
  run->add_option("SCHEDULE", args.schedule, "Schedule file (.json or .goal)");
  run->add_option("--generate", args.generate,
                  "Instead of a file, choreo's generated collective, e.g. allgather:ring or "
                  "allreduce:recdbl (ranks: the run's), at every --sizes");
  add_sweep_option(run, args);
  add_timing_options(run, args);

  auto* coll = app.add_subcommand(
      "collective",
      "Run the MPI library's own collective on a pattern (the baselines of paper 000's Table "
      "3): timed and verified like `run`");
  coll->add_option("PATTERN", args.schedule, "Pattern file (.json, from `choreo pattern`)");
  add_sweep_option(coll, args);
  coll->add_option("--call", args.call,
                   "bcast|scatter (one root sending equal messages), gather, allgather|alltoall "
                   "(full alltoall), alltoallv, neighbor_alltoallv (any pattern; not in SMPI)")
      ->required()
      ->check(CLI::IsMember({"bcast", "scatter", "gather", "allgather", "alltoall", "alltoallv",
                             "neighbor_alltoallv"}));
  add_timing_options(coll, args);

  choreo::tools::CalibrateDelayArgs calibrate;
  auto* sweep = app.add_subcommand(
      "calibrate-delay",
      "Sweep the delay of delay insertion on a gather of all ranks to rank 0 (paper 000, "
      "Fig. 5) and print the best");
  sweep->add_option("--bytes", calibrate.bytes, "Bytes per message, e.g. 63K (default 64512)")
      ->transform(choreo::tools::byte_size());
  sweep->add_option("--from", calibrate.from_ns, "Smallest delay: ns or e.g. 50us (default 0)")
      ->transform(choreo::tools::time_ns());
  sweep->add_option("--to", calibrate.to_ns, "Largest delay: ns or e.g. 1ms (default 1000000)")
      ->transform(choreo::tools::time_ns());
  sweep->add_option("--steps", calibrate.steps, "Delays tried (default 11)")
      ->check(choreo::tools::positive());
  sweep->add_option("--reps", calibrate.reps, "Timed iterations per delay (default 20)")
      ->check(choreo::tools::positive());
  sweep->add_option("--warmup", calibrate.warmup, "Untimed iterations first (default 2)")
      ->check(choreo::tools::at_least(0));
  sweep->add_flag("--json", calibrate.json, "Print the sweep as JSON");

  choreo::tools::CalibrateArgs machine;
  auto* measure = app.add_subcommand(
      "calibrate",
      "Measure this machine into a profile (paper 001 IV-A): ping-pong between rank pairs, "
      "bursts for LogGP's g and G, send and receive overheads, memcpy with rotating addresses; "
      "fits LogGP and Hockney. Run with 2 ranks (one per node to measure the network)");
  measure->add_option("-o,--output", machine.output, "The profile to write (choreo.profile/1)")
      ->required();
  measure
      ->add_option("--max-bytes", machine.options.max_bytes,
                   "Largest size, e.g. 64M or 67108864 (default 64M = 64 MiB)")
      ->transform(choreo::tools::byte_size());
  measure
      ->add_option("--pairs", machine.pairs,
                   "first: ranks 0 and 1 (default); all: rank 0 with every other rank, "
                   "samples pooled")
      ->check(CLI::IsMember({"first", "all"}));
  measure->add_option("--rel-ci", machine.options.rel_ci,
                      "Stop a size when the 95% CI of its median is within this fraction of it "
                      "(default 0.02)");
  measure->add_option("--min-reps", machine.options.min_reps,
                      "Samples per size, at least (default 10)");
  measure->add_option("--max-reps", machine.options.max_reps,
                      "Samples per size, at most (default 200)");
  measure
      ->add_option("--time-limit", machine.options.time_limit,
                   "Time the sizes share: seconds, or e.g. 90s; each gets at least --min-reps "
                   "(default 90)")
      ->transform(choreo::tools::time_seconds());
  measure
      ->add_option("--cache-bytes", machine.options.cache_bytes,
                   "Last-level cache size the memcpy must defeat, e.g. 32M (default: detected)")
      ->transform(choreo::tools::byte_size());
  measure->add_flag("--quick", machine.options.quick,
                    "Up to 1 MiB, 6-20 samples per size, at most 15 s: for tests");
  measure
      ->add_option("--attempts", machine.options.attempts,
                   "Measurements before a fit no machine can produce (L below zero, g far above "
                   "the one-way time, G zero, tables falling with size) is refused (default 2)")
      ->check(CLI::Range(1, 10));
  measure->add_flag("--json", machine.json, "Print the summary as JSON");

  choreo::tools::RedistRunArgs redist_args;
  auto* redist = choreo::tools::add_redist_command(app, redist_args);

#ifdef CHOREO_MPI_SWEEP
  choreo::tools::MpiSweepArgs study_args;
  const CLI::App* study = choreo::tools::add_mpi_sweep_command(app, study_args);
#else
  const CLI::App* study = nullptr;  // the SMPI build leaves the simulation studies out
#endif

  int code = 0;
  try {
    app.parse(argc, argv);
    if (study && study->parsed()) {
#ifdef CHOREO_MPI_SWEEP
      choreo::tools::run_mpi_sweep(study_args, MPI_COMM_WORLD);
#endif
    } else if (*sweep)
      choreo::tools::calibrate_delay(calibrate, rank);
    else if (*measure)
      choreo::tools::calibrate(machine, rank);
    else if (*redist)
      choreo::tools::redist_run(redist_args, rank);
    else
      code = run_command(args, rank, coll->parsed());
  } catch (const CLI::ParseError& e) {
    code = rank == 0 ? choreo::tools::report_parse_error(app, e, "choreo-mpi")
                     : (e.get_exit_code() == 0 ? 0 : 1);
  } catch (const choreo::mpi::Fault& fault) {
    // Every rank prints its own line; MPI still holds operations that will never complete, so
    // end without MPI_Finalize once the others had the chance to print theirs.
    fmt::print(stderr, "choreo-mpi: error: {}\n", fault.what());
    std::fflush(stderr);
    constexpr double kGraceSeconds = 5;
    fault.wait_for_others(kGraceSeconds);
    std::_Exit(1);
  } catch (const choreo::Error& e) {
    if (rank == 0 && *e.what()) fmt::print(stderr, "choreo-mpi: error: {}\n", e.what());
    code = 1;
  } catch (const std::exception& e) {
    // Only this rank knows: the others may wait for it in a collective, so end them all.
    fmt::print(stderr, "choreo-mpi: error: rank {}: {}\n", rank,
               dynamic_cast<const std::bad_alloc*>(&e) ? "out of memory" : e.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return code;
}
