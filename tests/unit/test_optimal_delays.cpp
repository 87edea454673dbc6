// plan_optimal keeps the degree bound's length and has few delays: checked here against
// references computed in this file, not by the library: its own contention check, delay count
// and degree bound, delay insertion's delays (plan_delay_insertion, counted here), and the
// exact minimum over every contention-free plan of the degree bound's length on tiny patterns
// (exhaustive search).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "../../src/sched/edge_colouring.hpp"
#include "choreo/sched/schedulers.hpp"
#include "random_pattern.hpp"

namespace choreo {
namespace {

using test::degree_bound;
using test::random_pattern;

/// Every message once by its sender, no receiver twice in a slot; returns the slots used.
int checked_slots(const Pattern& p, const SlotPlan& plan, const std::string& what) {
  EXPECT_EQ(plan.slots.size(), static_cast<std::size_t>(p.ranks)) << what;
  std::vector<int> sent(p.messages.size(), 0);
  std::set<std::pair<std::size_t, int>> receiving;
  std::size_t slots = 0;
  for (std::size_t r = 0; r < plan.slots.size(); ++r)
    for (std::size_t t = 0; t < plan.slots[r].size(); ++t) {
      const int m = plan.slots[r][t];
      if (m == kDelaySlot) continue;
      const Message& message = p.messages.at(static_cast<std::size_t>(m));
      EXPECT_EQ(message.src, static_cast<int>(r)) << what;
      ++sent[static_cast<std::size_t>(m)];
      EXPECT_TRUE(receiving.insert({t, message.dst}).second)
          << what << ": rank " << message.dst << " receives twice in slot " << t;
      slots = std::max(slots, t + 1);
    }
  for (std::size_t m = 0; m < sent.size(); ++m) EXPECT_EQ(sent[m], 1) << what << " message " << m;
  return static_cast<int>(slots);
}

/// Empty slots before each rank's last send, summed over ranks.
int delays_of(const SlotPlan& plan) {
  int delays = 0;
  for (const auto& row : plan.slots) {
    std::size_t end = row.size();
    while (end > 0 && row[end - 1] == kDelaySlot) --end;
    delays += static_cast<int>(
        std::count(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(end), kDelaySlot));
  }
  return delays;
}

int slots_of(const SlotPlan& plan) {
  std::size_t slots = 0;
  for (const auto& row : plan.slots) {
    std::size_t end = row.size();
    while (end > 0 && row[end - 1] == kDelaySlot) --end;
    slots = std::max(slots, end);
  }
  return static_cast<int>(slots);
}

/// The fewest delays of any contention-free plan of `slots` slots, by trying every slot for
/// every message (backtracking; tiny patterns only).
class FewestDelays {
 public:
  FewestDelays(const Pattern& p, int slots)
      : p_(p),
        slots_(slots),
        sending_(static_cast<std::size_t>(p.ranks), std::vector<bool>(slots)),
        receiving_(sending_),
        last_(static_cast<std::size_t>(p.ranks), -1),
        sends_(static_cast<std::size_t>(p.ranks), 0) {
    for (const Message& m : p.messages) ++sends_[static_cast<std::size_t>(m.src)];
    search(0);
  }
  int minimum() const { return best_; }

 private:
  void search(std::size_t i) {
    if (i == p_.messages.size()) {
      int delays = 0;
      for (std::size_t r = 0; r < last_.size(); ++r) delays += last_[r] + 1 - sends_[r];
      best_ = std::min(best_, delays);
      return;
    }
    const auto src = static_cast<std::size_t>(p_.messages[i].src);
    const auto dst = static_cast<std::size_t>(p_.messages[i].dst);
    for (int t = 0; t < slots_; ++t) {
      const auto slot = static_cast<std::size_t>(t);
      if (sending_[src][slot] || receiving_[dst][slot]) continue;
      sending_[src][slot] = receiving_[dst][slot] = true;
      const int before = last_[src];
      last_[src] = std::max(before, t);
      search(i + 1);
      last_[src] = before;
      sending_[src][slot] = receiving_[dst][slot] = false;
    }
  }

