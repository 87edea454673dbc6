// A plan cut into the ranks' parts (exchange_programs.hpp).
#include "exchange_programs.hpp"

#include <algorithm>

#include "choreo/core/checked.hpp"

namespace choreo::detail {

std::vector<RankExchange> rank_exchanges(const Pattern& pattern, const SlotPlan& plan,
                                         Pacing pacing, std::int64_t delta_ns) {
  std::vector<RankExchange> parts(static_cast<std::size_t>(pattern.ranks));
  for (const Message& m : pattern.messages)
    parts[static_cast<std::size_t>(m.dst)].receive_from.push_back(m.src);
  for (int r = 0; r < pattern.ranks; ++r) {
    RankExchange& part = parts[static_cast<std::size_t>(r)];
    std::stable_sort(part.receive_from.begin(), part.receive_from.end(), [&](int a, int b) {
      return ring_distance(a, r, pattern.ranks) < ring_distance(b, r, pattern.ranks);
    });
    std::int64_t delays = 0;
    const auto& slots = plan.slots[static_cast<std::size_t>(r)];
    for (std::size_t t = 0; t < slots.size(); ++t) {
      if (slots[t] == kDelaySlot) {
        ++delays;
        continue;
      }
      const std::int64_t waits =
          pacing == Pacing::EverySlot ? static_cast<std::int64_t>(t) : delays;
      part.sends.push_back(
          {pattern.messages[static_cast<std::size_t>(slots[t])].dst,
           checked_mul(waits, delta_ns, "a send's start (slots x slot length, ns)")});
    }
  }
  return parts;
}

}  // namespace choreo::detail
