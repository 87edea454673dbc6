// Broadcast plans: the binomial tree and the pipelined trees (k-ary pipeline, multitree),
// one rank's from its own links, or the reference read out of the generator's schedule.
#include <fmt/format.h>

#include "../coll/bcast_rank_programs.hpp"
#include "choreo/coll.hpp"
#include "choreo/coll_pipeline.hpp"
#include "choreo/error.hpp"
#include "plan_builder.hpp"
#include "plans.hpp"

namespace choreo::persist::detail {

namespace {

std::string bcast_plan_name(const BcastShape& shape) { return "bcast:" + shape.algorithm; }

bool is_binomial(const BcastShape& shape) { return shape.algorithm == "binomial"; }

/// Every binomial message is the whole buffer.
Place whole_buffer(const MessageOp&) { return Place{}; }

/// The pipelined generators tag a message with its segment's number.
Placer segment_placer(const coll::Segmentation& segments) {
  return [&segments](const MessageOp& message) {
    return Place{BufferId::User, segments[message.tag].offset};
  };
}

void check_bcast_rank(const BcastShape& shape, int ranks, int rank) {
  if (ranks < 1 || rank < 0 || rank >= ranks || shape.root < 0 || shape.root >= ranks ||
      shape.bytes < 0)
    throw Error(fmt::format("{}: no plan for rank {} of {} ranks from root {} ({} bytes)",
                            bcast_plan_name(shape), rank, ranks, shape.root, shape.bytes));
}

}  // namespace

BcastShape bcast_shape(const std::string& algorithm, std::int64_t bytes, int root, int ranks,
                       const Options& options) {
  BcastShape shape;
  shape.algorithm = algorithm;
  shape.bytes = bytes;
  shape.root = root;
  if (is_binomial(shape)) return shape;
  const bool multitree = shape.algorithm == "multitree";
  shape.parts = multitree ? options.parts : 1;
  shape.arity = options.arity != 0 ? options.arity : (multitree ? 3 : 2);
  if (options.segment_bytes < 0)
    throw Error(fmt::format("bcast_init: segment_bytes must be 0 (Hockney's rule) or more, not {}",
                            options.segment_bytes));
  // The depth in closed form (and the checks of arity and parts): no tree of P ranks.
  const int depth = coll::multitree_depth(ranks, shape.arity, shape.parts);
  shape.segment_bytes = options.segment_bytes > 0
                            ? options.segment_bytes
                            : coll::hockney_segment_bytes(shape.bytes / shape.parts, depth,
                                                          options.alpha, options.beta);
  return shape;
}

Plan bcast_plan(const BcastShape& shape, int ranks, int rank) {
  check_bcast_rank(shape, ranks, rank);
  if (is_binomial(shape)) {
    PlanBuilder builder(bcast_plan_name(shape), 1, whole_buffer);
    coll::detail::bcast_binomial_rank(builder, rank, ranks, shape.root, shape.bytes);
    return std::move(builder).finish();
  }
  const coll::Segmentation segments(shape.bytes, shape.parts, shape.segment_bytes);
  PlanBuilder builder(bcast_plan_name(shape), 1, segment_placer(segments));
  coll::detail::bcast_multitree_rank(builder, ranks, shape.root, shape.parts, shape.arity, segments,
                                     rank);
  return std::move(builder).finish();
}

Plan bcast_plan(const std::string& algorithm, std::int64_t bytes, int root, int ranks, int rank,
                const Options& options) {
  return bcast_plan(bcast_shape(algorithm, bytes, root, ranks, options), ranks, rank);
}

std::vector<Plan> bcast_plans_from_full_schedule(const BcastShape& shape, int ranks,
                                                 const std::vector<int>& of_ranks) {
  for (int rank : of_ranks) check_bcast_rank(shape, ranks, rank);
  const std::string name = bcast_plan_name(shape);
  std::vector<Plan> plans;
  if (is_binomial(shape)) {
    const sim::CompactSchedule schedule = coll::bcast_binomial(ranks, shape.bytes, shape.root);
    for (int rank : of_ranks)
      plans.push_back(plan_from_schedule(schedule, rank, 1, whole_buffer, name));
    return plans;
  }
  const coll::Segmentation segments(shape.bytes, shape.parts, shape.segment_bytes);
  const sim::CompactSchedule schedule = coll::bcast_multitree(
      ranks, shape.bytes, shape.root, shape.parts, shape.arity, shape.segment_bytes);
  for (int rank : of_ranks)
    plans.push_back(plan_from_schedule(schedule, rank, 1, segment_placer(segments), name));
  return plans;
}

}  // namespace choreo::persist::detail
