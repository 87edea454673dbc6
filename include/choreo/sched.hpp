#pragma once
// Schedulers: turn a Pattern into a Schedule.
#include "choreo/pattern.hpp"
#include "choreo/schedule.hpp"

namespace choreo {

/// The naive baseline, what a plain MPI_Alltoallv-style code does: every rank posts all
/// its receives at once, then starts its sends with no delays, rank r sending first to
/// r+1, then r+2, ... (wrapping), so that not everyone targets rank 0 first.
Schedule schedule_direct(const Pattern& pattern);

}  // namespace choreo
