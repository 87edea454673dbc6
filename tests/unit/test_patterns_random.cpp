// Random pattern generators for paper 000's evaluation: Barabási–Albert scale-free neighbour
// exchange (eq. 19, Table 4), patterns of exact density, and eq. 18's density.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <set>

#include "choreo/core/error.hpp"
#include "choreo/core/pattern.hpp"
#include "pattern_pairs.hpp"

namespace choreo {
namespace {

using test::Pair;
using test::pairs;

std::vector<int> degrees(const Pattern& p) {  // undirected: out-degree of a symmetric pattern
  std::vector<int> d(static_cast<std::size_t>(p.ranks), 0);
  for (const auto& m : p.messages) ++d[static_cast<std::size_t>(m.src)];
  return d;
}

// No self messages, no duplicate (src, dst), ranks in range.
void expect_simple(const Pattern& p) {
  EXPECT_NO_THROW(validate(p));
  EXPECT_EQ(pairs(p).size(), p.messages.size()) << "duplicate messages";
}

TEST(ScaleFree, MessageCountIsEq19Numerator) {
  for (int n : {1, 5, 10, 64, 200})
    for (int m0 : {1, 2, 4, 5})
      for (int m = 1; m <= m0; ++m) {
        if (m0 > n) continue;
        const Pattern p = patterns::scale_free(n, m0, m, 7, 42);
        EXPECT_EQ(p.ranks, n);
        EXPECT_EQ(p.messages.size(), static_cast<std::size_t>(2 * (n - m0) * m))
            << "n=" << n << " m0=" << m0 << " m=" << m;
        for (const auto& msg : p.messages) EXPECT_EQ(msg.bytes, 7);
      }
}

// Paper 000, Table 4 (64 PEs, m0 = m): D = 0.12, 0.20, 0.31, 0.40, 0.50. Eq. 19 as printed
// reads 2 (n - m0) l / (p (p - 1)); "l" is the model's m and "p" is n (a typo in the paper).
TEST(ScaleFree, Table4Densities) {
  const int n = 64;
  const std::vector<std::pair<int, double>> table = {
      {4, 0.12}, {7, 0.20}, {12, 0.31}, {17, 0.40}, {28, 0.50}};
  for (const auto& [m, expected] : table) {
    const Pattern p = patterns::scale_free(n, m, m, 64512, 1);
    const double eq19 = 2.0 * (n - m) * m / (n * (n - 1.0));
    EXPECT_DOUBLE_EQ(patterns::density(p), eq19);
    EXPECT_NEAR(std::round(patterns::density(p) * 100) / 100, expected, 1e-9) << "m0 = m = " << m;
  }
}

TEST(ScaleFree, SymmetricSimpleAndEveryNewVertexHasDegreeAtLeastM) {
  for (auto [n, m0, m] : {std::tuple{64, 4, 4}, {64, 28, 28}, {100, 6, 3}, {300, 10, 1}}) {
    for (std::uint64_t seed : {1u, 2u, 3u}) {
      const Pattern p = patterns::scale_free(n, m0, m, 1, seed);
      expect_simple(p);
      const auto s = pairs(p);
      for (const auto& [u, v] : s) EXPECT_TRUE(s.count({v, u})) << u << "->" << v;
      const auto d = degrees(p);
      for (int v = m0; v < n; ++v) EXPECT_GE(d[static_cast<std::size_t>(v)], m) << "vertex " << v;
      // Each new vertex v has exactly m edges to lower vertices (the ones it attached to).
      std::vector<int> lower(static_cast<std::size_t>(n), 0);
      for (const auto& [u, v] : s)
        if (v < u) ++lower[static_cast<std::size_t>(u)];
      for (int v = 0; v < n; ++v)
        EXPECT_EQ(lower[static_cast<std::size_t>(v)], v < m0 ? 0 : m) << "vertex " << v;
    }
  }
}

TEST(ScaleFree, FirstNewVertexDrawsUniformlyWhenAllDegreesAreZero) {
  // m0 = m: the first new vertex attaches to every initial vertex.
  const auto s = pairs(patterns::scale_free(5, 4, 4, 1, 9));
  for (int u = 0; u < 4; ++u) EXPECT_TRUE(s.count({4, u}));
  // m < m0: initial vertices the first new vertex skipped keep degree 0 for ever, and over
  // seeds every initial vertex is picked sometimes (a uniform draw, not always the lowest).
  std::vector<int> picked(6, 0);
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    const Pattern p = patterns::scale_free(40, 6, 2, 1, seed);
    const auto d = degrees(p);
    int isolated = 0;
    for (int u = 0; u < 6; ++u) {
      if (d[static_cast<std::size_t>(u)] == 0) ++isolated;
      if (pairs(p).count({6, u})) ++picked[static_cast<std::size_t>(u)];
    }
    EXPECT_EQ(isolated, 4);
  }
  for (int count : picked) EXPECT_GT(count, 200 * 2 / 6 / 2);  // expected 66.7 each
}

TEST(ScaleFree, DeterministicPerSeedAndDifferentAcrossSeeds) {
  EXPECT_EQ(patterns::scale_free(200, 5, 5, 3, 11), patterns::scale_free(200, 5, 5, 3, 11));
  EXPECT_NE(patterns::scale_free(200, 5, 5, 3, 11), patterns::scale_free(200, 5, 5, 3, 12));
}

// Same construction with uniform attachment (m distinct among all earlier vertices).
int uniform_attachment_max_degree(int n, int m0, int m, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int> d(static_cast<std::size_t>(n), 0);
  for (int v = m0; v < n; ++v) {
    std::set<int> targets;
    while (static_cast<int>(targets.size()) < m)
      targets.insert(static_cast<int>(rng() % static_cast<std::uint64_t>(v)));
    for (int t : targets) ++d[static_cast<std::size_t>(t)];
    d[static_cast<std::size_t>(v)] += m;
  }
  return *std::max_element(d.begin(), d.end());
}

TEST(ScaleFree, PreferentialAttachmentMakesHubs) {
  const int n = 2000, m0 = 3, m = 3;
  int uniform_max = 0;
  for (std::uint64_t seed = 1; seed <= 5; ++seed)
    uniform_max = std::max(uniform_max, uniform_attachment_max_degree(n, m0, m, seed));
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const auto d = degrees(patterns::scale_free(n, m0, m, 1, seed));
    const int ba_max = *std::max_element(d.begin(), d.end());
    // BA hubs grow like m sqrt(n) (~130 here); uniform attachment's like m ln n (~30).
    EXPECT_GT(ba_max, 40) << "seed " << seed;
    EXPECT_GT(ba_max, 2 * uniform_max) << "seed " << seed << ", uniform max " << uniform_max;
  }
}

