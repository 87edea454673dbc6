#pragma once
// Static checks of a CompactSchedule, the simulator's form of a schedule, without building a
// choreo::Schedule (whose per-op dependency vectors would take several times the memory at
// 2^20 ranks). The checks are choreo::validate's, in its order, run as streaming passes over
// the compact arrays: per-rank checks one rank at a time, matching destination by
// destination, and the deadlock play on flat per-op arrays.
#include "choreo/core/compact_schedule.hpp"

namespace choreo::sim {

/// Throws choreo::Error exactly when choreo::validate(expand(schedule)) would, with the same
/// one-line message ("rank R, op I (kind ...): problem; fix"); op ids are program positions
/// within the rank. Checks op fields, dependency cycles (first-of groups aware), channel
/// order, message matching (non-overtaking, wildcards, receives that may steal each other's
/// message, sizes, unmatched ends) and deadlock under the rendezvous rule.
///
/// Memory beyond the schedule: 9 bytes per op (message partner, pending count, state), 8 per
/// send and 4 per rank while matching (freed before the deadlock play), and scratch of the
/// largest rank's ops and of the most messages one rank receives.
void validate(const CompactSchedule& schedule);

}  // namespace choreo::sim
