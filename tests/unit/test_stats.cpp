// choreo::stats against independent references: hand-worked values, R's and NumPy's published
// type-7 quantiles, exact binomial tails in integer arithmetic, and lines known in closed form.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "../../src/core/stats.hpp"
#include "choreo/core/error.hpp"

namespace {

using choreo::Error;
namespace stats = choreo::stats;

TEST(Stats, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(stats::median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(stats::median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(stats::median({7}), 7);
  EXPECT_DOUBLE_EQ(stats::median({5, 5, 1, 9}), 5);
  EXPECT_THROW(stats::median({}), Error);
}

TEST(Stats, QuantileMatchesRType7) {
  // R: quantile(1:4, c(0, .25, .5, .75, 1)) = 1 1.75 2.5 3.25 4.
  const std::vector<double> v{4, 2, 3, 1};
  EXPECT_DOUBLE_EQ(stats::quantile(v, 0), 1);
  EXPECT_DOUBLE_EQ(stats::quantile(v, 0.25), 1.75);
  EXPECT_DOUBLE_EQ(stats::quantile(v, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(stats::quantile(v, 0.75), 3.25);
  EXPECT_DOUBLE_EQ(stats::quantile(v, 1), 4);
  // R: quantile(c(10, 20, 30, 40, 50), .1) = 14; NumPy's default agrees.
  EXPECT_DOUBLE_EQ(stats::quantile({50, 40, 30, 20, 10}, 0.1), 14);
  EXPECT_DOUBLE_EQ(stats::quantile({8}, 0.3), 8);
  EXPECT_THROW(stats::quantile({}, 0.5), Error);
  EXPECT_THROW(stats::quantile({1, 2}, -0.1), Error);
  EXPECT_THROW(stats::quantile({1, 2}, 1.5), Error);
  EXPECT_THROW(stats::quantile({1, 2}, std::numeric_limits<double>::quiet_NaN()), Error);
}

TEST(Stats, QuantileAtOneHalfIsTheMedian) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  for (std::size_t n = 1; n < 40; ++n) {
    std::vector<double> v(n);
    for (double& x : v) x = u(rng);
    EXPECT_DOUBLE_EQ(stats::quantile(v, 0.5), stats::median(v)) << n << " values";
  }
}

/// P(Binomial(n, 1/2) <= k) * 2^n, exactly (n <= 62).
std::uint64_t binomial_tail_count(unsigned n, unsigned k) {
  std::uint64_t choose = 1, sum = 0;
  for (unsigned i = 0; i <= k; ++i) {
    sum += choose;
    choose = choose * (n - i) / (i + 1);
  }
  return sum;
}

TEST(Stats, MedianIntervalUsesTheExactBinomialTail) {
  for (unsigned n = 1; n <= 60; ++n) {
    // The reference j: the largest with P(X <= j - 1) <= 2.5%, in integers.
    const double total = std::ldexp(1.0, static_cast<int>(n));
    unsigned j = 0;
    while (j < n && static_cast<double>(binomial_tail_count(n, j)) <= 0.025 * total) ++j;
    std::vector<double> v(n);
    for (unsigned i = 0; i < n; ++i) v[i] = static_cast<double>(n - i);  // n, n-1, ..., 1
    const stats::Bounds b = stats::median_interval(v, 0.95);
    if (j == 0) {
      EXPECT_TRUE(std::isinf(b.low) && std::isinf(b.high)) << n << " values";
    } else {
      EXPECT_DOUBLE_EQ(b.low, j) << n << " values";  // x_(j) of 1..n is j
      EXPECT_DOUBLE_EQ(b.high, n + 1 - j) << n << " values";
    }
  }
  EXPECT_THROW(stats::median_interval({1, 2, 3}, 1.0), Error);
}

TEST(Stats, WeightedLeastSquaresByHand) {
  // Unweighted: x = 0 1 2, y = 0 1 3: slope 3/2, intercept -1/6.
  const stats::Line plain = stats::weighted_least_squares({0, 1, 2}, {0, 1, 3}, {1, 1, 1});
  EXPECT_DOUBLE_EQ(plain.slope, 1.5);
  EXPECT_NEAR(plain.intercept, -1.0 / 6, 1e-15);
  // Weights 1 2 1: weighted means x 1, y 5/4; Sxx 2, Sxy 3: slope 3/2, intercept -1/4.
  const stats::Line weighted = stats::weighted_least_squares({0, 1, 2}, {0, 1, 3}, {1, 2, 1});
  EXPECT_DOUBLE_EQ(weighted.slope, 1.5);
  EXPECT_DOUBLE_EQ(weighted.intercept, -0.25);
  // Points on a line over eight orders of magnitude come back exactly, whatever the weights.
  std::vector<double> x, y, w;
  for (double s = 1; s <= 1e8; s *= 10) {
    x.push_back(s);
    y.push_back(2e-6 + 1e-9 * s);
    w.push_back(1 / (y.back() * y.back()));
  }
  const stats::Line exact = stats::weighted_least_squares(x, y, w);
  EXPECT_NEAR(exact.intercept, 2e-6, 1e-18);
  EXPECT_NEAR(exact.slope, 1e-9, 1e-21);
}

TEST(Stats, WeightedLeastSquaresRefusesWhatHasNoLine) {
  EXPECT_THROW(stats::weighted_least_squares({1, 2}, {1}, {1, 1}), Error);
  EXPECT_THROW(stats::weighted_least_squares({1, 2}, {1, 2}, {1, 0}), Error);
  EXPECT_THROW(stats::weighted_least_squares({3, 3}, {1, 2}, {1, 1}), Error);
  EXPECT_THROW(stats::weighted_least_squares({}, {}, {}), Error);
}

}  // namespace