TEST(ScaleFree, LargeIsFast) {
  const Pattern p = patterns::scale_free(4096, 28, 28, 1, 5);
  EXPECT_EQ(p.messages.size(), static_cast<std::size_t>(2 * (4096 - 28) * 28));
  expect_simple(p);
}

TEST(ScaleFree, BadArgumentsAreErrors) {
  EXPECT_THROW(patterns::scale_free(10, 3, 4, 1, 0), Error);   // m > m0
  EXPECT_THROW(patterns::scale_free(10, 3, 0, 1, 0), Error);   // m < 1
  EXPECT_THROW(patterns::scale_free(10, 0, 0, 1, 0), Error);   // m0 < 1
  EXPECT_THROW(patterns::scale_free(10, 11, 1, 1, 0), Error);  // m0 > ranks
  EXPECT_THROW(patterns::scale_free(10, 3, 3, -1, 0), Error);  // negative bytes
  EXPECT_THROW(patterns::scale_free(0, 1, 1, 1, 0), Error);    // no ranks
  EXPECT_NO_THROW(patterns::scale_free(10, 10, 10, 0, 0));     // m0 = ranks: no edges
  EXPECT_TRUE(patterns::scale_free(10, 10, 10, 0, 0).messages.empty());
}

TEST(RandomDensity, ExactCountDistinctPairsInBounds) {
  for (int n : {1, 2, 3, 10, 64})
    for (double D : {0.0, 0.01, 0.12, 0.3333, 0.5, 0.51, 0.9, 1.0}) {
      const Pattern p = patterns::random_density(n, D, 5, 3);
      const auto total = static_cast<double>(n) * (n - 1);
      EXPECT_EQ(p.messages.size(), static_cast<std::size_t>(std::llround(D * total)))
          << "n=" << n << " D=" << D;
      expect_simple(p);
      for (const auto& m : p.messages) EXPECT_EQ(m.bytes, 5);
      EXPECT_TRUE(std::is_sorted(p.messages.begin(), p.messages.end(),
                                 [](const Message& a, const Message& b) {
                                   return Pair{a.src, a.dst} < Pair{b.src, b.dst};
                                 }));
      if (n > 1) {
        EXPECT_NEAR(patterns::density(p), D, 0.5 / total + 1e-12);
      }
    }
  EXPECT_EQ(pairs(patterns::random_density(6, 1.0, 1, 0)), pairs(patterns::alltoall(6, 1)));
}

