// The tcp sharing rule (a switch whose output ports drop what their buffers cannot hold, and
// NewReno senders) against times derived by hand from its rules (docs/sim-model.md), and
// conservation: every segment is new once, and every drop is made good by a resend.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "choreo/core/error.hpp"
#include "choreo/sim/engine.hpp"
#include "schedule_builder.hpp"

namespace choreo::sim {
namespace {

using test::Builder;
using ::testing::HasSubstr;

// Round numbers: 1 ns per byte on every link and NIC, no CPU costs, 1 us from node to node
// (0.5 us per link), 1000-byte segments, a 1 ms timeout.
constexpr std::int64_t kMss = 1000, kLatency = 1000, kRto = 1'000'000;

SimOptions tcp_options(std::int64_t buffer) {
  SimOptions options;
  options.params.L = kLatency;
  options.params.o = 0;
  options.params.g = 0;
  options.params.G = 1;
  options.params.S = 1 << 30;  // eager: senders do not wait for their receives
  options.network = parse_network("switch");
  options.network.sharing = NetworkSpec::Sharing::Tcp;
  options.network.tcp.mss = kMss;
  options.network.tcp.port_buffer = buffer;
  options.network.tcp.rto_min = kRto;
  return options;
}

/// Ranks 1..k each send `bytes` to rank 0 at time 0.
Schedule incast(int k, std::int64_t bytes) {
  Builder b(k + 1);
  for (int r = 1; r <= k; ++r) b.send(r, 0, 0, bytes).recv(0, r, r, bytes);
  return b.build();
}

// A segment reaches the switch after its 1000 ns on the sender's link and 500 ns of wire; the
// port sends it in 1000 ns and it lands 500 ns later: 3000 ns. A buffer of two segments takes
// both senders' segments, the second queued behind the first.
TEST(SimTcp, ABufferThatHoldsBothDropsNothing) {
  SimResult r = simulate(compact(incast(2, kMss)), tcp_options(2 * kMss));
  EXPECT_EQ(r.makespan, 1000 + 500 + 2 * 1000 + 500);
  EXPECT_EQ(r.tcp.drops, 0U);
  EXPECT_EQ(r.tcp.segments, 2U);
  EXPECT_EQ(r.tcp.fullest_port, 2 * kMss);
}

// A buffer of one segment takes rank 1's and drops rank 2's (both arrive at 1500 ns, rank 1's
// first). Rank 2 hears nothing, times out at 1 ms, and sends again into an idle network:
// its message lands at 1 ms + 3000 ns.
TEST(SimTcp, ADropCostsOneTimeout) {
  SimResult r = simulate(compact(incast(2, kMss)), tcp_options(kMss));
  EXPECT_EQ(r.makespan, kRto + 3000);
  EXPECT_EQ(r.tcp.drops, 1U);
  EXPECT_EQ(r.tcp.timeouts, 1U);
  EXPECT_EQ(r.tcp.retransmissions, 1U);
  EXPECT_EQ(r.tcp.segments, 3U);
  EXPECT_EQ(r.tcp.fast_retransmits, 0U);
}

// Three senders, room for one: ranks 2 and 3 time out together at 1 ms and collide again;
// rank 2 gets through, rank 3 waits a doubled timeout, 2 ms, and lands at 3 ms + 3000 ns.
TEST(SimTcp, TimeoutsBackOff) {
  SimResult r = simulate(compact(incast(3, kMss)), tcp_options(kMss));
  EXPECT_EQ(r.makespan, kRto + 2 * kRto + 3000);
  EXPECT_EQ(r.tcp.drops, 3U);
  EXPECT_EQ(r.tcp.timeouts, 3U);
}

// Rank 1 sends one segment and rank 2 five (its window is 10) into a one-segment buffer.
// At 1500 ns rank 1's segment is taken and rank 2's first dropped; its segments 1-4 reach
// the switch at 2500, 3500, 4500 and 5500 ns and each finds the port free. They land at
// 4000, 5000, 6000 and 7000 ns, each answered by an ACK still asking for segment 0; the
// third of these duplicates reaches rank 2 at 6000 + 1000 = 7000 ns, which resends segment 0
// at once: 1000 ns on its link, 500, 1000 at the port, 500: it lands at 10000 ns and
// completes the message.
TEST(SimTcp, ThreeDuplicateAcksResendWithoutATimeout) {
  Builder b(3);
  b.send(1, 0, 0, kMss).recv(0, 1, 1, kMss);
  b.send(2, 0, 0, 5 * kMss).recv(0, 2, 2, 5 * kMss);
  SimResult r = simulate(compact(b.build()), tcp_options(kMss));
  EXPECT_EQ(r.makespan, 10000);
  EXPECT_EQ(r.tcp.drops, 1U);
  EXPECT_EQ(r.tcp.fast_retransmits, 1U);
  EXPECT_EQ(r.tcp.timeouts, 0U);
  EXPECT_EQ(r.tcp.segments, 7U);
}

// An all-to-all of messages of several segments in which every rank sends to rank 0 first,
// then to rank 1, ... (incasts, and drops): the simulation ends (every byte was delivered:
// a receive waits for its message's last segment), each segment went out new exactly once,
// and every drop was resent.
TEST(SimTcp, EverySegmentArrivesAndEveryDropIsResent) {
  const int ranks = 9;
  const std::int64_t bytes = 7 * kMss + 123;  // 8 segments, the last short
  Builder b(ranks);
  std::int64_t id = 0;
  for (int r = 0; r < ranks; ++r)
    for (int d = 0; d < ranks; ++d)
      if (d != r) b.send(r, id++, d, bytes);
  for (int r = 0; r < ranks; ++r)
    for (int s = 0; s < ranks; ++s)
      if (s != r) b.recv(r, id++, s, bytes);
  SimResult r = simulate(compact(b.build()), tcp_options(4 * kMss));
  const std::uint64_t messages = ranks * (ranks - 1);
  const std::uint64_t segments = (bytes + kMss - 1) / kMss;
  EXPECT_GT(r.tcp.drops, 0U);
  EXPECT_EQ(r.tcp.segments - r.tcp.retransmissions, messages * segments);
  EXPECT_GE(r.tcp.retransmissions, r.tcp.drops);
  EXPECT_LE(r.tcp.fullest_port, 4 * kMss);
  // No schedule beats the port bound: 8 messages into each port, at 1 ns a byte.
  EXPECT_GE(r.makespan, (ranks - 1) * bytes);
}

TEST(SimTcp, RefusesWhatCannotWork) {
  SimOptions torus = tcp_options(kMss);
  torus.network = parse_network("torus:2x2");
  torus.network.sharing = NetworkSpec::Sharing::Tcp;
  EXPECT_THAT([&] { simulate(compact(incast(3, kMss)), torus); },
              ::testing::ThrowsMessage<Error>(HasSubstr("use --network switch")));
  EXPECT_THAT([&] { simulate(compact(incast(2, kMss)), tcp_options(kMss - 1)); },
              ::testing::ThrowsMessage<Error>(HasSubstr("cannot hold one 1000 B segment")));
  EXPECT_EQ(parse_sharing("tcp"), NetworkSpec::Sharing::Tcp);
}

}  // namespace
}  // namespace choreo::sim
