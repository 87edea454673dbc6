// The open-shop scheduler for unequal sizes, checked by a brute-force checker written here (not
// check_timed_plan), against the port bound computed here, and its runtime shape (Fig. 4 with
// timed delays) replayed op by op. Also random message sizes.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include "choreo/core/error.hpp"
#include "choreo/core/limits.hpp"
#include "choreo/core/validate.hpp"
#include "choreo/sched/schedulers.hpp"

namespace choreo {
namespace {

struct Interval {
  std::int64_t start, end;
  int message;
};

bool overlap(const Interval& a, const Interval& b) { return a.start < b.end && b.start < a.end; }

/// Every message once, by its sender; a rank's sends listed in start order; no two intervals
/// on one send port or one receive port overlapping (all pairs). Returns the makespan.
std::int64_t expect_sound(const Pattern& p, const TimedPlan& plan) {
  EXPECT_EQ(plan.sends.size(), static_cast<std::size_t>(p.ranks));
  std::multiset<int> sent;
  std::map<int, std::vector<Interval>> out, in;
  std::int64_t makespan = 0;
  for (int r = 0; r < p.ranks && r < static_cast<int>(plan.sends.size()); ++r) {
    std::int64_t previous = 0;
    for (const TimedSend& s : plan.sends[static_cast<std::size_t>(r)]) {
      const Message& m = p.messages.at(static_cast<std::size_t>(s.message));
      EXPECT_EQ(m.src, r);
      EXPECT_GE(s.start, previous) << "rank " << r << " lists its sends out of order";
      previous = s.start;
      sent.insert(s.message);
      const Interval i{s.start, s.start + m.bytes, s.message};
      out[m.src].push_back(i);
      in[m.dst].push_back(i);
      makespan = std::max(makespan, i.end);
    }
  }
  std::multiset<int> all;
  for (int i = 0; i < static_cast<int>(p.messages.size()); ++i) all.insert(i);
  EXPECT_EQ(sent, all);
  for (const auto* ports : {&out, &in})
    for (const auto& [rank, intervals] : *ports)
      for (std::size_t a = 0; a < intervals.size(); ++a)
        for (std::size_t b = a + 1; b < intervals.size(); ++b) {
          EXPECT_FALSE(overlap(intervals[a], intervals[b]))
              << "rank " << rank << ": messages " << intervals[a].message << " and "
              << intervals[b].message << (ports == &out ? " (sending)" : " (receiving)");
        }
  return makespan;
}

/// Dense: before a message starts, at every moment its sender or its receiver is busy (checked
/// at time 0 and at every end of a message, where a port can turn idle).
void expect_dense(const Pattern& p, const TimedPlan& plan) {
  std::vector<Interval> all;
  for (const auto& sends : plan.sends)
    for (const TimedSend& s : sends)
      all.push_back(
          {s.start, s.start + p.messages[static_cast<std::size_t>(s.message)].bytes, s.message});
  auto busy = [&](std::int64_t t, bool sender, int rank) {
    return std::any_of(all.begin(), all.end(), [&](const Interval& i) {
      const Message& m = p.messages[static_cast<std::size_t>(i.message)];
      return (sender ? m.src : m.dst) == rank && i.start <= t && t < i.end;
    });
  };
  for (const Interval& i : all) {
    const Message& m = p.messages[static_cast<std::size_t>(i.message)];
    std::vector<std::int64_t> moments{0};
    for (const Interval& j : all) moments.push_back(j.end);
    for (std::int64_t t : moments) {
      if (t >= i.start) continue;
      EXPECT_TRUE(busy(t, true, m.src) || busy(t, false, m.dst))
          << "message " << i.message << " waits at " << t << " with both ends idle";
    }
  }
}

std::int64_t port_bound(const Pattern& p) {
  std::map<int, std::int64_t> sent, received;
  for (const auto& m : p.messages) {
    sent[m.src] += m.bytes;
    received[m.dst] += m.bytes;
  }
  std::int64_t bound = 0;
  for (const auto* loads : {&sent, &received})
    for (const auto& [rank, bytes] : *loads) bound = std::max(bound, bytes);
  return bound;
}

int degree_bound(const Pattern& p) {
  std::map<int, int> out, in;
  int d = 0;
  for (const auto& m : p.messages) d = std::max({d, ++out[m.src], ++in[m.dst]});
  return d;
}

/// Random pattern (each ordered pair with probability `density`), sizes in [lo, hi], shuffled.
Pattern random_pattern(std::mt19937_64& rng, int ranks, double density, std::int64_t lo,
                       std::int64_t hi) {
  Pattern p{ranks, {}};
  std::bernoulli_distribution keep(density);
  std::uniform_int_distribution<std::int64_t> size(lo, hi);
  for (int s = 0; s < ranks; ++s)
    for (int d = 0; d < ranks; ++d)
      if (s != d && keep(rng)) p.messages.push_back({s, d, size(rng)});
  std::shuffle(p.messages.begin(), p.messages.end(), rng);
  return p;
}

TEST(OpenShop, SoundDenseAndWithinTwiceTheBoundOnRandomPatterns) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 150; ++i) {
    const bool zeros = i % 5 == 0;  // some zero-byte messages among the others
    Pattern p = random_pattern(rng, 2 + i % 17, 0.1 + 0.006 * i, zeros ? 0 : 1, 1000);
    const TimedPlan plan = plan_open_shop(p);
    const std::int64_t makespan = expect_sound(p, plan);
    const std::int64_t bound = port_bound(p);
    EXPECT_EQ(port_bytes_lower_bound(p), bound) << i;
    EXPECT_EQ(makespan_bytes(p, plan), makespan) << i;
    EXPECT_GE(makespan, bound) << i;
    EXPECT_LE(makespan, 2 * bound) << i;
    EXPECT_NO_THROW(check_timed_plan(p, plan)) << i;
    if (i % 3 == 0) expect_dense(p, plan);
  }
}

