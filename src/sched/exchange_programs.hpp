#pragma once
// Internal to plan_exchange: a plan cut into the ranks' parts (RankExchange).
#include <cstdint>
#include <vector>

#include "choreo/core/pattern.hpp"
#include "choreo/sched/exchange_plan.hpp"
#include "choreo/sched/schedulers.hpp"

namespace choreo::detail {

/// Every rank's part of `plan`: its receives in ring order from the receiver (r-1, r-2, ...:
/// the order the ring's sends reach it, as schedule_from_plan posts them), its sends in slot
/// order, each not before `delta_ns` times the delay slots before it (EmptySlots: paper 000's
/// Fig. 4, where only an empty slot waits) or times its slot (EverySlot).
std::vector<RankExchange> rank_exchanges(const Pattern& pattern, const SlotPlan& plan,
                                         Pacing pacing, std::int64_t delta_ns);

}  // namespace choreo::detail
