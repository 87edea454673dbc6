#pragma once
// Internal: plans in paper 000's runtime shape (Fig. 4) laid out straight for the simulator:
// the ops and dependencies choreo::compact(schedule_from_plan(...)) and
// choreo::compact(schedule_direct(...)) give, without a Schedule in between (plan_exchange
// predicts several candidates in one call; a Schedule costs an allocation an op).
#include <cstdint>

#include "choreo/core/compact_schedule.hpp"
#include "choreo/core/pattern.hpp"
#include "choreo/sched/schedulers.hpp"

namespace choreo::detail {

CompactSchedule compact_from_plan(const Pattern& pattern, const SlotPlan& plan,
                                  std::int64_t delay_ns, Pacing pacing);
CompactSchedule compact_direct(const Pattern& pattern);

}  // namespace choreo::detail
