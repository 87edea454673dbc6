// Ring allgather plans, one rank's from its own steps, or the reference read out of the
// generator's schedule: in place in recvbuf.
#include <fmt/format.h>

#include "../coll/allgather_rank_programs.hpp"
#include "choreo/coll/generators.hpp"
#include "choreo/core/error.hpp"
#include "plan_builder.hpp"
#include "plans.hpp"

namespace choreo::persist::detail {

namespace {

constexpr const char* kAllgatherRingPlan = "allgather:ring";

/// Step s (the tag): send block r-s, receive block r-s-1, both in recvbuf.
Placer allgather_ring_placer(int ranks, int rank, std::int64_t block_bytes) {
  return [=](const MessageOp& message) {
    const int behind = message.kind == CommandKind::Send ? message.tag : message.tag + 1;
    const std::int64_t block = ((rank - behind) % ranks + ranks) % ranks;
    return Place{BufferId::User, block * block_bytes};
  };
}

/// The own block is copied from sendbuf into its place first (unless MPI_IN_PLACE).
Plan with_own_block(Plan plan, std::int64_t block_bytes, int rank) {
  plan.initial_copy_bytes = block_bytes;
  plan.initial_copy_offset = rank * block_bytes;
  return plan;
}

void check_allgather_sizes(std::int64_t block_bytes, int ranks, int rank) {
  if (block_bytes < 0 || ranks < 1 || rank < 0 || rank >= ranks)
    throw Error(fmt::format("{}: no plan for rank {} of {} ranks, blocks of {} bytes",
                            kAllgatherRingPlan, rank, ranks, block_bytes));
}

}  // namespace

Plan allgather_plan(std::int64_t block_bytes, int ranks, int rank) {
  check_allgather_sizes(block_bytes, ranks, rank);
  PlanBuilder builder(kAllgatherRingPlan, 1, allgather_ring_placer(ranks, rank, block_bytes));
  coll::detail::allgather_ring_rank(builder, ranks, rank, block_bytes);
  return with_own_block(std::move(builder).finish(), block_bytes, rank);
}

std::vector<Plan> allgather_plans_from_full_schedule(std::int64_t block_bytes, int ranks,
                                                     const std::vector<int>& of_ranks) {
  for (int rank : of_ranks) check_allgather_sizes(block_bytes, ranks, rank);
  const CompactSchedule schedule = coll::allgather_ring(ranks, block_bytes);
  std::vector<Plan> plans;
  for (int rank : of_ranks)
    plans.push_back(with_own_block(
        plan_from_schedule(schedule, rank, 1, allgather_ring_placer(ranks, rank, block_bytes),
                           kAllgatherRingPlan),
        block_bytes, rank));
  return plans;
}

}  // namespace choreo::persist::detail
