// Butterfly allreduce and paper 004's resilient version: T redundant exchanges of the result
// with the partners of the first T stages, each rank keeping the first copy to arrive.
#include <fmt/core.h>

#include <algorithm>

#include "choreo/core/error.hpp"
#include "choreo/jitter/allreduce.hpp"
#include "stages.hpp"

namespace choreo::jitter {

namespace {

/// The redundant phase, recording the completion time after each exchange. `have` is when
/// each virtual rank holds the result; in the paper's model a copy costs its sender nothing,
/// so a rank forwards the result the moment it has it, whether it computed or received it.
void redundant_phase(const JitterParams& p, const detail::Fold& fold, int max_redundant,
                     std::vector<double> have, const std::vector<double>& fold_out_delay,
                     Trial& trial, std::vector<double>& times_by_t) {
  const double message = p.message_seconds();
  const NetworkNoise noise(p, message);
  const bool sender_busy = p.redundant_cost == RedundantCost::SenderBusy;
  // When each rank's CPU is free again after the copies it has sent (SenderBusy only).
  // Waiting for butterfly messages does not occupy it, so it starts free.
  std::vector<double> busy(have.size(), 0.0);
  std::vector<double> sent(have.size());   // when this exchange's copy leaves each rank
  std::vector<double> delay(have.size());  // network noise of the copy each rank receives
  std::vector<double> done(have.size());
  for (int j = 0; j < max_redundant; ++j) {
    const std::int64_t mask = std::int64_t{1} << j;
    for (double& d : delay) d = noise.delay(trial.rng);
    std::vector<double> busy_if_sent(busy);
    for (std::size_t v = 0; v < have.size(); ++v) {
      if (!sender_busy) {
        sent[v] = have[v] + message;
        continue;
      }
      // Copies go one after another, each holding the CPU for a message time, and jitter
      // stretches them like any other work.
      const double start = std::max(have[v], busy[v]);
      busy_if_sent[v] =
          os_finish(p, trial.phase[fold.real_rank(static_cast<std::int64_t>(v))], start, message);
      sent[v] = busy_if_sent[v];
    }
    for (std::size_t v = 0; v < have.size(); ++v) {
      const double copy = sent[v ^ static_cast<std::size_t>(mask)] + delay[v];
      // A rank that got its partner's copy before holding the result has nothing to tell
      // that partner, so it skips its send (and its cost). At most one of a pair skips,
      // and the partner's copy would have come too late to matter anyway.
      if (sender_busy && copy > have[v]) busy[v] = busy_if_sent[v];
      have[v] = std::min(have[v], copy);
    }
    for (std::size_t v = 0; v < have.size(); ++v)
      done[v] = sender_busy ? std::max(have[v], busy[v]) : have[v];
    times_by_t.push_back(detail::completion(p, fold, done, fold_out_delay));
  }
}

}  // namespace

int butterfly_stages(std::int64_t ranks) {
  check_ranks(ranks);
  return detail::Fold(ranks).stages;
}

std::vector<double> butterfly_times(const JitterParams& p, std::int64_t ranks, int max_redundant,
                                    Trial& trial) {
  check(p);
  check_ranks(ranks);
  const detail::Fold fold(ranks);
  if (max_redundant < 0 || max_redundant > fold.stages)
    throw Error(
        fmt::format("jitter: the number of redundant exchanges T must be between 0 and log2 of the "
                    "butterfly ({} for {} ranks), not {}",
                    fold.stages, ranks, max_redundant));
  if (trial.phase.size() != static_cast<std::size_t>(ranks))
    throw Error(
        "jitter: the trial was made for a different number of ranks; call make_trial "
        "with the same ranks");
  std::vector<double> times = detail::fold_in(p, fold, trial);
  std::vector<double> scratch;
  for (int stage = 0; stage < fold.stages; ++stage)
    detail::exchange_stage(p, fold, std::int64_t{1} << stage, p.bytes, detail::OnArrival::Reduce,
                           times, scratch, trial);
  const std::vector<double> fold_out_delay = detail::fold_out_delays(p, fold, trial);
  std::vector<double> times_by_t{detail::completion(p, fold, times, fold_out_delay)};
  redundant_phase(p, fold, max_redundant, std::move(times), fold_out_delay, trial, times_by_t);
  return times_by_t;
}

}  // namespace choreo::jitter
