#include "exchange_choice.hpp"

#include <initializer_list>

namespace choreo::intercept {
namespace {

bool allowed(Candidate c, const ChoiceRules& rules) {
  switch (c) {
    case Candidate::Planned:
      return true;
    case Candidate::Direct:
      return rules.allow_direct;
    case Candidate::Mpi:
      return rules.allow_mpi;
  }
  return false;
}

/// The order candidates are timed in: the model's verdict first, then the other of the two,
/// then the plain exchange.
std::initializer_list<Candidate> trial_order(const ChoiceRules& rules) {
  static constexpr std::initializer_list<Candidate> kChoreoFirst = {
      Candidate::Planned, Candidate::Mpi, Candidate::Direct};
  static constexpr std::initializer_list<Candidate> kMpiFirst = {Candidate::Mpi, Candidate::Planned,
                                                                 Candidate::Direct};
  return rules.model_prefers_mpi ? kMpiFirst : kChoreoFirst;
}

/// A choreo candidate's time with MPI's handicap: what it must beat MPI's by.
double effective(Candidate c, std::int64_t ns) {
  return c == Candidate::Mpi ? static_cast<double>(ns)
                             : static_cast<double>(ns) * kRequiredMeasuredGain;
}

}  // namespace

bool still_measuring(const CandidateTimes& times, const ChoiceRules& rules) {
  for (Candidate c : trial_order(rules))
    if (allowed(c, rules) && times[c] <= 0) return true;
  return false;
}

Candidate choose_candidate(const CandidateTimes& times, const ChoiceRules& rules,
                           Candidate running) {
  for (Candidate c : trial_order(rules))
    if (allowed(c, rules) && times[c] <= 0) return c;
  Candidate best = Candidate::Planned;
  double best_time = 0;
  bool any = false;
  for (Candidate c : trial_order(rules)) {
    if (!allowed(c, rules)) continue;
    const double t = effective(c, times[c]);
    if (!any || t < best_time) {
      best = c;
      best_time = t;
      any = true;
    }
  }
  if (allowed(running, rules) && running != best &&
      effective(running, times[running]) <= best_time * kSwitchAbove)
    return running;
  return best;
}

}  // namespace choreo::intercept
