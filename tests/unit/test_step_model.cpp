// Paper 001's step model: eq. 1 interpolation, steps, memcpy part and collision counts on
// hand-made topologies whose answers are worked out in the comments.
#include <gtest/gtest.h>

#include <cmath>

#include "choreo/coll/generators.hpp"
#include "choreo/core/error.hpp"
#include "choreo/model/step_model.hpp"

namespace choreo::model {
namespace {

// t(M) = M ns: a 1 GB/s link without latency, so times below are byte counts in ns.
CostTables linear_tables() {
  CostTables t;
  t.message = PiecewiseLinear({{0, 0.0}, {1000000, 1e-3}});
  t.memcpy = PiecewiseLinear({{0, 0.0}, {1000000, 1e-4}});  // 10 GB/s
  return t;
}

NetworkSpec network(const std::string& text) { return parse_network(text); }

std::vector<int> collisions_of(const Prediction& p) {
  std::vector<int> c;
  for (const auto& s : p.steps) c.push_back(s.collisions);
  return c;
}

TEST(PiecewiseLinear, InterpolatesBetweenTheTwoNearestSamples) {
  const PiecewiseLinear t({{0, 1.0}, {100, 2.0}, {200, 4.0}});
  EXPECT_DOUBLE_EQ(t.at(0), 1.0);
  EXPECT_DOUBLE_EQ(t.at(50), 1.5);
  EXPECT_DOUBLE_EQ(t.at(100), 2.0);
  EXPECT_DOUBLE_EQ(t.at(150), 3.0);
  EXPECT_DOUBLE_EQ(t.at(300), 6.0);  // the last segment, extended
}

TEST(PiecewiseLinear, ExtendsTheFirstSegmentDownButNeverBelowZero) {
  const PiecewiseLinear t({{10, 1.0}, {20, 3.0}});
  EXPECT_DOUBLE_EQ(t.at(5), 0.0);  // 1 - 5 * 0.2 = 0
  EXPECT_DOUBLE_EQ(t.at(0), 0.0);  // -1, clamped
  EXPECT_DOUBLE_EQ(PiecewiseLinear({{64, 2.5}}).at(1 << 20), 2.5);
}

TEST(PiecewiseLinear, RejectsBadTables) {
  using Samples = std::vector<std::pair<std::int64_t, double>>;
  EXPECT_THROW(PiecewiseLinear(Samples{}), Error);
  EXPECT_THROW(PiecewiseLinear(Samples{{10, 1.0}, {10, 2.0}}), Error);
  EXPECT_THROW(PiecewiseLinear(Samples{{20, 1.0}, {10, 2.0}}), Error);
  EXPECT_THROW(PiecewiseLinear(Samples{{-1, 1.0}}), Error);
  EXPECT_THROW(PiecewiseLinear(Samples{{1, -1.0}}), Error);
  EXPECT_THROW(PiecewiseLinear(Samples{{1, std::nan("")}}), Error);
}

// Recursive doubling on a ring of 8 nodes (1-D torus, one rank per node). Round i sends
// M 2^i bytes to r XOR 2^i, 2^i hops away.
//   i = 0: r <-> r^1, one hop each way: every link carries at most one message.  C = 1
//   i = 1: 0->2 and 1->3 both cross link 1+ (and 2->0, 3->1 link 2-).           C = 2
//   i = 2: distance 4 is a tie, taken in the + direction by all but rank 4 (SimGrid's
//          rule): link 2+ carries 0->4, 1->5, 2->6 and 7->3.                     C = 4
// Timed bytes 1000, 2*2000, 4*4000: 21000 ns with collisions, 7000 ns without.
TEST(StepModel, RecursiveDoublingOnARingOfEight) {
  const auto s = coll::allgather_recursive_doubling(8, 1000);
  const Prediction with = predict(s, linear_tables(), network("torus:8"));
  EXPECT_EQ(collisions_of(with), (std::vector<int>{1, 2, 4}));
  EXPECT_NEAR(with.comm_seconds, 21000e-9, 1e-15);
  EXPECT_EQ(with.steps[2].timed_bytes, 16000);
  EXPECT_EQ(with.steps[2].messages, 8);
  const Prediction without = predict(s, linear_tables(), network("torus:8"), false);
  EXPECT_EQ(collisions_of(without), (std::vector<int>{1, 1, 1}));
  EXPECT_NEAR(without.comm_seconds, 7000e-9, 1e-15);
  const Prediction ideal = predict(s, linear_tables(), network("ideal"));
  EXPECT_NEAR(ideal.comm_seconds, 7000e-9, 1e-15);
  EXPECT_DOUBLE_EQ(with.seconds, with.comm_seconds);  // no copies, no reductions
}

// The ring allgather on a 1-D torus: every message goes one hop in the + direction, each
// over its own link: 7 steps of M, no collisions. On a 1-D mesh the wrap-around message
// 7->0 walks back over every - link: still one message per link.
TEST(StepModel, RingHasNoCollisionsOnATorusOrAMesh) {
  const auto s = coll::allgather_ring(8, 500);
  for (const char* net : {"torus:8", "mesh:8", "torus:2x4", "switch"}) {
    const Prediction p = predict(s, linear_tables(), network(net));
    EXPECT_EQ(collisions_of(p), std::vector<int>(7, 1)) << net;
    EXPECT_NEAR(p.comm_seconds, 7 * 500e-9, 1e-15) << net;
  }
}

// Four ranks on two switch nodes (linear placement: ranks 0, 1 on node 0, ranks 2, 3 on
// node 1). Round 0 pairs ranks of one node (no links); round 1 sends 0->2 and 1->3 through
// node 0's injection link (and 2->0, 3->1 through node 1's): C = 2.
TEST(StepModel, RanksOfOneNodeShareItsLink) {
  const auto s = coll::allgather_recursive_doubling(4, 100);
  const Prediction p = predict(s, linear_tables(), network("switch:2"));
  EXPECT_EQ(collisions_of(p), (std::vector<int>{1, 2}));
  EXPECT_EQ(p.steps[0].hops, 0);
  EXPECT_EQ(p.steps[1].hops, 2);
  EXPECT_NEAR(p.comm_seconds, (100 + 2 * 200) * 1e-9, 1e-15);
}

// The memcpy part is the largest rank's sum of copies, calcs add their time.
TEST(StepModel, MemcpyPartIsTheLargestRanksSum) {
  CompactBuilder b(2, 8, 4);
  b.begin_rank(0);
  b.copy(100000);
  b.copy(200000);
  b.calc(5000);
  b.begin_rank(1);
  b.copy(250000);
  b.calc(7000);
  const Prediction p = predict(b.finish(), linear_tables(), network("ideal"));
  EXPECT_NEAR(p.memcpy_seconds, 300000 * 1e-10, 1e-15);  // rank 0: 30 us > rank 1: 25 us
  EXPECT_NEAR(p.calc_seconds, 7000e-9, 1e-15);
  EXPECT_NEAR(p.seconds, 30e-6 + 7e-6, 1e-15);
  EXPECT_TRUE(p.steps.empty());
}

// Hop latency (beyond paper 001): on the ring of 8, ranks 0 and 1 are 3 links apart
// (injection, one hop, ejection); round 2's messages cross 6, so it pays 3 extra hops.
TEST(StepModel, HopLatencyCountsLinksBeyondTheCalibratedPair) {
  CostTables t = linear_tables();
  t.hop_latency = 1e-6;
  const auto s = coll::allgather_recursive_doubling(8, 1000);
  const Prediction p = predict(s, t, network("torus:8"), false);
  EXPECT_EQ(p.steps[0].hops, 3);
  EXPECT_EQ(p.steps[2].hops, 6);
  EXPECT_NEAR(p.comm_seconds, 7000e-9 + (0 + 1 + 3) * 1e-6, 1e-15);
}

}  // namespace
}  // namespace choreo::model
