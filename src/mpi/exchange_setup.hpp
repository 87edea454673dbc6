#pragma once
// Plans an irregular exchange across a communicator (private to choreo's MPI libraries): one
// rank (the root) gathers every rank's sends, plans the whole pattern (plan_exchange), and
// hands each rank back only its own part. No rank but the root ever holds the pattern, and the
// root only while planning: every rank keeps O(its own messages) (DESIGN.md, scale rules).
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "choreo/core/pattern.hpp"
#include "choreo/mpi/exchange_report.hpp"
#include "choreo/sched/exchange_plan.hpp"

namespace choreo::mpi::detail {

struct IncomingMessage {
  int source = 0;
  std::int64_t bytes = 0;
};

/// This rank's part of the plan.
struct PlannedExchange {
  std::vector<IncomingMessage> receives;  ///< in the order to post them
  std::vector<ExchangeSend> sends;        ///< in the order to start them
  ExchangeReport summary;                 ///< the same on every rank
};

/// Collective over `comm`. `my_sends` are this rank's messages (dst, bytes > 0, never to
/// itself; src is ignored). Throws choreo::Error on every rank alike when planning fails.
PlannedExchange plan_collectively(MPI_Comm comm, std::span<const Message> my_sends,
                                  const ExchangeModel& model, ExchangeAlgorithm algorithm);

/// The first difference between what this rank expects to receive (`expected_bytes[source]`
/// for every source of the communicator, 0 for none; its own entry is ignored) and what the
/// plan says the others send it: "rank 1 sends 12 bytes to rank 0 but rank 0 expects 8 bytes
/// from rank 1" followed by `explain(1)`; "" when they agree.
std::string find_receive_mismatch(const PlannedExchange& planned,
                                  std::span<const std::int64_t> expected_bytes, int rank,
                                  const std::function<std::string(int source)>& explain);

}  // namespace choreo::mpi::detail
