// choreo-bench-redist-plan: what one rank's redistribution plan costs at scale, against the
// plan of every rank pair (what each rank built before: plan.hpp's make_plan). The case:
// 100000 x 100000 doubles, cyclic(64) -> cyclic(100) on square grids of 1024 and 4096 ranks.
// For a sample of ranks it times plan_rank (median of --reps) and reports what the plan holds
// (RankPlan::bytes) and the peak resident memory it added; then make_plan once per grid, with
// its time and peak memory (skip with --no-all-pairs).
//
//   choreo-bench-redist-plan --ranks 1024,4096 -o plan.csv
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "../src/core/stats.hpp"
#include "choreo/core/error.hpp"
#include "choreo/redist/peak_memory.hpp"
#include "choreo/redist/plan.hpp"
#include "choreo/redist/rank_plan.hpp"

namespace {

using namespace choreo::redist;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct Row {
  int ranks = 0;
  std::string what;
  int rank = -1;
  double median = 0, max = 0;
  std::int64_t held = 0, peak = 0;
  std::int64_t sends = 0, receives = 0;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"One rank's redistribution plan at scale, against the plan of every rank pair"};
  std::vector<int> rank_counts{1024, 4096};
  std::string csv_path;
  std::int64_t n = 100000;
  int reps = 5, samples = 8;
  bool all_pairs = true;
  app.add_option("--ranks", rank_counts, "Comma-separated square rank counts (default 1024,4096)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  app.add_option("--n", n, "Matrix extent (default 100000)")->check(CLI::PositiveNumber);
  app.add_option("--reps", reps, "Timed plans per sampled rank (default 5)")
      ->check(CLI::PositiveNumber);
  app.add_option("--samples", samples, "Ranks sampled per grid (default 8)")
      ->check(CLI::PositiveNumber);
  app.add_flag("!--no-all-pairs", all_pairs, "Skip the plan of every rank pair");
  app.add_option("-o,--csv", csv_path, "Write the rows as CSV");
  CLI11_PARSE(app, argc, argv);
  try {
    std::vector<Row> rows;
    for (const int ranks : rank_counts) {
      const int side = static_cast<int>(std::lround(std::sqrt(ranks)));
      if (side * side != ranks)
        throw choreo::Error(fmt::format("--ranks {}: use square counts (1024, 4096)", ranks));
      const std::vector<std::int64_t> shape{n, n};
      const std::string grid = fmt::format("@{}x{}", side, side);
      const ArrayDistribution from = parse_distribution("cyclic(64),cyclic(64)" + grid, shape);
      const ArrayDistribution to = parse_distribution("cyclic(100),cyclic(100)" + grid, shape);
      Row worst{ranks, "one rank (worst sampled)"};
      for (int s = 0; s < samples; ++s) {
        const int rank = static_cast<int>((static_cast<std::int64_t>(s) * 2654435761LL) % ranks);
        std::vector<double> times;
        std::int64_t held = 0, peak = 0;
        RankPlan plan;
        for (int k = 0; k < reps; ++k) {
          plan = RankPlan{};
          const PeakMemory memory;
          const auto start = std::chrono::steady_clock::now();
          plan = plan_rank(from, to, rank);
          times.push_back(seconds_since(start));
          peak = std::max(peak, memory.extra_bytes());
          held = plan.bytes();
        }
        const double median = choreo::stats::median(times);
        if (median >= worst.median) {
          worst.median = median;
          worst.rank = rank;
          worst.sends = static_cast<std::int64_t>(plan.sends.messages.size());
          worst.receives = static_cast<std::int64_t>(plan.receives.messages.size());
        }
        worst.max = std::max(worst.max, *std::max_element(times.begin(), times.end()));
        worst.held = std::max(worst.held, held);
        worst.peak = std::max(worst.peak, peak);
      }
      rows.push_back(worst);
      if (all_pairs) {
        Row every{ranks, "every rank pair (make_plan)"};
        const PeakMemory memory;
        const auto start = std::chrono::steady_clock::now();
        const Plan plan = make_plan(from, to);
        every.median = every.max = seconds_since(start);
        every.peak = memory.extra_bytes();
        every.sends = static_cast<std::int64_t>(plan.transfers.size());
        rows.push_back(every);
      }
    }
    fmt::print("{}x{} doubles, cyclic(64) -> cyclic(100) on square grids\n", n, n);
    fmt::print("{:>6}  {:<28} {:>6} {:>12} {:>12} {:>12} {:>12} {:>16}\n", "ranks", "plan", "rank",
               "median", "max", "held", "peak rise", "messages");
    for (const Row& r : rows)
      fmt::print("{:>6}  {:<28} {:>6} {:>9.3f} ms {:>9.3f} ms {:>9.2f} MB {:>9.2f} MB {:>16}\n",
                 r.ranks, r.what, r.rank, r.median * 1e3, r.max * 1e3,
                 static_cast<double>(r.held) / 1e6, static_cast<double>(r.peak) / 1e6,
                 r.rank >= 0 ? fmt::format("{} out, {} in", r.sends, r.receives)
                             : fmt::format("{} transfers", r.sends));
    if (!csv_path.empty()) {
      std::FILE* csv = std::fopen(csv_path.c_str(), "w");
      if (csv == nullptr) throw choreo::Error(fmt::format("cannot write {}", csv_path));
      fmt::print(csv,
                 "ranks,plan,rank,median_s,max_s,held_bytes,peak_extra_bytes,messages_out,"
                 "messages_in\n");
      for (const Row& r : rows)
        fmt::print(csv, "{},\"{}\",{},{:.6e},{:.6e},{},{},{},{}\n", r.ranks, r.what, r.rank,
                   r.median, r.max, r.held, r.peak, r.sends, r.receives);
      std::fclose(csv);
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "choreo-bench-redist-plan: error: {}\n", e.what());
    return 1;
  }
  return 0;
}
