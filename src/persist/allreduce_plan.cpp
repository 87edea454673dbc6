// Allreduce plans: recursive doubling and the ring, one rank's from its own steps, or the
// reference read out of the generator's schedule. The generators are run on the element
// count, so their chunks never split an element.
#include <fmt/format.h>

#include <algorithm>

#include "../coll/allreduce_rank_programs.hpp"
#include "choreo/coll/generators.hpp"
#include "choreo/core/error.hpp"
#include "plan_builder.hpp"
#include "plans.hpp"

namespace choreo::persist::detail {

namespace {

bool is_ring(const std::string& algorithm) {
  if (algorithm != "ring" && algorithm != "recdbl")
    throw Error(
        fmt::format("allreduce plan: unknown algorithm '{}'; choose recdbl or ring", algorithm));
  return algorithm == "ring";
}

/// Elements before chunk c of the ring's P chunks (the generator's even split).
std::int64_t chunk_start(std::int64_t count, int ranks, std::int64_t chunk) {
  const std::int64_t longer = count % ranks;
  return chunk * (count / ranks) + std::min(chunk, longer);
}

Placer allreduce_ring_placer(std::int64_t count, int ranks, int rank, int element_size) {
  return [=](const MessageOp& message) {
    const bool send = message.kind == CommandKind::Send;
    const bool reducing = message.tag < ranks - 1;  // reduce-scatter steps, then the allgather's
    const int step = reducing ? message.tag : message.tag - (ranks - 1);
    // Reduce-scatter step s: send chunk r-s, receive chunk r-s-1 (into scratch, then
    // reduced in); allgather step t: send chunk r+1-t, receive chunk r-t in place.
    const std::int64_t chunk =
        ((reducing ? rank - step : rank + 1 - step) - (send ? 0 : 1) + 2 * std::int64_t{ranks}) %
        ranks;
    const std::int64_t offset = chunk_start(count, ranks, chunk) * element_size;
    const bool to_scratch = !send && reducing;
    return Place{to_scratch ? BufferId::Scratch : BufferId::User, offset};
  };
}

/// Sends go from the vector; receives land in scratch to be reduced in, except the fold's
/// final receive, which is the result itself.
Placer recursive_doubling_placer(int ranks) {
  const int fold_out_tag = coll::detail::Fold(ranks).fold_out_tag();
  return [fold_out_tag](const MessageOp& message) {
    const bool into_scratch = message.kind == CommandKind::Recv && message.tag != fold_out_tag;
    return Place{into_scratch ? BufferId::Scratch : BufferId::User, 0};
  };
}

Placer allreduce_placer(bool ring, std::int64_t count, int element_size, int ranks, int rank) {
  return ring ? allreduce_ring_placer(count, ranks, rank, element_size)
              : recursive_doubling_placer(ranks);
}

/// Both algorithms reduce into scratch of the vector's size; without MPI_IN_PLACE the input
/// is copied into the result buffer first.
Plan with_buffers(Plan plan, std::int64_t count, int element_size) {
  plan.scratch_bytes = count * element_size;
  plan.initial_copy_bytes = count * element_size;
  return plan;
}

void check_allreduce_sizes(const std::string& algorithm, std::int64_t count, int element_size,
                           int ranks, int rank) {
  if (count < 0 || element_size < 1 || ranks < 1 || rank < 0 || rank >= ranks)
    throw Error(
        fmt::format("allreduce:{}: no plan for rank {} of {} ranks, {} elements of {} bytes",
                    algorithm, rank, ranks, count, element_size));
}

}  // namespace

Plan allreduce_plan(const std::string& algorithm, std::int64_t count, int element_size, int ranks,
                    int rank) {
  const bool ring = is_ring(algorithm);
  check_allreduce_sizes(algorithm, count, element_size, ranks, rank);
  PlanBuilder builder("allreduce:" + algorithm, element_size,
                      allreduce_placer(ring, count, element_size, ranks, rank));
  if (ring) {
    coll::detail::Frontier order;
    coll::detail::allreduce_ring_rank(builder, order, ranks, rank, count, 0);
  } else {
    coll::detail::allreduce_recursive_doubling_rank(builder, coll::detail::Fold(ranks), rank, count,
                                                    0);
  }
  return with_buffers(std::move(builder).finish(), count, element_size);
}

std::vector<Plan> allreduce_plans_from_full_schedule(const std::string& algorithm,
                                                     std::int64_t count, int element_size,
                                                     int ranks, const std::vector<int>& of_ranks) {
  const bool ring = is_ring(algorithm);
  for (int rank : of_ranks) check_allreduce_sizes(algorithm, count, element_size, ranks, rank);
  const CompactSchedule schedule =
      ring ? coll::allreduce_ring(ranks, count) : coll::allreduce_recursive_doubling(ranks, count);
  std::vector<Plan> plans;
  for (int rank : of_ranks)
    plans.push_back(
        with_buffers(plan_from_schedule(schedule, rank, element_size,
                                        allreduce_placer(ring, count, element_size, ranks, rank),
                                        "allreduce:" + algorithm),
                     count, element_size));
  return plans;
}

}  // namespace choreo::persist::detail