TEST(OpenShop, CloseToTheBoundOnLargerRandomAndScaleFreePatterns) {
  for (std::uint64_t seed : {1, 2, 3}) {
    const Pattern random = patterns::with_random_sizes(patterns::random_density(96, 0.3, 0, seed),
                                                       1024, 1 << 20, seed);
    const Pattern scale_free =
        patterns::with_random_sizes(patterns::scale_free(128, 4, 4, 0, seed), 1024, 1 << 20, seed);
    for (const Pattern* p : {&random, &scale_free}) {
      const std::int64_t makespan = expect_sound(*p, plan_open_shop(*p));
      EXPECT_LE(static_cast<double>(makespan), 1.10 * static_cast<double>(port_bound(*p)));
    }
  }
}

TEST(OpenShop, EqualSizesReachTheDegreeBound) {
  std::mt19937_64 rng(12);
  for (int i = 0; i < 40; ++i) {
    const std::int64_t k = 1 + i % 7;
    Pattern p = random_pattern(rng, 2 + i % 19, 0.1 + 0.02 * i, k, k);
    EXPECT_EQ(expect_sound(p, plan_open_shop(p)), degree_bound(p) * k) << i;
  }
  for (const Pattern& p : {patterns::alltoall(9, 100), patterns::gather(7, 100),
                           patterns::scatter(7, 100), patterns::triangle(8, 100)})
    EXPECT_EQ(expect_sound(p, plan_open_shop(p)), degree_bound(p) * 100);
}

TEST(OpenShop, HandMadeInstancesReachTheirOptimum) {
  // Senders 1 and 0 each have a 1-byte and a 2-byte message; both 1-byte ones go to rank 2.
  // The bound, 3, needs a small message first (1 -> 2 in [0, 1), then 1 -> 0 in [1, 3)):
  // starting both large ones first leaves the two small ones to queue at rank 2 (makespan 4).
  const Pattern small_first{3, {{1, 2, 1}, {1, 0, 2}, {0, 1, 2}, {0, 2, 1}}};
  EXPECT_EQ(expect_sound(small_first, plan_open_shop(small_first)), 3);
  // Two senders, two receivers, a long and a short message each: the long ones go first,
  // together, then the short ones: 5, the bound.
  const Pattern crossed{4, {{0, 2, 1}, {3, 1, 1}, {0, 1, 4}, {3, 2, 4}}};
  const TimedPlan plan = plan_open_shop(crossed);
  EXPECT_EQ(expect_sound(crossed, plan), 5);
  // A gather takes the sum of its sizes whatever the order; nothing to send takes no time.
  const Pattern gather{4, {{1, 0, 7}, {2, 0, 3}, {3, 0, 5}}};
  EXPECT_EQ(expect_sound(gather, plan_open_shop(gather)), 15);
  EXPECT_EQ(expect_sound(Pattern{3, {}}, plan_open_shop(Pattern{3, {}})), 0);
}