  const Pattern& p_;
  int slots_;
  std::vector<std::vector<bool>> sending_, receiving_;
  std::vector<int> last_, sends_;
  int best_ = 1 << 30;
};

// Paper 000's scale-free patterns: delay insertion reaches the degree bound on four of them
// and plan_optimal reached it with 1.1-5.5x its delays; now it has fewer or as many.
TEST(OptimalDelays, PaperScaleFreePatterns) {
  for (int m : {4, 7, 12, 17, 28}) {
    const Pattern p = patterns::scale_free(64, m, m, 64512, 1);
    const std::string what = "scale-free m0 = m = " + std::to_string(m);
    const SlotPlan optimal = plan_optimal(p);
    EXPECT_EQ(checked_slots(p, optimal, what), degree_bound(p)) << what;
    EXPECT_LE(delays_of(optimal), delays_of(plan_delay_insertion(p))) << what;
  }
}

TEST(OptimalDelays, RandomPatternsKeepTheBoundWithNoMoreDelaysThanEitherStart) {
  std::mt19937_64 rng(31);
  int beaten = 0, tried = 0;
  for (int i = 0; i < 120; ++i) {
    const Pattern p = random_pattern(rng, 3 + i % 40, 0.05 + 0.9 * (i % 7) / 6.0);
    const std::string what = "random pattern " + std::to_string(i);
    const SlotPlan optimal = plan_optimal(p);
    EXPECT_EQ(checked_slots(p, optimal, what), degree_bound(p)) << what;
    // Never more delays than the colouring it used to return.
    const SlotPlan coloured = detail::plan_optimal(p, detail::OptimalMethod::AlternatingPaths);
    EXPECT_LE(delays_of(optimal), delays_of(coloured)) << what;
    // Where delay insertion reaches the bound, never more delays than it.
    const SlotPlan delay = plan_delay_insertion(p);
    if (slots_of(delay) == degree_bound(p)) {
      ++tried;
      EXPECT_LE(delays_of(optimal), delays_of(delay)) << what;
      beaten += delays_of(optimal) < delays_of(delay);
    }
  }
  EXPECT_GT(tried, 60);
  EXPECT_GT(beaten, 0);  // the reduction does more than keep delay insertion's plan
}

// The exact minimum, by exhaustive search, on tiny patterns: plan_optimal can never go below
// it (that would mean a broken plan or a broken search), and a heuristic reaches it on
// nearly all (2237 of 2271 tried while writing this; each miss by one delay).
TEST(OptimalDelays, TinyPatternsAgainstTheExhaustiveMinimum) {
  std::mt19937_64 rng(32);
  int patterns_tried = 0, at_minimum = 0;
  for (int i = 0; patterns_tried < 300; ++i) {
    const Pattern p = random_pattern(rng, 3 + i % 4, 0.2 + 0.15 * (i / 4 % 5));
    if (p.messages.empty() || p.messages.size() > 11) continue;
    ++patterns_tried;
    const std::string what = "tiny pattern " + std::to_string(i);
    const SlotPlan optimal = plan_optimal(p);
    EXPECT_EQ(checked_slots(p, optimal, what), degree_bound(p)) << what;
    const int minimum = FewestDelays(p, degree_bound(p)).minimum();
    EXPECT_GE(delays_of(optimal), minimum) << what;
    EXPECT_LE(delays_of(optimal), minimum + 1) << what;
    at_minimum += delays_of(optimal) == minimum;
  }
  EXPECT_GE(at_minimum, 290) << "of " << patterns_tried;
}

// The search's own check: a pattern whose minimum is known by hand. Rank 0 sends to 1 and 2,
// rank 3 to 1: rank 3 takes slot 0 at rank 1 or waits; either rank 0 or rank 3 can go first
// to 1 with no delay anywhere (0 -> 2 in slot 0, 0 -> 1 in slot 1, 3 -> 1 in slot 0).
TEST(OptimalDelays, ExhaustiveSearchFindsAKnownMinimum) {
  const Pattern p{4, {{0, 1, 8}, {0, 2, 8}, {3, 1, 8}}};
  EXPECT_EQ(FewestDelays(p, 2).minimum(), 0);
  const Pattern gather = patterns::gather(4, 8);  // 3 senders, one receiver: 0 + 1 + 2 delays
  EXPECT_EQ(FewestDelays(gather, 3).minimum(), 3);
  EXPECT_EQ(delays_of(plan_optimal(gather)), 3);
}

}  // namespace
}  // namespace choreo
