// Noise against a brute-force reference: walk time nanosecond by nanosecond, counting only
// the nanoseconds no detour covers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "choreo/core/error.hpp"
#include "choreo/sim/engine.hpp"
#include "schedule_builder.hpp"

namespace choreo::sim {
namespace {

using ::testing::HasSubstr;

/// When `work` ns of CPU end, given a predicate telling whether a nanosecond is stolen.
template <typename Stolen>
std::int64_t brute_force_end(std::int64_t start, std::int64_t work, Stolen stolen) {
  std::int64_t t = start;
  while (stolen(t)) ++t;  // work waits for a running detour, even work of 0 ns
  for (std::int64_t done = 0; done < work; ++t)
    if (!stolen(t)) ++done;
  return t;
}

NoiseSpec periodic(std::int64_t period, std::int64_t duration, std::int64_t phase) {
  NoiseSpec spec;
  add_noise(spec, "os:period=" + std::to_string(period) + ",duration=" + std::to_string(duration) +
                      ",phase=" + std::to_string(phase));
  return spec;
}

TEST(SimNoise, ADetourDuringACalcLengthensItByItsDuration) {
  Noise noise(periodic(1000, 100, 0), 1);
  EXPECT_EQ(noise.cpu_end(0, 200, 300), 500);   // no detour in [200, 500)
  EXPECT_EQ(noise.cpu_end(0, 800, 300), 1200);  // the detour at 1000 adds 100
  EXPECT_EQ(noise.cpu_end(0, 0, 250), 350);     // starts inside one: waits for its end
  EXPECT_EQ(noise.cpu_end(0, 0, 2000), 2300);   // three detours
}

TEST(SimNoise, PeriodicDetoursMatchBruteForce) {
  std::mt19937_64 rng(3);
  auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  for (int i = 0; i < 2000; ++i) {
    const std::int64_t period = pick(2, 300), duration = pick(0, period - 1), phase = pick(0, 1000);
    Noise noise(periodic(period, duration, phase), 1);
    const std::int64_t start = pick(0, 2000), work = pick(0, 900);
    auto stolen = [&](std::int64_t t) {
      return ((t - phase) % period + period) % period < duration;
    };
    ASSERT_EQ(noise.cpu_end(0, start, work), brute_force_end(start, work, stolen))
        << "period " << period << " duration " << duration << " phase " << phase << " start "
        << start << " work " << work;
  }
}

TEST(SimNoise, TraceDetoursMatchBruteForce) {
  // Detours at 10 (5 ns), 40 (20 ns), 90 (1 ns); the last line (100) marks the repetition.
  NoiseSpec spec;
  spec.os = NoiseSpec::Os::Trace;
  spec.trace = read_noise_trace("# start\tduration\n10\t5\n40\t20\n90\t1\n100\t0\n");
  spec.in_phase = true;
  spec.fixed_phase = 0;
  Noise noise(spec, 1);
  auto stolen = [](std::int64_t t) {
    std::int64_t x = t % 100;
    return (x >= 10 && x < 15) || (x >= 40 && x < 60) || x == 90;
  };
  for (std::int64_t start = 0; start < 250; start += 7)
    for (std::int64_t work : {0, 1, 9, 30, 95, 333})
      ASSERT_EQ(noise.cpu_end(0, start, work), brute_force_end(start, work, stolen))
          << start << " " << work;
}

TEST(SimNoise, SameSeedSameRunOtherSeedOtherRun) {
  auto makespan = [](const std::string& seed) {
    SimOptions o;
    add_noise(o.noise, "os:period=100000,duration=30000");
    add_noise(o.noise, "net:period=20000,duration=5000");
    add_noise(o.noise, seed);
    test::Builder b(16);
    for (int r = 0; r < 16; ++r)
      for (int k = 1; k < 16; k *= 2)
        b.send(r, 2 * k, r ^ k, 100, k).recv(r, 2 * k + 1, r ^ k, 100, k);
    return simulate(compact(b.build()), o).makespan;
  };
  EXPECT_EQ(makespan("seed=5"), makespan("seed=5"));
  EXPECT_NE(makespan("seed=5"), makespan("seed=6"));
}

TEST(SimNoise, NetworkDelaysCoverTheExpectedShareOfTime) {
  NoiseSpec spec;
  add_noise(spec, "net:period=9000,duration=1000");
  Noise noise(spec, 1);
  int delayed = 0;
  const int samples = 200000;
  for (int i = 0; i < samples; ++i) {
    const std::int64_t t = static_cast<std::int64_t>(i) * 97;
    const std::int64_t ready = noise.network_ready(0, t);
    ASSERT_GE(ready, t);
    ASSERT_LE(ready - t, 1000);
    delayed += ready > t ? 1 : 0;
  }
  // Events last 1000 ns with exponential gaps of mean 9000 between them: 10% of the time.
  EXPECT_NEAR(static_cast<double>(delayed) / samples, 0.1, 0.01);
}

TEST(SimNoise, TimesTakeUnits) {
  NoiseSpec spec;
  add_noise(spec, "os:period=1ms,duration=50us");
  add_noise(spec, "net:period=2.5us,duration=1500");
  EXPECT_EQ(spec.os_period, 1000000);
  EXPECT_EQ(spec.os_duration, 50000);
  EXPECT_EQ(spec.net_period, 2500);
  EXPECT_EQ(spec.net_duration, 1500);
  EXPECT_THROW(add_noise(spec, "os:period=1parsec,duration=1"), Error);
  EXPECT_THROW(add_noise(spec, "os:period=-1ms,duration=1"), Error);
}

TEST(SimNoise, BadSpellings) {
  NoiseSpec spec;
  for (const char* bad : {"os:period=10", "os:period=10,duration=10", "os:period=x,duration=1",
                          "net:duration=5", "cosmic:rays", "trace:/nonexistent",
                          "os:period=10,duration=1,phase=sideways", "seed=abc"}) {
    EXPECT_THROW(add_noise(spec, bad), Error) << bad;
  }
  EXPECT_THROW(read_noise_trace("10\t5\n8\t1\n"), Error);  // out of order
  try {
    add_noise(spec, "os:period=10,duration=1,jitter=3");
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown key 'jitter'"));
  }
}

}  // namespace
}  // namespace choreo::sim
