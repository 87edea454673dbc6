// Thakur's ring order as a plan (ring); schedule_direct, the plain no-slot baseline that
// sends in it, is in plan.cpp with the other plan shapes.
#include <algorithm>

#include "choreo/sched/schedulers.hpp"

namespace choreo {
SlotPlan plan_ring(const Pattern& pattern) {
  validate(pattern);
  SlotPlan plan;
  plan.algorithm = "ring";
  plan.slots.resize(static_cast<std::size_t>(pattern.ranks));
  for (std::size_t i = 0; i < pattern.messages.size(); ++i)
    plan.slots[static_cast<std::size_t>(pattern.messages[i].src)].push_back(static_cast<int>(i));
  for (int r = 0; r < pattern.ranks; ++r) {
    auto& slots = plan.slots[static_cast<std::size_t>(r)];
    std::stable_sort(slots.begin(), slots.end(), [&](int a, int b) {
      return ring_distance(r, pattern.messages[static_cast<std::size_t>(a)].dst, pattern.ranks) <
             ring_distance(r, pattern.messages[static_cast<std::size_t>(b)].dst, pattern.ranks);
    });
  }
  return plan;
}

}  // namespace choreo