/// The optimum of a tiny instance by exhaustive search: every order of the messages, each
/// placed at the earliest time both its ports are free for it (this reaches every active
/// schedule, so an optimal one).
std::int64_t optimum(const Pattern& p) {
  std::vector<int> order(p.messages.size());
  std::iota(order.begin(), order.end(), 0);
  std::int64_t best = -1;
  do {
    std::vector<std::vector<Interval>> busy(2 * static_cast<std::size_t>(p.ranks));
    std::int64_t end = 0;
    for (int i : order) {
      const Message& m = p.messages[static_cast<std::size_t>(i)];
      auto& out = busy[2 * static_cast<std::size_t>(m.src)];
      auto& in = busy[2 * static_cast<std::size_t>(m.dst) + 1];
      std::vector<std::int64_t> starts{0};
      for (const auto* port : {&out, &in})
        for (const Interval& j : *port) starts.push_back(j.end);
      std::sort(starts.begin(), starts.end());
      for (std::int64_t t : starts) {
        const Interval here{t, t + m.bytes, i};
        auto fits = [&](const std::vector<Interval>& port) {
          return std::none_of(port.begin(), port.end(),
                              [&](const Interval& j) { return overlap(here, j); });
        };
        if (fits(out) && fits(in)) {
          out.push_back(here);
          in.push_back(here);
          end = std::max(end, here.end);
          break;
        }
      }
    }
    if (best < 0 || end < best) best = end;
  } while (std::next_permutation(order.begin(), order.end()));
  return best;
}

TEST(OpenShop, TinyInstancesAgainstExhaustiveSearch) {
  std::mt19937_64 rng(14);
  int count = 0, optimal = 0;
  for (int i = 0; i < 100; ++i) {
    Pattern p{3 + i % 3, {}};
    std::uniform_int_distribution<int> rank(0, p.ranks - 1);
    std::uniform_int_distribution<std::int64_t> size(1, 8);
    std::set<std::pair<int, int>> pairs;
    while (p.messages.size() < 6) {
      const int s = rank(rng), d = rank(rng);
      if (s != d && pairs.insert({s, d}).second) p.messages.push_back({s, d, size(rng)});
      if (pairs.size() == static_cast<std::size_t>(p.ranks * (p.ranks - 1))) break;
    }
    const std::int64_t best = optimum(p);
    const std::int64_t makespan = expect_sound(p, plan_open_shop(p));
    EXPECT_GE(best, port_bound(p)) << i;
    EXPECT_GE(makespan, best) << i;
    EXPECT_LE(makespan, 2 * best) << i;
    ++count;
    optimal += makespan == best;
  }
  EXPECT_GE(optimal, count * 95 / 100) << optimal << " of " << count << " optimal";
}

TEST(OpenShop, CheckerCatchesBrokenPlans) {
  const Pattern p{3, {{0, 1, 10}, {0, 2, 10}, {2, 1, 10}}};
  const TimedPlan good{{{{0, 0}, {1, 10}}, {}, {{2, 10}}}, "hand"};
  EXPECT_NO_THROW(check_timed_plan(p, good));
  TimedPlan plan = good;
  plan.sends[0][1].start = 5;  // rank 0 sends twice at once
  EXPECT_THROW(check_timed_plan(p, plan), Error);
  plan = good;
  plan.sends[2][0].start = 5;  // rank 1 receives from 0 and 2 at once
  EXPECT_THROW(check_timed_plan(p, plan), Error);
  plan = good;
  plan.sends[0].pop_back();  // never sent
  EXPECT_THROW(check_timed_plan(p, plan), Error);
  plan = good;
  plan.sends[0].push_back({1, 30});  // sent twice
  EXPECT_THROW(check_timed_plan(p, plan), Error);
  plan = good;
  plan.sends[1].push_back(plan.sends[2][0]);  // by the wrong rank
  plan.sends[2].clear();
  EXPECT_THROW(check_timed_plan(p, plan), Error);
  plan = good;
  std::swap(plan.sends[0][0], plan.sends[0][1]);  // out of order
  EXPECT_THROW(check_timed_plan(p, plan), Error);
  plan = good;
  plan.sends[2][0].start = -1;
  EXPECT_THROW(check_timed_plan(p, plan), Error);
  try {
    plan = good;
    plan.sends[2][0].start = 5;
    check_timed_plan(p, plan);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rank 1 receives"), std::string::npos) << e.what();
  }
}

