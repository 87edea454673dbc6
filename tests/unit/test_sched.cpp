// Paper 000's schedulers, checked by an independent checker written here, against the
// degree bound, and against the paper's Table 1.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "choreo/core/error.hpp"
#include "choreo/core/validate.hpp"
#include "choreo/sched/schedulers.hpp"
#include "random_pattern.hpp"

namespace choreo {
namespace {

using test::degree_bound;
using test::random_pattern;

/// The properties every slotted plan must have, checked without the library's checker:
/// each message sent exactly once, by its sender, and (when asked) no destination
/// receiving two sends in one slot. Returns the number of slots used.
std::size_t expect_sound(const Pattern& p, const SlotPlan& plan, bool contention_free) {
  std::multiset<int> sent;
  std::map<std::pair<std::size_t, int>, int> receivers;
  std::size_t slots = 0;
  for (int r = 0; r < p.ranks; ++r) {
    const auto& s = plan.slots[static_cast<std::size_t>(r)];
    for (std::size_t t = 0; t < s.size(); ++t) {
      if (s[t] == kDelaySlot) continue;
      const Message& m = p.messages[static_cast<std::size_t>(s[t])];
      EXPECT_EQ(m.src, r);
      sent.insert(s[t]);
      const int senders = ++receivers[std::pair{t, m.dst}];
      if (contention_free) {
        EXPECT_EQ(senders, 1) << "slot " << t << " dst " << m.dst;
      }
      slots = std::max(slots, t + 1);
    }
  }
  std::multiset<int> all;
  for (int i = 0; i < static_cast<int>(p.messages.size()); ++i) all.insert(i);
  EXPECT_EQ(sent, all);
  return slots;
}

TEST(Sched, OptimalReachesTheDegreeBoundOnRandomPatterns) {
  std::mt19937_64 rng(1);
  for (int i = 0; i < 60; ++i) {
    Pattern p = random_pattern(rng, 2 + i % 30, 0.05 + 0.015 * i);
    SlotPlan plan = plan_optimal(p);
    EXPECT_EQ(static_cast<int>(expect_sound(p, plan, true)), degree_bound(p)) << i;
  }
}

TEST(Sched, DelayInsertionIsContentionFreeOnRandomPatterns) {
  std::mt19937_64 rng(2);
  for (int i = 0; i < 60; ++i) {
    Pattern p = random_pattern(rng, 2 + i % 30, 0.05 + 0.015 * i);
    const auto slots = expect_sound(p, plan_delay_insertion(p), true);
    EXPECT_GE(static_cast<int>(slots), degree_bound(p));
  }
}

TEST(Sched, RegularPatternsNeedNoDelays) {
  // The paper: for regular patterns Algorithm 1 finds Thakur's schedule, with no delays.
  for (int n : {2, 5, 16}) {
    Pattern p = patterns::alltoall(n, 8);
    SlotModel model;
    EXPECT_EQ(report_plan(p, plan_delay_insertion(p), model).delays, 0);
    EXPECT_EQ(report_plan(p, plan_ring(p), model).contention_pairs, 0);
  }
}

TEST(Sched, RingOnGatherCollidesEverywhere) {
  const int n = 64;
  Pattern p = patterns::gather(n, 64512);
  PlanReport r = report_plan(p, plan_ring(p), SlotModel{});
  EXPECT_EQ(r.contention_pairs, (n - 1) * (n - 2) / 2);  // all 63 sends in slot 0
  EXPECT_EQ(r.predicted_ns, -1);
}

// Table 1 of paper 000 (with L large enough for eq. 14, as the table assumes): contention
// for Ring on gather and triangle only; every contention-free plan takes (n-1) I(k) + L + o.
TEST(Sched, ReproducesPaperTable1) {
  const int n = 16;
  const std::int64_t k = 64512;
  SlotModel model;
  model.L = 1'000'000'000;  // L >= |S_q| I(k) for every q
  const std::int64_t expected = (n - 1) * model.interval(k) + model.L + model.o;
  struct Row {
    const char* name;
    Pattern pattern;
    bool ring_contention;
  };
  for (const Row& row :
       {Row{"scatter", patterns::scatter(n, k), false}, Row{"gather", patterns::gather(n, k), true},
        Row{"alltoall", patterns::alltoall(n, k), false},
        Row{"triangle", patterns::triangle(n, k), true}}) {
    PlanReport ring = report_plan(row.pattern, plan_ring(row.pattern), model);
    EXPECT_EQ(ring.contention_pairs > 0, row.ring_contention) << row.name;
    if (!row.ring_contention) {
      EXPECT_EQ(ring.predicted_ns, expected) << row.name;
    }
    for (const SlotPlan& plan : {plan_delay_insertion(row.pattern), plan_optimal(row.pattern)}) {
      PlanReport r = report_plan(row.pattern, plan, model);
      EXPECT_EQ(r.contention_pairs, 0) << row.name << " " << plan.algorithm;
      EXPECT_EQ(r.predicted_ns, expected) << row.name << " " << plan.algorithm;
      EXPECT_EQ(r.predicted_ns, r.lower_bound_ns) << row.name << " " << plan.algorithm;
    }
  }
}

// Eq. 16 taken literally let a busy receiver finish its receptions before they arrived: a
// 7-rank gather to rank 1 (63 KiB, the default LogGP model) predicted 2.34 ms, and with one
// send 1 -> 0 more only 0.40 ms (|S_1| I(k) + 6 o). The plan, by hand: rank 1 sends to 0 in
// slot 0; ranks 0, 2, 3, ..., 6 send to 1 in slots 0, 1, ..., 5. Rank 1's last reception
// arrives 6 I(k) + L after the start and completes o later, with or without its own send.
TEST(Sched, BusyReceiverCompletesNoEarlierThanItsMessagesArrive) {
  const std::int64_t k = 64512;
  const SlotModel model;  // L 2500, o 1500, G 6 ns
  const std::int64_t interval = 1500 + (k - 1) * 6;
  ASSERT_EQ(model.interval(k), interval);
  const std::int64_t expected = 6 * interval + 2500 + 1500;  // 2,335,396 ns

  Pattern gather{7, {{0, 1, k}, {2, 1, k}, {3, 1, k}, {4, 1, k}, {5, 1, k}, {6, 1, k}}};
  constexpr int D = kDelaySlot;
  SlotPlan plan;
  plan.slots = {{0}, {}, {D, 1}, {D, D, 2}, {D, D, D, 3}, {D, D, D, D, 4}, {D, D, D, D, D, 5}};
  EXPECT_EQ(report_plan(gather, plan, model).predicted_ns, expected);

  Pattern with_send = gather;
  with_send.messages.push_back({1, 0, k});
  plan.slots[1] = {6};
  const PlanReport r = report_plan(with_send, plan, model);
  EXPECT_EQ(r.contention_pairs, 0);
  EXPECT_EQ(r.predicted_ns, expected);
  EXPECT_LE(r.lower_bound_ns, r.predicted_ns);
}

// Monotone: a send added to a contention-free plan, in a slot where its destination receives
// nothing, never makes the prediction shorter; and the bound stays below the prediction.
TEST(Sched, PredictionNeverShrinksWhenAMessageIsAdded) {
  std::mt19937_64 rng(21);
  for (const std::int64_t L : {std::int64_t{2500}, std::int64_t{50'000'000}})
    for (int i = 0; i < 80; ++i) {
      SlotModel model;
      model.L = L;
      Pattern p = random_pattern(rng, 3 + i % 9, 0.3, 64512);
      SlotPlan plan = plan_delay_insertion(p);
      const PlanReport before = report_plan(p, plan, model);
      EXPECT_LE(before.lower_bound_ns, before.predicted_ns) << i;
      // The first pair not yet in the pattern, sent in the first slot its receiver is free
      // after the sender's plan ends.
      std::set<std::pair<int, int>> pairs;
      for (const Message& m : p.messages) pairs.insert({m.src, m.dst});
      int s = 0, d = 0;
      while (s < p.ranks && (s == d || pairs.contains({s, d}))) {
        d = (d + 1) % p.ranks;
        s += d == 0;
      }
      if (s == p.ranks) continue;  // every pair is there already
      std::set<std::size_t> busy;  // slots in which d receives
      for (const auto& row : plan.slots)
        for (std::size_t t = 0; t < row.size(); ++t)
          if (row[t] != kDelaySlot && p.messages[static_cast<std::size_t>(row[t])].dst == d)
            busy.insert(t);
      auto& row = plan.slots[static_cast<std::size_t>(s)];
      std::size_t t = row.size();
      while (busy.contains(t)) ++t;
      row.resize(t + 1, kDelaySlot);
      row[t] = static_cast<int>(p.messages.size());
      p.messages.push_back({s, d, 64512});
      const PlanReport after = report_plan(p, plan, model);
      ASSERT_EQ(after.contention_pairs, 0) << i;
      EXPECT_GE(after.predicted_ns, before.predicted_ns) << i;
      EXPECT_LE(after.lower_bound_ns, after.predicted_ns) << i;
    }
}

TEST(Sched, PlansBecomeValidSchedulesWithDelaysBetweenSends) {
  Pattern p = patterns::gather(5, 100);
  Schedule s = schedule_from_plan(p, plan_delay_insertion(p), 400000);
  EXPECT_NO_THROW(validate(s));
  EXPECT_EQ(s.algorithm, "delay-insertion");
  // Rank 4 waits its turn: three delays, then its send, each chained to the one before.
  int delays = 0;
  for (const Op& op : s.programs[4].ops) {
    if (op.kind == OpKind::Delay) {
      EXPECT_EQ(op.nanoseconds, 400000);
      ++delays;
    }
    if (op.slot > 0) {
      EXPECT_EQ(op.requires_completed.size() + op.requires_started.size(), 1u);
    }
  }
  EXPECT_EQ(delays, 3);
  int total_delays = 0;
  for (const auto& program : s.programs)
    for (const Op& op : program.ops) total_delays += op.kind == OpKind::Delay;
  EXPECT_EQ(total_delays, 0 + 1 + 2 + 3);  // the four senders take slots 0..3
}

// Paced schedules: replay the ops' chain by hand (an op after a started op starts with it;
// after a delay, δ after the delay started) and every send of slot t must start at t·δ.
TEST(Sched, PacedSchedulesStartEverySlotOnTime) {
  const std::int64_t delta = 1000;
  const Pattern p = patterns::scale_free(24, 3, 3, 100, 7);
  for (const SlotPlan& plan : {plan_optimal(p), plan_delay_insertion(p), plan_ring(p)}) {
    const Schedule s = schedule_from_plan(p, plan, delta, Pacing::EverySlot);
    EXPECT_NO_THROW(validate(s));
    for (int r = 0; r < p.ranks; ++r) {
      std::map<std::int64_t, std::int64_t> start;  // op id -> start time
      std::map<std::int64_t, const Op*> by_id;
      int sends = 0;
      for (const Op& op : s.programs[static_cast<std::size_t>(r)].ops) {
        by_id[op.id] = &op;
        std::int64_t t = 0;
        for (auto id : op.requires_started) t = std::max(t, start.at(id));
        for (auto id : op.requires_completed)
          t = std::max(t, start.at(id) + by_id.at(id)->nanoseconds);
        start[op.id] = t;
        if (op.kind != OpKind::Send) continue;
        ++sends;
        // Which slot of the plan holds this send: find it by destination.
        const auto& slots = plan.slots[static_cast<std::size_t>(r)];
        for (std::size_t k = 0; k < slots.size(); ++k) {
          if (slots[k] != kDelaySlot &&
              p.messages[static_cast<std::size_t>(slots[k])].dst == op.peer) {
            EXPECT_EQ(t, static_cast<std::int64_t>(k) * delta) << plan.algorithm << " rank " << r;
          }
        }
      }
      EXPECT_EQ(sends, std::count_if(p.messages.begin(), p.messages.end(),
                                     [&](const Message& m) { return m.src == r; }));
    }
  }
}

TEST(Sched, CheckerCatchesBrokenPlans) {
  Pattern p = patterns::gather(3, 8);
  SlotPlan plan = plan_ring(p);  // both senders in slot 0: contention
  EXPECT_NO_THROW(check_plan(p, plan, false));
  EXPECT_THROW(check_plan(p, plan, true), Error);
  plan.slots[1].push_back(plan.slots[1][0]);  // sent twice
  EXPECT_THROW(check_plan(p, plan, false), Error);
  plan.slots[1] = {};
  EXPECT_THROW(check_plan(p, plan, false), Error);  // never sent
}

TEST(Sched, OptimalIsFastOnADenseAlltoall) {
  Pattern p = patterns::alltoall(512, 8);  // 261,632 messages
  SlotPlan plan = plan_optimal(p);
  EXPECT_EQ(static_cast<int>(expect_sound(p, plan, true)), 511);
}

}  // namespace
}  // namespace choreo

namespace choreo {
namespace {

TEST(Sched, PhasesCarryEveryMessageAndAreDeadlockFree) {
  std::mt19937_64 rng(5);
  for (int i = 0; i < 20; ++i) {
    Pattern p = random_pattern(rng, 2 + i % 9, 0.3);
    Schedule s = schedule_phases(p);
    EXPECT_NO_THROW(validate(s)) << i;  // matching, sizes and no deadlock
    std::multiset<std::tuple<int, int, std::int64_t>> data, expected;
    for (int r = 0; r < s.ranks; ++r)
      for (const Op& op : s.programs[static_cast<std::size_t>(r)].ops)
        if (op.kind == OpKind::Send && op.tag == 0) data.insert({r, op.peer, op.bytes});
    for (const auto& m : p.messages) expected.insert({m.src, m.dst, m.bytes});
    EXPECT_EQ(data, expected);
  }
}

}  // namespace
}  // namespace choreo
