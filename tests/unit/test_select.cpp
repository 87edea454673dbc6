// Algorithm selection: sizes, a crossover worked out by hand from the step model, and which
// of a profile's tables times the steps.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "choreo/core/error.hpp"
#include "choreo/select/select.hpp"

namespace choreo::select {
namespace {

TEST(SelectSizes, ParsesBinaryUnits) {
  EXPECT_EQ(parse_size("8"), 8);
  EXPECT_EQ(parse_size("64K"), 65536);
  EXPECT_EQ(parse_size("64KiB"), 65536);
  EXPECT_EQ(parse_size("3M"), 3 << 20);
  EXPECT_EQ(parse_size("1GB"), std::int64_t{1} << 30);
  for (const char* bad : {"", "x", "-1", "8Q", "8 K", "99999999999G"})
    EXPECT_THROW(parse_size(bad), Error) << bad;
}

TEST(SelectSizes, GeometricRangeEndsAtTheMaximum) {
  EXPECT_EQ(size_range("8:64"), (std::vector<std::int64_t>{8, 16, 32, 64}));
  EXPECT_EQ(size_range("1:5"), (std::vector<std::int64_t>{1, 2, 4, 5}));
  EXPECT_EQ(size_range("7:7"), (std::vector<std::int64_t>{7}));
  EXPECT_EQ(size_range("1:8", 4), (std::vector<std::int64_t>{1, 4, 8}));
  EXPECT_THROW(size_range("64:8"), Error);
  EXPECT_THROW(size_range("64"), Error);
  EXPECT_THROW(size_range("0:8"), Error);
  EXPECT_THROW(size_range("1:8", 1.0), Error);
}

// Allgather on a ring of 8 nodes with t(M) = a + b M (a = 1 us, b = 1 ns/B). Ring: 7 steps
// of M without collisions: 7a + 7bM. Recursive doubling: rounds of M, 2M, 4M with C = 1, 2,
// 4 (test_step_model.cpp): 3a + 21bM. Ring wins once 14bM > 4a, i.e. from M = 286
// (2a / 7b = 285.7); without collisions recursive doubling (3a + 7bM) always wins.
TEST(Select, CrossoverOfRingAndRecursiveDoublingOnARing) {
  Request r;
  r.collective = "allgather";
  r.ranks = 8;
  r.network = parse_network("torus:8");
  r.tables.message = model::PiecewiseLinear({{0, 1e-6}, {1000000, 1e-6 + 1e-3}});
  r.tables.memcpy = model::PiecewiseLinear({{0, 0.0}});
  r.sizes = {64, 128, 256, 512, 1024};
  r.only = {"ring", "recdbl"};
  const Selection s = select_algorithms(r);
  EXPECT_EQ(s.winners, (std::vector<std::string>{"recdbl", "recdbl", "recdbl", "ring", "ring"}));
  ASSERT_EQ(s.crossovers.size(), 1u);
  EXPECT_EQ(s.crossovers[0].from, "recdbl");
  EXPECT_EQ(s.crossovers[0].to, "ring");
  EXPECT_EQ(s.crossovers[0].bytes, 286);
  ASSERT_EQ(s.curves.size(), 2u);
  EXPECT_NEAR(*s.curves[0].seconds[4], 7e-6 + 7 * 1024e-9, 1e-12);  // ring at 1 KiB

  r.collisions = false;
  const Selection plain = select_algorithms(r);
  EXPECT_EQ(plain.winners, std::vector<std::string>(5, "recdbl"));
  EXPECT_TRUE(plain.crossovers.empty());
}

// The same ring with the calibration's noise: half the table draws have a = 1 us (ring from
// 286 B), half a = 3 us (ring from 2a / 7b = 857 B). At 512 B ring is fastest on the medians
// but in only half the draws, so the decision keeps recursive doubling there and changes
// where ring wins in every draw (1 KiB), from just above 512 B. Draws equal to the medians
// change nothing.
TEST(Select, TheDecisionChangesOnlyWhereTheNewWinnerIsConfident) {
  Request r;
  r.collective = "allgather";
  r.ranks = 8;
  r.network = parse_network("torus:8");
  const auto tables_with_latency = [](double a) {
    model::CostTables t;
    t.message = model::PiecewiseLinear({{0, a}, {1000000, a + 1e-3}});
    t.memcpy = model::PiecewiseLinear({{0, 0.0}});
    return t;
  };
  r.tables = tables_with_latency(1e-6);
  r.sizes = {64, 128, 256, 512, 1024};
  r.only = {"ring", "recdbl"};
  r.table_draws.assign(10, tables_with_latency(1e-6));
  const Selection same = select_algorithms(r);
  EXPECT_EQ(same.confidence, std::vector<double>(5, 1.0));
  ASSERT_EQ(same.crossovers.size(), 1u);
  EXPECT_EQ(same.crossovers[0].bytes, 286);

  r.table_draws.insert(r.table_draws.end(), 10, tables_with_latency(3e-6));
  const Selection s = select_algorithms(r);
  EXPECT_EQ(s.fastest, (std::vector<std::string>{"recdbl", "recdbl", "recdbl", "ring", "ring"}));
  EXPECT_EQ(s.confidence, (std::vector<double>{1, 1, 1, 0.5, 1}));
  EXPECT_EQ(s.winners, (std::vector<std::string>{"recdbl", "recdbl", "recdbl", "recdbl", "ring"}));
  ASSERT_EQ(s.crossovers.size(), 1u);
  EXPECT_EQ(s.crossovers[0].from, "recdbl");
  EXPECT_EQ(s.crossovers[0].to, "ring");
  EXPECT_EQ(s.crossovers[0].bytes, 513);
  // A lower bar takes the medians' word where half the draws agree.
  r.confidence = 0.5;
  EXPECT_EQ(select_algorithms(r).crossovers.at(0).bytes, 286);
}

TEST(Select, RejectsUnknownCollectivesAndAlgorithms) {
  Request r;
  r.collective = "allgather";
  r.ranks = 4;
  r.tables.message = model::PiecewiseLinear({{0, 1e-6}});
  r.sizes = {8};
  r.only = {"magic"};
  EXPECT_THROW(select_algorithms(r), Error);
  r.only.clear();
  r.collective = "reduce_everything";
  EXPECT_THROW(select_algorithms(r), Error);
  r.collective = "allgather";
  r.sizes.clear();
  EXPECT_THROW(select_algorithms(r), Error);
}

/// A profile whose ping-pong takes 1 us + 1 ns/B one way and whose exchange (2 ranks at once)
/// takes 3 us + 4 ns/B; its cache-defeating memcpy 0.1 ns/B, its memcpy of fresh data
/// 0.01 ns/B. Each sampled at 1 KiB and 1 MiB with three samples.
MachineProfile two_table_profile() {
  MachineProfile p;
  p.ranks = 2;
  p.pairs = {{0, 1}};
  const auto line = [](double alpha, double beta) {
    std::vector<SizeSamples> out;
    for (std::int64_t bytes : {std::int64_t{1024}, std::int64_t{1} << 20}) {
      const double t = alpha + beta * static_cast<double>(bytes);
      out.push_back({bytes, 1, {t * 1.1, t, t * 0.9}});  // median t
    }
    return out;
  };
  p.pingpong = line(1e-6, 1e-9);
  p.memcpy = line(0, 1e-10);
  p.collective = {2, line(3e-6, 4e-9), line(0, 1e-11)};
  return p;
}

TEST(SelectTables, TheCollectiveTablesAreUsedWhenTheProfileHasThem) {
  const MachineProfile p = two_table_profile();
  Request r;
  r.collective = "allgather";
  r.ranks = 2;
  r.sizes = {1024, 1 << 20};
  r.only = {"bruck"};
  // Bruck on 2 ranks: one step of M, and rank 1 copies M four times (its own block in, then
  // three for the final rotation; the model takes the busiest rank's copies), so
  // t = alpha + beta M + 4 copy M.
  for (const auto& [tables, alpha, beta, copy, source] :
       {std::tuple{ModelTables::Automatic, 3e-6, 4e-9, 1e-11, "collective"},
        std::tuple{ModelTables::Collective, 3e-6, 4e-9, 1e-11, "collective"},
        std::tuple{ModelTables::Paper, 1e-6, 1e-9, 1e-10, "paper"}}) {
    r.tables = tables_from_profile(p, tables);
    EXPECT_EQ(r.tables.source, source);
    const Selection s = select_algorithms(r);
    ASSERT_EQ(s.curves.size(), 1u);
    for (std::size_t i = 0; i < 2; ++i) {
      const auto m = static_cast<double>(r.sizes[i]);
      EXPECT_NEAR(*s.curves[0].seconds[i], alpha + beta * m + 4 * copy * m, 1e-12) << source;
    }
  }
}

TEST(SelectTables, AnOldProfileFallsBackToThePapersOrSaysWhatIsMissing) {
  MachineProfile p = two_table_profile();
  p.collective = {};
  EXPECT_EQ(tables_from_profile(p).source, "paper");
  EXPECT_THAT(
      [&] { tables_from_profile(p, ModelTables::Collective); },
      ::testing::ThrowsMessage<Error>(::testing::AllOf(::testing::HasSubstr("no collective tables"),
                                                       ::testing::HasSubstr("--tables paper"))));
}

TEST(SelectTables, DrawsComeFromTheSamplesAndAreReproducible) {
  MachineProfile p = two_table_profile();
  // Two samples per size, 1 and 3 times the line: each draw's median is one of 1, 2 or 3 times.
  for (auto& s : p.collective.exchange) s.seconds = {s.seconds[1], 3 * s.seconds[1]};
  const auto draws = resampled_tables(p, ModelTables::Collective, 50);
  ASSERT_EQ(draws.size(), 50u);
  bool low = false, high = false;
  for (const auto& t : draws) {
    const double ratio = t.message.at(1024) / (3e-6 + 4e-9 * 1024);
    EXPECT_TRUE(std::abs(ratio - 1) < 1e-9 || std::abs(ratio - 2) < 1e-9 ||
                std::abs(ratio - 3) < 1e-9)
        << ratio;
    low |= ratio < 1.5;
    high |= ratio > 2.5;
  }
  EXPECT_TRUE(low && high);
  EXPECT_EQ(resampled_tables(p, ModelTables::Collective, 5)[3].message.samples(),
            draws[3].message.samples());
}

TEST(SelectNotes, SayWhereThePredictionGoesBeyondTheProfile) {
  MachineProfile p = two_table_profile();
  Request r;
  r.collective = "allgather";
  r.ranks = 24;
  r.network = parse_network("torus:2x3x4");
  r.tables = tables_from_profile(p);
  r.sizes = {8, 2 << 20};
  r.only = {"ring"};
  const auto has = [](const std::vector<std::string>& notes, const std::string& text) {
    return std::any_of(notes.begin(), notes.end(),
                       [&](const std::string& n) { return n.find(text) != std::string::npos; });
  };
  auto notes = extrapolation_notes(p, r);
  // Ring sends M per step: 2 MiB, beyond the table's largest size.
  EXPECT_TRUE(
      has(notes, "messages up to 2.0 MiB are predicted, the profile measured up to 1.0 MiB"));
  EXPECT_TRUE(has(notes, "24 ranks are predicted from 2 measured exchanging at once"));
  EXPECT_TRUE(has(notes, "does not say where it was measured"));
  p.measured_on = {3.5, 3.0, 2, {"n1", "n1"}};
  notes = extrapolation_notes(p, r);
  EXPECT_TRUE(has(notes, "the profile's pair shared node n1 (shared memory, not a network)"));
  EXPECT_TRUE(has(notes, "a torus of 24 nodes"));
  EXPECT_TRUE(has(notes, "measured under load (load average 3.5 on 2 CPUs)"));
  // The profile's fits are zero (it has no bursts): G and beta 0 while times grow.
  EXPECT_TRUE(has(notes, "the profile's fit is not physical: G is 0"));
  // Two nodes, idle, two ranks, within the sizes, a plausible fit: nothing to say.
  p.measured_on = {0.1, 0.1, 2, {"n1", "n2"}};
  p.loggp.G = 1e-9;
  p.hockney.beta = 4e-9;
  r.ranks = 2;
  r.network = parse_network("switch");
  r.sizes = {8, 64};
  EXPECT_THAT(extrapolation_notes(p, r), ::testing::IsEmpty());
}

TEST(SelectTables, ParsesTheTableNames) {
  EXPECT_EQ(parse_model_tables("auto"), ModelTables::Automatic);
  EXPECT_EQ(parse_model_tables("collective"), ModelTables::Collective);
  EXPECT_EQ(parse_model_tables("paper"), ModelTables::Paper);
  EXPECT_THAT([] { parse_model_tables("ping-pong"); },
              ::testing::ThrowsMessage<Error>(::testing::HasSubstr(
                  "'ping-pong' names no model tables: write auto, collective")));
}

}  // namespace
}  // namespace choreo::select
