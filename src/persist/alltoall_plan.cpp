// The pairwise-exchange alltoall's plan, one rank's from its own steps
// (coll/alltoall_rank_programs.hpp): blocks of sendbuf to every rank, into recvbuf by origin.
#include <fmt/format.h>

#include "../coll/alltoall_rank_programs.hpp"
#include "choreo/core/error.hpp"
#include "plan_builder.hpp"
#include "plans.hpp"

namespace choreo::persist::detail {

Plan alltoall_plan(std::int64_t block_bytes, bool in_place, int ranks, int rank) {
  constexpr const char* kName = "alltoall:pairwise";
  if (block_bytes < 0 || ranks < 1 || rank < 0 || rank >= ranks)
    throw Error(fmt::format("{}: no plan for rank {} of {} ranks, blocks of {} bytes", kName, rank,
                            ranks, block_bytes));
  // Step d (tag d-1): send block r+d, receive block r-d. In place, the input is recvbuf,
  // copied whole to scratch before the first step; sends then go from there.
  const BufferId input = in_place ? BufferId::Scratch : BufferId::Send;
  PlanBuilder builder(kName, block_bytes, [&](const MessageOp& message) {
    const int distance = message.tag + 1;
    if (message.kind == CommandKind::Send)
      return Place{input, coll::detail::mod_add(rank, distance, ranks) * block_bytes};
    return Place{BufferId::User, coll::detail::mod_sub(rank, distance, ranks) * block_bytes};
  });
  coll::detail::Frontier order;
  if (block_bytes > 0) {
    order.add(in_place
                  ? builder.copy({BufferId::User, 0}, {BufferId::Scratch, 0}, ranks * block_bytes)
                  : builder.copy({BufferId::Send, rank * block_bytes},
                                 {BufferId::User, rank * block_bytes}, block_bytes));
    order.end_step();
    coll::detail::alltoall_pairwise_rank(builder, order, ranks, rank, 1);
  }
  Plan plan = std::move(builder).finish();
  plan.scratch_bytes = in_place ? ranks * block_bytes : 0;
  return plan;
}

}  // namespace choreo::persist::detail
