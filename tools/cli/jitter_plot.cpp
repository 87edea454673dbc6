// Heatmaps and curves of a jitter sweep through gnuplot, one data file per figure.
#include "jitter_plot.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>

#include "choreo/core/error.hpp"
#include "cli/gnuplot.hpp"

namespace choreo::cli {

namespace {

double log2_ranks(const jitter::PointResult& r) { return std::log2(static_cast<double>(r.ranks)); }

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  if (!(out << text)) throw Error(fmt::format("cannot write {}", path));
}

/// A heatmap over (log10 x, log2 P): gnuplot's `with image` needs a regular grid, which a
/// sweep is; points skipped by the sweep are simply absent.
void heatmap(const std::vector<JitterPoint>& points, const std::string& x_label,
             const std::string& dir, const std::string& name, const std::string& title,
             const std::function<double(const jitter::PointResult&)>& value) {
  std::string data;
  for (const auto& p : points)
    data += fmt::format("{} {} {}\n", std::log10(p.x), log2_ranks(p.result), value(p.result));
  const std::string data_file = fmt::format("{}/{}.dat", dir, name);
  const std::string png = fmt::format("{}/{}.png", dir, name);
  write_file(data_file, data);
  // Ticks as the values they stand for: x = 0.1, 1, 10 (its log10 is the grid), P = 2^k.
  int low_p = 64, high_p = 0;
  double low_x = std::numeric_limits<double>::infinity(), high_x = 0;
  for (const auto& p : points) {
    low_p = std::min(low_p, static_cast<int>(log2_ranks(p.result)));
    high_p = std::max(high_p, static_cast<int>(log2_ranks(p.result)));
    low_x = std::min(low_x, p.x);
    high_x = std::max(high_x, p.x);
  }
  std::string xtics;
  for (double e = std::floor(std::log10(low_x)); e <= std::ceil(std::log10(high_x)); e += 1)
    xtics += fmt::format("{}'{:g}' {:g}", xtics.empty() ? "" : ", ", std::pow(10, e), e);
  run_gnuplot(
      fmt::format("set terminal pngcairo size 800,600 noenhanced font 'sans,11'\nset output {}\n"
                  "set title '{} (simulated, paper 004 model)'\nset xlabel '{}'\n"
                  "set ylabel 'ranks P'\nset xtics ({})\nset ytics ({})\n"
                  "set palette rgbformulae 33,13,10\nset view map\n"
                  "plot {} using 1:2:3 with image notitle\n",
                  gnuplot_quoted(png), title, x_label, xtics, power_of_two_tics(low_p, high_p),
                  gnuplot_quoted(data_file)),
      png);
}

}  // namespace

void make_plot_folder(const std::string& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) throw Error(fmt::format("cannot make the folder {}: {}", dir, error.message()));
}

void plot_jitter_sweep(const std::vector<JitterPoint>& points, const std::string& x_label,
                       double curve_x, const std::string& dir) {
  if (points.empty()) throw Error("the sweep has no points to plot");
  make_plot_folder(dir);
  heatmap(points, x_label, dir, "slowdown", "plain butterfly: time with jitter / without",
          [](const jitter::PointResult& r) { return r.jitter_slowdown(); });
  heatmap(points, x_label, dir, "ratio", "best resilient / plain butterfly (below 1: a win)",
          [](const jitter::PointResult& r) { return r.best() / r.plain(); });
  heatmap(points, x_label, dir, "best_t", "best T (redundant exchanges)",
          [](const jitter::PointResult& r) { return static_cast<double>(r.best_t); });
  // The curve uses the swept x nearest curve_x on a log scale.
  double nearest = points.front().x;
  for (const auto& p : points)
    if (std::abs(std::log(p.x / curve_x)) < std::abs(std::log(nearest / curve_x))) nearest = p.x;
  std::string data;
  int low_p = 64, high_p = 0;
  double low_t = std::numeric_limits<double>::infinity(), high_t = 0;
  for (const auto& p : points)
    if (p.x == nearest) {
      low_p = std::min(low_p, static_cast<int>(log2_ranks(p.result)));
      high_p = std::max(high_p, static_cast<int>(log2_ranks(p.result)));
      for (double t : {p.result.plain(), p.result.best(), p.result.noiseless})
        if (t > 0) low_t = std::min(low_t, t), high_t = std::max(high_t, t);
    }
  for (const auto& p : points)
    if (p.x == nearest)
      data += fmt::format("{} {} {} {} {} {}\n", log2_ranks(p.result), p.result.plain(),
                          p.result.best(), p.result.noiseless,
                          p.result.ring ? *p.result.ring : std::numeric_limits<double>::quiet_NaN(),
                          p.result.rabenseifner ? *p.result.rabenseifner
                                                : std::numeric_limits<double>::quiet_NaN());
  const std::string data_file = dir + "/curve.dat";
  const std::string png = dir + "/curve.png";
  write_file(data_file, data);
  run_gnuplot(fmt::format("set terminal pngcairo size 800,500 noenhanced font 'sans,11'\n"
                          "set output {0}\n"
                          "set title 'allreduce time against P at {1} = {2:g} (simulated, paper "
                          "004 model)'\nset xlabel 'ranks P'\nset ylabel 'time per allreduce'\n"
                          "set xtics ({4})\nset ytics ({5})\n"
                          "set logscale y\nset key top left\nset grid\nset datafile missing 'nan'\n"
                          "plot {3} using 1:2 with linespoints title 'plain butterfly', "
                          "{3} using 1:3 with linespoints title 'resilient, best T', "
                          "{3} using 1:4 with lines title 'no jitter', "
                          "{3} using 1:5 with linespoints title 'ring', "
                          "{3} using 1:6 with linespoints title 'Rabenseifner'\n",
                          gnuplot_quoted(png), x_label, nearest, gnuplot_quoted(data_file),
                          power_of_two_tics(low_p, high_p), time_tics(low_t, high_t)),
              png);
}

}  // namespace choreo::cli
