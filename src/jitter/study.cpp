// One point of the jitter study: trials of every algorithm, averaged (study.hpp).
#include "choreo/jitter/study.hpp"

#include <fmt/core.h>

#include <algorithm>

#include "choreo/core/error.hpp"
#include "choreo/jitter/allreduce.hpp"
#include "choreo/jitter/auto_t.hpp"
#include "choreo/jitter/noise.hpp"

namespace choreo::jitter {

void check_point(const JitterParams& p, std::int64_t ranks, const StudyOptions& options) {
  check(p);
  check_ranks(ranks);
  if (options.trials < 1)
    throw Error(fmt::format("jitter: trials must be >= 1, not {}", options.trials));
  if (options.max_redundant < -1)
    throw Error(fmt::format(
        "jitter: the largest number of redundant exchanges K must be 0 or more (or -1 for "
        "log2 P), not {}",
        options.max_redundant));
  if (options.ring) check_ring_ranks(ranks);
}

int max_redundant_exchanges(std::int64_t ranks, const StudyOptions& options) {
  const int stages = butterfly_stages(ranks);
  return options.max_redundant < 0 ? stages : std::min(options.max_redundant, stages);
}

double noiseless_time(const JitterParams& p, std::int64_t ranks, const StudyOptions& options) {
  const JitterParams quiet_params = without_noise(p);
  Trial quiet = make_trial(quiet_params, ranks, options.seed, 0);
  return butterfly_times(quiet_params, ranks, 0, quiet).front();
}

TrialTimes run_trial(const JitterParams& p, std::int64_t ranks, const StudyOptions& options,
                     std::uint64_t index) {
  TrialTimes out;
  Trial trial = make_trial(p, ranks, options.seed, index);
  out.by_t = butterfly_times(p, ranks, max_redundant_exchanges(ranks, options), trial);
  // The comparisons meet the same jitter phases (same seed and trial), fresh network noise.
  if (options.ring) {
    Trial again = make_trial(p, ranks, options.seed, index);
    out.ring = ring_time(p, ranks, again);
  }
  if (options.rabenseifner) {
    Trial again = make_trial(p, ranks, options.seed, index);
    out.rabenseifner = rabenseifner_time(p, ranks, again);
  }
  if (options.auto_t) {
    Trial again = make_trial(p, ranks, options.seed, index);
    out.auto_time = butterfly_times(p, ranks, auto_redundant_exchanges(p, ranks), again).back();
  }
  return out;
}

PointResult combine_trials(const JitterParams& p, std::int64_t ranks, const StudyOptions& options,
                           double noiseless, const std::vector<TrialTimes>& trials) {
  PointResult result;
  result.ranks = ranks;
  result.stages = butterfly_stages(ranks);
  result.noiseless = noiseless;
  const int max_redundant = max_redundant_exchanges(ranks, options);
  if (trials.size() != static_cast<std::size_t>(options.trials))
    throw Error(fmt::format("jitter: {} trials to combine, but the study has {}", trials.size(),
                            options.trials));
  // Sums in trial order, whatever computed the trials: the same floating-point additions as
  // one process running them one after the other.
  result.mean_by_t.assign(static_cast<std::size_t>(max_redundant) + 1, 0.0);
  double ring = 0, rabenseifner = 0, auto_time = 0;
  for (const TrialTimes& trial : trials) {
    if (trial.by_t.size() != result.mean_by_t.size())
      throw Error(fmt::format("jitter: a trial has {} times by T, the study {}", trial.by_t.size(),
                              result.mean_by_t.size()));
    for (std::size_t t = 0; t < trial.by_t.size(); ++t) result.mean_by_t[t] += trial.by_t[t];
    ring += trial.ring;
    rabenseifner += trial.rabenseifner;
    auto_time += trial.auto_time;
  }
  const double count = options.trials;
  for (double& t : result.mean_by_t) t /= count;
  if (options.ring) result.ring = ring / count;
  if (options.rabenseifner) result.rabenseifner = rabenseifner / count;
  if (options.auto_t) {
    result.auto_t = auto_redundant_exchanges(p, ranks);
    result.auto_time = auto_time / count;
  }
  // The paper's "best T" ranges over 1..K; with K = 0 only the plain butterfly is left.
  result.best_t = 0;
  if (max_redundant >= 1) {
    auto first = result.mean_by_t.begin() + 1;
    result.best_t = static_cast<int>(std::min_element(first, result.mean_by_t.end()) -
                                     result.mean_by_t.begin());
  }
  return result;
}

PointResult run_point(const JitterParams& p, std::int64_t ranks, const StudyOptions& options) {
  check(p);
  check_ranks(ranks);
  if (options.trials < 1)
    throw Error(fmt::format("jitter: trials must be >= 1, not {}", options.trials));
  const double noiseless = noiseless_time(p, ranks, options);
  std::vector<TrialTimes> trials;
  trials.reserve(static_cast<std::size_t>(options.trials));
  for (int i = 0; i < options.trials; ++i)
    trials.push_back(run_trial(p, ranks, options, static_cast<std::uint64_t>(i)));
  return combine_trials(p, ranks, options, noiseless, trials);
}

}  // namespace choreo::jitter
