// OS jitter windows, Poisson network noise and the per-trial random state.
#include "choreo/jitter/noise.hpp"

#include <cmath>

namespace choreo::jitter {

namespace {

/// splitmix64's finaliser: spreads (seed, trial) into a well-mixed 64-bit generator seed.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace

double uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

Trial make_trial(const JitterParams& p, std::int64_t ranks, std::uint64_t seed,
                 std::uint64_t index) {
  Trial trial{std::mt19937_64(mix(mix(seed) ^ index)), {}};
  trial.phase.resize(static_cast<std::size_t>(ranks));
  for (double& phase : trial.phase) phase = uniform01(trial.rng) * p.os_period;
  return trial;
}

double os_finish(const JitterParams& p, double phase, double start, double work) {
  if (p.os_duration <= 0) return start + work;
  const double period = p.os_period;
  const double duration = p.os_duration;
  const double free = period - duration;
  // Position of `start` within its jitter cycle: the window is [0, duration).
  double position = std::fmod(start - phase, period);
  if (position < 0) position += period;
  double t = start;
  if (position < duration) {  // inside a window: wait for it to end
    t += duration - position;
    position = duration;
  }
  const double free_now = period - position;
  if (work <= free_now) return t + work;
  // Finish this free stretch, then whole cycles, then the rest after one more window.
  double left = work - free_now;
  const double window_start = t + free_now;
  double cycles = std::floor(left / free);
  double rest = left - cycles * free;
  if (rest <= 0) {  // ends exactly as a window begins: it does not wait for that window
    cycles -= 1;
    rest = free;
  }
  return window_start + cycles * period + duration + rest;
}

NetworkNoise::NetworkNoise(const JitterParams& p, double message_seconds) {
  if (p.net_duration <= 0) return;
  mean_arrivals_ = message_seconds / p.net_period;
  none_probability_ = std::exp(-mean_arrivals_);
  duration_ = p.net_duration;
}

double NetworkNoise::delay(std::mt19937_64& rng) const {
  if (duration_ <= 0) return 0;
  const double u = uniform01(rng);
  // Inverse CDF of Poisson(mean_arrivals_), walked from 0: one comparison almost always.
  double probability = none_probability_;
  double cumulative = probability;
  int arrivals = 0;
  while (u >= cumulative && probability > 0) {
    ++arrivals;
    probability *= mean_arrivals_ / arrivals;
    cumulative += probability;
  }
  return arrivals * duration_;
}

}  // namespace choreo::jitter
