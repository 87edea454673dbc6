#pragma once
// Paper 000's prediction model (eqs. 10-16): LogGP parameters, the send interval I(k),
// contention pairs (eq. 12), the predicted makespan of a contention-free plan and the
// model's lower bound for any plan of a pattern.
#include <cstdint>
#include <vector>

#include "choreo/core/pattern.hpp"
#include "choreo/core/slot_plan.hpp"

namespace choreo {

/// LogGP parameters of paper 000's prediction model (eqs. 10-16), in ns.
struct SlotModel {
  std::int64_t L = 2500;
  std::int64_t o = 1500;
  double G = 6;
  /// I(k) = o + (k-1)G: the time one send of k bytes occupies its sender.
  std::int64_t interval(std::int64_t k) const;
};

/// What paper 000 reports for a plan.
struct PlanReport {
  int slots = 0;                      ///< length of the longest rank's plan
  int delays = 0;                     ///< delays inserted (not counting trailing ones)
  std::int64_t contention_pairs = 0;  ///< pairs of sends colliding by eq. 12
  int degree_bound = 0;               ///< max in- or out-degree: no contention-free plan is shorter
  /// Eqs. 13-16, each reception starting at the later of its arrival (eq. 15) and its
  /// receiver being free (eq. 16): monotone, a message more never shortens it. -1 when the
  /// plan has contention.
  std::int64_t predicted_ns = 0;
  std::int64_t lower_bound_ns = 0;  ///< the model's bound for any plan (degrees, eqs. 15-16)
};

/// Eqs. 15-16 for one receiver q: when its last reception completes. `sent`: when each message
/// to q leaves its sender (eq. 13), ascending; each arrives L later, lands when q's port has
/// taken the one before (`port_ns` later at least: one message at a time; 0 for a contention-free
/// plan, whose messages arrive a slot apart) and completes o after it landed and q is free
/// (q's own sends end at `busy_until`, the receptions before it have completed). 0 if none.
std::int64_t last_reception_ns(const std::vector<std::int64_t>& sent, std::int64_t busy_until,
                               std::int64_t L, std::int64_t o, std::int64_t port_ns = 0);

/// Slots, delays, contention pairs (eq. 12), the predicted makespan (eqs. 13-16) and the
/// model's bound, for a plan of `pattern`.
PlanReport report_plan(const Pattern& pattern, const SlotPlan& plan, const SlotModel& model);

}  // namespace choreo
