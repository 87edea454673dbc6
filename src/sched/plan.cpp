// SlotPlan checks, and slotted or timed plans -> Schedule (paper 000 Fig. 4).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "choreo/core/checked.hpp"
#include "choreo/core/error.hpp"
#include "choreo/core/limits.hpp"
#include "choreo/sched/schedulers.hpp"
#include "plan_shape.hpp"

namespace choreo {
namespace {

/// Writes the ops of a schedule, rank after rank, into a Schedule. Op handles are the rank's
/// program positions (= op ids), as in CompactBuilder, the other sink.
class ScheduleSink {
 public:
  ScheduleSink(int ranks, const std::string& algorithm) {
    s_.ranks = ranks;
    s_.algorithm = algorithm;
    s_.programs.resize(static_cast<std::size_t>(ranks));
  }
  void begin_rank(int rank) { ops_ = &s_.programs[static_cast<std::size_t>(rank)].ops; }
  std::uint32_t recv(int peer, std::int64_t bytes) {
    Op op;
    op.kind = OpKind::Recv;
    op.peer = peer;
    op.bytes = bytes;
    return add(op);
  }
  std::uint32_t send(int peer, std::int64_t bytes, int slot) {
    Op op;
    op.kind = OpKind::Send;
    op.peer = peer;
    op.bytes = bytes;
    op.slot = slot;
    return add(op);
  }
  std::uint32_t delay(std::int64_t ns, int slot) {
    Op op;
    op.kind = OpKind::Delay;
    op.nanoseconds = ns;
    op.slot = slot;
    return add(op);
  }
  void requires_started(std::uint32_t op, std::uint32_t dependency) {
    (*ops_)[op].requires_started.push_back(dependency);
  }
  void requires_completed(std::uint32_t op, std::uint32_t dependency) {
    (*ops_)[op].requires_completed.push_back(dependency);
  }
  Schedule finish() { return std::move(s_); }

 private:
  std::uint32_t add(Op op) {
    const auto id = static_cast<std::uint32_t>(ops_->size());
    op.id = id;
    ops_->push_back(std::move(op));
    return id;
  }
  Schedule s_;
  std::vector<Op>* ops_ = nullptr;
};

/// The same into a CompactBuilder (slots are not kept there).
class CompactSink {
 public:
  CompactSink(int ranks, std::size_t ops) : b_(ranks, ops, ops) {}
  void begin_rank(int rank) { b_.begin_rank(rank); }
  std::uint32_t recv(int peer, std::int64_t bytes) { return b_.recv(peer, bytes); }
  std::uint32_t send(int peer, std::int64_t bytes, int /*slot*/) { return b_.send(peer, bytes); }
  std::uint32_t delay(std::int64_t ns, int /*slot*/) { return b_.delay(ns); }
  void requires_started(std::uint32_t op, std::uint32_t dependency) {
    b_.requires_started(op, dependency);
  }
  void requires_completed(std::uint32_t op, std::uint32_t dependency) {
    b_.requires_completed(op, dependency);
  }
  CompactSchedule finish() { return b_.finish(); }

 private:
  CompactBuilder b_;
};

/// Fig. 4, first part: each rank's receives, all posted at the start, in the order the ring's
/// sends reach it (incoming[r]: the messages to r).
std::vector<std::vector<const Message*>> incoming_in_ring_order(const Pattern& pattern) {
  std::vector<std::vector<const Message*>> incoming(static_cast<std::size_t>(pattern.ranks));
  for (const auto& m : pattern.messages) incoming[static_cast<std::size_t>(m.dst)].push_back(&m);
  for (int r = 0; r < pattern.ranks; ++r)
    std::stable_sort(
        incoming[static_cast<std::size_t>(r)].begin(), incoming[static_cast<std::size_t>(r)].end(),
        [&](const Message* a, const Message* b) {
          return ring_distance(a->src, r, pattern.ranks) < ring_distance(b->src, r, pattern.ranks);
        });
  return incoming;
}

/// Fig. 4, second part: sends and delays, each after the first starting once the send before
/// it started, or once the delay before it completed.
template <typename Sink>
class Chain {
 public:
  explicit Chain(Sink& sink) : sink_(sink) {}
  void send(const Message& m, int slot) { link(sink_.send(m.dst, m.bytes, slot), false); }
  void delay(std::int64_t ns, int slot) { link(sink_.delay(ns, slot), true); }

