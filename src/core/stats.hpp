#pragma once
// The project's statistics, one definition of each: the median, quantiles, the distribution-free
// confidence interval of a median, and the weighted least-squares line. Medians and the
// binomial tail come from Boost.Math; every caller (calibration, the MPI timing loops, the
// persistent and redistribution trials, the benchmarks) goes through here, so that "median"
// and "quartile" mean the same thing in every table choreo prints.
#include <vector>

namespace choreo::stats {

/// The middle value; the mean of the two middle values for an even count. Throws
/// choreo::Error for no values.
double median(std::vector<double> values);

/// The q-quantile (0 <= q <= 1) by linear interpolation between order statistics
/// (Hyndman and Fan's type 7, the default of R and NumPy): quantile(v, 0.5) is the median,
/// 0 and 1 the minimum and maximum. Throws choreo::Error for no values or q outside [0, 1].
double quantile(std::vector<double> values, double q);

struct Bounds {
  double low = 0, high = 0;
};

/// The distribution-free confidence interval of the median at `level` (0 < level < 1): the
/// order statistics x_(j) and x_(n+1-j), 1-based, with j the largest index whose binomial tail
/// P(Binomial(n, 1/2) < j) is at most (1 - level) / 2. Unbounded ({-inf, +inf}) when no j
/// qualifies (fewer than 6 values at 95%).
Bounds median_interval(std::vector<double> values, double level = 0.95);

struct Line {
  double intercept = 0, slope = 0;
};

/// The line minimising sum w_i (y_i - intercept - slope x_i)^2, computed on centred values
/// (stable for x spanning many orders of magnitude). Throws choreo::Error when the three
/// lists differ in length, a weight is not positive, or x has no spread.
Line weighted_least_squares(const std::vector<double>& x, const std::vector<double>& y,
                            const std::vector<double>& w);

}  // namespace choreo::stats
