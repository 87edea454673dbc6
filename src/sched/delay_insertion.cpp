// Paper 000's Algorithm 1 (delay insertion) with Algorithm 2's priority.
//
// Slot by slot, every rank with sends left gets one: the ranks with the fewest
// contention-free choices go first (Algorithm 2: Q_p = sends left minus those whose
// destination this slot already receives from someone), and each takes its first send, in
// ring order, to a destination still free in this slot; a rank with no such send waits
// (a delay). The paper's loop runs t = 0 .. n-1; the algorithm needs as many slots as it
// takes, which can be more when delays are inserted, so this runs until every send is placed.
#include <algorithm>
#include <limits>

#include "choreo/sched/schedulers.hpp"

namespace choreo {

SlotPlan plan_delay_insertion(const Pattern& pattern) {
  const SlotPlan ring = plan_ring(pattern);  // validates; gives each rank's sends in ring order
  const auto n = static_cast<std::size_t>(pattern.ranks);
  auto dst = [&](int m) {
    return static_cast<std::size_t>(pattern.messages[static_cast<std::size_t>(m)].dst);
  };

  std::vector<std::vector<int>> left = ring.slots;  // sends not yet placed, ring order
  std::vector<std::vector<int>> senders_to(n);      // messages to each rank
  for (std::size_t m = 0; m < pattern.messages.size(); ++m)
    senders_to[dst(static_cast<int>(m))].push_back(static_cast<int>(m));
  std::vector<char> placed(pattern.messages.size(), 0);
  std::size_t remaining = pattern.messages.size();

  SlotPlan plan;
  plan.algorithm = "delay-insertion";
  plan.slots.resize(n);
  std::vector<char> receiving(n), decided(n);
  std::vector<std::size_t> blocked(n);  // sends left whose destination is taken this slot
  while (remaining > 0) {
    std::fill(receiving.begin(), receiving.end(), 0);
    std::fill(blocked.begin(), blocked.end(), 0);
    for (std::size_t p = 0; p < n; ++p) decided[p] = left[p].empty();
    while (true) {
      // Algorithm 2: the undecided rank with the fewest choices (lowest rank on ties).
      std::size_t p = n, fewest = std::numeric_limits<std::size_t>::max();
      for (std::size_t r = 0; r < n; ++r)
        if (!decided[r] && left[r].size() - blocked[r] < fewest) {
          fewest = left[r].size() - blocked[r];
          p = r;
        }
      if (p == n) break;
      decided[p] = 1;
      auto it =
          std::find_if(left[p].begin(), left[p].end(), [&](int m) { return !receiving[dst(m)]; });
      if (it == left[p].end()) {
        plan.slots[p].push_back(kDelaySlot);
        continue;
      }
      const int m = *it;
      left[p].erase(it);
      plan.slots[p].push_back(m);
      placed[static_cast<std::size_t>(m)] = 1;
      --remaining;
      const std::size_t q = dst(m);
      receiving[q] = 1;
      for (int other : senders_to[q])
        if (!placed[static_cast<std::size_t>(other)])
          ++blocked[static_cast<std::size_t>(
              pattern.messages[static_cast<std::size_t>(other)].src)];
    }
  }
  return plan;
}

}  // namespace choreo
