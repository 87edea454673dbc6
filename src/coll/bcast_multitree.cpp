// Trinaryx3-like broadcast: parts pipelined in segments down interior-disjoint k-ary trees, or
// down three link-disjoint trees on a 3-D torus.
#include <fmt/format.h>

#include <algorithm>

#include "arguments.hpp"
#include "choreo/coll_pipeline.hpp"
#include "choreo/error.hpp"
#include "pipelined_trees.hpp"

namespace choreo::coll {

namespace detail {
namespace {

/// Rank r's ops for one segment of one tree: the receive from the parent, then one send per
/// child. last_sends[child slot] keeps each link's recent sends for the window.
void emit_segment(sim::CompactBuilder& b, const BroadcastTree& tree, int r, const Segment& segment,
                  int g, std::vector<std::vector<std::uint32_t>>& link_sends) {
  const auto& children = tree.children[static_cast<std::size_t>(r)];
  const int parent = tree.parent[static_cast<std::size_t>(r)];
  std::uint32_t recv = kNoOp;
  if (parent >= 0) recv = b.recv(parent, segment.bytes, g);
  for (std::size_t c = 0; c < children.size(); ++c) {
    const std::uint32_t send = b.send(children[c], segment.bytes, g);
    if (recv != kNoOp) b.requires_completed(send, recv);  // forwards what arrived
    auto& sent = link_sends[c];
    if (sent.size() >= static_cast<std::size_t>(kPipelineWindow))
      b.requires_completed(send, sent[sent.size() - kPipelineWindow]);
    sent.push_back(send);
  }
}

}  // namespace

sim::CompactSchedule pipelined_trees(const char* generator, int ranks, std::int64_t bytes, int root,
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

sim::CompactSchedule pipelined_trees(const char* generator, std::int64_t bytes,
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
  sim::CompactBuilder b(ranks, checked_op_count(generator, ranks, 2 * messages), 2 * messages);
  std::size_t longest = 0;
  for (int t = 0; t < trees; ++t) longest = std::max(longest, segments.of_part(t).size());
  for (int r = 0; r < ranks; ++r) {
    b.begin_rank(r);
    std::vector<std::vector<std::vector<std::uint32_t>>> link_sends(
        static_cast<std::size_t>(trees));
    for (int t = 0; t < trees; ++t)
      link_sends[static_cast<std::size_t>(t)].resize(
          shapes[static_cast<std::size_t>(t)].children[static_cast<std::size_t>(r)].size());
    // Segment j of every part before segment j+1 of any: the root feeds all trees at once.
    for (std::size_t j = 0; j < longest; ++j)
      for (int t = 0; t < trees; ++t) {
        const auto& own = segments.of_part(t);
        if (j >= own.size()) continue;
        const int g = own[j];
        emit_segment(b, shapes[static_cast<std::size_t>(t)], r, segments[g], g,
                     link_sends[static_cast<std::size_t>(t)]);
      }
  }
  return b.finish();
}

}  // namespace detail

sim::CompactSchedule bcast_multitree(int ranks, std::int64_t bytes, int root, int trees, int arity,
                                     std::int64_t segment_bytes) {
  return detail::pipelined_trees("bcast_multitree", ranks, bytes, root, trees, arity,
                                 segment_bytes);
}

sim::CompactSchedule bcast_multitree_torus(const std::array<int, 3>& dims, std::int64_t bytes,
                                           int root, std::int64_t segment_bytes) {
  constexpr const char* kBcastMultitreeName = "bcast_multitree_torus";
  detail::check_non_negative(kBcastMultitreeName, "bytes", bytes);
  detail::check_non_negative(kBcastMultitreeName, "segment", segment_bytes);
  // Tree 0 first: it checks the dimensions and the root.
  std::vector<BroadcastTree> shapes{torus_multitree_tree(dims, root, 0)};
  for (int t = 1; t < 3; ++t) shapes.push_back(torus_multitree_tree(dims, root, t));
  return detail::pipelined_trees(kBcastMultitreeName, bytes, shapes, segment_bytes);
}

}  // namespace choreo::coll