 private:
  void link(std::uint32_t op, bool is_delay) {
    if (has_last_) {
      if (last_is_delay_)
        sink_.requires_completed(op, last_);
      else
        sink_.requires_started(op, last_);
    }
    has_last_ = true;
    last_ = op;
    last_is_delay_ = is_delay;
  }
  Sink& sink_;
  bool has_last_ = false, last_is_delay_ = false;
  std::uint32_t last_ = 0;
};

/// How a plan's slots become ops.
enum class Shape {
  EmptySlots,  ///< Pacing::EmptySlots
  EverySlot,   ///< Pacing::EverySlot
  AllAtOnce,   ///< schedule_direct: every send ready at once, no slots
};

/// Time-slotted: a clock of delays, each starting when the one before it ends (the first when
/// slot 0's send starts, or at once), and slot t's send waiting for delay t. Sends are leaves
/// of the clock, so what starting a send costs does not push later slots back.
template <typename Sink>
void append_paced(Sink& sink, const std::vector<int>& slots, const Pattern& pattern,
                  std::int64_t delay_ns) {
  bool has_clock = false, has_first_send = false;
  std::uint32_t clock = 0, first_send = 0;  // the latest delay of the clock; slot 0's send
  for (std::size_t t = 0; t < used_length(slots); ++t) {
    const int slot = static_cast<int>(t);
    if (t > 0) {
      const std::uint32_t wait = sink.delay(delay_ns, slot);
      if (has_clock) sink.requires_completed(wait, clock);
      if (!has_clock && has_first_send) sink.requires_started(wait, first_send);
      has_clock = true;
      clock = wait;
    }
    if (slots[t] == kDelaySlot) continue;
    const Message& m = pattern.messages[static_cast<std::size_t>(slots[t])];
    const std::uint32_t send = sink.send(m.dst, m.bytes, slot);
    if (has_clock) sink.requires_completed(send, clock);
    if (t == 0) {
      has_first_send = true;
      first_send = send;
    }
  }
}

/// A checked slotted plan in `shape`, into `sink`.
template <typename Sink>
void emit_plan(const Pattern& pattern, const SlotPlan& plan, std::int64_t delay_ns, Shape shape,
               Sink& sink) {
  const auto incoming = incoming_in_ring_order(pattern);
  for (int r = 0; r < pattern.ranks; ++r) {
    sink.begin_rank(r);
    for (const Message* m : incoming[static_cast<std::size_t>(r)]) sink.recv(m->src, m->bytes);
    const auto& slots = plan.slots[static_cast<std::size_t>(r)];
    if (shape == Shape::EverySlot) {
      append_paced(sink, slots, pattern, delay_ns);
      continue;
    }
    Chain<Sink> chain(sink);
    for (std::size_t t = 0; t < used_length(slots); ++t) {
      const int slot = static_cast<int>(t);
      if (slots[t] == kDelaySlot) {
        chain.delay(delay_ns, slot);
      } else {
        const Message& m = pattern.messages[static_cast<std::size_t>(slots[t])];
        if (shape == Shape::AllAtOnce)
          sink.send(m.dst, m.bytes, kNoSlot);
        else
          chain.send(m, slot);
      }
    }
  }
}

Shape shape_of(Pacing pacing) {
  return pacing == Pacing::EverySlot ? Shape::EverySlot : Shape::EmptySlots;
}

void check_delay(std::int64_t delay_ns) {
  if (delay_ns < 0) throw Error(fmt::format("the delay must be >= 0 ns, not {}", delay_ns));
  limits::check_nanoseconds(delay_ns, "the delay per slot (ns)");
}

/// Ops a plan becomes at most: a receive and a send a message, a delay a slot.
std::size_t op_bound(const Pattern& pattern, const SlotPlan& plan) {
  std::size_t ops = 2 * pattern.messages.size();
  for (const auto& row : plan.slots) ops += row.size();
  return ops;
}

}  // namespace

void check_plan(const Pattern& pattern, const SlotPlan& plan, bool contention_free) {
  if (plan.slots.size() != static_cast<std::size_t>(pattern.ranks))
    throw Error(fmt::format("{} plan has {} ranks, the pattern {}", plan.algorithm,
                            plan.slots.size(), pattern.ranks));
  std::vector<int> seen(pattern.messages.size(), 0);
  struct Arrival {
    std::size_t slot;
    int dst, src;
    auto operator<=>(const Arrival&) const = default;
  };
  std::vector<Arrival> arrivals;  // for the contention check
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
      if (contention_free) arrivals.push_back({t, msg.dst, r});
    }
  }
  std::sort(arrivals.begin(), arrivals.end());
  for (std::size_t i = 1; i < arrivals.size(); ++i)
    if (arrivals[i].slot == arrivals[i - 1].slot && arrivals[i].dst == arrivals[i - 1].dst)
      throw Error(fmt::format("slot {}: ranks {} and {} both send to rank {} (contention)",
                              arrivals[i].slot, arrivals[i - 1].src, arrivals[i].src,
                              arrivals[i].dst));
  for (std::size_t m = 0; m < seen.size(); ++m)
    if (!seen[m])
      throw Error(fmt::format("message {} ({} -> {}) is never sent", m, pattern.messages[m].src,
                              pattern.messages[m].dst));
}

