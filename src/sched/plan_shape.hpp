#pragma once
// Internal: plans in paper 000's runtime shape (Fig. 4) laid out straight for the simulator:
// the ops and dependencies sim::compact(schedule_from_plan(...)) and
// sim::compact(schedule_direct(...)) give, without a Schedule in between (plan_exchange
// predicts several candidates in one call; a Schedule costs an allocation an op).
#include <cstdint>

#include "choreo/pattern.hpp"
#include "choreo/sched.hpp"
#include "choreo/sim/compact.hpp"

namespace choreo::detail {

sim::CompactSchedule compact_from_plan(const Pattern& pattern, const SlotPlan& plan,
                                       std::int64_t delay_ns, Pacing pacing);
sim::CompactSchedule compact_direct(const Pattern& pattern);

}  // namespace choreo::detail
