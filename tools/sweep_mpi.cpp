// choreo-mpi sweep jitter (sweep_mpi.hpp).
//
// Work: every point of the sweep is split into parts, its noiseless run and each of its trials
// (jitter::noiseless_time, jitter::run_trial), numbered in the serial order (point by point,
// the noiseless run, then trial 0, 1, ...). Part g runs on rank g mod size: a static
// round-robin. Every rank knows the whole plan, so no rank waits for work to be handed out and
// no rank is kept back to hand it out; and consecutive parts (the trials of one point, which
// cost the same) land on different ranks, so every rank gets a share of every point, within
// one part, whatever the points' sizes (P from 2 to 2^24 makes parts differ by 10^6 in cost).
// The results are gathered once, at the end, to rank 0, which reads each part from the rank
// that computed it and combines each point with jitter::combine_trials: the trials summed in
// trial order, the additions of the serial run.
#include "sweep_mpi.hpp"

#include <fmt/core.h>

#include <chrono>
#include <climits>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "choreo/core/error.hpp"
#include "choreo/jitter/study.hpp"

namespace choreo::tools {
namespace {

/// How many doubles part `trial` (-1: the noiseless run) of `point` sends to rank 0.
std::size_t part_values(const cli::JitterSweepPoint& point, int trial) {
  if (trial < 0) return 1;
  const jitter::StudyOptions& s = point.study;
  return static_cast<std::size_t>(jitter::max_redundant_exchanges(point.ranks, s)) + 1 +
         (s.ring ? 1 : 0) + (s.rabenseifner ? 1 : 0) + (s.auto_t ? 1 : 0);
}

void append(std::vector<double>& out, const cli::JitterSweepPoint& point,
            const jitter::TrialTimes& t) {
  out.insert(out.end(), t.by_t.begin(), t.by_t.end());
  if (point.study.ring) out.push_back(t.ring);
  if (point.study.rabenseifner) out.push_back(t.rabenseifner);
  if (point.study.auto_t) out.push_back(t.auto_time);
}

jitter::TrialTimes read(const double* in, const cli::JitterSweepPoint& point) {
  jitter::TrialTimes t;
  const auto by_t =
      static_cast<std::size_t>(jitter::max_redundant_exchanges(point.ranks, point.study)) + 1;
  t.by_t.assign(in, in + by_t);
  in += by_t;
  if (point.study.ring) t.ring = *in++;
  if (point.study.rabenseifner) t.rabenseifner = *in++;
  if (point.study.auto_t) t.auto_time = *in++;
  return t;
}

/// Throws on every rank unless every rank succeeded (`failure` empty). A rank that failed has
/// printed why, except rank 0, whose message main prints from the Error thrown here.
void agree(const std::string& failure, int rank, MPI_Comm comm) {
  int mine = failure.empty() ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
  if (!all) throw Error(rank == 0 ? failure : "");
}

/// Rank 0 opens the output before any work, as the serial command does; every rank learns
/// whether it could. `open` throws choreo::Error on rank 0.
template <class Open>
void open_on_root(int rank, MPI_Comm comm, Open open) {
  int ok = 1;
  if (rank == 0) {
    try {
      open();
    } catch (const Error&) {
      ok = 0;
      MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
      throw;
    }
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
  if (!ok) throw Error("");
}

/// The values every rank sends (`sent[r]` from rank r); throws, before any work, where one
/// MPI gather cannot carry them.
std::size_t gathered_total(const std::vector<std::size_t>& sent) {
  std::size_t total = 0;
  for (const std::size_t n : sent) total += n;
  if (total > static_cast<std::size_t>(INT_MAX))
    throw Error(fmt::format(
        "the sweep's {} results are more than one MPI gather carries ({}): sweep fewer points "
        "or trials per job",
        total, INT_MAX));
  return total;
}

/// Gathers each rank's values to rank 0 in one MPI_Gatherv: `sent[r]` values from rank r,
/// known to every rank. Returns them rank after rank on rank 0 (empty elsewhere), and where
/// each rank's begin.
template <class T>
std::vector<T> gather_parts(const std::vector<T>& mine, const std::vector<std::size_t>& sent,
                            MPI_Datatype type, int rank, MPI_Comm comm,
                            std::vector<std::size_t>& begins) {
  const std::size_t ranks = sent.size(), total = gathered_total(sent);
  std::vector<int> counts(ranks), displacements(ranks);
  begins.assign(ranks, 0);
  for (std::size_t r = 0, at = 0; r < ranks; at += sent[r], ++r) {
    counts[r] = static_cast<int>(sent[r]);
    displacements[r] = static_cast<int>(at);
    begins[r] = at;
  }
  std::vector<T> all(rank == 0 ? total : 0);
  MPI_Gatherv(mine.data(), counts[static_cast<std::size_t>(rank)], type, all.data(), counts.data(),
              displacements.data(), type, 0, comm);
  return all;
}

void sweep_jitter(const MpiSweepArgs& args, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // Every rank resolves and checks the same options: a bad one fails alike everywhere.
  const cli::JitterSweepPlan plan = cli::plan_jitter_sweep(args.jitter);
  const auto ranks = static_cast<std::size_t>(size);
  const std::size_t me = static_cast<std::size_t>(rank);

  // What each rank will send, known to all from the plan alone.
  std::vector<std::size_t> sent(ranks, 0);
  std::size_t part = 0;
  for (const auto& point : plan.points)
    for (int trial = -1; trial < point.study.trials; ++trial, ++part)
      sent[part % ranks] += part_values(point, trial);
  gathered_total(sent);

  // Rank 0 opens the CSV and the figures' folder before any work, as the serial command does.
  std::unique_ptr<cli::JitterSweepOutput> output;
  open_on_root(rank, comm,
               [&] { output = std::make_unique<cli::JitterSweepOutput>(args.jitter, plan); });

  // This rank's parts, their values appended in part order.
  const auto start = std::chrono::steady_clock::now();
  std::vector<double> mine;
  mine.reserve(sent[me]);
  std::string failure;
  try {
    part = 0;
    for (std::size_t index = 0; index < plan.points.size(); ++index) {
      const auto& point = plan.points[index];
      for (int trial = -1; trial < point.study.trials; ++trial, ++part) {
        if (part % ranks != me) continue;
        if (trial < 0)
          mine.push_back(jitter::noiseless_time(point.params, point.ranks, point.study));
        else
          append(mine, point,
                 jitter::run_trial(point.params, point.ranks, point.study,
                                   static_cast<std::uint64_t>(trial)));
      }
      if (rank == 0)
        fmt::print(stderr, "jitter: rank 0 of {}: its parts of point {}/{} done ({:.1f} s)\n", size,
                   index + 1, plan.points.size(),
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
  } catch (const Error& e) {
    failure = e.what();
    if (rank != 0) fmt::print(stderr, "choreo-mpi: error: rank {}: {}\n", rank, failure);
  }
  agree(failure, rank, comm);

  // Gathered once: rank 0 knows every rank's count and where it starts.
  std::vector<std::size_t> cursor;
  const std::vector<double> all = gather_parts(mine, sent, MPI_DOUBLE, rank, comm, cursor);
  if (rank != 0) return;

  // Each point from its parts, read from the ranks that computed them, in the serial order.
  part = 0;
  for (const auto& point : plan.points) {
    double noiseless = 0;
    std::vector<jitter::TrialTimes> trials;
    trials.reserve(static_cast<std::size_t>(point.study.trials));
    for (int trial = -1; trial < point.study.trials; ++trial, ++part) {
      std::size_t& at = cursor[part % ranks];
      if (trial < 0)
        noiseless = all[at];
      else
        trials.push_back(read(all.data() + at, point));
      at += part_values(point, trial);
    }
    output->add(point,
                jitter::combine_trials(point.params, point.ranks, point.study, noiseless, trials));
  }
  output->finish(args.json);
}

void sweep_compare(const MpiSweepArgs& args, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // Every rank resolves and checks the same options: a bad one fails alike everywhere.
  const cli::ComparePlan plan = cli::plan_compare(args.compare);
  const auto ranks = static_cast<std::size_t>(size);
  std::vector<std::size_t> sent(ranks, 0);  // two int64 per part: makespan, events
  for (std::size_t part = 0; part < plan.parts.size(); ++part) sent[part % ranks] += 2;
  gathered_total(sent);
  std::unique_ptr<cli::CompareOutput> output;
  open_on_root(rank, comm,
               [&] { output = std::make_unique<cli::CompareOutput>(args.compare, plan); });

  // Part g on rank g mod size, as sweep_jitter spreads its parts.
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::int64_t> mine;
  std::string failure;
  try {
    cli::CompareRunner runner(plan);
    for (std::size_t part = static_cast<std::size_t>(rank); part < plan.parts.size();
         part += ranks) {
      const cli::PartResult r = runner.run(plan.parts[part]);
      mine.push_back(r.makespan);
      mine.push_back(r.events);
    }
    if (rank == 0)
      fmt::print(stderr, "compare: rank 0 of {}: its {} simulations done ({:.1f} s)\n", size,
                 mine.size() / 2,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  } catch (const Error& e) {
    failure = e.what();
    if (rank != 0) fmt::print(stderr, "choreo-mpi: error: rank {}: {}\n", rank, failure);
  }
  agree(failure, rank, comm);
  std::vector<std::size_t> begins;
  const std::vector<std::int64_t> all = gather_parts(mine, sent, MPI_INT64_T, rank, comm, begins);
  if (rank != 0) return;
  std::vector<cli::PartResult> results(plan.parts.size());
  for (std::size_t part = 0; part < plan.parts.size(); ++part) {
    std::size_t& at = begins[part % ranks];
    results[part] = {all[at], all[at + 1]};
    at += 2;
  }
  output->finish(results, args.json);
}

}  // namespace

CLI::App* add_mpi_sweep_command(CLI::App& app, MpiSweepArgs& args) {
  auto* sweep = app.add_subcommand(
      "sweep",
      "Simulation studies as an MPI job: the work spread over the ranks, rank 0 writing what "
      "the serial command writes, byte for byte");
  sweep->require_subcommand(0, 1);  // none: run_mpi_sweep names the studies
  auto* jitter = sweep->add_subcommand(
      "jitter",
      "`choreo jitter sweep` (paper 004) with its trials spread over the ranks: the same options "
      "and the same CSV, JSON and figures for a seed");
  cli::add_jitter_sweep_options(*jitter, args.jitter);
  jitter->add_flag("--json", args.json, "Print the summary as JSON (as `choreo --json`)");
  args.jitter_command = jitter;
  auto* compare = sweep->add_subcommand(
      "compare",
      "`choreo compare` with its simulations (schedule x setting x trial) spread over the "
      "ranks: the same options and the same table, JSON and CSV");
  cli::add_sim_compare_options(*compare, args.compare);
  compare->add_flag("--json", args.json, "Print the summary as JSON (as `choreo --json`)");
  args.compare_command = compare;
  return sweep;
}

void run_mpi_sweep(const MpiSweepArgs& args, MPI_Comm comm) {
  if (args.jitter_command && args.jitter_command->parsed()) return sweep_jitter(args, comm);
  if (args.compare_command && args.compare_command->parsed()) return sweep_compare(args, comm);
  throw Error(
      "sweep needs the study to run: `choreo-mpi sweep jitter` with the options of `choreo "
      "jitter sweep`, or `choreo-mpi sweep compare` with those of `choreo compare`");
}

}  // namespace choreo::tools