TEST(RandomDensity, DeterministicPerSeedAndSpreadOverPairs) {
  EXPECT_EQ(patterns::random_density(50, 0.2, 1, 4), patterns::random_density(50, 0.2, 1, 4));
  EXPECT_NE(patterns::random_density(50, 0.2, 1, 4), patterns::random_density(50, 0.2, 1, 5));
  EXPECT_NE(patterns::random_density(50, 0.8, 1, 4), patterns::random_density(50, 0.8, 1, 5));
  // Every ordered pair of 8 ranks shows up over many seeds at D = 0.25 (uniform choice;
  // the dense path, selection sampling).
  std::map<Pair, int> seen;
  for (std::uint64_t seed = 0; seed < 400; ++seed)
    for (const auto& pr : pairs(patterns::random_density(8, 0.25, 1, seed))) ++seen[pr];
  EXPECT_EQ(seen.size(), 56u);
  for (const auto& [pr, count] : seen) EXPECT_GT(count, 50) << pr.first << "->" << pr.second;
  // The sparse path (fewer than 1/16 of the pairs): 19 of 380 pairs, expected 20 hits each.
  seen.clear();
  for (std::uint64_t seed = 0; seed < 400; ++seed)
    for (const auto& pr : pairs(patterns::random_density(20, 0.05, 1, seed))) ++seen[pr];
  EXPECT_EQ(seen.size(), 380u);
  for (const auto& [pr, count] : seen) EXPECT_GT(count, 4) << pr.first << "->" << pr.second;
}

TEST(RandomDensity, BadArgumentsAreErrors) {
  EXPECT_THROW(patterns::random_density(10, -0.01, 1, 0), Error);
  EXPECT_THROW(patterns::random_density(10, 1.01, 1, 0), Error);
  EXPECT_THROW(patterns::random_density(10, std::numeric_limits<double>::quiet_NaN(), 1, 0), Error);
  EXPECT_THROW(patterns::random_density(10, 0.5, -1, 0), Error);
  EXPECT_THROW(patterns::random_density(0, 0.5, 1, 0), Error);
}

TEST(PatternsDensity, Eq18) {
  EXPECT_DOUBLE_EQ(patterns::density(patterns::alltoall(7, 1)), 1.0);
  EXPECT_DOUBLE_EQ(patterns::density(patterns::triangle(7, 1)), 0.5);
  EXPECT_DOUBLE_EQ(patterns::density(patterns::gather(5, 1)), 4.0 / 20.0);
  EXPECT_DOUBLE_EQ(patterns::density(patterns::alltoall(1, 1)), 0.0);
}

}  // namespace
}  // namespace choreo
