// Paper 000's prediction model, eqs. 10-16 (the derivations are in the comments below; a
// test reproduces the paper's Table 1).
#include "choreo/slot_model.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "choreo/sched.hpp"

namespace choreo {

std::int64_t SlotModel::interval(std::int64_t k) const {
  return o + std::llround(static_cast<double>(std::max<std::int64_t>(k - 1, 0)) * G);
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
  // Eqs. 13-16: a send in (1-based) slot s completes sending at s * I(k); its receiver q,
  // busy with its own |S_q| sends, takes it at once when L >= |S_q| I(k) (eq. 15), else after
  // them and after the h earlier arrivals (eq. 16).
  for (std::size_t q = 0; q < ranks; ++q) {
    const auto busy = static_cast<std::int64_t>(length[q]) * interval;
    for (std::size_t h = 0; h < arrivals[q].size(); ++h) {
      const auto s = static_cast<std::int64_t>(arrivals[q][h]) + 1;
      const std::int64_t t = model.L >= busy ? s * interval + model.L + model.o
                                             : busy + static_cast<std::int64_t>(h + 1) * model.o;
      out.predicted_ns = std::max(out.predicted_ns, t);
    }
  }
  if (out.contention_pairs > 0) out.predicted_ns = -1;  // the model assumes no contention
  // The same model's bound for any plan. Receiver q sends for at least out(q) slots and its
  // last message arrives no earlier than slot in(q) (eq. 15) or after its sends (eq. 16).
  // Sender p's last message leaves in slot out(p) at the earliest, to one of its receivers.
  auto extra = [&](std::size_t q, std::int64_t sent) {  // completion of a message sent by `sent`
    const std::int64_t busy = out_degree[q] * interval;
    return model.L >= busy ? sent + model.L + model.o : busy + model.o;
  };
  std::vector<std::int64_t> best_last(ranks, -1);  // per sender: the cheapest last receiver
  for (const auto& m : pattern.messages) {
    const auto p = static_cast<std::size_t>(m.src), q = static_cast<std::size_t>(m.dst);
    const std::int64_t t = extra(q, out_degree[p] * interval);
    if (best_last[p] < 0 || t < best_last[p]) best_last[p] = t;
  }
  for (std::size_t q = 0; q < ranks; ++q) {
    std::int64_t bound = std::max<std::int64_t>(best_last[q], out_degree[q] * interval);
    if (in_degree[q] > 0) {
      const std::int64_t busy = out_degree[q] * interval;
      bound = std::max(bound, model.L >= busy ? in_degree[q] * interval + model.L + model.o
                                              : busy + in_degree[q] * model.o);
    }
    out.lower_bound_ns = std::max(out.lower_bound_ns, bound);
  }
  return out;
}

}  // namespace choreo
