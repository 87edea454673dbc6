#pragma once
// One point of paper 004's study: the mean completion time over independent trials of the
// plain butterfly, of the resilient one for every T, and optionally of ring and Rabenseifner.
#include <cstdint>
#include <optional>
#include <vector>

#include "choreo/jitter/params.hpp"

namespace choreo::jitter {

struct StudyOptions {
  int trials = 30;         ///< the paper's 30 runs per point
  int max_redundant = -1;  ///< K, the largest T tried; -1: log2(P), the paper's choice
  std::uint64_t seed = 1;
  bool ring = false;          ///< also simulate ring allreduce (P <= kMaxRingRanks)
  bool rabenseifner = false;  ///< also simulate Rabenseifner allreduce
};

struct PointResult {
  std::int64_t ranks = 0;
  int stages = 0;                      ///< log2 of the butterfly (floor for P not a power of two)
  double noiseless = 0;                ///< plain butterfly with both noise sources off
  std::vector<double> mean_by_t;       ///< mean time with T redundant exchanges, T = 0..K
  int best_t = 0;                      ///< the T in 1..K with the smallest mean (paper's choice)
  std::optional<double> ring;          ///< mean ring time, when asked for
  std::optional<double> rabenseifner;  ///< mean Rabenseifner time, when asked for

  double plain() const { return mean_by_t.front(); }
  double best() const { return mean_by_t.at(static_cast<std::size_t>(best_t)); }
  /// The paper's Figs. 6/10/15/19 plot best()/plain(); this is its inverse (>1 is a win).
  double gain() const { return plain() / best(); }
  /// The paper's Figs. 5/8/13/17: how much jitter slows the plain butterfly.
  double jitter_slowdown() const { return plain() / noiseless; }
};

/// Simulates `options.trials` trials (trial i seeded from options.seed and i). All T share the
/// trials (common random numbers), which makes "the best T" far less noisy than separate runs
/// per T would, at the paper's expected values. Throws choreo::Error on bad parameters.
PointResult run_point(const JitterParams& p, std::int64_t ranks, const StudyOptions& options);

}  // namespace choreo::jitter
