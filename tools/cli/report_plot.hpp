#pragma once
// choreo report --plot: the runs as bars (median, min-max whiskers), the port bound as a line,
// each bar labelled with its speed-up against the baseline.
#include <optional>
#include <string>
#include <vector>

namespace choreo::cli {

/// One run as the report compares it; times in seconds.
struct ReportRow {
  std::string label;
  double median = 0, min = 0, max = 0;
  std::optional<double> speedup;   ///< the baseline's median over this one's
  std::optional<double> of_bound;  ///< this median over the port bound
};

/// "1.70x faster", "1.23x slower", "as fast (1.00x)" within half a percent, "(baseline)" for
/// the baseline itself, "-" without one.
std::string speedup_text(const ReportRow& row, const std::string& baseline);

/// Draws `rows` to `file` (.png or .svg) through gnuplot. Throws choreo::Error when the file
/// cannot be written or gnuplot fails.
void plot_report(const std::vector<ReportRow>& rows, std::optional<double> bound_seconds,
                 const std::string& baseline, const std::string& title, const std::string& file);

}  // namespace choreo::cli
