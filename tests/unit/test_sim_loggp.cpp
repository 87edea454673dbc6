// The simulator against closed forms of the LogGP model and hand-worked cases (each
// derivation is in the comment above the test, following docs/sim-model.md's rules).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "choreo/core/error.hpp"
#include "choreo/core/goal_io.hpp"
#include "choreo/core/io.hpp"
#include "choreo/sim/engine.hpp"
#include "schedule_builder.hpp"

namespace choreo::sim {
namespace {

using test::Builder;

SimResult run(const Schedule& s, LogGOPS p = {}, bool record = false) {
  SimOptions options;
  options.params = p;
  options.record_ops = record;
  return simulate(compact(s), options);
}

// One byte there and back: each way costs o (send) + L + o (receive) = 5500 ns with
// LogGOPSim's defaults; the reply starts when the ping has been received.
TEST(SimLogGP, PingPongIsTwoOneWayTrips) {
  Builder b(2);
  b.send(0, 0, 1, 1).recv(0, 1, 1, 1);
  b.recv(1, 0, 0, 1).send(1, 1, 0, 1).after({0});
  LogGOPS p;
  SimResult r = run(b.build(), p);
  EXPECT_EQ(r.finish[1], (2 * p.o + p.L) + p.o);  // the reply leaves the CPU at 5500 + o
  EXPECT_EQ(r.makespan, 2 * (2 * p.o + p.L));
  EXPECT_EQ(r.events, 6u);  // 4 ops + 2 message arrivals
}

// s bytes one way: o + L, then the receiver's CPU pays o + (s-1)G (O = 0).
TEST(SimLogGP, LargeEagerMessagePaysGPerByte) {
  for (std::int64_t s : {1, 2, 1000, 65535}) {
    Builder b(2);
    b.send(0, 0, 1, s).recv(1, 0, 0, s);
    LogGOPS p;
    SimResult r = run(b.build(), p);
    EXPECT_EQ(r.finish[1], 2 * p.o + p.L + std::llround(static_cast<double>(s - 1) * p.G)) << s;
  }
}

// A send's successor starts when the CPU and NIC are free: with g > o the NIC gap rules.
TEST(SimLogGP, BackToBackSendsAreSpacedByTheLargerOfOAndG) {
  Builder b(3);
  b.send(0, 0, 1, 1).send(0, 1, 2, 1);
  b.recv(1, 0, 0, 1).recv(2, 0, 0, 1);
  LogGOPS p;
  p.g = 4000;
  SimResult r = run(b.build(), p, true);
  // Second send starts at max(o, g) = 4000 and arrives at 4000 + o + L.
  EXPECT_EQ(r.finish[2], 4000 + 2 * p.o + p.L);
  EXPECT_EQ(r.op_start[1], 4000);
}

// Rendezvous (s > S): the send completes only when the receive matches, at o + L here,
// so the sender's next op waits for it; eager, it would start at o.
TEST(SimLogGP, RendezvousSendCompletesWhenMatched) {
  for (bool eager : {true, false}) {
    LogGOPS p;
    p.G = 0;
    p.S = eager ? 100 : 10;
    Builder b(2);
    b.send(0, 0, 1, 50).calc(0, 1, 100).after({0});
    b.recv(1, 0, 0, 50);
    SimResult r = run(b.build(), p);
    EXPECT_EQ(r.finish[0], (eager ? p.o : p.o + p.L) + 100) << (eager ? "eager" : "rendezvous");
  }
}

// A message that arrives before its receive is posted waits in the unexpected queue; the
// receive then completes at once (its overhead was paid on arrival).
TEST(SimLogGP, LateReceiveMatchesTheUnexpectedMessage) {
  Builder b(2);
  b.send(0, 0, 1, 1);
  b.calc(1, 0, 20000).recv(1, 1, 0, 1).after({0}).calc(1, 2, 10).after({1});
  LogGOPS p;
  SimResult r = run(b.build(), p, true);
  // Arrival at o + L = 4000 occupies the CPU until... the calc holds it until 20000, so
  // the arrival is processed at 20000 (CPU busy), costing o: CPU free at 21500.
  EXPECT_EQ(r.finish[1], 20000 + p.o + 10);
}

// Any-source receives take messages in arrival order.
TEST(SimLogGP, AnySourceTakesWhateverArrivesFirst) {
  Builder b(3);
  b.calc(0, 0, 50000).send(0, 1, 2, 1).after({0});
  b.send(1, 0, 2, 1);
  b.recv(2, 0, kAny, 1).recv(2, 1, kAny, 1).after({0});
  LogGOPS p;
  SimResult r = run(b.build(), p, true);
  EXPECT_EQ(r.op_end[r.op_end.size() - 2], 2 * p.o + p.L);  // rank 1's message, first
  EXPECT_EQ(r.makespan, 50000 + 2 * p.o + p.L);
}

// Binomial broadcast (MPICH's tree): children of r are r + 2^j for 2^j below r's lowest
// set bit, largest first. An independent recursion gives every rank's times: a rank whose
// data is complete at c starts its k-th send at c + k * gap, gap = max(o + (s-1)O,
// g + (s-1)G); the child's data is complete o + L + o + (s-1)G after that send starts; a
// rank's CPU is last busy o after its last send (or at c for a leaf).
std::vector<int> binomial_children(int r, int ranks) {
  int mask = 1;
  while (mask < ranks && !(r & mask)) mask <<= 1;
  std::vector<int> children;
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (r + mask < ranks) children.push_back(r + mask);
  return children;
}

TEST(SimLogGP, BinomialBroadcastMatchesTheTreeRecursion) {
  for (int ranks : {2, 3, 8, 13, 32}) {
    for (std::int64_t s : {1, 4096}) {
      LogGOPS p;
      const std::int64_t bytes_g = std::llround(static_cast<double>(s - 1) * p.G);
      const std::int64_t gap = std::max(p.o, p.g + bytes_g);
      const std::int64_t trip = 2 * p.o + p.L + bytes_g;
      std::vector<std::int64_t> expected(static_cast<std::size_t>(ranks), 0);
      std::function<void(int, std::int64_t)> visit = [&](int r, std::int64_t complete) {
        auto children = binomial_children(r, ranks);
        expected[static_cast<std::size_t>(r)] =
            children.empty()
                ? complete
                : complete + static_cast<std::int64_t>(children.size() - 1) * gap + p.o;
        for (std::size_t k = 0; k < children.size(); ++k)
          visit(children[k], complete + static_cast<std::int64_t>(k) * gap + trip);
      };
      visit(0, 0);

      Builder b(ranks);
      for (int r = 0; r < ranks; ++r) {
        std::int64_t id = 0;
        if (r != 0) b.recv(r, id++, r - (r & -r), s);
        for (int child : binomial_children(r, ranks)) {
          b.send(r, id++, child, s);
          if (r != 0) b.after({0});
        }
      }
      EXPECT_EQ(run(b.build(), p).finish, expected) << ranks << " ranks, " << s << " B";
    }
  }
}

// Ring allgather: P-1 steps, each 2o + L + (s-1)G when the gaps do not bind.
TEST(SimLogGP, RingAllgatherTakesPMinusOneTrips) {
  for (int ranks : {2, 3, 5, 8}) {
    const std::int64_t s = 1000;
    Builder b(ranks);
    for (int r = 0; r < ranks; ++r) {
      for (int step = 0; step < ranks - 1; ++step) {
        b.send(r, 2 * step, (r + 1) % ranks, s, step);
        if (step > 0) b.after({2 * step - 1});
        b.recv(r, 2 * step + 1, (r + ranks - 1) % ranks, s, step);
      }
    }
    LogGOPS p;
    SimResult res = run(b.build(), p);
    const std::int64_t trip = 2 * p.o + p.L + std::llround(static_cast<double>(s - 1) * p.G);
    for (auto f : res.finish) EXPECT_EQ(f, (ranks - 1) * trip) << ranks;
  }
}

TEST(SimLogGP, CalcAndDelayHoldTheCpu) {
  Builder b(1);
  b.calc(0, 0, 100).delay(0, 1, 250).calc(0, 2, 5);
  EXPECT_EQ(run(b.build()).makespan, 355);  // one CPU: the three run back to back
}

TEST(SimLogGP, SameInputSameResult) {
  Builder b(4);
  for (int r = 0; r < 4; ++r)
    for (int d = 0; d < 4; ++d)
      if (d != r) b.send(r, d, d, 700).recv(r, 10 + d, d, 700);
  SimResult a = run(b.build(), {}, true), c = run(b.build(), {}, true);
  EXPECT_EQ(a.finish, c.finish);
  EXPECT_EQ(a.op_end, c.op_end);
}

TEST(SimLogGP, DeadlockIsAnErrorNotAHang) {
  Builder b(2);
  b.recv(0, 0, 1, 8).send(0, 1, 1, 8).after({0});
  b.recv(1, 0, 0, 8).send(1, 1, 0, 8).after({0});
  EXPECT_THROW(run(b.build()), Error);
}

}  // namespace
}  // namespace choreo::sim

