// choreo-bench-persist-init: what building one rank's persistent-collective plan costs at
// scale (no MPI: the plan is what *_init computes before MPI creates its requests). For each
// collective, size and P it times the rank's own plan (src/persist/plans.hpp: bcast_plan,
// allreduce_plan, allgather_plan, and the plans of reduce, gather, scatter, barrier, alltoall,
// reduce_scatter, gatherv and allgatherv, which never had a full-schedule form) on a few ranks
// (root, 1, P/2, P-1; median of --reps each) and reports the slowest, with the plan's own bytes and
// the peak resident memory it added; then, where it fits, the old way: the generator's schedule of
// every rank and the plan read out of it (*_plans_from_full_schedule), once or --old-reps times.
// The old way is skipped when the generator's own op count, at the bytes and nanoseconds per op
// measured on dev-2c (kOldBytesPerOp, kOldSecondsPerOp), would exceed --old-limit-gb or
// --old-limit-s.
//
//   choreo-bench-persist-init                       # P = 2^10, 2^16, 2^20, the table
//   choreo-bench-persist-init --ranks 1024 --segment 16384 --json
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../src/coll/steps.hpp"
#include "../src/core/stats.hpp"
#include "../src/persist/plans.hpp"
#include "choreo/coll/pipeline.hpp"
#include "choreo/core/error.hpp"
#include "choreo/redist/peak_memory.hpp"

