// Rabenseifner allreduce under paper 004's noise: recursive-halving reduce-scatter (N/2, N/4,
// ... bytes with partners p2/2, p2/4, ...) then recursive-doubling allgather back up.
#include "choreo/jitter/allreduce.hpp"
#include "stages.hpp"

namespace choreo::jitter {

double rabenseifner_time(const JitterParams& p, std::int64_t ranks, Trial& trial) {
  check(p);
  check_ranks(ranks);
  const detail::Fold fold(ranks);
  std::vector<double> times = detail::fold_in(p, fold, trial);
  std::vector<double> scratch;
  double size = p.bytes;
  for (std::int64_t mask = fold.p2 / 2; mask >= 1; mask /= 2) {
    size /= 2;
    detail::exchange_stage(p, fold, mask, size, detail::OnArrival::Reduce, times, scratch, trial);
  }
  for (std::int64_t mask = 1; mask < fold.p2; mask *= 2) {
    detail::exchange_stage(p, fold, mask, size, detail::OnArrival::Keep, times, scratch, trial);
    size *= 2;
  }
  return detail::completion(p, fold, times, detail::fold_out_delays(p, fold, trial));
}

}  // namespace choreo::jitter
