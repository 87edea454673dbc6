// choreo report --plot (report_plot.hpp).
#include "cli/report_plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "../../src/core/human.hpp"
#include "cli/gnuplot.hpp"

namespace choreo::cli {
namespace {

/// A label as one double-quoted gnuplot data field.
std::string data_field(std::string text) {
  std::replace(text.begin(), text.end(), '"', '\'');
  return '"' + text + '"';
}

/// The unit the figure's axis reads best in: the largest time drawn decides.
std::pair<double, const char*> time_unit(double largest_seconds) {
  if (largest_seconds >= 1) return {1, "s"};
  if (largest_seconds >= 1e-3) return {1e3, "ms"};
  return {1e6, "us"};
}

}  // namespace

std::string speedup_text(const ReportRow& r, const std::string& baseline) {
  if (!r.speedup) return "-";
  if (r.label == baseline) return "(baseline)";
  if (std::abs(*r.speedup - 1) < 0.005) return "as fast (1.00x)";
  if (*r.speedup >= 1) return fmt::format("{:.2f}x faster", *r.speedup);
  return fmt::format("{:.2f}x slower", 1 / *r.speedup);
}

void plot_report(const std::vector<ReportRow>& rows, std::optional<double> bound_seconds,
                 const std::string& baseline, const std::string& title, const std::string& file) {
  double largest = bound_seconds.value_or(0);
  for (const auto& r : rows) largest = std::max(largest, r.max);
  const auto [scale, unit] = time_unit(largest);
  // Columns: x, median, min, max, tick label, bar label.
  std::string data;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ReportRow& r = rows[i];
    std::string bar = human_seconds(r.median);
    if (r.speedup && r.label != baseline) bar += "\\n" + speedup_text(r, baseline);
    data += fmt::format("{} {} {} {} {} {}\n", i, r.median * scale, r.min * scale, r.max * scale,
                        data_field(r.label), data_field(bar));
  }
  data += "e\n";
  const bool svg = file.size() > 4 && file.substr(file.size() - 4) == ".svg";
  std::string script = fmt::format(
      "set terminal {} size 900,520 noenhanced font 'sans,11'\nset output {}\n"
      "set title {}\nset ylabel 'time per iteration ({})'\nset yrange [0:{}]\n"
      "set xrange [-0.6:{}]\nset style fill solid 0.55 border -1\nset boxwidth 0.6\n"
      "set grid ytics\nset key top left\nset xtics nomirror\nset ytics nomirror\n"
      "set datafile missing 'nan'\n",
      svg ? "svg" : "pngcairo", gnuplot_quoted(file),
      data_field(title.empty() ? std::string("time per iteration") : title), unit,
      largest * scale * 1.25, static_cast<double>(rows.size()) - 0.4);
  // Whiskers as vectors, and only where the repetitions spread: cairo draws an errorbar's
  // point, and a zero-length whisker, as a dot even at point size 0.
  const bool spread =
      std::any_of(rows.begin(), rows.end(), [](const ReportRow& r) { return r.max > r.min; });
  std::string plots = fmt::format(
      "'-' using 1:2:xtic(5) with boxes lc rgb '#4477aa' title 'median', "
      "'-' using 1:3:(0):($4 > $3 ? $4 - $3 : NaN) with vectors heads size screen 0.008,90 "
      "lc rgb 'black' {}, "
      "'-' using 1:4:6 with labels offset 0,1.6 notitle",
      spread ? "title 'min-max'" : "notitle");
  if (bound_seconds)
    plots += fmt::format(", {:g} with lines dt 2 lw 2 lc rgb '#cc3311' title 'port bound {}'",
                         *bound_seconds * scale, human_seconds(*bound_seconds));
  script += "plot " + plots + "\n" + data + data + data;
  if (!baseline.empty())
    script.insert(script.find("plot "),
                  fmt::format("set label 1 {} at graph 0.99, graph 0.96 right\n",
                              data_field("labels: speed-up against " + baseline)));
  run_gnuplot(script, file);
}

}  // namespace choreo::cli