namespace {

using choreo::persist::detail::Plan;
using PlanOfRank = std::function<Plan(int rank)>;
using PlansFromFullSchedule = std::function<std::vector<Plan>(const std::vector<int>& ranks)>;

// The old way's cost per op of the generator's schedule, measured with this program on dev-2c
// (bcast multitree and kary_pipeline, 128 MiB in 16 KiB segments, P = 2^10: 16.8M ops, 47 bytes
// and 20-110 ns an op): what decides whether to run it at all. The time is rounded up.
constexpr double kOldBytesPerOp = 48;
constexpr double kOldSecondsPerOp = 200e-9;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// What a plan holds: its commands, their dependents and its name.
std::int64_t plan_bytes(const Plan& plan) {
  std::int64_t bytes = sizeof(Plan) + static_cast<std::int64_t>(plan.algorithm.capacity()) +
                       static_cast<std::int64_t>(plan.commands.capacity() *
                                                 sizeof(choreo::persist::detail::Command));
  for (const auto& command : plan.commands)
    bytes += static_cast<std::int64_t>(command.dependents.capacity() * sizeof(std::uint32_t));
  return bytes;
}

struct Case {
  std::string collective, algorithm;
  std::int64_t bytes = 0;          ///< the message (bcast), the vector (allreduce), a block
  std::int64_t segment_bytes = 0;  ///< pipelined broadcasts
  std::uint64_t old_ops = 0;       ///< ops of the generator's schedule of all ranks
  PlanOfRank plan;
  PlansFromFullSchedule old_plans = {};  ///< empty: no full-schedule form
};

struct Row {
  Case what;
  int ranks = 0, rank = 0;
  std::size_t commands = 0;
  double median = 0, max = 0;
  std::int64_t held = 0, peak = -1;
  bool old_run = false;
  std::string old_skipped;
  double old_median = 0;
  std::int64_t old_peak = -1;
};

/// Times rank `rank`'s plan: at least `reps` runs and 0.05 s; the peak of one more run.
void time_new_plan(const Case& c, int rank, int reps, Row& row) {
  std::vector<double> times;
  const auto begin = std::chrono::steady_clock::now();
  while (static_cast<int>(times.size()) < reps || seconds_since(begin) < 0.05) {
    const auto start = std::chrono::steady_clock::now();
    const Plan plan = c.plan(rank);
    times.push_back(seconds_since(start));
    row.commands = plan.commands.size();
    row.held = plan_bytes(plan);
    if (times.size() >= 100000) break;
  }
  row.median = choreo::stats::median(times);
  row.max = *std::max_element(times.begin(), times.end());
  const choreo::redist::PeakMemory memory;
  const Plan plan = c.plan(rank);
  row.peak = memory.extra_bytes();
}

void time_old_plan(const Case& c, int rank, int reps, double limit_bytes, double limit_seconds,
                   Row& row) {
  if (!c.old_plans) {
    row.old_skipped = "no full-schedule form";
    return;
  }
  const double ops = static_cast<double>(c.old_ops);
  if (ops * kOldBytesPerOp > limit_bytes || ops * kOldSecondsPerOp > limit_seconds) {
    row.old_skipped = fmt::format("{:.3g} ops: ~{:.1f} GB, ~{:.0f} s", ops,
                                  ops * kOldBytesPerOp / 1e9, ops * kOldSecondsPerOp);
    return;
  }
  std::vector<double> times;
  for (int k = 0; k < reps; ++k) {
    const choreo::redist::PeakMemory memory;
    const auto start = std::chrono::steady_clock::now();
    const std::vector<Plan> plans = c.old_plans({rank});
    times.push_back(seconds_since(start));
    row.old_peak = std::max(row.old_peak, memory.extra_bytes());
  }
  row.old_run = true;
  row.old_median = choreo::stats::median(times);
}

std::vector<Case> cases_at(int ranks, std::int64_t segment_bytes) {
  namespace persist = choreo::persist;
  std::vector<Case> out;
  const auto p = static_cast<std::uint64_t>(ranks);
  for (const char* algorithm : {"multitree", "binomial", "kary_pipeline"})
    for (std::int64_t bytes :
         {std::int64_t{1} << 10, std::int64_t{1} << 20, std::int64_t{1} << 27}) {
      persist::Options options;
      options.segment_bytes = segment_bytes;
      const auto shape = persist::detail::bcast_shape(algorithm, bytes, 0, ranks, options);
      const int segments =
          shape.algorithm == "binomial"
              ? 1
              : choreo::coll::Segmentation(bytes, shape.parts, shape.segment_bytes).count();
      out.push_back({"bcast", algorithm, bytes, shape.segment_bytes,
                     2 * static_cast<std::uint64_t>(segments) * (p - 1),
                     [=](int rank) { return persist::detail::bcast_plan(shape, ranks, rank); },
                     [=](const std::vector<int>& of) {
                       return persist::detail::bcast_plans_from_full_schedule(shape, ranks, of);
                     }});
    }
  // 1 KiB of doubles; the generators' own op counts (what they reserve).
  constexpr std::int64_t kCount = 128;
  constexpr int kDouble = 8;
  const choreo::coll::detail::Fold fold(ranks);
  const std::uint64_t recdbl_ops =
      3 * static_cast<std::uint64_t>(fold.p2) * static_cast<std::uint64_t>(fold.rounds) +
      5 * static_cast<std::uint64_t>(fold.rem);
  for (const char* algorithm : {"recdbl", "ring"}) {
    const std::string name = algorithm;
    out.push_back({"allreduce", name, kCount * kDouble, 0,
                   name == "ring" ? 5 * p * (p - 1) : recdbl_ops,
                   [=](int rank) {
                     return persist::detail::allreduce_plan(name, kCount, kDouble, ranks, rank);
                   },
                   [=](const std::vector<int>& of) {
                     return persist::detail::allreduce_plans_from_full_schedule(name, kCount,
                                                                                kDouble, ranks, of);
                   }});
  }
  constexpr std::int64_t kBlock = 8;
  out.push_back({"allgather", "ring", kBlock, 0, 2 * p * (p - 1),
                 [=](int rank) { return persist::detail::allgather_plan(kBlock, ranks, rank); },
                 [=](const std::vector<int>& of) {
                   return persist::detail::allgather_plans_from_full_schedule(kBlock, ranks, of);
                 }});
  // The collectives whose plans never had a full-schedule form (old_plans empty): one rank's
  // plan alone, root 0. A rooted tree's rank has O(log P) messages; alltoall, reduce_scatter,
  // the v-variants' root and allgatherv have O(P), which is then what they hold.
  out.push_back({"reduce", "binomial", kCount * kDouble, 0, 0, [=](int rank) {
                   return persist::detail::reduce_plan(kCount, kDouble, 0, ranks, rank);
                 }});
  out.push_back({"gather", "binomial", kBlock, 0, 0,
                 [=](int rank) { return persist::detail::gather_plan(kBlock, 0, ranks, rank); }});
  out.push_back({"scatter", "binomial", kBlock, 0, 0,
                 [=](int rank) { return persist::detail::scatter_plan(kBlock, 0, ranks, rank); }});
  out.push_back({"barrier", "dissemination", 0, 0, 0,
                 [=](int rank) { return persist::detail::barrier_plan(ranks, rank); }});
  out.push_back({"alltoall", "pairwise", kBlock, 0, 0, [=](int rank) {
                   return persist::detail::alltoall_plan(kBlock, false, ranks, rank);
                 }});
  out.push_back({"reduce_scatter", "ring", kDouble, 0, 0, [=](int rank) {
                   const std::vector<std::int64_t> counts(static_cast<std::size_t>(ranks), 1);
                   return persist::detail::reduce_scatter_plan(counts, kDouble, false, ranks, rank);
                 }});
  // The irregular ones from the caller's counts (made inside, as *_init does).
  const auto blocks = [=] {
    persist::detail::VectorBlocks b;
    for (int r = 0; r < ranks; ++r) {
      b.bytes.push_back(kBlock);
      b.offsets.push_back(std::int64_t{r} * kBlock);
    }
    return b;
  };
  out.push_back({"gatherv", "linear", kBlock, 0, 0, [=](int rank) {
                   return persist::detail::gatherv_plan(blocks(), kBlock, 0, ranks, rank, true);
                 }});
  out.push_back({"allgatherv", "ring", kBlock, 0, 0, [=](int rank) {
                   return persist::detail::allgatherv_plan(blocks(), ranks, rank);
                 }});
  return out;
}

std::string size_text(std::int64_t bytes) {
  if (bytes >= (1 << 20) && bytes % (1 << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  if (bytes >= (1 << 10) && bytes % (1 << 10) == 0) return fmt::format("{} KiB", bytes >> 10);
  return fmt::format("{} B", bytes);
}

std::string time_text(double seconds) {
  if (seconds < 1e-3) return fmt::format("{:.2f} us", seconds * 1e6);
  if (seconds < 1) return fmt::format("{:.2f} ms", seconds * 1e3);
  return fmt::format("{:.2f} s", seconds);
}

std::string memory_text(std::int64_t bytes) {
  if (bytes < 0) return "?";
  if (bytes < (1 << 20)) return fmt::format("{:.1f} KB", static_cast<double>(bytes) / 1e3);
  return fmt::format("{:.1f} MB", static_cast<double>(bytes) / 1e6);
}

void print_table(const std::vector<Row>& rows) {
  fmt::print("{:<26} {:>8} {:>8} {:>9} {:>11} {:>10} {:>10} {:>11} {:>10}  {}\n", "case", "P",
             "rank", "commands", "new median", "new held", "new peak", "old median", "old peak",
             "old / new");
  for (const Row& r : rows) {
    const std::string name =
        fmt::format("{}:{} {}", r.what.collective, r.what.algorithm, size_text(r.what.bytes));
    const std::string old_median = r.old_run ? time_text(r.old_median) : "skipped";
    const std::string old_peak = r.old_run ? memory_text(r.old_peak) : "";
    const std::string ratio =
        r.old_run ? fmt::format("{:.0f}x", r.old_median / r.median) : r.old_skipped;
    fmt::print("{:<26} {:>8} {:>8} {:>9} {:>11} {:>10} {:>10} {:>11} {:>10}  {}\n", name, r.ranks,
               r.rank, r.commands, time_text(r.median), memory_text(r.held), memory_text(r.peak),
               old_median, old_peak, ratio);
  }
}

nlohmann::json json_of(const std::vector<Row>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const Row& r : rows) {
    nlohmann::json row{{"collective", r.what.collective},
                       {"algorithm", r.what.algorithm},
                       {"bytes", r.what.bytes},
                       {"segment_bytes", r.what.segment_bytes},
                       {"ranks", r.ranks},
                       {"rank", r.rank},
                       {"commands", r.commands},
                       {"new",
                        {{"median_s", r.median},
                         {"max_s", r.max},
                         {"held_bytes", r.held},
                         {"peak_extra_bytes", r.peak}}},
                       {"old_ops", r.what.old_ops}};
    if (r.old_run)
      row["old"] = {{"median_s", r.old_median}, {"peak_extra_bytes", r.old_peak}};
    else
      row["old_skipped"] = r.old_skipped;
    out.push_back(row);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"One rank's persistent-collective plan at scale, against the full schedule"};
  std::vector<int> rank_counts{1024, 65536, 1048576};
  int reps = 21, old_reps = 3;
  std::int64_t segment_bytes = 0;
  double limit_gb = 4, limit_seconds = 30;
  bool json = false;
  app.add_option("--ranks", rank_counts, "Comma-separated P (default 1024,65536,1048576)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  app.add_option("--reps", reps, "Timed plans per sampled rank, at least (default 21)")
      ->check(CLI::PositiveNumber);
  app.add_option("--old-reps", old_reps, "Timed full schedules per case (default 3)")
      ->check(CLI::PositiveNumber);
  app.add_option("--segment", segment_bytes,
                 "Segment bytes of the pipelined broadcasts (default 0: Hockney's rule)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--old-limit-gb", limit_gb, "Skip the full schedule above this (default 4)");
  app.add_option("--old-limit-s", limit_seconds, "Skip the full schedule above this (default 30)");
  app.add_flag("--json", json, "Print the rows as JSON instead of the table");
  CLI11_PARSE(app, argc, argv);
  try {
    std::vector<Row> rows;
    for (const int ranks : rank_counts) {
      for (const Case& c : cases_at(ranks, segment_bytes)) {
        Row slowest;
        for (int rank : {0, 1 % ranks, ranks / 2, ranks - 1}) {
          Row row;
          row.what = c;
          row.ranks = ranks;
          row.rank = rank;
          time_new_plan(c, rank, reps, row);
          if (rank == 0 || row.median > slowest.median) slowest = row;
        }
        time_old_plan(c, slowest.rank,
                      static_cast<double>(c.old_ops) * kOldSecondsPerOp > 2 ? 1 : old_reps,
                      limit_gb * 1e9, limit_seconds, slowest);
        rows.push_back(slowest);
        if (!json) fmt::print(stderr, "done: {}:{} P={}\n", c.collective, c.algorithm, ranks);
      }
    }
    if (json)
      fmt::print("{}\n", json_of(rows).dump(2));
    else
      print_table(rows);
  } catch (const std::exception& e) {
    fmt::print(stderr, "choreo-bench-persist-init: error: {}\n", e.what());
    return 1;
  }
  return 0;
}
