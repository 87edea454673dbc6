// Networks of the simulator against hand-counted routes and closed forms.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "choreo/core/error.hpp"
#include "choreo/sim/engine.hpp"
#include "schedule_builder.hpp"

namespace choreo::sim {
namespace {

using test::Builder;
using ::testing::HasSubstr;

SimResult run(const Schedule& s, const std::string& network, LogGOPS p = {}, double link_G = -1,
              std::int64_t hop_latency = 0, const std::string& placement = "linear",
              NetworkSpec::Sharing sharing = NetworkSpec::Sharing::Serialize) {
  SimOptions options;
  options.params = p;
  options.network = parse_network(network);
  options.network.link_G = link_G;
  options.network.hop_latency = hop_latency;
  options.network.placement = placement;
  options.network.sharing = sharing;
  options.record_ops = true;
  return simulate(compact(s), options);
}

std::map<std::string, std::int64_t> messages_per_link(const SimResult& r) {
  std::map<std::string, std::int64_t> out;
  for (const auto& l : r.links) out[l.name] = l.messages;
  return out;
}

// k ranks send s bytes to rank 0 at once. The ejection link of node 0 holds each message
// for s * link_G; with link_G far above G the link rules: the j-th message starts j * s *
// link_G after the first, and the last one is received o + (s-1)G after it arrives.
TEST(SimNetwork, IncastOnASwitchTakesKTransfers) {
  for (int k : {1, 2, 5, 9}) {
    const std::int64_t s = 1000;
    const double link_G = 50;
    Builder b(k + 1);
    for (int r = 1; r <= k; ++r) b.send(r, 0, 0, s).recv(0, r, r, s);
    LogGOPS p;
    SimResult res = run(b.build(), "switch", p, link_G);
    const std::int64_t hold = static_cast<std::int64_t>(s * link_G);
    const std::int64_t last_arrival = p.o + p.L + (k - 1) * hold;
    EXPECT_EQ(res.finish[0], last_arrival + p.o + std::llround(static_cast<double>(s - 1) * p.G))
        << k;
    EXPECT_EQ(messages_per_link(res)["node 0 ejection"], k);
  }
}

// A shift permutation has no two messages on one link: the switch gives LogGP's times.
TEST(SimNetwork, ContentionFreeTrafficGetsIdealTimes) {
  const int ranks = 6;
  const std::int64_t s = 4096;
  Builder b(ranks);
  for (int r = 0; r < ranks; ++r)
    b.send(r, 0, (r + 1) % ranks, s).recv(r, 1, (r + ranks - 1) % ranks, s);
  LogGOPS p;
  for (auto sharing : {NetworkSpec::Sharing::Serialize, NetworkSpec::Sharing::Fair})
    for (const char* network : {"switch", "torus:6", "torus:3x2", "mesh:6"}) {
      SimResult res = run(b.build(), network, p, -1, 0, "linear", sharing);
      for (auto f : res.finish)
        EXPECT_EQ(f, 2 * p.o + p.L + std::llround(static_cast<double>(s - 1) * p.G)) << network;
    }
}

// Ties half way round go + except from coordinate size/2 (SimGrid's rule): on a ring of 4,
// 2 -> 0 goes the - way (2-x, 1-x) and 3 -> 1 the + way round (3+x, 0+x).
TEST(SimNetwork, TorusTiesFollowSimGrid) {
  Builder b(4);
  b.send(2, 0, 0, 100).recv(0, 0, 2, 100);
  b.send(3, 0, 1, 100).recv(1, 0, 3, 100);
  auto loads = messages_per_link(run(b.build(), "torus:4", LogGOPS{}, 20));
  EXPECT_EQ(loads["node 2 -x"], 1);
  EXPECT_EQ(loads["node 1 -x"], 1);
  EXPECT_EQ(loads["node 3 +x"], 1);
  EXPECT_EQ(loads["node 0 +x"], 1);
  EXPECT_EQ(loads.size(), 4u + 4u);  // and the four injection and ejection links
}

// On a ring of 4 (torus:4), 0 -> 2 and 1 -> 3 both go the + way (ties go +), so both
// cross node 1's +x link: counted by hand, 0 -> 2 uses 0+x, 1+x and 1 -> 3 uses 1+x, 2+x.
TEST(SimNetwork, TorusRoutesShareTheLinkCountedByHand) {
  Builder b(4);
  b.send(0, 0, 2, 100).recv(2, 0, 0, 100);
  b.send(1, 0, 3, 100).recv(3, 0, 1, 100);
  LogGOPS p;
  p.G = 0;
  SimResult res = run(b.build(), "torus:4", p, /*link_G=*/20);
  auto loads = messages_per_link(res);
  EXPECT_EQ(loads["node 0 +x"], 1);
  EXPECT_EQ(loads["node 1 +x"], 2);
  EXPECT_EQ(loads["node 2 +x"], 1);
  EXPECT_EQ(loads.count("node 3 +x"), 0u);
  // Rank 0's message holds 1+x for 100 * 20 ns; rank 1's waits for it.
  EXPECT_EQ(res.finish[2], 2 * p.o + p.L);
  EXPECT_EQ(res.finish[3], 2 * p.o + p.L + 2000);
}

// Hops: 0 -> 3 on a ring of 4 goes -x once (torus) but +x three times (mesh); injection and
// ejection links count too. hop_latency makes the difference visible.
TEST(SimNetwork, TorusTakesTheShortWayRoundMeshCannot) {
  Builder b(4);
  b.send(0, 0, 3, 1).recv(3, 0, 0, 1);
  LogGOPS p;
  const std::int64_t hop = 100;
  EXPECT_EQ(run(b.build(), "torus:4", p, -1, hop).finish[3], 2 * p.o + p.L + 3 * hop);
  EXPECT_EQ(run(b.build(), "mesh:4", p, -1, hop).finish[3], 2 * p.o + p.L + 5 * hop);
  auto torus = messages_per_link(run(b.build(), "torus:4", p));
  EXPECT_EQ(torus["node 0 -x"], 1);
}

// Dimension order: x first, then y. On mesh:3x3, node 0 (0,0) to node 8 (2,2) crosses
// 0+x, 1+x, then 2+y, 5+y.
TEST(SimNetwork, DimensionOrderRoutingGoesXThenY) {
  Builder b(9);
  b.send(0, 0, 8, 1).recv(8, 0, 0, 1);
  auto loads = messages_per_link(run(b.build(), "mesh:3x3"));
  EXPECT_EQ(loads, (std::map<std::string, std::int64_t>{{"node 0 injection", 1},
                                                        {"node 0 +x", 1},
                                                        {"node 1 +x", 1},
                                                        {"node 2 +y", 1},
                                                        {"node 5 +y", 1},
                                                        {"node 8 ejection", 1}}));
}

// Fair sharing: two 1000-byte flows into node 0 from t0 = o share its ejection link, each
// at half of 1/link_G, so each takes 2 x 10000 ns and its lag (time taken minus time alone)
// is 10000 ns. A message lands its unshared first-byte time t0 + L plus its lag plus the
// receive on a free receiver (o, as G = g = 0). Serialized, the second waits 10000 ns for
// the first to leave the link: the link moves 2000 B either way, so both end alike.
TEST(SimNetwork, FairSharingDelaysBothFlowsByTheirLag) {
  Builder b(3);
  b.send(1, 0, 0, 1000).send(2, 0, 0, 1000).recv(0, 1, 1, 1000).recv(0, 2, 2, 1000);
  LogGOPS p;
  p.L = 1000;
  p.o = 100;
  p.g = 0;
  p.G = 0;
  const double link_G = 10;
  const std::int64_t t0 = p.o;
  SimResult fair = run(b.build(), "switch", p, link_G, 0, "linear", NetworkSpec::Sharing::Fair);
  EXPECT_EQ(fair.finish[0], t0 + p.L + 1000 * 10 + p.o);
  SimResult serial = run(b.build(), "switch", p, link_G);
  EXPECT_EQ(serial.finish[0], t0 + 1000 * 10 + p.L + p.o);
  EXPECT_EQ(messages_per_link(fair)["node 0 ejection"], 2);
}

// A link shared deep in the network, not at a receiver: on mesh:4, 0 -> 2 and 1 -> 3 share
// "node 1 +x" only. With link_G = G = 1 ns/B, alone a 10000 B message lands at
// t0 + L + o + 9999 G = 10299 ns. Sharing fairly, both move at half speed (20000 ns, lag
// 10000 ns) and both land 10000 ns later; serialized, one lands at 10299 and the other waits
// the first one's 10000 ns. (The old rule delayed only the first byte, by about L: 10399.)
TEST(SimNetwork, FairSharingSlowsFlowsThatShareAnInnerLink) {
  Builder b(4);
  b.send(0, 0, 2, 10000).send(1, 0, 3, 10000).recv(2, 0, 0, 10000).recv(3, 0, 1, 10000);
  LogGOPS p;
  p.L = 100;
  p.o = 100;
  p.g = 0;
  p.G = 1;
  const std::int64_t alone = p.o + p.L + p.o + 9999;  // (s - 1) G with G = 1
  SimResult fair = run(b.build(), "mesh:4", p, 1, 0, "linear", NetworkSpec::Sharing::Fair);
  EXPECT_EQ(fair.finish[2], alone + 10000);
  EXPECT_EQ(fair.finish[3], alone + 10000);
  SimResult serial = run(b.build(), "mesh:4", p, 1);
  EXPECT_EQ(std::min(serial.finish[2], serial.finish[3]), alone);
  EXPECT_EQ(std::max(serial.finish[2], serial.finish[3]), alone + 10000);
  SimResult lone = run(Builder(4).send(0, 0, 2, 10000).recv(2, 0, 0, 10000).build(), "mesh:4", p, 1,
                       0, "linear", NetworkSpec::Sharing::Fair);
  EXPECT_EQ(lone.finish[2], alone);
}

TEST(SimNetwork, RanksOfOneNodeUseNoLinks) {
  Builder b(4);
  b.send(0, 0, 1, 10).recv(1, 0, 0, 10).send(2, 0, 3, 10).recv(3, 0, 2, 10);
  // switch:2, linear: ranks 0,1 on node 0 and 2,3 on node 1: no link carries anything.
  EXPECT_TRUE(run(b.build(), "switch:2").links.empty());
  // round-robin: 0,2 on node 0 and 1,3 on node 1: both messages cross, on the same links.
  auto loads = messages_per_link(run(b.build(), "switch:2", {}, -1, 0, "round-robin"));
  EXPECT_EQ(loads,
            (std::map<std::string, std::int64_t>{{"node 0 injection", 2}, {"node 1 ejection", 2}}));
}

TEST(SimNetwork, Placements) {
  EXPECT_EQ(place_ranks(5, 2, "linear"), (std::vector<int>{0, 0, 0, 1, 1}));
  EXPECT_EQ(place_ranks(5, 2, "round-robin"), (std::vector<int>{0, 1, 0, 1, 0}));
  auto a = place_ranks(64, 16, "random:7"), c = place_ranks(64, 16, "random:7");
  EXPECT_EQ(a, c);  // seeded
  auto sorted = a;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, place_ranks(64, 16, "linear"));  // a shuffle: 4 ranks on each node
  EXPECT_NE(a, place_ranks(64, 16, "random:8"));
  EXPECT_THROW(place_ranks(4, 2, "file:/nonexistent"), Error);
  EXPECT_THROW(place_ranks(4, 2, "spiral"), Error);
}

TEST(SimNetwork, NetworkSpellings) {
  EXPECT_EQ(parse_network("torus:2x3x4").dims, (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(parse_network("switch:64").nodes, 64);
  EXPECT_EQ(parse_network("mesh:8").kind, NetworkSpec::Kind::Mesh);
  for (const char* bad : {"torus", "torus:2x0", "ring:4", "switch:-1", "ideal:3", "torus:2xx3"})
    EXPECT_THROW(parse_network(bad), Error) << bad;
  try {
    parse_network("fat-tree:4");
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("use ideal, switch, switch:NODES, torus:AxBxC"));
  }
}

TEST(SimNetwork, MoreRanksThanATorusHasNodesShareNodes) {
  Builder b(8);
  for (int r = 0; r < 8; ++r) b.send(r, 0, (r + 2) % 8, 8).recv(r, 1, (r + 6) % 8, 8);
  EXPECT_NO_THROW(run(b.build(), "torus:2x2"));  // two ranks per node, linear
}

}  // namespace
}  // namespace choreo::sim
