// plan_exchange: the candidate schedules of one irregular exchange, each predicted by choreo
// sim on the model's machine, the fastest kept, cut into the ranks' parts.
#include "choreo/sched/exchange_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "choreo/core/error.hpp"
#include "choreo/sched/schedulers.hpp"
#include "edge_colouring.hpp"
#include "exchange_estimate.hpp"
#include "exchange_programs.hpp"
#include "plan_shape.hpp"

namespace choreo {
namespace {

/// A candidate with the plan it runs (Direct and Ring: the ring order).
struct CandidateTrial {
  ExchangeCandidate candidate;
  SlotPlan plan;
  Pacing pacing = Pacing::EmptySlots;
};

/// What validate() rejects, and a pair listed twice: an MPI_Alltoallv sends one message per
/// pair, and a rank's part names its messages by peer.
void check_exchange_pattern(const Pattern& pattern) {
  validate(pattern);
  std::vector<std::pair<int, int>> pairs;
  pairs.reserve(pattern.messages.size());
  for (const Message& m : pattern.messages) pairs.emplace_back(m.src, m.dst);
  std::sort(pairs.begin(), pairs.end());
  if (const auto twice = std::adjacent_find(pairs.begin(), pairs.end()); twice != pairs.end())
    throw Error(fmt::format(
        "plan_exchange: the pattern lists {} -> {} more than once; an exchange sends one "
        "message per pair of ranks: merge them into one",
        twice->first, twice->second));
}

std::int64_t largest_message(const Pattern& pattern) {
  std::int64_t k = 0;
  for (const Message& m : pattern.messages) k = std::max(k, m.bytes);
  return k;
}

int degree_bound(const Pattern& pattern) {
  std::vector<int> out(static_cast<std::size_t>(pattern.ranks)), in(out);
  int degree = 0;
  for (const Message& m : pattern.messages)
    degree = std::max(
        {degree, ++out[static_cast<std::size_t>(m.src)], ++in[static_cast<std::size_t>(m.dst)]});
  return degree;
}

/// Fills the candidate's slots (longest rank's plan) and delays (before each rank's last send).
void count_slots(CandidateTrial& trial) {
  for (const auto& row : trial.plan.slots) {
    const std::size_t length = used_length(row);
    trial.candidate.slots = std::max(trial.candidate.slots, static_cast<int>(length));
    trial.candidate.delays += static_cast<int>(
        std::count(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(length), kDelaySlot));
  }
}

CandidateTrial make_candidate_trial(ExchangeAlgorithm algorithm, SlotPlan plan,
                                    std::int64_t delta_ns) {
  CandidateTrial trial;
  trial.candidate.algorithm = algorithm;
  trial.plan = std::move(plan);
  const bool slotted = algorithm == ExchangeAlgorithm::Delay ||
                       algorithm == ExchangeAlgorithm::Optimal ||
                       algorithm == ExchangeAlgorithm::OptimalPaced;
  trial.candidate.delta_ns = slotted ? delta_ns : 0;
  trial.pacing =
      algorithm == ExchangeAlgorithm::OptimalPaced ? Pacing::EverySlot : Pacing::EmptySlots;
  if (algorithm != ExchangeAlgorithm::Direct) count_slots(trial);
  return trial;
}

bool in_ring_order(const CandidateTrial& trial) {
  return trial.candidate.algorithm == ExchangeAlgorithm::Direct ||
         trial.candidate.algorithm == ExchangeAlgorithm::Ring;
}

/// Whether two trials run the same program on every rank. Direct and Ring do: each rank's
/// sends in ring order, none held back, started one after another (MPI_Startall starts them
/// in order too), so Ring is predicted as Direct is.
bool same_program(const CandidateTrial& a, const CandidateTrial& b) {
  if (in_ring_order(a) || in_ring_order(b)) return in_ring_order(a) && in_ring_order(b);
  return a.pacing == b.pacing && a.candidate.delta_ns == b.candidate.delta_ns &&
         a.plan.slots == b.plan.slots;
}

/// The makespan choreo sim predicts for the trial on the model's machine, or (not `simulate`)
/// paper 000's model (estimate_ns).
std::int64_t predict_trial(const Pattern& pattern, const CandidateTrial& trial,
                           const ExchangeModel& model, bool simulate) {
  if (!simulate)
    return detail::estimate_ns(pattern, in_ring_order(trial) ? plan_ring(pattern) : trial.plan,
                               trial.candidate.delta_ns, model);
  // Direct in the ring's chained shape (each send released when the one before it started):
  // the same start times as all sends posted at once, without each waiting send retrying every
  // time the NIC frees (a rank of degree d otherwise retries O(d^2) times; 25-37% of the
  // planning time of paper 000's 64-rank patterns).
  const CompactSchedule schedule =
      in_ring_order(trial)
          ? detail::compact_from_plan(pattern, plan_ring(pattern), 0, Pacing::EmptySlots)
          : detail::compact_from_plan(pattern, trial.plan, trial.candidate.delta_ns, trial.pacing);
  sim::SimOptions options;
  options.params = model.params;
  options.network = model.network;
  options.dma_receive = model.dma_receive;
  return sim::simulate(schedule, options).makespan;
}

/// The trial before `i` that runs the same program, or i.
std::size_t first_alike(const std::vector<CandidateTrial>& trials, std::size_t i) {
  std::size_t j = 0;
  while (!same_program(trials[j], trials[i])) ++j;
  return j;
}

/// Predicts every trial, each program once: by simulation where all of them fit the model's
/// budget, else by paper 000's model.
void predict_all(const Pattern& pattern, std::vector<CandidateTrial>& trials,
                 const ExchangeModel& model) {
  std::int64_t work = 0;
  for (std::size_t i = 0; i < trials.size(); ++i)
    if (first_alike(trials, i) == i)
      work += detail::simulation_work(pattern, trials[i].candidate.algorithm);
  const bool simulate = work <= model.simulation_budget;
  for (std::size_t i = 0; i < trials.size(); ++i) {
    const std::size_t j = first_alike(trials, i);
    trials[i].candidate.simulated = simulate;
    trials[i].candidate.predicted_ns = j < i ? trials[j].candidate.predicted_ns
                                             : predict_trial(pattern, trials[i], model, simulate);
  }
}

/// The trials `algorithm` asks for, in the order Auto prefers on ties: Direct, Ring, Delay,
/// Optimal, OptimalPaced. Optimal reuses delay insertion's plan when Auto made it.
std::vector<CandidateTrial> make_candidate_trials(const Pattern& pattern,
                                                  ExchangeAlgorithm algorithm, int degree,
                                                  std::int64_t delta_ns) {
  using A = ExchangeAlgorithm;
  auto wanted = [&](A a) {
    return algorithm == a || (algorithm == A::Auto) ||
           (algorithm == A::OptimalPaced && a == A::Optimal);
  };
  std::vector<CandidateTrial> trials;
  if (wanted(A::Direct) || wanted(A::Ring)) {
    const SlotPlan ring = plan_ring(pattern);
    if (wanted(A::Direct)) trials.push_back(make_candidate_trial(A::Direct, ring, delta_ns));
    if (wanted(A::Ring)) trials.push_back(make_candidate_trial(A::Ring, ring, delta_ns));
  }
  SlotPlan delay;
  const bool delay_wanted =
      algorithm == A::Delay ||
      (algorithm == A::Auto &&
       detail::delay_insertion_is_cheap(static_cast<std::size_t>(pattern.ranks), degree));
  if (delay_wanted) {
    delay = plan_delay_insertion(pattern);
    trials.push_back(make_candidate_trial(A::Delay, delay, delta_ns));
  }
  if (wanted(A::Optimal)) {
    SlotPlan optimal =
        detail::plan_optimal(pattern, detail::OptimalMethod::Auto, delay_wanted ? &delay : nullptr);
    if (algorithm != A::OptimalPaced)
      trials.push_back(make_candidate_trial(A::Optimal, optimal, delta_ns));
    if (wanted(A::OptimalPaced))
      trials.push_back(make_candidate_trial(A::OptimalPaced, std::move(optimal), delta_ns));
  }
  return trials;
}

}  // namespace

ExchangePlan plan_exchange(const Pattern& pattern, const ExchangeModel& model,
                           ExchangeAlgorithm algorithm) {
  check_exchange_pattern(pattern);
  to_string(algorithm);  // throws for a value outside the enumeration
  ExchangePlan out;
  out.delta_ns = model.slot_ns(largest_message(pattern));
  out.degree_bound = degree_bound(pattern);

  std::vector<CandidateTrial> trials =
      make_candidate_trials(pattern, algorithm, out.degree_bound, out.delta_ns);
  const bool has_direct = std::any_of(trials.begin(), trials.end(), [](const CandidateTrial& t) {
    return t.candidate.algorithm == ExchangeAlgorithm::Direct;
  });
  if (!has_direct)
    trials.push_back(make_candidate_trial(ExchangeAlgorithm::Direct, {}, 0));  // direct_ns
  predict_all(pattern, trials, model);
  const auto direct = std::find_if(trials.begin(), trials.end(), [](const CandidateTrial& t) {
    return t.candidate.algorithm == ExchangeAlgorithm::Direct;
  });
  out.direct_ns = direct->candidate.predicted_ns;
  if (!has_direct) trials.pop_back();

  // The fastest; ties to fewer delays, then to the earlier trial (the simpler algorithm).
  const auto best = std::min_element(
      trials.begin(), trials.end(), [](const CandidateTrial& a, const CandidateTrial& b) {
        return std::pair(a.candidate.predicted_ns, a.candidate.delays) <
               std::pair(b.candidate.predicted_ns, b.candidate.delays);
      });
  out.algorithm = best->candidate.algorithm;
  out.predicted_ns = best->candidate.predicted_ns;
  out.ranks = detail::rank_exchanges(pattern, best->plan, best->pacing, best->candidate.delta_ns);
  for (CandidateTrial& trial : trials) out.candidates.push_back(trial.candidate);
  return out;
}

}  // namespace choreo
