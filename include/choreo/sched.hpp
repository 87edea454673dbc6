#pragma once
// Schedulers: turn a Pattern into a Schedule (paper 000 and beyond).
//
// Time-slotted schedulers first make a SlotPlan: for every rank, what it does in each slot of
// length I(k) (send one message, or wait one slot: a delay). The plan becomes a Schedule in
// paper 000's runtime shape (Fig. 4): every receive posted at the start; sends and delays in
// slot order, each send started as soon as the op before it started, each delay sleeping
// `delay_ns` after the op before it started.
#include <cstdint>
#include <string>
#include <vector>

#include "choreo/pattern.hpp"
#include "choreo/schedule.hpp"

namespace choreo {

inline constexpr int kDelaySlot = -1;

struct SlotPlan {
  /// slots[r][t]: index into pattern.messages sent by rank r in slot t, or kDelaySlot.
  std::vector<std::vector<int>> slots;
  std::string algorithm;
};

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
  std::int64_t predicted_ns = 0;      ///< eqs. 13-16; -1 when the plan has contention
  std::int64_t lower_bound_ns = 0;    ///< the model's bound for any plan (degrees, eqs. 15-16)
};

/// Thakur's ring (paper 000, sec. 3.2): rank r's sends in the order r+1, r+2, ... of the
/// covering alltoall, missing ones dropped (later sends move earlier; no delays).
SlotPlan plan_ring(const Pattern& pattern);
/// Algorithm 1 with Algorithm 2's priority: slot by slot, ranks with the fewest
/// contention-free choices first; a rank that has none waits a slot (a delay).
SlotPlan plan_delay_insertion(const Pattern& pattern);
/// A contention-free plan with the fewest slots possible, the largest in- or out-degree
/// (König's edge-colouring theorem), by alternating-path edge colouring.
SlotPlan plan_optimal(const Pattern& pattern);

/// CC-MPI-style phases (Karwande et al.): the optimal plan's slots as phases, each followed
/// by a dissemination barrier of 0-byte messages (tags 1 and up; data uses tag 0).
Schedule schedule_phases(const Pattern& pattern);

/// Checks a plan against its pattern: every message exactly once, at most one send per rank
/// per slot (by construction) and, if `contention_free`, no two sends to one destination in
/// a slot. Throws choreo::Error naming the first violation.
void check_plan(const Pattern& pattern, const SlotPlan& plan, bool contention_free);

PlanReport report_plan(const Pattern& pattern, const SlotPlan& plan, const SlotModel& model);

/// The plan as a Schedule; delays sleep `delay_ns`. Messages use tag 0.
Schedule schedule_from_plan(const Pattern& pattern, const SlotPlan& plan, std::int64_t delay_ns);

/// The naive baseline: the ring order without slots; what a plain MPI_Alltoallv-style loop
/// does. Every rank posts all its receives, then sends to r+1, r+2, ... (wrapping).
Schedule schedule_direct(const Pattern& pattern);

}  // namespace choreo
