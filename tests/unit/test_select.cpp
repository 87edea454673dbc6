// Algorithm selection: sizes, and a crossover worked out by hand from the step model.
#include <gtest/gtest.h>

#include "choreo/error.hpp"
#include "choreo/select.hpp"

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
  r.network = sim::parse_network("torus:8");
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

}  // namespace
}  // namespace choreo::select
