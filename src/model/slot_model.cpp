// Paper 000's prediction model, eqs. 10-16 (the derivations are in the comments below; a
// test reproduces the paper's Table 1).
#include "choreo/model/slot_model.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "choreo/core/slot_plan.hpp"

namespace choreo {

std::int64_t SlotModel::interval(std::int64_t k) const {
  return o + std::llround(static_cast<double>(std::max<std::int64_t>(k - 1, 0)) * G);
}

std::int64_t last_reception_ns(const std::vector<std::int64_t>& sent, std::int64_t busy_until,
                               std::int64_t L, std::int64_t o, std::int64_t port_ns) {
  std::int64_t landed = 0, done = 0, free = busy_until;
  for (std::size_t h = 0; h < sent.size(); ++h) {
    landed = h == 0 ? sent[h] + L : std::max(sent[h] + L, landed + port_ns);
    done = std::max(landed, free) + o;
    free = done;
  }
  return done;
}

PlanReport report_plan(const Pattern& pattern, const SlotPlan& plan, const SlotModel& model) {
  PlanReport out;
  const auto ranks = static_cast<std::size_t>(pattern.ranks);
  std::vector<int> out_degree(ranks, 0), in_degree(ranks, 0);
  std::int64_t k = 0;
  for (const auto& m : pattern.messages) {
    ++out_degree[static_cast<std::size_t>(m.src)];
    ++in_degree[static_cast<std::size_t>(m.dst)];
    k = std::max(k, m.bytes);
  }
  for (std::size_t r = 0; r < ranks; ++r)
    out.degree_bound = std::max({out.degree_bound, out_degree[r], in_degree[r]});
  const std::int64_t interval = model.interval(k);

  // Sends to each destination by slot; eq. 12: same destination, same slot.
  std::vector<std::vector<std::size_t>> arrivals(ranks);  // slots of the sends to each rank
  std::vector<std::size_t> length(ranks);
  for (std::size_t r = 0; r < ranks; ++r) {
    const auto& slots = plan.slots[r];
    length[r] = used_length(slots);
    out.slots = std::max(out.slots, static_cast<int>(length[r]));
    for (std::size_t t = 0; t < length[r]; ++t) {
      if (slots[t] == kDelaySlot) {
        ++out.delays;
        continue;
      }
      arrivals[static_cast<std::size_t>(pattern.messages[static_cast<std::size_t>(slots[t])].dst)]
          .push_back(t);
    }
  }
  for (auto& slots : arrivals) {
    std::sort(slots.begin(), slots.end());
    for (std::size_t i = 0, j = 0; i < slots.size(); i = j) {
      while (j < slots.size() && slots[j] == slots[i]) ++j;
      const auto same = static_cast<std::int64_t>(j - i);
      out.contention_pairs += same * (same - 1) / 2;
    }
  }
  // Eqs. 13-16: a send in (1-based) slot s leaves its sender at s * I(k) (eq. 13) and reaches
  // its receiver q L later. Eq. 15 (q idle, L >= |S_q| I(k)) completes it o after that; eq. 16
  // (q busy) after q's own |S_q| sends and the h receptions before it, |S_q| I(k) + (h+1) o.
  // Taken literally eq. 16 ignores when the message arrives: one send of q's own made a
  // 7-rank gather predict 0.4 ms instead of its 2.3 ms. So each reception starts at the later
  // of its arrival and q being free (its sends done, the receptions before it complete) and
  // takes o: eq. 15 where q is idle, at least eq. 16 where it is busy, and never shorter for
  // one more message (monotone).
  for (std::size_t q = 0; q < ranks; ++q) {
    std::vector<std::int64_t> sent;
    for (const std::size_t slot : arrivals[q])
      sent.push_back(static_cast<std::int64_t>(slot + 1) * interval);
    out.predicted_ns = std::max(
        out.predicted_ns,
        last_reception_ns(sent, static_cast<std::int64_t>(length[q]) * interval, model.L, model.o));
  }
  if (out.contention_pairs > 0) out.predicted_ns = -1;  // the model assumes no contention
  // The same model's bound for any plan. Receiver q sends for at least out(q) slots, and its
  // last reception arrives no earlier than slot in(q) and starts no earlier than its sends
  // end, after which each of its in(q) receptions takes o. Sender p's last message leaves in
  // slot out(p) at the earliest, to one of its receivers.
  auto completion = [&](std::size_t q, std::int64_t leaves) {  // of a message leaving then
    return std::max(leaves + model.L, out_degree[q] * interval) + model.o;
  };
  std::vector<std::int64_t> best_last(ranks, -1);  // per sender: the cheapest last receiver
  for (const auto& m : pattern.messages) {
    const auto p = static_cast<std::size_t>(m.src), q = static_cast<std::size_t>(m.dst);
    const std::int64_t t = completion(q, out_degree[p] * interval);
    if (best_last[p] < 0 || t < best_last[p]) best_last[p] = t;
  }
  for (std::size_t q = 0; q < ranks; ++q) {
    std::int64_t bound = std::max<std::int64_t>(best_last[q], out_degree[q] * interval);
    if (in_degree[q] > 0)
      bound = std::max({bound, in_degree[q] * interval + model.L + model.o,
                        out_degree[q] * interval + in_degree[q] * model.o});
    out.lower_bound_ns = std::max(out.lower_bound_ns, bound);
  }
  return out;
}

}  // namespace choreo
