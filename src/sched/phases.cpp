// CC-MPI-style phases (Karwande et al.), paper 000's second baseline: the messages are split
// into contention-free phases (the optimal colouring's slots) and every phase ends with a
// barrier, so no phase's sends meet another's. The barrier is a dissemination barrier of
// 0-byte messages, so the schedule stays plain point-to-point: ceil(log2 n) rounds, in round j
// rank r sends to r + 2^j and receives from r - 2^j.
#include "choreo/sched/schedulers.hpp"

namespace choreo {

Schedule schedule_phases(const Pattern& pattern) {
  const SlotPlan plan = plan_optimal(pattern);
  const int n = pattern.ranks;
  int rounds = 0;
  while ((1 << rounds) < n) ++rounds;
  std::size_t phases = 0;
  for (const auto& slots : plan.slots) phases = std::max(phases, slots.size());

  Schedule s;
  s.ranks = n;
  s.algorithm = "phases";
  s.programs.resize(static_cast<std::size_t>(n));
  // Receives of each phase, per receiver: the slot of each message.
  std::vector<std::vector<std::vector<const Message*>>> incoming(
      static_cast<std::size_t>(n), std::vector<std::vector<const Message*>>(phases));
  for (int r = 0; r < n; ++r) {
    const auto& slots = plan.slots[static_cast<std::size_t>(r)];
    for (std::size_t t = 0; t < slots.size(); ++t)
      if (slots[t] != kDelaySlot) {
        const Message& m = pattern.messages[static_cast<std::size_t>(slots[t])];
        incoming[static_cast<std::size_t>(m.dst)][t].push_back(&m);
      }
  }
  for (int r = 0; r < n; ++r) {
    auto& ops = s.programs[static_cast<std::size_t>(r)].ops;
    auto add = [&ops](OpKind kind, int peer, std::int64_t bytes, int tag) {
      Op op;
      op.id = static_cast<std::int64_t>(ops.size());
      op.kind = kind;
      op.peer = peer;
      op.bytes = bytes;
      op.tag = tag;
      ops.push_back(op);
      return op.id;
    };
    const auto& slots = plan.slots[static_cast<std::size_t>(r)];
    std::int64_t barrier_done = -1;  // the last receive of the previous phase's barrier
    for (std::size_t k = 0; k < phases; ++k) {
      std::vector<std::int64_t> phase_ops;  // what the barrier after phase k waits for
      for (const Message* m : incoming[static_cast<std::size_t>(r)][k])
        phase_ops.push_back(add(OpKind::Recv, m->src, m->bytes, 0));
      if (k < slots.size() && slots[k] != kDelaySlot) {
        const Message& m = pattern.messages[static_cast<std::size_t>(slots[k])];
        const auto id = add(OpKind::Send, m.dst, m.bytes, 0);
        if (barrier_done >= 0) ops.back().requires_completed.push_back(barrier_done);
        phase_ops.push_back(id);
      }
      if (k + 1 == phases) break;  // no barrier after the last phase
      std::int64_t previous = -1;
      for (int j = 0; j < rounds; ++j) {
        const int tag = 1 + static_cast<int>(k) * rounds + j;  // never matches data (tag 0)
        add(OpKind::Send, (r + (1 << j)) % n, 0, tag);
        auto& deps = ops.back().requires_completed;
        if (j == 0) {
          deps = phase_ops;
          if (barrier_done >= 0) deps.push_back(barrier_done);
        } else {
          deps.push_back(previous);
        }
        previous = add(OpKind::Recv, ((r - (1 << j)) % n + n) % n, 0, tag);
      }
      if (rounds > 0) barrier_done = previous;
    }
  }
  return s;
}

}  // namespace choreo
