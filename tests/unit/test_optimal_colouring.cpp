// plan_optimal's colourings (src/sched/optimal.cpp, euler_split.cpp), each run on its own and
// checked by a checker written here, not the library's: every message sent once, by its
// sender; no destination receiving twice in a slot; exactly the degree bound of slots; no
// trailing delay; the same plan every time.
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

using detail::OptimalMethod;

constexpr OptimalMethod kMethods[] = {OptimalMethod::Auto, OptimalMethod::AlternatingPaths,
                                      OptimalMethod::EulerSplit, OptimalMethod::EulerSplitRaw};

const char* name(OptimalMethod m) {
  switch (m) {
    case OptimalMethod::Auto:
      return "auto";
    case OptimalMethod::AlternatingPaths:
      return "alternating paths";
    case OptimalMethod::EulerSplit:
      return "euler split";
    case OptimalMethod::EulerSplitRaw:
      return "euler split, not compacted";
  }
  return "?";
}

/// The checks of this file's header comment, for one plan.
void expect_optimal(const Pattern& p, const SlotPlan& plan, const std::string& what) {
  ASSERT_EQ(plan.slots.size(), static_cast<std::size_t>(p.ranks)) << what;
  std::vector<int> sent(p.messages.size(), 0);
  std::set<std::pair<std::size_t, int>> receiving;  // (slot, destination)
  std::size_t slots = 0;
  for (int r = 0; r < p.ranks; ++r) {
    const auto& row = plan.slots[static_cast<std::size_t>(r)];
    if (!row.empty()) {
      EXPECT_NE(row.back(), kDelaySlot) << what << ": rank " << r << " ends with a delay";
    }
    for (std::size_t t = 0; t < row.size(); ++t) {
      if (row[t] == kDelaySlot) continue;
      ASSERT_GE(row[t], 0) << what;
      ASSERT_LT(static_cast<std::size_t>(row[t]), p.messages.size()) << what;
      const Message& m = p.messages[static_cast<std::size_t>(row[t])];
      EXPECT_EQ(m.src, r) << what << ": message " << row[t] << " in rank " << r << "'s plan";
      ++sent[static_cast<std::size_t>(row[t])];
      EXPECT_TRUE(receiving.insert({t, m.dst}).second)
          << what << ": rank " << m.dst << " receives twice in slot " << t;
      slots = std::max(slots, t + 1);
    }
  }
  for (std::size_t m = 0; m < sent.size(); ++m) EXPECT_EQ(sent[m], 1) << what << ": message " << m;
  EXPECT_EQ(static_cast<int>(slots), degree_bound(p)) << what;
}

/// Every colouring on one pattern; also: the same plan twice, and compaction never lengthens a
/// rank's plan (so never adds delays).
void expect_all_optimal(const Pattern& p, const std::string& what) {
  std::vector<SlotPlan> plans;
  for (OptimalMethod m : kMethods) {
    plans.push_back(detail::plan_optimal(p, m));
    expect_optimal(p, plans.back(), what + ", " + name(m));
    EXPECT_EQ(detail::plan_optimal(p, m).slots, plans.back().slots)
        << what << ", " << name(m) << ": not deterministic";
  }
  for (std::size_t r = 0; r < plans[2].slots.size(); ++r)
    EXPECT_LE(plans[2].slots[r].size(), plans[3].slots[r].size()) << what << ", rank " << r;
  EXPECT_EQ(plan_optimal(p).slots, plans[0].slots) << what;
}

TEST(OptimalColouring, RandomPatternsOfMixedDensities) {
  std::mt19937_64 rng(11);
  for (double density : {0.01, 0.05, 0.2, 0.5, 0.8, 1.0})
    for (int ranks : {1, 2, 3, 7, 16, 33, 64, 101}) {
      Pattern p = random_pattern(rng, ranks, density, 8);
      expect_all_optimal(p, "random n=" + std::to_string(ranks) + " D=" + std::to_string(density));
    }
}

TEST(OptimalColouring, SkewedPatterns) {
  std::mt19937_64 rng(12);
  for (int ranks : {2, 5, 40, 97, 128}) {
    const std::string n = " n=" + std::to_string(ranks);
    // One rank sends to all, the rest sparsely: the degree bound is n - 1, far above the rest.
    Pattern star = random_pattern(rng, ranks, 0.03);
    for (int d = 1; d < ranks; ++d) star.messages.push_back({0, d, 8});
    expect_all_optimal(star, "scatter + sparse" + n);
    // All send to one: the receiver side is the bottleneck.
    Pattern gather = random_pattern(rng, ranks, 0.03);
    for (int s = 0; s < ranks - 1; ++s) gather.messages.push_back({s, ranks - 1, 8});
    expect_all_optimal(gather, "gather + sparse" + n);
    // Both, on different ranks.
    Pattern both = star;
    for (int s = 1; s < ranks; ++s)
      if (s != ranks / 2) both.messages.push_back({s, ranks / 2, 8});
    expect_all_optimal(both, "scatter + gather + sparse" + n);
    // Rank s sends to a fraction s/n of the others: degrees from 0 to n - 1.
    Pattern ramp{ranks, {}};
    for (int s = 0; s < ranks; ++s) {
      std::bernoulli_distribution keep(static_cast<double>(s) / ranks);
      for (int d = 0; d < ranks; ++d)
        if (s != d && keep(rng)) ramp.messages.push_back({s, d, 8});
    }
    expect_all_optimal(ramp, "ramp" + n);
    // Two halves sending only to each other, one much denser.
    Pattern halves{ranks, {}};
    for (int s = 0; s < ranks; ++s)
      for (int d = 0; d < ranks; ++d) {
        std::bernoulli_distribution keep(s < ranks / 2 ? 0.9 : 0.1);
        if ((s < ranks / 2) != (d < ranks / 2) && keep(rng)) halves.messages.push_back({s, d, 8});
      }
    expect_all_optimal(halves, "halves" + n);
  }
}

