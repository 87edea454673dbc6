#pragma once
// A time-slotted plan (paper 000): for every rank, what it does in each slot of length I(k):
// send one message of the pattern, or wait one slot (a delay). The schedulers of sched/ make
// it, the slot model of model/ prices it, and sched/ turns it into a Schedule.
#include <cstddef>
#include <string>
#include <vector>

namespace choreo {

inline constexpr int kDelaySlot = -1;

struct SlotPlan {
  /// slots[r][t]: index into pattern.messages sent by rank r in slot t, or kDelaySlot.
  std::vector<std::vector<int>> slots;
  std::string algorithm;
};

/// A rank's plan without the delays after its last send (they would only idle).
inline std::size_t used_length(const std::vector<int>& slots) {
  std::size_t n = slots.size();
  while (n > 0 && slots[n - 1] == kDelaySlot) --n;
  return n;
}

}  // namespace choreo
