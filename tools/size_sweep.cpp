// OSU-style size sweeps of choreo-mpi run and collective (size_sweep.hpp).
#include "size_sweep.hpp"

#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "choreo/coll/generators.hpp"
#include "choreo/core/compact_schedule.hpp"
#include "choreo/core/error.hpp"
#include "choreo/core/io.hpp"
#include "choreo/core/pattern.hpp"
#include "choreo/mpi/collective_baseline.hpp"

namespace choreo::tools {
namespace {

/// The pattern whose MPI collective `call` moves `bytes` as OSU's benchmark of it does: a
/// message of `bytes` from the root (bcast, scatter), to the root (gather), or between
/// every pair (allgather, alltoall and the v variants).
Pattern pattern_for(mpi::Collective call, int ranks, std::int64_t bytes) {
  switch (call) {
    case mpi::Collective::Bcast:
    case mpi::Collective::Scatter:
      return patterns::scatter(ranks, bytes);
    case mpi::Collective::Gather:
      return patterns::gather(ranks, bytes);
    default:
      return patterns::alltoall(ranks, bytes);
  }
}

RunResult run_one(const SweepArgs& a, MPI_Comm comm, int ranks, std::int64_t bytes) {
  if (!a.generate.empty()) {
    const std::string spec = fmt::format("{}:ranks={}:bytes={}", a.generate, ranks, bytes);
    RunResult r = mpi::run(expand(coll::generate(spec), a.generate), comm, a.options);
    r.schedule = spec;
    return r;
  }
  RunResult r = mpi::run_collective(pattern_for(mpi::parse_collective(a.call), ranks, bytes),
                                    mpi::parse_collective(a.call), comm, a.options);
  r.schedule = fmt::format("{} of {} B", a.call, bytes);
  return r;
}

nlohmann::json sweep_json(const std::vector<RunResult>& runs) {
  nlohmann::json out = {{"format", "choreo.sweep/1"}, {"runs", nlohmann::json::array()}};
  for (const RunResult& r : runs)
    out["runs"].push_back(nlohmann::json::parse(run_result_to_json(r)));
  return out;
}

}  // namespace

void run_sweep(const SweepArgs& a, MPI_Comm comm) {
  int rank = 0, ranks = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  // A bad generator or call fails on every rank before anything runs.
  if (!a.generate.empty())
    coll::generate(fmt::format("{}:ranks={}:bytes={}", a.generate, ranks, a.sizes.front()));
  else
    mpi::parse_collective(a.call);
  std::vector<RunResult> runs;
  for (std::size_t i = 0; i < a.sizes.size(); ++i) {
    RunResult r = run_one(a, comm, ranks, a.sizes[i]);
    r.label = a.label;
    if (rank == 0 && !a.json) {
      if (i == 0)
        fmt::print(
            "# choreo-mpi {}, {} ranks, {}\n# time per call: the slowest rank's; median, min and "
            "max of {} timed after {} warm-up; every received byte verified\n"
            "# {:<10}{:>16}{:>12}{:>12}\n",
            a.generate.empty() ? fmt::format("collective --call {}", a.call)
                               : fmt::format("run --generate {}", a.generate),
            ranks, r.engine, r.repetitions, r.warmup, "Size", "Latency(us)", "Min(us)", "Max(us)");
      fmt::print("{:<12}{:>16.2f}{:>12.2f}{:>12.2f}\n", a.sizes[i], r.median * 1e6, r.min * 1e6,
                 r.max * 1e6);
      std::fflush(stdout);  // a line per size as it completes, as OSU prints
    }
    runs.push_back(std::move(r));
  }
  if (rank != 0) return;
  const nlohmann::json doc = sweep_json(runs);
  if (!a.output.empty()) write_text_file(a.output, doc.dump(1) + "\n");
  if (a.json) fmt::print("{}\n", doc.dump(1));
}

}  // namespace choreo::tools
