#pragma once
// One point of paper 004's study: the mean completion time over independent trials of the
// plain butterfly, of the resilient one for every T, and optionally of ring and Rabenseifner.
//
// A point is made of parts that do not depend on one another: the noiseless run and each
// trial (seeded from the study's seed and the trial's index alone). run_point computes them
// all; noiseless_time and run_trial compute one part, wherever it runs (`choreo-mpi sweep
// jitter` spreads them over MPI ranks), and combine_trials sums the trials in trial order,
// so a point assembled from parts computed anywhere is bit-identical to run_point's.
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
  bool auto_t = false;        ///< also time the resilient butterfly with auto_t.hpp's T
};

struct PointResult {
  std::int64_t ranks = 0;
  int stages = 0;                      ///< log2 of the butterfly (floor for P not a power of two)
  double noiseless = 0;                ///< plain butterfly with both noise sources off
  std::vector<double> mean_by_t;       ///< mean time with T redundant exchanges, T = 0..K
  int best_t = 0;                      ///< the T in 1..K with the smallest mean (paper's choice)
  std::optional<double> ring;          ///< mean ring time, when asked for
  std::optional<double> rabenseifner;  ///< mean Rabenseifner time, when asked for
  std::optional<int> auto_t;           ///< the rule's T (auto_redundant_exchanges), when asked for
  std::optional<double> auto_time;     ///< mean time of the resilient butterfly with auto_t

  double plain() const { return mean_by_t.front(); }
  double best() const { return mean_by_t.at(static_cast<std::size_t>(best_t)); }
  /// The paper's Figs. 6/10/15/19 plot best()/plain(); this is its inverse (>1 is a win).
  double gain() const { return plain() / best(); }
  /// The paper's Figs. 5/8/13/17: how much jitter slows the plain butterfly.
  double jitter_slowdown() const { return plain() / noiseless; }
};

/// What one trial contributes to its point: the time for every T = 0..K and, when asked for,
/// the comparisons' times. Depends only on the parameters, the seed and the trial's index.
struct TrialTimes {
  std::vector<double> by_t;  ///< K + 1 values
  double ring = 0, rabenseifner = 0, auto_time = 0;
};

/// Simulates `options.trials` trials (trial i seeded from options.seed and i). All T share the
/// trials (common random numbers), which makes "the best T" far less noisy than separate runs
/// per T would, at the paper's expected values. Throws choreo::Error on bad parameters.
PointResult run_point(const JitterParams& p, std::int64_t ranks, const StudyOptions& options);

/// Throws choreo::Error when run_point would refuse these parameters or options: what a
/// distributed study checks on every rank before any part runs.
void check_point(const JitterParams& p, std::int64_t ranks, const StudyOptions& options);

/// K for `ranks`: options.max_redundant, or log2 P when it is -1, and at most log2 P.
int max_redundant_exchanges(std::int64_t ranks, const StudyOptions& options);

/// PointResult::noiseless: the plain butterfly with both noise sources off.
double noiseless_time(const JitterParams& p, std::int64_t ranks, const StudyOptions& options);

/// Trial `index` (0 <= index < options.trials) of the point.
TrialTimes run_trial(const JitterParams& p, std::int64_t ranks, const StudyOptions& options,
                     std::uint64_t index);

/// The point from its parts: `trials[i]` is run_trial(..., i) for i = 0..options.trials-1,
/// summed in that order. Throws choreo::Error when a trial is missing or has the wrong K.
PointResult combine_trials(const JitterParams& p, std::int64_t ranks, const StudyOptions& options,
                           double noiseless, const std::vector<TrialTimes>& trials);

}  // namespace choreo::jitter