Schedule schedule_from_plan(const Pattern& pattern, const SlotPlan& plan, std::int64_t delay_ns,
                            Pacing pacing) {
  check_plan(pattern, plan, false);
  check_delay(delay_ns);
  ScheduleSink sink(pattern.ranks, plan.algorithm);
  emit_plan(pattern, plan, delay_ns, shape_of(pacing), sink);
  return sink.finish();
}

Schedule schedule_direct(const Pattern& pattern) {
  ScheduleSink sink(pattern.ranks, "direct");
  emit_plan(pattern, plan_ring(pattern), 0, Shape::AllAtOnce, sink);
  return sink.finish();
}

namespace detail {

CompactSchedule compact_from_plan(const Pattern& pattern, const SlotPlan& plan,
                                  std::int64_t delay_ns, Pacing pacing) {
  check_plan(pattern, plan, false);
  check_delay(delay_ns);
  CompactSink sink(pattern.ranks, op_bound(pattern, plan));
  emit_plan(pattern, plan, delay_ns, shape_of(pacing), sink);
  return sink.finish();
}

CompactSchedule compact_direct(const Pattern& pattern) {
  const SlotPlan ring = plan_ring(pattern);
  CompactSink sink(pattern.ranks, op_bound(pattern, ring));
  emit_plan(pattern, ring, 0, Shape::AllAtOnce, sink);
  return sink.finish();
}

}  // namespace detail

Schedule schedule_from_timed_plan(const Pattern& pattern, const TimedPlan& plan,
                                  double ns_per_byte) {
  check_timed_plan(pattern, plan);
  if (!(ns_per_byte > 0) || !std::isfinite(ns_per_byte))
    throw Error(
        fmt::format("the time per byte must be a positive number of ns, not {}", ns_per_byte));
  ScheduleSink sink(pattern.ranks, plan.algorithm);
  const auto incoming = incoming_in_ring_order(pattern);
  for (int r = 0; r < pattern.ranks; ++r) {
    sink.begin_rank(r);
    for (const Message* m : incoming[static_cast<std::size_t>(r)]) sink.recv(m->src, m->bytes);
    Chain<ScheduleSink> chain(sink);
    std::int64_t before_start = 0, before_end = 0;  // the send before (none: time 0)
    for (const TimedSend& send : plan.sends[static_cast<std::size_t>(r)]) {
      const Message& m = pattern.messages[static_cast<std::size_t>(send.message)];
      if (send.start > before_end)  // idle first: sleep from the start of the send before
        chain.delay(
            limits::check_nanoseconds(
                checked_llround(static_cast<double>(send.start - before_start) * ns_per_byte,
                                "a delay of the open-shop schedule (ns)"),
                "a delay of the open-shop schedule (ns)"),
            kNoSlot);
      chain.send(m, kNoSlot);
      before_start = send.start;
      before_end = send.start + m.bytes;
    }
  }
  return sink.finish();
}

}  // namespace choreo
