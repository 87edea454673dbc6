#pragma once
// Which way an intercepted exchange runs, decided by measurement. The model (plan_exchange)
// picks choreo's schedule for a pattern, but its prediction of MPI's own MPI_Alltoallv is a
// stand-in (Direct) while MPI libraries run other algorithms (MPICH posts throttled batches,
// SMPI's "mpich" selector batches of 4, Open MPI all at once), and its error between close
// candidates is larger than their difference. So each candidate way of running the pattern
// (choreo's planned schedule, the plain exchange in ring order, MPI's own call) runs for one
// short window of calls, timed; the ranks agree on the slowest rank's mean at the next
// checkpoint; then the fastest runs, and keeps being timed. No MPI here.
#include <array>
#include <cstdint>

namespace choreo::intercept {

enum class Candidate : std::uint8_t {
  Planned,  ///< the planner's schedule (paced or not)
  Direct,   ///< every message at once in ring order, no plan
  Mpi,      ///< MPI's own call
};
inline constexpr std::size_t kCandidateCount = 3;

/// What the ranks agreed on for one pattern: each candidate's measured mean call time (0: not
/// measured yet) and which candidates may run.
struct CandidateTimes {
  std::array<std::int64_t, kCandidateCount> ns{};
  std::int64_t& operator[](Candidate c) { return ns[static_cast<std::size_t>(c)]; }
  std::int64_t operator[](Candidate c) const { return ns[static_cast<std::size_t>(c)]; }
};

struct ChoiceRules {
  bool allow_mpi = true;           ///< false with CHOREO_MODE=choreo (choreo's path is forced)
  bool allow_direct = true;        ///< false when the plan is Direct or a setting names a schedule
  bool model_prefers_mpi = false;  ///< the model's verdict: which to time first
};

/// A choreo candidate must beat MPI's own call by this much (measured), or MPI's runs: at a
/// tie MPI's call is as good and costs no schedule.
inline constexpr double kRequiredMeasuredGain = 1.02;
/// The running candidate stays while it is within this factor of the best measured one: the
/// others' times are older, and a switch on noise would cost a window.
inline constexpr double kSwitchAbove = 1.03;

/// The candidate for the next window: an allowed one not yet measured (the model's preference
/// first), else the fastest measured, keeping `running` within kSwitchAbove of it.
Candidate choose_candidate(const CandidateTimes& times, const ChoiceRules& rules,
                           Candidate running);

/// Whether any allowed candidate is still unmeasured (the windows stay short until none is).
bool still_measuring(const CandidateTimes& times, const ChoiceRules& rules);

}  // namespace choreo::intercept
