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

#include "choreo/core/pattern.hpp"
#include "choreo/core/schedule.hpp"
#include "choreo/core/slot_plan.hpp"
#include "choreo/model/slot_model.hpp"

namespace choreo {

/// How far `to` comes after `from` in Thakur's ring order (r+1, r+2, ..., wrapping): the
/// order choreo's schedules send and post receives in.
inline int ring_distance(int from, int to, int ranks) {
  return ((to - from) % ranks + ranks) % ranks;
}

/// Thakur's ring (paper 000, sec. 3.2): rank r's sends in the order r+1, r+2, ... of the
/// covering alltoall, missing ones dropped (later sends move earlier; no delays).
SlotPlan plan_ring(const Pattern& pattern);
/// Algorithm 1 with Algorithm 2's priority: slot by slot, ranks with the fewest
/// contention-free choices first; a rank that has none waits a slot (a delay).
SlotPlan plan_delay_insertion(const Pattern& pattern);
/// A contention-free plan with the fewest slots possible, the largest in- or out-degree
/// (König's edge-colouring theorem), by bipartite edge colouring; among such plans one with few
/// delays: delay insertion's plan squeezed into that many slots, or the colouring's, with
/// rank's last sends moved into their empty slots by Kempe-chain swaps (src/sched/optimal.cpp).
SlotPlan plan_optimal(const Pattern& pattern);

/// CC-MPI-style phases (Karwande et al.): the optimal plan's slots as phases, each followed
/// by a dissemination barrier of 0-byte messages (tags 1 and up; data uses tag 0).
Schedule schedule_phases(const Pattern& pattern);

/// Open MPI's MPI_Alltoallv on the pattern (coll/base's pairwise loop, Open MPI 3.x's only
/// choice): P-1 lock-step steps; in step d rank r receives from r-d and sends to r+d, each
/// step waiting for the previous one's receive and send; pairs outside the pattern exchange
/// 0 bytes. Not contention-free: a baseline, as MPI runs it.
Schedule schedule_pairwise(const Pattern& pattern);

/// Checks a plan against its pattern: every message exactly once, at most one send per rank
/// per slot (by construction) and, if `contention_free`, no two sends to one destination in
/// a slot. Throws choreo::Error naming the first violation.
void check_plan(const Pattern& pattern, const SlotPlan& plan, bool contention_free);

/// How a plan's slots become time.
enum class Pacing {
  /// Paper 000's Fig. 4: only an empty slot sleeps (δ after the op before it started); a
  /// send in the next slot starts as soon as the send before it started, and the NIC or the
  /// network spaces them. Where a rank's sends go out together and share its link (SMPI's
  /// flow model, several TCP sockets) its later slots drift early and collide.
  EmptySlots,
  /// Time-slotted: every slot lasts δ, so the send of slot t starts t·δ after the rank's
  /// first op, whatever the slots before it held. With δ one message's port time the slots
  /// stay aligned across ranks, and a contention-free plan stays contention-free.
  EverySlot,
};

/// The plan as a Schedule; delays sleep `delay_ns`. Messages use tag 0.
Schedule schedule_from_plan(const Pattern& pattern, const SlotPlan& plan, std::int64_t delay_ns,
                            Pacing pacing = Pacing::EmptySlots);

/// The naive baseline: the ring order without slots; what a plain MPI_Alltoallv-style loop
/// does. Every rank posts all its receives, then sends to r+1, r+2, ... (wrapping).
Schedule schedule_direct(const Pattern& pattern);

// ---- unequal sizes: an open shop in byte-times ------------------------------------------
// Every rank has one send port and one receive port. A message src -> dst of b bytes holds
// src's send port and dst's receive port for the b byte-times [start, start + b), without
// preemption (one message, one send). Time is counted in bytes: at B bytes/s a byte-time is
// 1/B s.

struct TimedSend {
  int message = 0;         ///< index into pattern.messages
  std::int64_t start = 0;  ///< byte-times after the start of the exchange
  friend bool operator==(const TimedSend&, const TimedSend&) = default;
};

struct TimedPlan {
  /// sends[r]: rank r's sends in the order it makes them (by start time).
  std::vector<std::vector<TimedSend>> sends;
  std::string algorithm;
};

/// The largest number of bytes through one port: max over ranks of max(bytes sent, bytes
/// received). No plan, timed or slotted, finishes in fewer byte-times.
std::int64_t port_bytes_lower_bound(const Pattern& pattern);

/// When the last message of a plan (one that passes check_timed_plan) ends, in byte-times.
std::int64_t makespan_bytes(const Pattern& pattern, const TimedPlan& plan);

/// A short non-preemptive open-shop plan: dense list scheduling that, whenever ports free up,
/// starts the waiting message whose sender or receiver has the most bytes still to go first
/// (longest remaining port load first), with variants of the rule tried until one reaches the
/// bound (docs/scheduling.md). Dense (no sender and receiver of a waiting message are ever idle
/// together), so at most 2x port_bytes_lower_bound. When all messages have one size k it also
/// colours the pattern (plan_optimal) and keeps the shorter plan, so equal sizes always reach
/// the bound, degree x k. Deterministic. Validates the pattern (throws choreo::Error).
TimedPlan plan_open_shop(const Pattern& pattern);

/// Checks a timed plan against its pattern: every message exactly once, by its sender, at a
/// start >= 0; each rank's sends in order, each starting when the one before it has ended; no
/// two messages into one receiver overlapping. Throws choreo::Error naming the first violation.
void check_timed_plan(const Pattern& pattern, const TimedPlan& plan);

/// The plan in paper 000's runtime shape (Fig. 4), as schedule_from_plan: receives posted
/// first; sends in plan order, each started once the send before it started; where a send
/// starts later than the one before it ends, a delay before it that sleeps from the start of
/// the send before it (or from time 0) to its own start, at `ns_per_byte` (> 0) ns a byte.
/// Messages use tag 0; ops carry no slot.
Schedule schedule_from_timed_plan(const Pattern& pattern, const TimedPlan& plan,
                                  double ns_per_byte);

}  // namespace choreo
