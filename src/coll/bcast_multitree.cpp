// Trinaryx3-like broadcast: parts pipelined in segments down interior-disjoint k-ary trees, or
// down three link-disjoint trees on a 3-D torus.
#include <algorithm>

#include "arguments.hpp"
#include "bcast_rank_programs.hpp"
#include "choreo/coll/pipeline.hpp"
#include "choreo/core/error.hpp"
#include "pipelined_trees.hpp"

namespace choreo::coll {

namespace detail {
CompactSchedule pipelined_trees(const char* generator, int ranks, std::int64_t bytes, int root,
                                int trees, int arity, std::int64_t segment_bytes) {
  check_ranks(generator, ranks);
  check_non_negative(generator, "bytes", bytes);
  check_non_negative(generator, "segment", segment_bytes);
  check_root(generator, ranks, root);
  // Tree 0 first: it checks trees and arity before the loop relies on them.
  std::vector<BroadcastTree> shapes{multitree_tree(ranks, root, arity, trees, 0)};
  for (int t = 1; t < trees; ++t) shapes.push_back(multitree_tree(ranks, root, arity, trees, t));
  return pipelined_trees(generator, bytes, shapes, segment_bytes);
}

CompactSchedule pipelined_trees(const char* generator, std::int64_t bytes,
                                const std::vector<BroadcastTree>& shapes,
                                std::int64_t segment_bytes) {
  check_non_negative(generator, "bytes", bytes);
  check_non_negative(generator, "segment", segment_bytes);
  const int trees = static_cast<int>(shapes.size());
  const int ranks = static_cast<int>(shapes.front().parent.size());
  if (segment_bytes == 0) {
    int depth = 0;
    for (const BroadcastTree& shape : shapes) depth = std::max(depth, shape.depth);
    segment_bytes = hockney_segment_bytes(bytes / trees, depth);
  }
  const Segmentation segments(bytes, trees, segment_bytes);
  const auto messages =
      static_cast<std::uint64_t>(segments.count()) * static_cast<std::uint64_t>(ranks - 1);
  CompactBuilder b(ranks, checked_op_count(generator, ranks, 2 * messages), 2 * messages);
  std::vector<RankLinks> links(static_cast<std::size_t>(trees));
  for (int r = 0; r < ranks; ++r) {
    b.begin_rank(r);
    for (int t = 0; t < trees; ++t) {
      const BroadcastTree& shape = shapes[static_cast<std::size_t>(t)];
      links[static_cast<std::size_t>(t)] = {shape.parent[static_cast<std::size_t>(r)],
                                            shape.children[static_cast<std::size_t>(r)]};
    }
    pipelined_trees_rank(b, std::span<const RankLinks>(links), segments);
  }
  return b.finish();
}

}  // namespace detail

CompactSchedule bcast_multitree(int ranks, std::int64_t bytes, int root, int trees, int arity,
                                std::int64_t segment_bytes) {
  return detail::pipelined_trees("bcast_multitree", ranks, bytes, root, trees, arity,
                                 segment_bytes);
}

CompactSchedule bcast_multitree_torus(const std::array<int, 3>& dims, std::int64_t bytes, int root,
                                      std::int64_t segment_bytes) {
  constexpr const char* kBcastMultitreeName = "bcast_multitree_torus";
  detail::check_non_negative(kBcastMultitreeName, "bytes", bytes);
  detail::check_non_negative(kBcastMultitreeName, "segment", segment_bytes);
  // Tree 0 first: it checks the dimensions and the root.
  std::vector<BroadcastTree> shapes{torus_multitree_tree(dims, root, 0)};
  for (int t = 1; t < 3; ++t) shapes.push_back(torus_multitree_tree(dims, root, t));
  return detail::pipelined_trees(kBcastMultitreeName, bytes, shapes, segment_bytes);
}

}  // namespace choreo::coll