/// When each send of a rank's program starts, in ns, replaying the Fig. 4 shape as choreo sim
/// does with no overheads: an op starts once the ops it requires started (irequires) or
/// completed (requires), a send also not before the one before it left the port (bytes x
/// ns_per_byte after it started); a delay completes `nanoseconds` after it starts.
std::vector<double> send_starts(const Program& program, double ns_per_byte) {
  std::map<std::int64_t, double> start, end;
  std::vector<double> out;
  double port_free = 0;
  for (const Op& op : program.ops) {
    if (op.kind == OpKind::Recv) continue;
    double t = 0;
    for (std::int64_t id : op.requires_started) t = std::max(t, start.at(id));
    for (std::int64_t id : op.requires_completed) t = std::max(t, end.at(id));
    if (op.kind == OpKind::Send) {
      t = std::max(t, port_free);
      port_free = t + static_cast<double>(op.bytes) * ns_per_byte;
      out.push_back(t);
    }
    start[op.id] = t;
    end[op.id] = t + static_cast<double>(op.kind == OpKind::Delay ? op.nanoseconds : 0);
  }
  return out;
}

TEST(OpenShop, SchedulesSendInPlanOrderAtThePlannedTimes) {
  std::mt19937_64 rng(13);
  for (int i = 0; i < 30; ++i) {
    Pattern p = random_pattern(rng, 2 + i % 12, 0.5, 1, 5000);
    const TimedPlan plan = plan_open_shop(p);
    const double ns_per_byte = 0.5 + 0.25 * (i % 5);
    const Schedule s = schedule_from_timed_plan(p, plan, ns_per_byte);
    EXPECT_NO_THROW(validate(s)) << i;
    EXPECT_EQ(s.algorithm, "open-shop");
    for (int r = 0; r < p.ranks; ++r) {
      const auto& sends = plan.sends[static_cast<std::size_t>(r)];
      const Program& program = s.programs[static_cast<std::size_t>(r)];
      std::vector<std::pair<int, std::int64_t>> planned, scheduled;
      for (const TimedSend& t : sends) {
        const Message& m = p.messages[static_cast<std::size_t>(t.message)];
        planned.push_back({m.dst, m.bytes});
      }
      for (const Op& op : program.ops)
        if (op.kind == OpKind::Send) scheduled.push_back({op.peer, op.bytes});
      EXPECT_EQ(scheduled, planned) << "rank " << r;
      const std::vector<double> starts = send_starts(program, ns_per_byte);
      ASSERT_EQ(starts.size(), sends.size());
      for (std::size_t k = 0; k < sends.size(); ++k) {
        // Each delay is rounded to whole ns on its own: at most half a ns off per delay.
        EXPECT_NEAR(starts[k], static_cast<double>(sends[k].start) * ns_per_byte,
                    0.5 * static_cast<double>(k + 1))
            << "rank " << r << " send " << k;
      }
    }
  }
}

TEST(OpenShop, DelaysSleepFromTheStartOfTheSendBefore) {
  const Pattern p{3, {{0, 1, 100}, {0, 2, 50}, {1, 2, 40}, {2, 0, 10}}};
  // Rank 0: back to back at 0 and 100, then nothing; rank 1 idles until 30; rank 2 sends at 0.
  const TimedPlan plan{{{{0, 0}, {1, 250}}, {{2, 30}}, {{3, 0}}}, "hand"};
  const Schedule s = schedule_from_timed_plan(p, plan, 8.0);
  EXPECT_NO_THROW(validate(s));
  auto tail = [&](int r) {  // the ops after the receives
    std::vector<Op> ops;
    for (const Op& op : s.programs[static_cast<std::size_t>(r)].ops)
      if (op.kind != OpKind::Recv) ops.push_back(op);
    return ops;
  };
  const auto r0 = tail(0);
  ASSERT_EQ(r0.size(), 3u);  // send, delay (gap: 250 > 0 + 100), send
  EXPECT_EQ(r0[0].kind, OpKind::Send);
  EXPECT_TRUE(r0[0].requires_started.empty() && r0[0].requires_completed.empty());
  EXPECT_EQ(r0[1].kind, OpKind::Delay);
  EXPECT_EQ(r0[1].nanoseconds, 250 * 8);  // from the start of the send before it
  EXPECT_EQ(r0[1].requires_started, std::vector<std::int64_t>{r0[0].id});
  EXPECT_EQ(r0[2].kind, OpKind::Send);
  EXPECT_EQ(r0[2].requires_completed, std::vector<std::int64_t>{r0[1].id});
  const auto r1 = tail(1);
  ASSERT_EQ(r1.size(), 2u);  // a leading delay of 30 byte-times from time 0, then the send
  EXPECT_EQ(r1[0].kind, OpKind::Delay);
  EXPECT_EQ(r1[0].nanoseconds, 240);
  EXPECT_TRUE(r1[0].requires_started.empty() && r1[0].requires_completed.empty());
  EXPECT_EQ(r1[1].requires_completed, std::vector<std::int64_t>{r1[0].id});
  const auto r2 = tail(2);
  ASSERT_EQ(r2.size(), 1u);
  EXPECT_EQ(r2[0].kind, OpKind::Send);
  for (const auto& program : s.programs)
    for (const Op& op : program.ops) EXPECT_EQ(op.slot, kNoSlot);

  // Back to back: no delay, the next send starts when the one before it started.
  const TimedPlan tight{{{{0, 0}, {1, 100}}, {{2, 0}}, {{3, 0}}}, "hand"};
  const auto ops = schedule_from_timed_plan(p, tight, 8.0).programs[0].ops;
  EXPECT_EQ(
      std::count_if(ops.begin(), ops.end(), [](const Op& op) { return op.kind == OpKind::Delay; }),
      0);
  EXPECT_EQ(ops.back().requires_started, std::vector<std::int64_t>{ops[ops.size() - 2].id});
  EXPECT_THROW(schedule_from_timed_plan(p, tight, 0.0), Error);
  EXPECT_THROW(schedule_from_timed_plan(p, tight, std::nan("")), Error);
}

