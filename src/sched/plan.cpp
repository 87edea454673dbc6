// SlotPlan checks, and slotted or timed plans -> Schedule (paper 000 Fig. 4).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "choreo/error.hpp"
#include "choreo/sched.hpp"

namespace choreo {
namespace {

/// Fig. 4, first part: every rank's receives, all posted at the start, in the order the
/// ring's sends reach it.
Schedule post_receives(const Pattern& pattern, const std::string& algorithm) {
  Schedule s;
  s.ranks = pattern.ranks;
  s.algorithm = algorithm;
  s.programs.resize(static_cast<std::size_t>(pattern.ranks));
  std::vector<std::vector<const Message*>> incoming(s.programs.size());
  for (const auto& m : pattern.messages) incoming[static_cast<std::size_t>(m.dst)].push_back(&m);
  for (int r = 0; r < pattern.ranks; ++r) {
    auto& ops = s.programs[static_cast<std::size_t>(r)].ops;
    auto& in = incoming[static_cast<std::size_t>(r)];
    std::stable_sort(in.begin(), in.end(), [&](const Message* a, const Message* b) {
      return ring_distance(a->src, r, pattern.ranks) < ring_distance(b->src, r, pattern.ranks);
    });
    for (const Message* m : in) {
      Op op;
      op.id = static_cast<std::int64_t>(ops.size());
      op.kind = OpKind::Recv;
      op.peer = m->src;
      op.bytes = m->bytes;
      ops.push_back(op);
    }
  }
  return s;
}

Op send_op(const Message& m) {
  Op op;
  op.kind = OpKind::Send;
  op.peer = m.dst;
  op.bytes = m.bytes;
  return op;
}

Op delay_op(std::int64_t ns) {
  Op op;
  op.kind = OpKind::Delay;
  op.nanoseconds = ns;
  return op;
}

/// Fig. 4, second part: appends a send or delay. Each one after the first (at index `first`)
/// starts once the send before it started, or once the delay before it completed.
void append_chained(std::vector<Op>& ops, std::size_t first, Op op) {
  op.id = static_cast<std::int64_t>(ops.size());
  if (ops.size() > first) {
    const Op& before = ops.back();
    (before.kind == OpKind::Delay ? op.requires_completed : op.requires_started)
        .push_back(before.id);
  }
  ops.push_back(op);
}

/// Time-slotted: a clock of delays, each starting when the one before it ends (the first
/// when slot 0's send starts, or at once), and slot t's send waiting for delay t. Sends are
/// leaves of the clock, so what starting a send costs does not push later slots back.
void append_paced(std::vector<Op>& ops, const std::vector<int>& slots, const Pattern& pattern,
                  std::int64_t delay_ns) {
  std::int64_t clock = -1;  // the latest delay of the clock
  for (std::size_t t = 0; t < used_length(slots); ++t) {
    if (t > 0) {
      Op wait = delay_op(delay_ns);
      wait.id = static_cast<std::int64_t>(ops.size());
      wait.slot = static_cast<int>(t);
      if (clock >= 0) wait.requires_completed.push_back(clock);
      if (clock < 0 && slots[0] != kDelaySlot) wait.requires_started.push_back(wait.id - 1);
      clock = wait.id;
      ops.push_back(wait);
    }
    if (slots[t] == kDelaySlot) continue;
    Op send = send_op(pattern.messages[static_cast<std::size_t>(slots[t])]);
    send.id = static_cast<std::int64_t>(ops.size());
    send.slot = static_cast<int>(t);
    if (clock >= 0) send.requires_completed.push_back(clock);
    ops.push_back(send);
  }
}

}  // namespace

void check_plan(const Pattern& pattern, const SlotPlan& plan, bool contention_free) {
  if (plan.slots.size() != static_cast<std::size_t>(pattern.ranks))
    throw Error(fmt::format("{} plan has {} ranks, the pattern {}", plan.algorithm,
                            plan.slots.size(), pattern.ranks));
  std::vector<int> seen(pattern.messages.size(), 0);
  std::map<std::pair<std::size_t, int>, int> to_destination;  // (slot, dst) -> message
  for (int r = 0; r < pattern.ranks; ++r) {
    const auto& slots = plan.slots[static_cast<std::size_t>(r)];
    for (std::size_t t = 0; t < slots.size(); ++t) {
      const int m = slots[t];
      if (m == kDelaySlot) continue;
      if (m < 0 || static_cast<std::size_t>(m) >= pattern.messages.size())
        throw Error(fmt::format("rank {} slot {}: no message {}", r, t, m));
      const Message& msg = pattern.messages[static_cast<std::size_t>(m)];
      if (msg.src != r)
        throw Error(fmt::format("rank {} slot {}: message {} is rank {}'s", r, t, m, msg.src));
      if (seen[static_cast<std::size_t>(m)]++)
        throw Error(fmt::format("message {} ({} -> {}) is sent twice", m, msg.src, msg.dst));
      auto [it, fresh] = to_destination.emplace(std::pair{t, msg.dst}, m);
      if (contention_free && !fresh)
        throw Error(fmt::format("slot {}: ranks {} and {} both send to rank {} (contention)", t,
                                pattern.messages[static_cast<std::size_t>(it->second)].src, r,
                                msg.dst));
    }
  }
  for (std::size_t m = 0; m < seen.size(); ++m)
    if (!seen[m])
      throw Error(fmt::format("message {} ({} -> {}) is never sent", m, pattern.messages[m].src,
                              pattern.messages[m].dst));
}

Schedule schedule_from_plan(const Pattern& pattern, const SlotPlan& plan, std::int64_t delay_ns,
                            Pacing pacing) {
  check_plan(pattern, plan, false);
  if (delay_ns < 0) throw Error(fmt::format("the delay must be >= 0 ns, not {}", delay_ns));
  Schedule s = post_receives(pattern, plan.algorithm);
  for (int r = 0; r < pattern.ranks; ++r) {
    auto& ops = s.programs[static_cast<std::size_t>(r)].ops;
    const auto& slots = plan.slots[static_cast<std::size_t>(r)];
    if (pacing == Pacing::EverySlot) {
      append_paced(ops, slots, pattern, delay_ns);
      continue;
    }
    const std::size_t first = ops.size();
    for (std::size_t t = 0; t < used_length(slots); ++t) {
      Op op = slots[t] == kDelaySlot
                  ? delay_op(delay_ns)
                  : send_op(pattern.messages[static_cast<std::size_t>(slots[t])]);
      op.slot = static_cast<int>(t);
      append_chained(ops, first, op);
    }
  }
  return s;
}

Schedule schedule_from_timed_plan(const Pattern& pattern, const TimedPlan& plan,
                                  double ns_per_byte) {
  check_timed_plan(pattern, plan);
  if (!(ns_per_byte > 0) || !std::isfinite(ns_per_byte))
    throw Error(
        fmt::format("the time per byte must be a positive number of ns, not {}", ns_per_byte));
  Schedule s = post_receives(pattern, plan.algorithm);
  for (int r = 0; r < pattern.ranks; ++r) {
    auto& ops = s.programs[static_cast<std::size_t>(r)].ops;
    const std::size_t first = ops.size();
    std::int64_t before_start = 0, before_end = 0;  // the send before (none: time 0)
    for (const TimedSend& send : plan.sends[static_cast<std::size_t>(r)]) {
      const Message& m = pattern.messages[static_cast<std::size_t>(send.message)];
      if (send.start > before_end)  // idle first: sleep from the start of the send before
        append_chained(
            ops, first,
            delay_op(std::llround(static_cast<double>(send.start - before_start) * ns_per_byte)));
      append_chained(ops, first, send_op(m));
      before_start = send.start;
      before_end = send.start + m.bytes;
    }
  }
  return s;
}

}  // namespace choreo
