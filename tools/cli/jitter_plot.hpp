#pragma once
// gnuplot figures of `choreo jitter sweep`, equivalent to paper 004's Figs. 5-21.
#include <string>
#include <vector>

#include "choreo/jitter/study.hpp"

namespace choreo::cli {

/// One swept point: its x value (Tcomm/duration or duration/period) and the result.
struct JitterPoint {
  double x = 0;
  jitter::PointResult result;
};

/// Creates `dir` (and its parents) for the figures, or throws choreo::Error naming why it
/// cannot: called before a long sweep, so a bad --plot fails at once.
void make_plot_folder(const std::string& dir);

/// Writes into `dir`: slowdown.png (Figs. 5/8/13/17: plain with jitter over without),
/// ratio.png (Figs. 6/10/15/19: best resilient over plain), best_t.png (Figs. 7/11/16/20)
/// as heatmaps over log10(x) and log2(P), and curve.png (Figs. 12/21: plain and best
/// resilient time against P at the x nearest `curve_x`). Throws choreo::Error when gnuplot
/// is missing or fails.
void plot_jitter_sweep(const std::vector<JitterPoint>& points, const std::string& x_label,
                       double curve_x, const std::string& dir);

}  // namespace choreo::cli