namespace choreo::sim {
namespace {

// tests/data/sim/anysource_rendezvous.goal with LogGOPSim's defaults, by hand:
// t=0     rank 1 sends (cpu 1500); its message reaches rank 0 at 4000.
// t=4000  rank 0 takes it: cpu = 4000 + o + 99999·G = 605494; it matches receive a (any
//         source): the rendezvous send of rank 1 completes now, its calc runs 4000..4500.
// t=20000 rank 2's calc ends; it sends (cpu 21500); the message reaches rank 0 at 24000,
//         when rank 0's CPU is busy until 605494: taken then, cpu = 605494 + 1500 + 599994
//         = 1206988; rank 2's rendezvous send completes at 605494.
TEST(SimLogGP, GoalFileWithAnySourceAndRendezvous) {
  Schedule s = schedule_from_goal(
      read_text_file(std::string(CHOREO_TEST_DATA) + "/sim/anysource_rendezvous.goal"));
  SimResult r = simulate(compact(s), SimOptions{});
  EXPECT_EQ(r.finish, (std::vector<std::int64_t>{1206988, 4500, 605494}));
}

// Rank 0 sends 1 byte, then s bytes, to rank 1, whose send to rank 2 waits for the small
// message. Small: leaves at 0, arrives o + L = 4000, CPU busy to 5500, completes then and
// releases the send. Big: leaves at o = 1500 (g = 1000 < o), arrives at 5500, queued before
// the released send, so it takes the CPU first. LogGOPSim: the CPU pays o + (s-1)G, so the
// send starts at 5500 + o + (s-1)G. With DMA it pays o only: the send starts at 5500 + o,
// while the bytes keep landing until 5500 + g + (s-1)G, which is rank 1's finish.
TEST(SimLogGP, DmaReceiveFreesTheCpuWhileBytesLand) {
  const std::int64_t s = 10001;
  Builder b(3);
  b.send(0, 0, 1, 1).send(0, 1, 1, s).after_start({0});
  b.recv(1, 0, 0, 1).recv(1, 1, 0, s).after_start({0}).send(1, 2, 2, 1).after({0});
  b.recv(2, 0, 1, 1);
  LogGOPS p;
  const std::int64_t big_arrives = 2 * p.o + p.L, bytes_time = (s - 1) * 6;
  for (bool dma : {false, true}) {
    SimOptions options;
    options.record_ops = true;
    options.dma_receive = dma;
    const SimResult r = simulate(compact(b.build()), options);
    const auto send_to_2 = 2 + 2;  // rank 1's third op (ranks' ops are laid out in order)
    if (dma) {
      EXPECT_EQ(r.op_start[send_to_2], big_arrives + p.o);
      EXPECT_EQ(r.finish[1], big_arrives + p.g + bytes_time);
      EXPECT_EQ(r.op_end[3], big_arrives + p.g + bytes_time);  // the big receive
    } else {
      EXPECT_EQ(r.op_start[send_to_2], big_arrives + p.o + bytes_time);
      EXPECT_EQ(r.op_end[3], big_arrives + p.o + bytes_time);
    }
  }
}

// Rank 1 sleeps D (a paced schedule's clock holds the CPU) while s bytes from rank 0 arrive
// at o + L. LogGOPSim: the message waits for the CPU, then costs o + (s-1)G, so the receive
// ends at D + o + (s-1)G. With DMA the NIC takes the bytes at once (they have landed by
// o + L + g + (s-1)G, long before D) and the CPU pays o when the delay ends: D + o.
TEST(SimLogGP, DmaReceiveLandsWhileTheCpuSleeps) {
  const std::int64_t s = 10001, sleep = 1000000;
  Builder b(2);
  b.send(0, 0, 1, s);
  b.recv(1, 0, 0, s).delay(1, 1, sleep);
  LogGOPS p;
  const std::int64_t bytes_time = (s - 1) * 6;
  ASSERT_LT(p.o + p.L + p.g + bytes_time, sleep);
  for (bool dma : {false, true}) {
    SimOptions options;
    options.record_ops = true;
    options.dma_receive = dma;
    const SimResult r = simulate(compact(b.build()), options);
    const std::int64_t receive_end = r.op_end[1];  // rank 1's first op
    EXPECT_EQ(receive_end, dma ? sleep + p.o : sleep + p.o + bytes_time) << "dma " << dma;
  }
}

}  // namespace
}  // namespace choreo::sim