TEST(OpenShop, RejectsBadPatterns) {
  EXPECT_THROW(plan_open_shop(Pattern{2, {{0, 0, 5}}}), Error);
  EXPECT_THROW(plan_open_shop(Pattern{2, {{0, 1, -5}}}), Error);
}

TEST(OpenShop, FastOnADenseRandomPattern) {
  const Pattern p = patterns::with_random_sizes(patterns::random_density(256, 0.5, 0, 7), 1024,
                                                1 << 20, 7);  // 32,640 messages
  const TimedPlan plan = plan_open_shop(p);
  EXPECT_LE(static_cast<double>(makespan_bytes(p, plan)),
            1.10 * static_cast<double>(port_bytes_lower_bound(p)));
  EXPECT_NO_THROW(check_timed_plan(p, plan));
}

TEST(RandomSizes, WithinRangeDeterministicAndSeeded) {
  const Pattern base = patterns::random_density(40, 0.5, 0, 3);
  const Pattern a = patterns::with_random_sizes(base, 100, 200, 9);
  EXPECT_EQ(a, patterns::with_random_sizes(base, 100, 200, 9));
  EXPECT_NE(a, patterns::with_random_sizes(base, 100, 200, 10));
  ASSERT_EQ(a.messages.size(), base.messages.size());
  std::set<std::int64_t> distinct;
  for (std::size_t i = 0; i < a.messages.size(); ++i) {
    EXPECT_EQ(a.messages[i].src, base.messages[i].src);
    EXPECT_EQ(a.messages[i].dst, base.messages[i].dst);
    EXPECT_GE(a.messages[i].bytes, 100);
    EXPECT_LE(a.messages[i].bytes, 200);
    distinct.insert(a.messages[i].bytes);
  }
  EXPECT_GT(distinct.size(), 90u);  // 780 draws from 101 values
  const Pattern same = patterns::with_random_sizes(base, 7, 7, 1);
  for (const auto& m : same.messages) EXPECT_EQ(m.bytes, 7);
  EXPECT_THROW(patterns::with_random_sizes(base, 10, 5, 1), Error);
  EXPECT_THROW(patterns::with_random_sizes(base, -1, 5, 1), Error);
}

TEST(RandomSizes, Uniform) {
  // 40,000 sizes from 0..3: each value 10,000 times expected, sd ~87; mean 1.5.
  const Pattern base = patterns::alltoall(201, 0);  // 40,200 messages
  const Pattern p = patterns::with_random_sizes(base, 0, 3, 5);
  std::array<int, 4> count{};
  double sum = 0;
  for (const auto& m : p.messages) {
    ++count[static_cast<std::size_t>(m.bytes)];
    sum += static_cast<double>(m.bytes);
  }
  for (int c : count) EXPECT_NEAR(c, 40200 / 4, 500);
  EXPECT_NEAR(sum / static_cast<double>(p.messages.size()), 1.5, 0.02);
  // The full range choreo takes (0..2^50) works; beyond it is an error, not a wrapped size.
  const Pattern wide =
      patterns::with_random_sizes(Pattern{2, {{0, 1, 0}}}, 0, limits::kMaxBytes, 5);
  EXPECT_GE(wide.messages[0].bytes, 0);
  EXPECT_LE(wide.messages[0].bytes, limits::kMaxBytes);
  EXPECT_THROW(patterns::with_random_sizes(Pattern{2, {{0, 1, 0}}}, 0, INT64_MAX, 5), Error);
}

}  // namespace
}  // namespace choreo
