// The fold and the pairwise exchange stage of the jitter simulations.
#include "stages.hpp"

#include <algorithm>
#include <bit>

namespace choreo::jitter::detail {

Fold::Fold(std::int64_t ranks)
    : p2(static_cast<std::int64_t>(std::bit_floor(static_cast<std::uint64_t>(ranks)))),
      rem(ranks - p2),
      stages(std::countr_zero(static_cast<std::uint64_t>(p2))) {}

std::vector<double> fold_in(const JitterParams& p, const Fold& fold, Trial& trial) {
  std::vector<double> times(static_cast<std::size_t>(fold.p2), 0.0);
  const NetworkNoise noise(p, p.message_seconds());
  for (std::int64_t v = 0; v < fold.rem; ++v) {
    const double arrival = p.message_seconds() + noise.delay(trial.rng);
    times[static_cast<std::size_t>(v)] =
        os_finish(p, trial.phase[fold.real_rank(v)], arrival, p.gamma * p.bytes);
  }
  return times;
}

void exchange_stage(const JitterParams& p, const Fold& fold, std::int64_t mask,
                    double message_bytes, OnArrival on_arrival, std::vector<double>& times,
                    std::vector<double>& scratch, Trial& trial) {
  const double message = p.message_seconds(message_bytes);
  const double work = p.gamma * message_bytes;
  const NetworkNoise noise(p, message);
  const bool exchange = p.coupling == Coupling::Exchange;
  scratch.resize(times.size());
  for (std::int64_t v = 0; v < fold.p2; ++v) {
    const auto self = static_cast<std::size_t>(v);
    const double own = times[self];
    const double delay = noise.delay(trial.rng);
    const double ready =
        exchange ? std::max(own, times[static_cast<std::size_t>(v ^ mask)] + message + delay)
                 : own + message + delay;
    scratch[self] = on_arrival == OnArrival::Reduce
                        ? os_finish(p, trial.phase[fold.real_rank(v)], ready, work)
                        : ready;
  }
  times.swap(scratch);
}

std::vector<double> fold_out_delays(const JitterParams& p, const Fold& fold, Trial& trial) {
  std::vector<double> delays(static_cast<std::size_t>(fold.rem));
  const NetworkNoise noise(p, p.message_seconds());
  for (double& d : delays) d = noise.delay(trial.rng);
  return delays;
}

double completion(const JitterParams& p, const Fold& fold, const std::vector<double>& done,
                  const std::vector<double>& fold_out_delay) {
  double last = 0;
  for (std::int64_t v = 0; v < fold.p2; ++v) {
    const auto self = static_cast<std::size_t>(v);
    double t = done[self];
    if (v < fold.rem) t += p.message_seconds() + fold_out_delay[self];
    last = std::max(last, t);
  }
  return last;
}

}  // namespace choreo::jitter::detail
