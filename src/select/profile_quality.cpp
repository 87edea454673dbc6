// Confidence intervals of a profile's fits and its impossible fits (profile_quality.hpp).
#include "choreo/select/profile_quality.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>

#include "../core/human.hpp"
#include "../core/stats.hpp"
#include "choreo/core/error.hpp"

namespace choreo {
namespace {

constexpr std::int64_t kLargeMessage = 64 * 1024;
constexpr double kTimerNoise = 1e-6;  // seconds

/// `samples` drawn again with replacement. The index comes from the raw 64-bit draw, not
/// std::uniform_int_distribution, whose output differs between standard libraries.
void redraw(const SizeSamples& from, SizeSamples& to, std::mt19937_64& rng) {
  const std::size_t n = from.seconds.size();
  for (std::size_t i = 0; i < n; ++i) to.seconds[i] = from.seconds[rng() % n];
}

void redraw(const std::vector<SizeSamples>& from, std::vector<SizeSamples>& to,
            std::mt19937_64& rng) {
  for (std::size_t i = 0; i < from.size(); ++i) redraw(from[i], to[i], rng);
}

/// The 2.5th and 97.5th percentiles.
Interval percentiles95(const std::vector<double>& values) {
  return {stats::quantile(values, 0.025), stats::quantile(values, 0.975)};
}

/// "ping-pong: 4 KiB takes 1.2 us, less than half the 3.1 us of 2 KiB" for the first size
/// that is, or "" when the table is monotone within that factor.
std::string non_monotone(const std::vector<SizeSamples>& table, const char* name) {
  double slowest = 0;
  std::int64_t slowest_bytes = 0;
  for (const auto& s : table) {
    const double t = s.median();
    // Below a microsecond apart, sizes differ by cache and timer effects, not by a machine
    // that was busy (memcpy of 1 B after the timer's first call: 49 ns, of 2 B: 14 ns).
    if (t < 0.5 * slowest && slowest - t > kTimerNoise)
      return fmt::format(
          "the {} table is not monotone: {} takes {}, less than half the {} of {}; a larger "
          "message cannot be that much faster (the machine was disturbed while it was measured)",
          name, human_bytes(static_cast<double>(s.bytes)), human_seconds(t), human_seconds(slowest),
          human_bytes(static_cast<double>(slowest_bytes)));
    if (t > slowest) {
      slowest = t;
      slowest_bytes = s.bytes;
    }
  }
  return "";
}

}  // namespace

MachineProfile resampled(const MachineProfile& p, std::mt19937_64& rng) {
  MachineProfile draw = p;
  redraw(p.pingpong, draw.pingpong, rng);
  redraw(p.memcpy, draw.memcpy, rng);
  redraw(p.burst.sizes, draw.burst.sizes, rng);
  redraw(p.overhead.send, draw.overhead.send, rng);
  redraw(p.overhead.recv, draw.overhead.recv, rng);
  redraw(p.collective.exchange, draw.collective.exchange, rng);
  redraw(p.collective.memcpy, draw.collective.memcpy, rng);
  return draw;
}

FitIntervals fit_intervals(const MachineProfile& p, int resamples, std::uint64_t seed) {
  if (resamples < 2)
    throw Error(fmt::format("fit_intervals needs 2 resamples or more, not {}", resamples));
  std::mt19937_64 rng(seed);
  std::vector<double> L, o, g, G, alpha, beta;
  for (int r = 0; r < resamples; ++r) {
    const MachineProfile draw = resampled(p, rng);
    const LogGPFit loggp = fit_loggp(draw.pingpong, draw.burst, draw.overhead);
    const HockneyFit hockney = fit_hockney(draw.pingpong);
    L.push_back(loggp.L);
    o.push_back(loggp.o);
    g.push_back(loggp.g);
    G.push_back(loggp.G);
    alpha.push_back(hockney.alpha);
    beta.push_back(hockney.beta);
  }
  // The fit of all the samples stays inside its interval: with few samples a percentile
  // interval of a median of slopes can miss it by a hair, and an interval that excludes the
  // printed value reads as a bug.
  const auto around = [](const std::vector<double>& values, double fitted) {
    const Interval i = percentiles95(values);
    return Interval{std::min(i.low, fitted), std::max(i.high, fitted)};
  };
  return {around(L, p.loggp.L),
          around(o, p.loggp.o),
          around(g, p.loggp.g),
          around(G, p.loggp.G),
          around(alpha, p.hockney.alpha),
          around(beta, p.hockney.beta),
          resamples};
}

std::vector<std::string> fit_problems(const MachineProfile& p) {
  std::vector<std::string> problems;
  if (p.pingpong.empty()) return {"the profile has no ping-pong samples"};
  const SizeSamples& smallest = p.pingpong.front();
  const double one_way = smallest.median();
  const LogGPFit& f = p.loggp;
  // L before clamping: what the one-way time leaves for the wire after the overheads.
  const double raw_L = one_way - 2 * f.o - static_cast<double>(smallest.bytes - 1) * f.G;
  if (raw_L < -std::max(0.25 * one_way, kTimerNoise))
    problems.push_back(fmt::format(
        "L is impossible: the overheads (o = {} each way) exceed the {} one-way time of {} by {}; "
        "they were measured while something else ran",
        human_seconds(f.o), human_bytes(static_cast<double>(smallest.bytes)),
        human_seconds(one_way), human_seconds(-raw_L)));
  if (one_way > 0 && f.g > 10 * one_way)
    problems.push_back(fmt::format(
        "g = {} is {:.0f}x the {} one-way time of {}: one message's gap cannot be longer than "
        "ten whole messages (the bursts were disturbed)",
        human_seconds(f.g), f.g / one_way, human_bytes(static_cast<double>(smallest.bytes)),
        human_seconds(one_way)));
  const SizeSamples& largest = p.pingpong.back();
  if (largest.bytes >= kLargeMessage && largest.median() > 2 * one_way) {
    const auto grows = fmt::format(
        "the one-way time grows from {} at {} to {} at {}", human_seconds(one_way),
        human_bytes(static_cast<double>(smallest.bytes)), human_seconds(largest.median()),
        human_bytes(static_cast<double>(largest.bytes)));
    if (f.G <= 0)
      problems.push_back(fmt::format(
          "G is 0 although {}: the bursts' gap did not grow with size (they were disturbed)",
          grows));
    if (p.hockney.beta <= 0)
      problems.push_back(fmt::format("Hockney's beta is 0 although {}", grows));
  }
  for (const auto& [table, name] :
       {std::pair{&p.pingpong, "ping-pong"}, std::pair{&p.collective.exchange, "exchange"}})
    if (const std::string problem = non_monotone(*table, name); !problem.empty())
      problems.push_back(problem);
  const bool copies_timed =
      std::any_of(p.memcpy.begin(), p.memcpy.end(), [](const auto& s) { return s.median() > 0; });
  if (copies_timed)
    if (const std::string problem = non_monotone(p.memcpy, "memcpy"); !problem.empty())
      problems.push_back(problem);
  return problems;
}

}  // namespace choreo
