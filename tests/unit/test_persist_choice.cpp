// The persistent broadcast's choice by model (src/persist/choice.cpp) against an independent
// reference: choreo sim's event simulation of each candidate's generated schedule (every rank,
// every message) under LogGOPS parameters that encode the same Hockney machine (a send costs
// alpha and beta per byte on one port; no CPU overhead, every message eager). The closed forms must
// stay near the simulated times, and the candidate the model picks must be, in simulation, as fast
// as the best candidate or nearly so, for rank counts from 2 to 1000 and sizes from 1 byte to 128
// MiB.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>

#include "../../src/persist/choice.hpp"
#include "choreo/coll/generators.hpp"
#include "choreo/coll/pipeline.hpp"
#include "choreo/core/error.hpp"
#include "choreo/sim/engine.hpp"

namespace choreo::persist::detail {
namespace {

using i64 = std::int64_t;

/// The Hockney machine of Options' defaults as LogGOPS (nanoseconds): a message arrives
/// L + (s-1) G = alpha + s beta after its send starts, and the NIC takes the next send
/// g + (s-1) G later, so a rank's sends go one after the other as in the closed forms.
sim::SimOptions hockney_machine(const Options& options) {
  sim::SimOptions out;
  const std::int64_t alpha = std::llround(options.alpha * 1e9);
  out.params.L = alpha;
  out.params.o = 0;
  out.params.g = alpha;
  out.params.G = options.beta * 1e9;
  out.params.O = 0;
  out.params.S = std::int64_t{1} << 40;
  return out;
}

/// The candidate's schedule of all ranks, simulated: seconds.
double simulated(const BcastShape& shape, int ranks, const Options& options) {
  const CompactSchedule schedule =
      shape.algorithm == "binomial" ? coll::bcast_binomial(ranks, shape.bytes, shape.root)
      : shape.algorithm == "multitree"
          ? coll::bcast_multitree(ranks, shape.bytes, shape.root, shape.parts, shape.arity,
                                  shape.segment_bytes)
          : coll::bcast_kary_pipeline(ranks, shape.bytes, shape.root, shape.arity,
                                      shape.segment_bytes);
  return static_cast<double>(sim::simulate(schedule, hockney_machine(options)).makespan) * 1e-9;
}

/// The worst ratio between predicted and simulated seconds (either way) and where it was.
struct Worst {
  double ratio = 1;
  std::string where;
  void see(double predicted, double simulated_seconds, const BcastShape& shape, int ranks) {
    const double r = std::max(predicted / simulated_seconds, simulated_seconds / predicted);
    if (r <= ratio) return;
    ratio = r;
    where =
        fmt::format("{} (arity {}) on {} ranks, {} B: predicted {:.3g} s, simulated {:.3g} s",
                    shape.algorithm, shape.arity, ranks, shape.bytes, predicted, simulated_seconds);
  }
};

TEST(PersistChoice, ClosedFormsFollowTheSimulatorAndTheChoiceIsTheBest) {
  Options options;
  Worst all, large;  // large: from 64 KiB up, where the pipelines have segments
  double worst_regret = 1;
  for (int ranks : {2, 3, 4, 5, 8, 16, 27, 64, 100, 256, 1000})
    for (i64 bytes = 1; bytes <= (i64{128} << 20); bytes *= 8) {
      if (static_cast<double>(ranks) * static_cast<double>(bytes) > 2e9) continue;  // sim time
      const BcastChoice choice = choose_bcast(bytes, 0, ranks, options);
      double best = 1e300, chosen = 0;
      for (const Candidate& candidate : choice.considered) {
        const double sim_seconds = simulated(candidate.shape, ranks, options);
        all.see(candidate.seconds, sim_seconds, candidate.shape, ranks);
        if (bytes >= 65536) large.see(candidate.seconds, sim_seconds, candidate.shape, ranks);
        best = std::min(best, sim_seconds);
        if (candidate.shape.algorithm == choice.chosen.algorithm &&
            candidate.shape.arity == choice.chosen.arity)
          chosen = sim_seconds;
      }
      ASSERT_GT(chosen, 0) << "the chosen candidate is among the considered ones";
      const double regret = chosen / best;
      EXPECT_LE(regret, 1.05) << ranks << " ranks, " << bytes << " B: " << describe_choice(choice);
      worst_regret = std::max(worst_regret, regret);
    }
  // The forms leave out what the simulator adds (the pipeline's window of 4 segments, the
  // last segment's shorter length), so they are near, not equal. With one segment they
  // charge every level its last child's wait, where the deepest leaf may hang below a first
  // child: up to the arity (3) times too slow there.
  EXPECT_LE(large.ratio, 1.20) << large.where;
  EXPECT_LE(all.ratio, 3.05) << all.where;
  RecordProperty("worst_error", fmt::format("{:.3f}", all.ratio));
  RecordProperty("worst_error_from_64KiB", fmt::format("{:.3f}", large.ratio));
  RecordProperty("worst_regret", fmt::format("{:.3f}", worst_regret));
}

TEST(PersistChoice, TwoRanksSendOneMessage) {
  for (i64 bytes : {i64{1}, i64{65536}, i64{128} << 20})
    EXPECT_EQ(choose_bcast(bytes, 1, 2, Options{}).chosen.algorithm, "binomial") << bytes;
}

TEST(PersistChoice, SmallGoesBinomialAndLargeGoesDownTheChainOnManyRanks) {
  EXPECT_EQ(choose_bcast(8, 0, 64, Options{}).chosen.algorithm, "binomial");
  // 64 MiB on 64 ranks: the chain moves n bytes per rank, binomial 6 n through the root.
  const BcastChoice large = choose_bcast(i64{64} << 20, 0, 64, Options{});
  EXPECT_EQ(large.chosen.algorithm, "kary_pipeline") << describe_choice(large);
  EXPECT_EQ(large.chosen.arity, 1) << describe_choice(large);
}

/// The allreduce's closed forms against choreo sim's simulation of the generated schedules
/// (coll::allreduce_recursive_doubling and coll::allreduce_ring, each reduction costing
/// kReduceSecondsPerByte per byte) on the same Hockney machine; the algorithm the model picks
/// must be, in simulation, as fast as the other or nearly so, from 1 byte to 64 MiB on 2 to 256
/// ranks (up to 3e8 rank-bytes, for the test's time), powers of two and not.
TEST(PersistChoice, AllreduceFormsFollowTheSimulatorAndTheChoiceIsTheBest) {
  Options options;
  double worst_error = 1, worst_regret = 1;
  std::string worst_where;
  for (int ranks : {2, 3, 4, 5, 8, 16, 27, 64, 100, 256})
    for (i64 bytes = 1; bytes <= (i64{64} << 20); bytes *= 8) {
      if (static_cast<double>(ranks) * static_cast<double>(bytes) > 3e8) continue;  // sim time
      const auto reduce_ns = std::llround(kReduceSecondsPerByte * 1e9 * static_cast<double>(bytes));
      const double recdbl = static_cast<double>(sim::simulate(coll::allreduce_recursive_doubling(
                                                                  ranks, bytes, reduce_ns),
                                                              hockney_machine(options))
                                                    .makespan) *
                            1e-9;
      const double ring =
          static_cast<double>(
              sim::simulate(coll::allreduce_ring(ranks, bytes, reduce_ns), hockney_machine(options))
                  .makespan) *
          1e-9;
      const AllreduceChoice choice = choose_allreduce(bytes, ranks, options);
      for (const auto& [predicted, simulated_seconds, name] :
           {std::tuple{choice.recdbl_seconds, recdbl, "recdbl"},
            std::tuple{choice.ring_seconds, ring, "ring"}}) {
        const double error = std::max(predicted / simulated_seconds, simulated_seconds / predicted);
        if (error > worst_error) {
          worst_error = error;
          worst_where = fmt::format("{} on {} ranks, {} B: predicted {:.3g} s, simulated {:.3g} s",
                                    name, ranks, bytes, predicted, simulated_seconds);
        }
      }
      const double regret = (choice.algorithm == "ring" ? ring : recdbl) / std::min(ring, recdbl);
      EXPECT_LE(regret, 1.05) << ranks << " ranks, " << bytes << " B: " << describe_choice(choice);
      worst_regret = std::max(worst_regret, regret);
    }
  // The forms are exact on a power of two and for the ring; past a power of two the fold's
  // reductions are a fit (choice.hpp), near but not equal (1.28x over on 5 ranks, 4 KiB).
  EXPECT_LE(worst_error, 1.30) << worst_where;
  RecordProperty("worst_error", fmt::format("{:.3f}", worst_error));
  RecordProperty("worst_regret", fmt::format("{:.3f}", worst_regret));
}

TEST(PersistChoice, AllreduceSmallGoesRecursiveDoublingLargeGoesRound) {
  EXPECT_EQ(choose_allreduce(8, 64, Options{}).algorithm, "recdbl");
  EXPECT_EQ(choose_allreduce(i64{16} << 20, 64, Options{}).algorithm, "ring");
  EXPECT_EQ(choose_allreduce(i64{16} << 20, 1, Options{}).algorithm, "recdbl");  // no message
}

}  // namespace
}  // namespace choreo::persist::detail
