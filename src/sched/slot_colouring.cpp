// SlotColouring: a contention-free plan as an edge colouring that can be changed in place
// (slot_colouring.hpp).
#include "slot_colouring.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "choreo/core/error.hpp"

namespace choreo::detail {

SlotColouring::SlotColouring(const Pattern& pattern, int slots)
    : pattern_(pattern),
      n_(static_cast<std::size_t>(pattern.ranks)),
      slots_(slots),
      at_src_(static_cast<std::size_t>(slots) * n_, -1),
      at_dst_(at_src_.size(), -1),
      slot_(pattern.messages.size(), kUnplaced),
      last_(n_, -1) {}

std::vector<int> SlotColouring::load(const SlotPlan& plan) {
  std::vector<std::pair<std::size_t, int>> later;  // (slot, message) beyond the last slot
  for (const auto& row : plan.slots)
    for (std::size_t t = 0; t < row.size(); ++t) {
      if (row[t] == kDelaySlot) continue;
      if (t < static_cast<std::size_t>(slots_))
        place(row[t], static_cast<int>(t));
      else
        later.emplace_back(t, row[t]);
    }
  std::stable_sort(later.begin(), later.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<int> unplaced;
  for (const auto& [t, m] : later) unplaced.push_back(m);
  return unplaced;
}

SlotPlan SlotColouring::plan(const std::string& algorithm) const {
  SlotPlan out;
  out.algorithm = algorithm;
  out.slots.resize(n_);
  for (std::size_t r = 0; r < n_; ++r) {
    const int rank = static_cast<int>(r);
    for (int t = 0; t <= last_[r]; ++t) out.slots[r].push_back(sent(rank, t));
  }
  return out;
}

int SlotColouring::last_without(int rank, int slot) const {
  int t = last(rank);
  if (t != slot) return t;
  while (--t >= 0 && sender_free(rank, t)) {
  }
  return t;
}

std::int64_t SlotColouring::span() const {
  std::int64_t sum = 0;
  for (const int t : last_) sum += t + 1;
  return sum;
}

void SlotColouring::place(int message, int slot) {
  const Message& m = pattern_.messages[static_cast<std::size_t>(message)];
  if (slot < 0 || slot >= slots_ || !sender_free(m.src, slot) || !receiver_free(m.dst, slot) ||
      slot_of(message) != kUnplaced)
    throw Error(fmt::format("internal: message {} ({} -> {}) cannot take slot {}", message, m.src,
                            m.dst, slot));
  at_src_[index(slot, m.src)] = message;
  at_dst_[index(slot, m.dst)] = message;
  slot_[static_cast<std::size_t>(message)] = slot;
  int& last = last_[static_cast<std::size_t>(m.src)];
  last = std::max(last, slot);
}

void SlotColouring::remove(int message) {
  const Message& m = pattern_.messages[static_cast<std::size_t>(message)];
  const int slot = slot_of(message);
  if (slot == kUnplaced) throw Error(fmt::format("internal: message {} is not placed", message));
  last_[static_cast<std::size_t>(m.src)] = last_without(m.src, slot);
  at_src_[index(slot, m.src)] = -1;
  at_dst_[index(slot, m.dst)] = -1;
  slot_[static_cast<std::size_t>(message)] = kUnplaced;
}

SlotColouring::PathEnd SlotColouring::walk(int v, int x, int y, std::vector<int>* messages) const {
  PathEnd end{v, false, 0};
  while (true) {
    const int in = at_dst(x, end.rank);  // arrives at the receiver in x
    if (in < 0) return end;
    if (messages != nullptr) messages->push_back(in);
    ++end.length;
    end.rank = pattern_.messages[static_cast<std::size_t>(in)].src;
    end.sender = true;
    const int out = at_src(y, end.rank);  // leaves that sender in y
    if (out < 0) return end;
    if (messages != nullptr) messages->push_back(out);
    ++end.length;
    end.rank = pattern_.messages[static_cast<std::size_t>(out)].dst;
    end.sender = false;
  }
}

void SlotColouring::flip(int v, int x, int y) {
  std::vector<int> messages;
  walk(v, x, y, &messages);
  std::vector<int> from;
  for (const int m : messages) {
    from.push_back(slot_of(m));
    remove(m);
  }
  for (std::size_t i = 0; i < messages.size(); ++i) place(messages[i], from[i] == x ? y : x);
}

}  // namespace choreo::detail
