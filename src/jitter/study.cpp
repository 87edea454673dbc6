// One point of the jitter study: trials of every algorithm, averaged.
#include "choreo/jitter/study.hpp"

#include <fmt/core.h>

#include <algorithm>

#include "choreo/error.hpp"
#include "choreo/jitter/allreduce.hpp"
#include "choreo/jitter/noise.hpp"

namespace choreo::jitter {

PointResult run_point(const JitterParams& p, std::int64_t ranks, const StudyOptions& options) {
  check(p);
  PointResult result;
  result.ranks = ranks;
  result.stages = butterfly_stages(ranks);
  if (options.trials < 1)
    throw Error(fmt::format("jitter: trials must be >= 1, not {}", options.trials));
  const int max_redundant =
      options.max_redundant < 0 ? result.stages : std::min(options.max_redundant, result.stages);
  {
    Trial quiet = make_trial(without_noise(p), ranks, options.seed, 0);
    result.noiseless = butterfly_times(without_noise(p), ranks, 0, quiet).front();
  }
  result.mean_by_t.assign(static_cast<std::size_t>(max_redundant) + 1, 0.0);
  double ring = 0, rabenseifner = 0;
  for (int i = 0; i < options.trials; ++i) {
    const auto index = static_cast<std::uint64_t>(i);
    Trial trial = make_trial(p, ranks, options.seed, index);
    const std::vector<double> times = butterfly_times(p, ranks, max_redundant, trial);
    for (std::size_t t = 0; t < times.size(); ++t) result.mean_by_t[t] += times[t];
    // The comparisons meet the same jitter phases (same seed and trial), fresh network noise.
    if (options.ring) {
      Trial again = make_trial(p, ranks, options.seed, index);
      ring += ring_time(p, ranks, again);
    }
    if (options.rabenseifner) {
      Trial again = make_trial(p, ranks, options.seed, index);
      rabenseifner += rabenseifner_time(p, ranks, again);
    }
  }
  const double trials = options.trials;
  for (double& t : result.mean_by_t) t /= trials;
  if (options.ring) result.ring = ring / trials;
  if (options.rabenseifner) result.rabenseifner = rabenseifner / trials;
  // The paper's "best T" ranges over 1..K; with K = 0 only the plain butterfly is left.
  result.best_t = 0;
  if (max_redundant >= 1) {
    auto first = result.mean_by_t.begin() + 1;
    result.best_t = static_cast<int>(std::min_element(first, result.mean_by_t.end()) -
                                     result.mean_by_t.begin());
  }
  return result;
}

}  // namespace choreo::jitter
