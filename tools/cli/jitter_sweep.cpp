// The options, points and output of a jitter sweep, shared by `choreo jitter sweep` and
// `choreo-mpi sweep jitter` (jitter_sweep.hpp).
#include "cli/jitter_sweep.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

#include "choreo/core/error.hpp"
#include "choreo/jitter/allreduce.hpp"
#include "cli/common.hpp"
#include "command_line.hpp"

namespace choreo::cli {
namespace {

std::pair<double, double> parse_range(const std::string& text, const char* option) {
  const auto colon = text.find(':');
  try {
    if (colon == std::string::npos) {
      const double v = std::stod(text);
      return {v, v};
    }
    return {std::stod(text.substr(0, colon)), std::stod(text.substr(colon + 1))};
  } catch (const std::exception&) {
    throw Error(fmt::format("{} wants LO:HI or one value, not '{}'", option, text));
  }
}

std::vector<std::int64_t> ranks_of(const JitterSweepArgs& a) {
  if (!a.ranks.empty()) return a.ranks;
  const auto [lo, hi] = parse_range(a.log2_ranks, "--log2-ranks");
  if (lo < 1 || hi > 24 || lo > hi || lo != std::floor(lo) || hi != std::floor(hi))
    throw Error(
        fmt::format("--log2-ranks wants integers 1 <= LO <= HI <= 24, not '{}'", a.log2_ranks));
  std::vector<std::int64_t> out;
  for (auto k = static_cast<int>(lo); k <= static_cast<int>(hi); ++k)
    out.push_back(std::int64_t{1} << k);
  return out;
}

/// Where each axis starts when --x-range is not given: every point in reach with the default
/// parameters (Tcomm/duration from 0.1, where Tcomm = alpha with 1 us and 10 us; duty cycles
/// from 1e-4 to 0.1, where windows never overlap), as bench/jitter_sweep.sh sweeps them.
std::string default_x_range(const std::string& axis) {
  return axis == "duty" ? "1e-4:1e-1" : "1e-1:1e2";
}

/// Log-spaced x values, `steps` per decade, from LO to HI inclusive.
std::vector<double> x_values(const JitterSweepArgs& a) {
  if (a.axis == "none") return {0};
  const std::string range = a.x_range.empty() ? default_x_range(a.axis) : a.x_range;
  const auto [lo, hi] = parse_range(range, "--x-range");
  if (!(lo > 0) || hi < lo)
    throw Error(fmt::format("--x-range wants 0 < LO <= HI, not '{}'", range));
  if (a.steps_per_decade < 1) throw Error("--steps-per-decade must be >= 1");
  std::vector<double> out;
  const double first = std::log10(lo), last = std::log10(hi);
  const auto steps = static_cast<int>(std::round((last - first) * a.steps_per_decade));
  for (int i = 0; i <= steps; ++i)
    out.push_back(std::pow(10.0, first + static_cast<double>(i) / a.steps_per_decade));
  return out;
}

/// The parameters at one x, or nothing when x is out of reach (Tcomm below alpha).
std::optional<jitter::JitterParams> params_at(const JitterSweepArgs& a, double x) {
  jitter::JitterParams p = a.params;
  if (a.axis == "tcomm") {
    // The paper moves Tcomm through N with alpha and beta fixed.
    // N is whole bytes: rounding also keeps Tcomm = alpha at 0 B rather than 2.1e-13 B of
    // floating-point residue (x * duration - alpha).
    const double tcomm = x * p.os_duration;
    if (p.beta <= 0) return std::nullopt;
    const double bytes = std::round((tcomm - p.alpha) / p.beta);
    if (bytes < 0) return std::nullopt;
    p.bytes = bytes;
  } else if (a.axis == "duty") {
    p.os_duration = x * p.os_period;
  }
  p.net_period = a.net_period >= 0 ? a.net_period : p.os_period;
  p.net_duration = a.net_duration >= 0 ? a.net_duration : p.os_duration;
  return p;
}

bool has(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

std::string x_label(const std::string& axis) {
  return axis == "duty" ? "duration/period" : axis == "tcomm" ? "Tcomm/duration" : "x (no axis)";
}

std::string csv_header() {
  return "axis,x,ranks,stages,bytes,tcomm,os_period,os_duration,net_period,net_duration,"
         "noiseless,plain,best_t,best,gain,slowdown,ring,rabenseifner,auto_t,auto_time,"
         "mean_by_t\n";
}

std::string csv_row(const std::string& axis, double x, const jitter::JitterParams& p,
                    const jitter::PointResult& r) {
  std::string by_t;
  for (double t : r.mean_by_t) by_t += fmt::format("{}{:.6e}", by_t.empty() ? "" : ";", t);
  auto optional = [](const std::optional<double>& v) {
    return v ? fmt::format("{:.6e}", *v) : std::string();
  };
  return fmt::format(
      "{},{:g},{},{},{:g},{:.6e},{:g},{:g},{:g},{:g},{:.6e},{:.6e},{},{:.6e},{:.4f},"
      "{:.4f},{},{},{},{},{}\n",
      axis, x, r.ranks, r.stages, p.bytes, p.message_seconds(), p.os_period, p.os_duration,
      p.net_period, p.net_duration, r.noiseless, r.plain(), r.best_t, r.best(), r.gain(),
      r.jitter_slowdown(), optional(r.ring), optional(r.rabenseifner),
      r.auto_t ? std::to_string(*r.auto_t) : "", optional(r.auto_time), by_t);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

void add_jitter_sweep_options(CLI::App& cmd, JitterSweepArgs& a) {
  cmd.add_option("--log2-ranks", a.log2_ranks, "P = 2^LO .. 2^HI (default 1:16, at most 24)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // scripts may override
  cmd.add_option("--ranks", a.ranks, "Explicit rank counts instead (any P >= 2)")->delimiter(',');
  cmd.add_option("--axis", a.axis,
                 "tcomm: x = Tcomm/duration (N varies); duty: x = duration/period; none")
      ->check(CLI::IsMember({"tcomm", "duty", "none"}));
  cmd.add_option("--x-range", a.x_range,
                 "LO:HI of the axis (default 1e-1:1e2 for tcomm, 1e-4:1e-1 for duty)");
  cmd.add_option("--steps-per-decade", a.steps_per_decade, "x values per decade (default 1)");
  const auto seconds = choreo::tools::time_seconds();
  const auto per_byte = choreo::tools::per_byte_in(1);
  cmd.add_option("--alpha", a.params.alpha, "Latency: s or e.g. 1us (default 1e-6)")
      ->transform(seconds);
  cmd.add_option("--beta", a.params.beta, "Network s/byte or a bandwidth (default 1e-9: 1GBps)")
      ->transform(per_byte);
  cmd.add_option("--gamma", a.params.gamma,
                 "Reduction s/byte or a bandwidth (default 1e-10: 10GBps)")
      ->transform(per_byte);
  cmd.add_option("--bytes", a.params.bytes,
                 "N: bytes or e.g. 64K, unless --axis tcomm sets it (default 8)")
      ->transform(choreo::tools::byte_size());
  cmd.add_option("--period", a.params.os_period, "OS jitter period: s or e.g. 1ms (default 1e-3)")
      ->transform(seconds);
  cmd.add_option("--duration", a.params.os_duration,
                 "OS jitter duration: s or e.g. 10us, unless --axis duty sets it (default 1e-5)")
      ->transform(seconds);
  cmd.add_option("--net-period", a.net_period,
                 "Network noise mean spacing: s or e.g. 1ms (default: --period)")
      ->transform(seconds);
  cmd.add_option("--net-duration", a.net_duration,
                 "Network noise delay per arrival: s or e.g. 10us (default: the OS duration; 0: "
                 "off)")
      ->transform(seconds);
  cmd.add_option("--coupling", a.coupling,
                 "exchange: wait for the partner (default); independent: the paper's "
                 "per-rank sums")
      ->check(CLI::IsMember({"exchange", "independent"}));
  cmd.add_option("--redundant-cost", a.redundant_cost,
                 "free: the paper's copies cost nothing (default); sender-busy: each copy "
                 "holds its sender's CPU for Tcomm")
      ->check(CLI::IsMember({"free", "sender-busy"}));
  cmd.add_option("--trials", a.study.trials, "Trials per point (default 30)");
  cmd.add_option("--max-t", a.study.max_redundant, "K: try T = 1..K (default log2 P)");
  cmd.add_option("--seed", a.study.seed, "Random seed (default 1)");
  cmd.add_option("--algorithms", a.algorithms, "butterfly (always), ring (P <= 4096), rabenseifner")
      ->delimiter(',');
  cmd.add_flag("--auto-t", a.auto_t, "Also time the resilient version with the rule's T");
  cmd.add_option("--curve-x", a.curve_x, "x of the time-against-P curve (default 1e-2)");
  cmd.add_option("-o,--output", a.output, "CSV file, one row per (x, P)");
  cmd.add_option("--plot", a.plot, "Directory for the gnuplot PNGs");
}

JitterSweepPlan plan_jitter_sweep(const JitterSweepArgs& args) {
  JitterSweepArgs a = args;
  a.params.coupling =
      a.coupling == "independent" ? jitter::Coupling::Independent : jitter::Coupling::Exchange;
  a.params.redundant_cost = a.redundant_cost == "sender-busy" ? jitter::RedundantCost::SenderBusy
                                                              : jitter::RedundantCost::Free;
  for (const auto& name : a.algorithms)
    if (name != "butterfly" && name != "ring" && name != "rabenseifner")
      throw Error(fmt::format("unknown algorithm '{}': use butterfly, ring or rabenseifner", name));
  a.study.ring = has(a.algorithms, "ring");
  a.study.rabenseifner = has(a.algorithms, "rabenseifner");
  a.study.auto_t = a.auto_t;
  if (!a.plot.empty() && a.axis == "none")
    throw Error("--plot draws over a swept axis: add --axis tcomm or --axis duty");
  const auto ranks = ranks_of(a);
  JitterSweepPlan plan;
  for (const double x : x_values(a)) {
    const auto p = params_at(a, x);
    if (!p) {
      plan.skipped_x.push_back(x);
      continue;
    }
    for (const std::int64_t n : ranks) {
      JitterSweepPoint point{x, *p, n, a.study};
      point.study.ring = point.study.ring && n <= jitter::kMaxRingRanks;
      jitter::check_point(point.params, point.ranks, point.study);
      plan.points.push_back(point);
    }
  }
  return plan;
}

JitterSweepOutput::JitterSweepOutput(const JitterSweepArgs& args, const JitterSweepPlan& plan)
    : args_(args), total_(plan.points.size()), skipped_x_(plan.skipped_x) {
  if (!args_.plot.empty()) make_plot_folder(args_.plot);
  if (!args_.output.empty()) {
    csv_.open(args_.output);
    if (!(csv_ << csv_header())) throw Error(fmt::format("cannot write {}", args_.output));
  }
  for (const double x : skipped_x_)
    fmt::print(stderr, "jitter: skipping Tcomm/duration = {:g}: Tcomm would be below alpha\n", x);
  start_ = std::chrono::steady_clock::now();
}

void JitterSweepOutput::add(const JitterSweepPoint& point, const jitter::PointResult& r) {
  if (csv_.is_open()) csv_ << csv_row(args_.axis, point.x, point.params, r);
  points_.push_back({point.x, r});
  fmt::print(stderr,
             "jitter: [{}/{}] x={:g} P={} plain={:.3e} s best T={} gain={:.2f} ({:.1f} s)\n",
             points_.size(), total_, point.x, point.ranks, r.plain(), r.best_t, r.gain(),
             seconds_since(start_));
}

void JitterSweepOutput::finish(bool json) {
  if (csv_.is_open() && !csv_.flush()) throw Error(fmt::format("cannot write {}", args_.output));
  const std::string label = x_label(args_.axis);
  if (!args_.plot.empty()) plot_jitter_sweep(points_, label, args_.curve_x, args_.plot);
  const auto best = std::max_element(
      points_.begin(), points_.end(),
      [](const auto& l, const auto& r) { return l.result.gain() < r.result.gain(); });
  const double seconds = seconds_since(start_);
  if (json) {
    nlohmann::json j{{"axis", args_.axis},       {"points", points_.size()},
                     {"skipped_x", skipped_x_},  {"trials", args_.study.trials},
                     {"seed", args_.study.seed}, {"seconds", seconds}};
    if (best != points_.end())
      j["max_gain"] = {{"gain", best->result.gain()},
                       {"x", best->x},
                       {"ranks", best->result.ranks},
                       {"best_t", best->result.best_t}};
    print_json(j);
  } else if (best != points_.end()) {
    fmt::print("{} points in {:.1f} s; largest gain {:.2f}x at {} = {:g}, P = {} (T = {})\n",
               points_.size(), seconds, best->result.gain(), label, best->x, best->result.ranks,
               best->result.best_t);
  }
}

}  // namespace choreo::cli
