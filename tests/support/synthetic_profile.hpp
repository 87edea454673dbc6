#pragma once
// A machine profile as `choreo-mpi calibrate` would measure it on a known LogGP machine, with
// relative noise: the fits must recover the machine's parameters (test_profile.cpp) and the
// quality checks must find nothing wrong with it (test_profile_quality.cpp).
#include <cstdint>
#include <random>
#include <vector>

#include "choreo/model/profile.hpp"

namespace choreo::testing {

// Known machine: LogGP with g > o (as LogGP assumes), o_s != o_r.
constexpr double kL = 500e-9, kOs = 300e-9, kOr = 100e-9, kO = (kOs + kOr) / 2;
constexpr double kGap = 400e-9, kG = 1e-10;  // G: 10 GB/s
constexpr int kMessages = 16;

/// `reps` samples of `t`, each off by a relative N(0, noise) error.
inline std::vector<double> noisy(double t, int reps, double noise, std::mt19937& rng) {
  std::vector<double> out(static_cast<std::size_t>(reps), t);
  if (noise <= 0) return out;  // a normal distribution needs a positive deviation
  std::normal_distribution<double> error(0, noise);
  for (double& x : out) x *= 1 + error(rng);
  return out;
}

inline double one_way(std::int64_t s) { return kL + 2 * kO + static_cast<double>(s - 1) * kG; }

/// What calibrate would measure on the known machine, with 1% noise.
inline MachineProfile synthetic_profile(double noise = 0.01, int reps = 31) {
  std::mt19937 rng(42);
  MachineProfile p;
  p.host = "testhost";
  p.mpi_library = "MPICH Version: 4.0.2";
  p.created = "2025-01-31T12:00:00Z";
  p.ranks = 2;
  p.pairs = {{0, 1}};
  p.cache_bytes = 32 << 20;
  p.memcpy_buffer_bytes = 128 << 20;
  for (std::int64_t s = 1; s <= (64 << 20); s *= 2) {
    p.pingpong.push_back({s, 8, noisy(one_way(s), reps, noise, rng)});
    p.memcpy.push_back({s, 4, noisy(50e-9 + static_cast<double>(s) * 5e-11, reps, noise, rng)});
  }
  p.burst.messages = kMessages;
  for (std::int64_t s = 1; s <= (4 << 20); s *= 4) {
    const double prtt = 2 * one_way(s) + (kMessages - 1) * (kGap + static_cast<double>(s - 1) * kG);
    p.burst.sizes.push_back({s, 2, noisy(prtt, reps, noise, rng)});
  }
  p.overhead.messages = kMessages;
  p.overhead.delay = 2e-6;
  p.overhead.wait = 34e-6;
  p.overhead.send = {1, 1, noisy(kOs, reps, noise, rng)};
  p.overhead.recv = {1, 1, noisy(kOr, reps, noise, rng)};
  fit_profile(p);
  return p;
}

}  // namespace choreo::testing
