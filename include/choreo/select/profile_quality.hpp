#pragma once
// How far a machine profile can be trusted: confidence intervals of its fitted parameters, and
// the fits no machine can produce (a loaded or disturbed calibration), each with its reason.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "choreo/model/profile.hpp"

namespace choreo {

/// `profile` with every size's samples (ping-pong, memcpy, bursts, overheads, the collective
/// tables) drawn again with replacement: one bootstrap draw. The fits are left as they were.
MachineProfile resampled(const MachineProfile& profile, std::mt19937_64& rng);

/// 95% intervals of the LogGP and Hockney parameters by the percentile bootstrap: every
/// size's samples (ping-pong, bursts, overheads) are drawn again with replacement
/// `resamples` times, the fits redone, and the 2.5th and 97.5th percentiles of each
/// parameter kept, widened where needed to hold the profile's own fit. Deterministic for a
/// seed. Throws choreo::Error as the fits do.
FitIntervals fit_intervals(const MachineProfile& profile, int resamples = 400,
                           std::uint64_t seed = 1);

/// What makes the profile's fit impossible or degenerate, one sentence each naming the
/// parameter, the numbers and the likely cause; empty when the fit is plausible:
///   - L far below zero before clamping: the overheads measured alone exceed the smallest
///     one-way time by more than a quarter of it and more than a microsecond;
///   - g above 10 times the smallest one-way time (one message's gap longer than ten whole
///     messages one way);
///   - G (or Hockney's beta) zero although the one-way time more than doubles over the
///     sizes, from 64 KiB up;
///   - a table that is not monotone: a size measured at less than half the time of a smaller
///     one, and over a microsecond faster (ping-pong, the collective exchange, memcpy when its
///     clock sees copies).
std::vector<std::string> fit_problems(const MachineProfile& profile);

}  // namespace choreo
