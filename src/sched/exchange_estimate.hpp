#pragma once
// Internal to plan_exchange: what predicting a candidate by simulation costs, and the rule that
// predicts it instead where that is too much.
#include <cstdint>

#include "choreo/core/pattern.hpp"
#include "choreo/sched/exchange_plan.hpp"
#include "choreo/sched/schedulers.hpp"

namespace choreo::detail {

/// Work of simulating a candidate, in units of about 0.06 us of choreo sim with fair sharing
/// (measured on paper 000's patterns, docs/scheduling.md). Slotted plans: 16 a message.
/// Direct and Ring, whose sends are all ready at once and whose flows share their receivers'
/// links: E + the sum over ranks of in-degree^2 + out-degree^2 (a flow starting or ending
/// reshares the flows at its ends; a rank's waiting sends each retry as the one before leaves).
std::int64_t simulation_work(const Pattern& pattern, ExchangeAlgorithm algorithm);

/// The rule beyond the budget: paper 000's model (eqs. 13-16, eq. 16 as fixed in report_plan)
/// with every rank's slot t sent at t x delta_ns (Direct and Ring: at t x slot length), and each
/// receiver taking one message at a time through its port, (k-1) G a message: a plan with
/// contention pays for it at its receivers, which is all it pays. That is optimistic for plans
/// with contention: under fair sharing a slowed flow also holds its sender's link.
std::int64_t estimate_ns(const Pattern& pattern, const SlotPlan& plan, std::int64_t delta_ns,
                         const ExchangeModel& model);

}  // namespace choreo::detail
