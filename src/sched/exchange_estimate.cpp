// Prediction without the simulator, and what the simulator would cost (exchange_estimate.hpp).
#include "exchange_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "choreo/model/slot_model.hpp"

namespace choreo::detail {

std::int64_t simulation_work(const Pattern& pattern, ExchangeAlgorithm algorithm) {
  const auto messages = static_cast<std::int64_t>(pattern.messages.size());
  if (algorithm != ExchangeAlgorithm::Direct && algorithm != ExchangeAlgorithm::Ring)
    return 16 * messages;
  std::vector<std::int64_t> in(static_cast<std::size_t>(pattern.ranks)), out(in);
  for (const Message& m : pattern.messages) {
    ++out[static_cast<std::size_t>(m.src)];
    ++in[static_cast<std::size_t>(m.dst)];
  }
  std::int64_t work = messages;
  for (std::size_t r = 0; r < in.size(); ++r) work += in[r] * in[r] + out[r] * out[r];
  return work;
}

std::int64_t estimate_ns(const Pattern& pattern, const SlotPlan& plan, std::int64_t delta_ns,
                         const ExchangeModel& model) {
  std::int64_t k = 0;
  for (const Message& m : pattern.messages) k = std::max(k, m.bytes);
  const std::int64_t slot = delta_ns > 0 ? delta_ns : model.slot_ns(k);
  const std::int64_t port =
      std::llround(static_cast<double>(std::max<std::int64_t>(k - 1, 0)) * model.params.G);
  const auto ranks = static_cast<std::size_t>(pattern.ranks);
  std::vector<std::vector<std::int64_t>> sent(ranks);  // per receiver: when its messages leave
  for (std::size_t r = 0; r < ranks; ++r) {
    const auto& row = plan.slots[r];
    for (std::size_t t = 0; t < row.size(); ++t)
      if (row[t] != kDelaySlot)
        sent[static_cast<std::size_t>(pattern.messages[static_cast<std::size_t>(row[t])].dst)]
            .push_back(static_cast<std::int64_t>(t + 1) * slot);
  }
  std::int64_t makespan = 0;
  for (std::size_t q = 0; q < ranks; ++q) {
    std::sort(sent[q].begin(), sent[q].end());
    const auto busy_until = static_cast<std::int64_t>(used_length(plan.slots[q])) * slot;
    makespan = std::max(
        makespan, last_reception_ns(sent[q], busy_until, model.params.L, model.params.o, port));
  }
  return makespan;
}

}  // namespace choreo::detail
