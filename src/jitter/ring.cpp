// Ring allreduce under paper 004's noise: P-1 reduce-scatter steps then P-1 allgather steps,
// each moving N/P bytes from rank r-1 to rank r.
#include <fmt/core.h>

#include <algorithm>

#include "choreo/core/error.hpp"
#include "choreo/jitter/allreduce.hpp"

namespace choreo::jitter {

void check_ring_ranks(std::int64_t ranks) {
  check_ranks(ranks);
  if (ranks > kMaxRingRanks)
    throw Error(
        fmt::format("jitter: the ring simulation costs O(P^2) per trial, so it stops at "
                    "{} ranks, not {}; leave ring out of the algorithms above that",
                    kMaxRingRanks, ranks));
}

double ring_time(const JitterParams& p, std::int64_t ranks, Trial& trial) {
  check(p);
  check_ring_ranks(ranks);
  const auto count = static_cast<std::size_t>(ranks);
  const double chunk = p.bytes / static_cast<double>(ranks);
  const double message = p.message_seconds(chunk);
  const NetworkNoise noise(p, message);
  const bool exchange = p.coupling == Coupling::Exchange;
  std::vector<double> times(count, 0.0), next(count);
  for (std::int64_t step = 0; step < 2 * (ranks - 1); ++step) {
    const bool reduce = step < ranks - 1;  // the allgather half only copies
    for (std::size_t r = 0; r < count; ++r) {
      const double transfer = message + noise.delay(trial.rng);
      const double ready = exchange ? std::max(times[r], times[(r + count - 1) % count] + transfer)
                                    : times[r] + transfer;
      next[r] = reduce ? os_finish(p, trial.phase[r], ready, p.gamma * chunk) : ready;
    }
    times.swap(next);
  }
  return *std::max_element(times.begin(), times.end());
}

}  // namespace choreo::jitter
