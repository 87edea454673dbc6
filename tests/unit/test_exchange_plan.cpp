// plan_exchange (src/sched/exchange_plan.cpp), checked against references made here: each
// rank's part rebuilt from the pattern and from the schedulers' plans by this file's reading of
// the rules; each prediction against choreo sim run here on the schedules the documented
// builders make (schedule_direct, schedule_from_plan); Auto's choice against the minimum of
// the predictions; the model's numbers against hand arithmetic.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "../../src/sched/plan_shape.hpp"
#include "choreo/core/compact_schedule.hpp"
#include "choreo/core/error.hpp"
#include "choreo/sched/exchange_plan.hpp"
#include "choreo/sched/schedulers.hpp"
#include "choreo/sim/engine.hpp"
#include "error_of.hpp"
#include "random_pattern.hpp"

namespace choreo {
namespace {

using test::error_of;
using test::random_pattern;
using ::testing::HasSubstr;
using A = ExchangeAlgorithm;

constexpr A kEveryAlgorithm[] = {A::Auto,  A::Direct,  A::Ring,
                                 A::Delay, A::Optimal, A::OptimalPaced};
constexpr std::int64_t k63KiB = 64512;

/// Every message once: sends by their sender, receives by their receiver, none to itself;
/// each rank's receives in ring order from the receiver (r-1, r-2, ...).
void expect_parts_hold_the_pattern(const Pattern& p, const ExchangePlan& plan,
                                   const std::string& what) {
  ASSERT_EQ(plan.ranks.size(), static_cast<std::size_t>(p.ranks)) << what;
  std::multiset<std::pair<int, int>> pattern, sent, received;
  for (const Message& m : p.messages) pattern.insert({m.src, m.dst});
  for (int r = 0; r < p.ranks; ++r) {
    const RankExchange& part = plan.ranks[static_cast<std::size_t>(r)];
    for (const ExchangeSend& send : part.sends) {
      EXPECT_NE(send.peer, r) << what;
      sent.insert({r, send.peer});
    }
    int before = 0;  // how far back in the ring the receive before came from
    for (const int source : part.receive_from) {
      EXPECT_NE(source, r) << what;
      received.insert({source, r});
      const int back = ((r - source) % p.ranks + p.ranks) % p.ranks;
      EXPECT_GE(back, before) << what << ": rank " << r << " posts its receives out of ring order";
      before = back;
    }
  }
  EXPECT_EQ(sent, pattern) << what;
  EXPECT_EQ(received, pattern) << what;
}

/// This file's reading of the pacing rule: a rank's sends in slot order, each not before delta
/// times the delay slots before it (empty slots) or times its slot (every slot).
std::vector<std::vector<ExchangeSend>> expected_sends(const Pattern& p, const SlotPlan& plan,
                                                      bool every_slot, std::int64_t delta) {
  std::vector<std::vector<ExchangeSend>> sends(static_cast<std::size_t>(p.ranks));
  for (std::size_t r = 0; r < sends.size(); ++r) {
    std::int64_t empty = 0;
    for (std::size_t t = 0; t < plan.slots[r].size(); ++t) {
      const int m = plan.slots[r][t];
      if (m == kDelaySlot) {
        ++empty;
        continue;
      }
      const std::int64_t wait = every_slot ? static_cast<std::int64_t>(t) : empty;
      sends[r].push_back({p.messages[static_cast<std::size_t>(m)].dst, wait * delta});
    }
  }
  return sends;
}

std::vector<std::vector<ExchangeSend>> sends_of(const ExchangePlan& plan) {
  std::vector<std::vector<ExchangeSend>> sends;
  for (const RankExchange& part : plan.ranks) sends.push_back(part.sends);
  return sends;
}

sim::SimOptions options_of(const ExchangeModel& model) {
  sim::SimOptions options;
  options.params = model.params;
  options.network = model.network;
  options.dma_receive = model.dma_receive;
  return options;
}

std::int64_t simulated(const Schedule& s, const ExchangeModel& model) {
  return sim::simulate(choreo::compact(s), options_of(model)).makespan;
}

std::vector<Pattern> some_patterns() {
  std::mt19937_64 rng(41);
  std::vector<Pattern> out = {patterns::gather(6, k63KiB, 2), patterns::triangle(7, k63KiB),
                              patterns::scale_free(24, 3, 3, k63KiB, 5)};
  for (int i = 0; i < 6; ++i) out.push_back(random_pattern(rng, 5 + 3 * i, 0.2 + 0.1 * i, 4096));
  return out;
}

TEST(ExchangePlan, EveryRankHoldsExactlyItsMessages) {
  const ExchangeModel model = ExchangeModel::defaults();
  int index = 0;
  for (const Pattern& p : some_patterns()) {
    for (const A algorithm : kEveryAlgorithm) {
      const std::string what =
          "pattern " + std::to_string(index) + ", " + std::string(to_string(algorithm));
      const ExchangePlan plan = plan_exchange(p, model, algorithm);
      expect_parts_hold_the_pattern(p, plan, what);
      if (algorithm != A::Auto) {
        EXPECT_EQ(plan.algorithm, algorithm) << what;
        ASSERT_EQ(plan.candidates.size(), 1u) << what;
      }
    }
    ++index;
  }
}

TEST(ExchangePlan, SendsAreTimedByThePacingRule) {
  const ExchangeModel model = ExchangeModel::defaults();
  for (const Pattern& p : some_patterns()) {
    std::int64_t k = 0;
    for (const Message& m : p.messages) k = std::max(k, m.bytes);
    const std::int64_t delta = 1500 + (k - 1) * 6;  // I(k) of LogGOPSim's defaults, by hand
    const SlotPlan ring = plan_ring(p), delay = plan_delay_insertion(p), optimal = plan_optimal(p);
    EXPECT_EQ(sends_of(plan_exchange(p, model, A::Direct)), expected_sends(p, ring, false, 0));
    EXPECT_EQ(sends_of(plan_exchange(p, model, A::Ring)), expected_sends(p, ring, false, 0));
    EXPECT_EQ(sends_of(plan_exchange(p, model, A::Delay)), expected_sends(p, delay, false, delta));
    EXPECT_EQ(sends_of(plan_exchange(p, model, A::Optimal)),
              expected_sends(p, optimal, false, delta));
    const ExchangePlan paced = plan_exchange(p, model, A::OptimalPaced);
    EXPECT_EQ(paced.delta_ns, delta);
    EXPECT_EQ(sends_of(paced), expected_sends(p, optimal, true, delta));

    // From the parts alone: paced sends name their slots, one per rank and slot, never two
    // into one receiver in a slot, and the degree bound of slots.
    std::set<std::pair<std::int64_t, int>> receiving;
    std::int64_t slots = 0;
    for (std::size_t r = 0; r < paced.ranks.size(); ++r) {
      std::int64_t previous = -1;
      for (const ExchangeSend& send : paced.ranks[r].sends) {
        ASSERT_EQ(send.not_before_ns % delta, 0);
        const std::int64_t slot = send.not_before_ns / delta;
        EXPECT_GT(slot, previous);
        previous = slot;
        EXPECT_TRUE(receiving.insert({slot, send.peer}).second);
        slots = std::max(slots, slot + 1);
      }
    }
    EXPECT_EQ(slots, test::degree_bound(p));
    EXPECT_EQ(paced.degree_bound, test::degree_bound(p));
  }
}

// Each candidate's prediction is choreo sim's makespan of its schedule, run here; Ring runs
// Direct's program (the same sends in the same order, none held back) and is predicted as it.
TEST(ExchangePlan, PredictionsAreTheSimulatorsAndAutoKeepsTheFastest) {
  const ExchangeModel model = ExchangeModel::defaults();
  int index = 0;
  for (const Pattern& p : some_patterns()) {
    const std::string what = "pattern " + std::to_string(index++);
    const ExchangePlan plan = plan_exchange(p, model);
    ASSERT_EQ(plan.candidates.size(), 5u) << what;
    const std::int64_t delta = plan.delta_ns;
    const std::map<A, std::int64_t> expected = {
        {A::Direct, simulated(schedule_direct(p), model)},
        {A::Ring, simulated(schedule_direct(p), model)},
        {A::Delay, simulated(schedule_from_plan(p, plan_delay_insertion(p), delta), model)},
        {A::Optimal, simulated(schedule_from_plan(p, plan_optimal(p), delta), model)},
        {A::OptimalPaced,
         simulated(schedule_from_plan(p, plan_optimal(p), delta, Pacing::EverySlot), model)},
    };
    std::vector<A> order;
    for (const ExchangeCandidate& c : plan.candidates) {
      order.push_back(c.algorithm);
      EXPECT_TRUE(c.simulated) << what;
      EXPECT_EQ(c.predicted_ns, expected.at(c.algorithm)) << what << " " << to_string(c.algorithm);
    }
    EXPECT_EQ(order, (std::vector<A>{A::Direct, A::Ring, A::Delay, A::Optimal, A::OptimalPaced}));
    EXPECT_EQ(plan.direct_ns, expected.at(A::Direct)) << what;

    // The fastest; on ties the fewer delays, then the earlier in the list.
    std::size_t best = 0;
    for (std::size_t i = 1; i < plan.candidates.size(); ++i) {
      const ExchangeCandidate &c = plan.candidates[i], &b = plan.candidates[best];
      if (c.predicted_ns < b.predicted_ns ||
          (c.predicted_ns == b.predicted_ns && c.delays < b.delays))
        best = i;
    }
    EXPECT_EQ(plan.algorithm, plan.candidates[best].algorithm) << what;
    EXPECT_EQ(plan.predicted_ns, plan.candidates[best].predicted_ns) << what;
    EXPECT_EQ(plan.ranks, plan_exchange(p, model, plan.algorithm).ranks) << what;
    // A single algorithm still predicts Direct for direct_ns.
    EXPECT_EQ(plan_exchange(p, model, A::OptimalPaced).direct_ns, plan.direct_ns) << what;
  }
}

TEST(ExchangePlan, CandidatesCountTheirSlotsAndDelays) {
  const Pattern p = patterns::gather(5, 100);  // senders 1..4 take slots 0..3: 0+1+2+3 delays
  const ExchangePlan plan = plan_exchange(p, ExchangeModel::defaults());
  for (const ExchangeCandidate& c : plan.candidates) {
    const bool slotted = c.algorithm != A::Direct && c.algorithm != A::Ring;
    EXPECT_EQ(c.slots, c.algorithm == A::Direct ? 0 : slotted ? 4 : 1) << to_string(c.algorithm);
    EXPECT_EQ(c.delays, slotted ? 6 : 0) << to_string(c.algorithm);
    EXPECT_EQ(c.delta_ns, slotted ? 1500 + 99 * 6 : 0) << to_string(c.algorithm);
  }
}

// Beyond the budget every candidate is predicted by paper 000's model. For a contention-free
// plan that is report_plan's eqs. 13-16 (LogGOPSim's defaults are SlotModel's); for Direct's
// ring order on a gather, the three senders' messages leave together after one slot and the
// root's port takes them one after the other: delta + L + 2 (k-1) G + o, by hand.
TEST(ExchangePlan, BeyondTheBudgetThePapersModelPredicts) {
  ExchangeModel model;
  model.simulation_budget = 0;
  const Pattern gather = patterns::gather(4, k63KiB);
  const ExchangePlan plan = plan_exchange(gather, model);
  const std::int64_t delta = 1500 + (k63KiB - 1) * 6, port = (k63KiB - 1) * 6;
  EXPECT_EQ(plan.direct_ns, delta + 2500 + 2 * port + 1500);
  for (const ExchangeCandidate& c : plan.candidates) {
    EXPECT_FALSE(c.simulated);
    if (c.algorithm == A::Delay || c.algorithm == A::Optimal || c.algorithm == A::OptimalPaced) {
      const SlotPlan slots =
          c.algorithm == A::Delay ? plan_delay_insertion(gather) : plan_optimal(gather);
      EXPECT_EQ(c.predicted_ns, report_plan(gather, slots, SlotModel{}).predicted_ns);
    }
  }
  // With the default budget the same small exchange is simulated.
  for (const ExchangeCandidate& c : plan_exchange(gather, ExchangeModel{}).candidates)
    EXPECT_TRUE(c.simulated);
}

TEST(ExchangePlan, DegeneratePatterns) {
  const ExchangeModel model = ExchangeModel::defaults();
  for (const Pattern& empty : {Pattern{5, {}}, Pattern{1, {}}}) {
    const ExchangePlan plan = plan_exchange(empty, model);
    ASSERT_EQ(plan.ranks.size(), static_cast<std::size_t>(empty.ranks));
    for (const RankExchange& part : plan.ranks) EXPECT_EQ(part, RankExchange{});
    EXPECT_EQ(plan.predicted_ns, 0);
    EXPECT_EQ(plan.direct_ns, 0);
    EXPECT_EQ(plan.algorithm, A::Direct);  // every candidate ties: the simplest
    EXPECT_EQ(plan.degree_bound, 0);
  }
  EXPECT_THAT(error_of([&] {
                plan_exchange(Pattern{3, {{0, 1, 8}, {1, 1, 8}}}, model);
              }),
              HasSubstr("cannot send to itself"));
  EXPECT_THAT(error_of([&] {
                plan_exchange(Pattern{3, {{0, 1, 8}, {0, 1, 16}}}, model);
              }),
              HasSubstr("lists 0 -> 1 more than once"));
  EXPECT_THAT(error_of([&] { plan_exchange(Pattern{0, {}}, model); }), HasSubstr("at least 1"));
  EXPECT_THAT(error_of([&] {
                plan_exchange(Pattern{2, {{0, 2, 8}}}, model);
              }),
              HasSubstr("out of range"));
  EXPECT_THAT(error_of([&] {
                plan_exchange(Pattern{2, {}}, model, static_cast<A>(42));
              }),
              HasSubstr("unknown exchange algorithm"));
  // Zero-byte messages are messages: a slot of max(o, g) each.
  const ExchangePlan zero = plan_exchange(Pattern{3, {{0, 1, 0}, {2, 1, 0}}}, model, A::Delay);
  EXPECT_EQ(zero.delta_ns, 1500);
  expect_parts_hold_the_pattern(Pattern{3, {{0, 1, 0}, {2, 1, 0}}}, zero, "zero bytes");
}

TEST(ExchangePlan, SameAnswerEveryTime) {
  const Pattern p = patterns::scale_free(40, 4, 4, k63KiB, 9);
  const ExchangePlan a = plan_exchange(p, ExchangeModel::defaults());
  const ExchangePlan b = plan_exchange(p, ExchangeModel::defaults());
  EXPECT_EQ(a.ranks, b.ranks);
  EXPECT_EQ(a.algorithm, b.algorithm);
  ASSERT_EQ(a.candidates.size(), b.candidates.size());
  for (std::size_t i = 0; i < a.candidates.size(); ++i)
    EXPECT_EQ(a.candidates[i].predicted_ns, b.candidates[i].predicted_ns);
}

// Paper 000's 63 KiB on its 1 GbE cluster: I(k) = o + (k-1) G = 388,566 ns with LogGOPSim's
// defaults, against the 400 us the paper calibrated (Fig. 5).
TEST(ExchangeModel, DefaultsAndSlotLength) {
  const ExchangeModel model = ExchangeModel::defaults();
  EXPECT_EQ(model.params.L, 2500);
  EXPECT_EQ(model.params.o, 1500);
  EXPECT_EQ(model.params.g, 1000);
  EXPECT_EQ(model.params.G, 6);
  EXPECT_EQ(model.network.kind, NetworkSpec::Kind::Switch);
  EXPECT_EQ(model.network.sharing, NetworkSpec::Sharing::Fair);
  EXPECT_EQ(model.network.nodes, 0);  // one node per rank
  EXPECT_TRUE(model.dma_receive);
  EXPECT_EQ(model.slot_ns(k63KiB), 388'566);
  EXPECT_EQ(model.slot_ns(1), 1500);
  EXPECT_EQ(model.slot_ns(0), 1500);
  // A NIC gap above o, or a CPU cost per byte above G, sets the pace instead.
  ExchangeModel nic_bound = model;
  nic_bound.params.g = 5000;
  EXPECT_EQ(nic_bound.slot_ns(101), 5000 + 100 * 6);
  nic_bound.params.O = 10;
  EXPECT_EQ(nic_bound.slot_ns(101), 5000 + 100 * 10);
}

TEST(ExchangeModel, FromAProfilesLogGPFit) {
  MachineProfile profile;
  profile.loggp = {2.035e-7, 2.141e-7, 1.861e-7, 4.101e-11};  // docs/calibration.md's example
  const ExchangeModel model = ExchangeModel::from_profile(profile);
  EXPECT_EQ(model.params.L, 204);
  EXPECT_EQ(model.params.o, 214);
  EXPECT_EQ(model.params.g, 186);
  EXPECT_DOUBLE_EQ(model.params.G, 0.04101);
  EXPECT_EQ(model.params.O, 0);
  EXPECT_EQ(model.network.kind, NetworkSpec::Kind::Switch);
  EXPECT_EQ(model.slot_ns(1001), 214 + 41);  // 1000 x 0.04101 = 41.01
  EXPECT_THAT(error_of([] { ExchangeModel::from_profile(MachineProfile{}); }),
              HasSubstr("no LogGP fit"));
  profile.loggp.G = -1;
  EXPECT_THAT(error_of([&] { ExchangeModel::from_profile(profile); }), HasSubstr("calibrate"));
}

TEST(ExchangeModel, AlgorithmNames) {
  for (const A algorithm : kEveryAlgorithm)
    EXPECT_EQ(exchange_algorithm_from_string(to_string(algorithm)), algorithm);
  EXPECT_EQ(to_string(A::OptimalPaced), "optimal-paced");
  EXPECT_THAT(error_of([] { exchange_algorithm_from_string("paced"); }),
              HasSubstr("use auto, direct, ring, delay, optimal or optimal-paced"));
}

// The planner's own layout for the simulator gives what compacting the documented schedules
// gives: the same ops, in the same order, with the same dependencies.
TEST(ExchangePlan, CompactPlansAreTheDocumentedSchedules) {
  for (const Pattern& p : some_patterns()) {
    const SlotPlan delay = plan_delay_insertion(p);
    for (const Pacing pacing : {Pacing::EmptySlots, Pacing::EverySlot})
      EXPECT_EQ(choreo::expand(detail::compact_from_plan(p, delay, 1234, pacing)),
                choreo::expand(choreo::compact(schedule_from_plan(p, delay, 1234, pacing))));
    EXPECT_EQ(choreo::expand(detail::compact_direct(p)),
              choreo::expand(choreo::compact(schedule_direct(p))));
  }
}

}  // namespace
}  // namespace choreo
