#include "stats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <boost/math/statistics/univariate_statistics.hpp>
#include <cmath>
#include <cstddef>
#include <limits>

#include "choreo/core/error.hpp"

namespace choreo::stats {

double median(std::vector<double> values) {
  if (values.empty()) throw Error("the median of no values is undefined");
  return boost::math::statistics::median(values);
}

double quantile(std::vector<double> values, double q) {
  if (values.empty()) throw Error("a quantile of no values is undefined");
  if (!(q >= 0 && q <= 1)) throw Error(fmt::format("a quantile lies in [0, 1], not {}", q));
  std::sort(values.begin(), values.end());
  const double at = q * static_cast<double>(values.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(at));
  const std::size_t above = std::min(below + 1, values.size() - 1);
  const double fraction = at - static_cast<double>(below);
  return values[below] + fraction * (values[above] - values[below]);
}

Bounds median_interval(std::vector<double> values, double level) {
  if (!(level > 0 && level < 1))
    throw Error(fmt::format("a confidence level lies strictly between 0 and 1, not {}", level));
  constexpr double inf = std::numeric_limits<double>::infinity();
  const std::size_t n = values.size();
  if (n == 0) return {-inf, inf};
  const boost::math::binomial_distribution<double> heads(static_cast<double>(n), 0.5);
  const double tail = (1 - level) / 2;
  // j: the largest index with P(heads < j) = P(heads <= j - 1) <= tail.
  std::size_t j = 0;
  while (j < n && boost::math::cdf(heads, static_cast<double>(j)) <= tail) ++j;
  if (j == 0) return {-inf, inf};
  std::sort(values.begin(), values.end());
  return {values[j - 1], values[n - j]};
}

Line weighted_least_squares(const std::vector<double>& x, const std::vector<double>& y,
                            const std::vector<double>& w) {
  if (x.size() != y.size() || x.size() != w.size())
    throw Error(fmt::format("a weighted fit needs as many x, y and weights, not {}, {} and {}",
                            x.size(), y.size(), w.size()));
  double sw = 0, sx = 0, sy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!(w[i] > 0)) throw Error(fmt::format("a weight must be positive, not {}", w[i]));
    sw += w[i];
    sx += w[i] * x[i];
    sy += w[i] * y[i];
  }
  if (!(sw > 0)) throw Error("a weighted fit needs at least two points");
  const double mx = sx / sw, my = sy / sw;
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxx += w[i] * (x[i] - mx) * (x[i] - mx);
    sxy += w[i] * (x[i] - mx) * (y[i] - my);
  }
  if (!(sxx > 0)) throw Error("a fitted line needs at least two different x values");
  const double slope = sxy / sxx;
  return {my - slope * mx, slope};
}

}  // namespace choreo::stats