TEST(OptimalColouring, OddAndEvenDegrees) {
  // Alltoall: regular of degree n - 1, both parities, powers of two and one off them.
  for (int ranks : {2, 3, 4, 5, 6, 9, 16, 17, 33})
    expect_all_optimal(patterns::alltoall(ranks, 8), "alltoall n=" + std::to_string(ranks));
  // Unions of k random permutations (self-sends dropped): near-regular of degree k.
  std::mt19937_64 rng(13);
  for (int k = 1; k <= 12; ++k) {
    const int ranks = 50;
    Pattern p{ranks, {}};
    std::vector<int> perm(static_cast<std::size_t>(ranks));
    for (int j = 0; j < k; ++j) {
      for (int i = 0; i < ranks; ++i) perm[static_cast<std::size_t>(i)] = i;
      std::shuffle(perm.begin(), perm.end(), rng);
      for (int i = 0; i < ranks; ++i)
        if (perm[static_cast<std::size_t>(i)] != i)
          p.messages.push_back({i, perm[static_cast<std::size_t>(i)], 8});
    }
    expect_all_optimal(p, "permutations k=" + std::to_string(k));
  }
}

TEST(OptimalColouring, RepeatedMessages) {
  // A pattern may list one pair more than once: a multigraph, each copy its own slot.
  std::mt19937_64 rng(14);
  for (int ranks : {2, 3, 10, 60}) {
    Pattern p = random_pattern(rng, ranks, 0.3);
    const std::size_t base = p.messages.size();
    for (std::size_t i = 0; i < base; i += 3) p.messages.push_back(p.messages[i]);
    if (ranks > 1)
      for (int copies = 0; copies < 5; ++copies) p.messages.push_back({1, 0, 8});
    std::shuffle(p.messages.begin(), p.messages.end(), rng);
    expect_all_optimal(p, "repeated n=" + std::to_string(ranks));
  }
}

TEST(OptimalColouring, TinyAndEmptyPatterns) {
  expect_all_optimal(Pattern{1, {}}, "one rank");
  expect_all_optimal(Pattern{5, {}}, "no messages");
  expect_all_optimal(Pattern{5, {{3, 1, 8}}}, "one message");
  expect_all_optimal(Pattern{6, {{0, 1, 8}, {2, 3, 8}, {4, 5, 8}}}, "a matching");
  expect_all_optimal(patterns::gather(9, 8), "gather");
  expect_all_optimal(patterns::scatter(9, 8), "scatter");
  expect_all_optimal(patterns::triangle(9, 8), "triangle");
  expect_all_optimal(patterns::scale_free(80, 4, 4, 8, 3), "scale-free");
}

TEST(OptimalColouring, OneRankSendingToThousandsKeepsThePlanSmall) {
  // Δ = n - 1 from one rank, the rest sparse: too big a table for alternating paths, so the
  // Euler split colours it and the compaction must pull the sparse ranks' sends down, or every
  // rank's row would run to ~Δ slots (n x Δ in all).
  const int ranks = 5000;
  std::mt19937_64 rng(16);
  Pattern p{ranks, {}};
  for (int d = 1; d < ranks; ++d) p.messages.push_back({0, d, 8});
  std::uniform_int_distribution<int> rank(0, ranks - 1);
  for (int k = 0; k < 2 * ranks; ++k)
    if (const int s = rank(rng), d = rank(rng); s != d) p.messages.push_back({s, d, 8});
  const SlotPlan plan = plan_optimal(p);
  expect_optimal(p, plan, "scatter from 1 of 5000 + sparse");
  std::size_t cells = 0;
  for (const auto& row : plan.slots) cells += row.size();
  EXPECT_LE(cells, 3 * p.messages.size());
}

TEST(OptimalColouring, EulerSplitOnALargerDensePattern) {
  // Deep enough a recursion for several matchings at odd degrees.
  std::mt19937_64 rng(15);
  Pattern p = random_pattern(rng, 300, 0.45);
  SlotPlan plan = detail::plan_optimal(p, OptimalMethod::EulerSplit);
  expect_optimal(p, plan, "random n=300, euler split");
}

}  // namespace
}  // namespace choreo
