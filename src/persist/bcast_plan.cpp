// Broadcast plans: the binomial tree and the pipelined trees (k-ary pipeline, multitree),
// one rank's from its own links, or the reference read out of the generator's schedule.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <span>
#include <vector>

#include "../coll/bcast_rank_programs.hpp"
#include "choreo/coll/generators.hpp"
#include "choreo/coll/pipeline.hpp"
#include "choreo/core/error.hpp"
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

namespace {

bool on_torus(const BcastShape& shape) { return shape.algorithm == "multitree_torus"; }

/// The node of a rank (placement, or the rank itself).
int node_of(const BcastShape& shape, int rank) {
  return shape.node_of_rank.empty() ? rank : shape.node_of_rank[static_cast<std::size_t>(rank)];
}

/// Checks the torus and the placement against the communicator: O(P).
void check_torus(const Options& options, int ranks) {
  const auto& d = options.torus;
  if (d[0] < 1 || d[1] < 1 || d[2] < 1 || std::int64_t{d[0]} * d[1] * d[2] != std::int64_t{ranks})
    throw Error(fmt::format(
        "bcast_init: multitree_torus needs Options::torus, an A x B x C torus of the {} ranks, "
        "not {}x{}x{}",
        ranks, d[0], d[1], d[2]));
  const std::vector<int>& placement = options.torus_placement;
  if (placement.empty()) return;
  if (placement.size() != static_cast<std::size_t>(ranks))
    throw Error(
        fmt::format("bcast_init: torus_placement has {} nodes for {} ranks; give each "
                    "rank its node",
                    placement.size(), ranks));
  std::vector<bool> taken(static_cast<std::size_t>(ranks));
  for (std::size_t r = 0; r < placement.size(); ++r) {
    const int node = placement[r];
    if (node < 0 || node >= ranks || taken[static_cast<std::size_t>(node)])
      throw Error(fmt::format(
          "bcast_init: torus_placement gives rank {} node {}, {}; it must be "
          "a permutation of 0..{}",
          r, node, node < 0 || node >= ranks ? "not a node" : "taken twice", ranks - 1));
    taken[static_cast<std::size_t>(node)] = true;
  }
}

/// The three torus trees from the root's node (nodes, not ranks).
std::array<coll::BroadcastTree, 3> torus_trees(const BcastShape& shape) {
  const int root_node = node_of(shape, shape.root);
  return {coll::torus_multitree_tree(shape.torus, root_node, 0),
          coll::torus_multitree_tree(shape.torus, root_node, 1),
          coll::torus_multitree_tree(shape.torus, root_node, 2)};
}

}  // namespace

BcastShape bcast_shape(const std::string& algorithm, std::int64_t bytes, int root, int ranks,
                       const Options& options) {
  BcastShape shape;
  shape.algorithm = algorithm;
  shape.bytes = bytes;
  shape.root = root;
  if (is_binomial(shape)) return shape;
  if (on_torus(shape)) {
    check_torus(options, ranks);
    if (options.segment_bytes < 0)
      throw Error(
          fmt::format("bcast_init: segment_bytes must be 0 (Hockney's rule) or more, not {}",
                      options.segment_bytes));
    shape.parts = shape.arity = 3;
    shape.torus = options.torus;
    shape.node_of_rank = options.torus_placement;
    int depth = 0;
    for (const coll::BroadcastTree& tree : torus_trees(shape)) depth = std::max(depth, tree.depth);
    shape.segment_bytes = options.segment_bytes > 0
                              ? options.segment_bytes
                              : coll::hockney_segment_bytes(shape.bytes / shape.parts, depth,
                                                            options.alpha, options.beta);
    return shape;
  }
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
  if (on_torus(shape)) {
    // O(P): the trees over nodes, read at this rank's node, and nodes back to ranks.
    std::vector<int> rank_of_node(static_cast<std::size_t>(ranks));
    for (int r = 0; r < ranks; ++r) rank_of_node[static_cast<std::size_t>(node_of(shape, r))] = r;
    const auto node = static_cast<std::size_t>(node_of(shape, rank));
    std::array<std::vector<int>, 3> children;
    std::array<coll::detail::RankLinks, 3> links;
    const std::array<coll::BroadcastTree, 3> trees = torus_trees(shape);
    for (std::size_t t = 0; t < 3; ++t) {
      const int parent = trees[t].parent[node];
      for (int child : trees[t].children[node])
        children[t].push_back(rank_of_node[static_cast<std::size_t>(child)]);
      links[t] = {parent < 0 ? -1 : rank_of_node[static_cast<std::size_t>(parent)], children[t]};
    }
    coll::detail::pipelined_trees_rank(builder, std::span<const coll::detail::RankLinks>(links),
                                       segments);
    return std::move(builder).finish();
  }
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
    const CompactSchedule schedule = coll::bcast_binomial(ranks, shape.bytes, shape.root);
    for (int rank : of_ranks)
      plans.push_back(plan_from_schedule(schedule, rank, 1, whole_buffer, name));
    return plans;
  }
  const coll::Segmentation segments(shape.bytes, shape.parts, shape.segment_bytes);
  if (on_torus(shape) && !shape.node_of_rank.empty())
    throw Error("bcast plans from the full schedule: the generator places rank r on node r");
  const CompactSchedule schedule =
      on_torus(shape)
          ? coll::bcast_multitree_torus(shape.torus, shape.bytes, shape.root, shape.segment_bytes)
          : coll::bcast_multitree(ranks, shape.bytes, shape.root, shape.parts, shape.arity,
                                  shape.segment_bytes);
  for (int rank : of_ranks)
    plans.push_back(plan_from_schedule(schedule, rank, 1, segment_placer(segments), name));
  return plans;
}

}  // namespace choreo::persist::detail
