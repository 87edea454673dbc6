// Segmentation, the trees of bcast_multitree and Hockney's segment rule: the layout shared by
// the pipelined tree broadcasts and by the persistent collectives that place their bytes.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "choreo/coll/pipeline.hpp"
#include "choreo/core/error.hpp"
#include "steps.hpp"

namespace choreo::coll {

Segmentation::Segmentation(std::int64_t bytes, int parts, std::int64_t segment_bytes)
    : of_part_(static_cast<std::size_t>(std::max(parts, 0))) {
  if (parts < 1)
    throw Error(fmt::format("a message must be cut into 1 or more parts, not {}", parts));
  if (segment_bytes < 1)
    throw Error(fmt::format("segments must hold 1 byte or more, not {}", segment_bytes));
  const detail::EvenSplit split{bytes, parts};
  std::int64_t part_offset = 0;
  for (int p = 0; p < parts; ++p) {
    const std::int64_t part_bytes = split.chunk(p);
    for (std::int64_t at = 0; at < part_bytes; at += segment_bytes) {
      if (segments_.size() >= static_cast<std::size_t>(std::numeric_limits<int>::max()))
        throw Error(
            fmt::format("{} bytes in segments of {} make more than 2^31 segments; "
                        "choose larger segments",
                        bytes, segment_bytes));
      of_part_[static_cast<std::size_t>(p)].push_back(count());
      segments_.push_back({p, part_offset + at, std::min(segment_bytes, part_bytes - at)});
    }
    part_offset += part_bytes;
  }
}

namespace {

constexpr const char* kMultitreeTreeName = "multitree_tree";

/// The checks of multitree_tree on arity and the number of trees.
void check_arity_and_trees(int arity, int trees) {
  if (arity < 1) throw Error(fmt::format("a tree's arity must be 1 or more, not {}", arity));
  if (trees < 1 || trees > arity)
    throw Error(
        fmt::format("{} trees of arity {}: interior-disjoint trees need 1 <= trees <= "
                    "arity; use fewer trees or a larger arity",
                    trees, arity));
}

/// All the checks of multitree_tree, in its order.
void check_multitree(const char* function, int ranks, int root, int arity, int trees, int tree) {
  detail::check_ranks(function, ranks);
  detail::check_root(function, ranks, root);
  check_arity_and_trees(arity, trees);
  if (tree < 0 || tree >= trees)
    throw Error(fmt::format("tree {} is not one of 0..{}", tree, trees - 1));
}

/// Tree `tree` of the multitree as a k-ary heap: position 0 is the root, positions 1..P-1 the
/// non-root ranks in root-relative order rotated by tree * I (I = floor((P-2)/k), the interior
/// non-root positions). Both directions of the position <-> rank map are O(1), so one rank's
/// links need neither the tree nor the rank list. 64-bit: arity * position can exceed an int.
class RotatedHeap {
 public:
  RotatedHeap(int ranks, int root, int arity, int tree)
      : ranks_(ranks), root_(root), arity_(arity) {
    const std::int64_t interior = ranks >= 2 ? (ranks - 2) / arity : 0;
    // tree < trees <= arity, so the shift stays below P - 1: one rotation at most.
    shift_ = tree * interior;
  }
  int rank_at(std::int64_t position) const {
    if (position == 0) return static_cast<int>(root_);
    const std::int64_t q = (position - 1 + shift_) % non_root();
    return detail::mod_add(static_cast<int>(root_), q + 1, static_cast<int>(ranks_));
  }
  std::int64_t position_of(int rank) const {
    if (rank == root_) return 0;
    const std::int64_t q = (rank - root_ + ranks_) % ranks_ - 1;  // 0..P-2
    return (q - shift_ + non_root()) % non_root() + 1;
  }
  std::int64_t parent_position(std::int64_t position) const { return (position - 1) / arity_; }
  std::int64_t first_child_position(std::int64_t position) const { return arity_ * position + 1; }

 private:
  std::int64_t non_root() const { return ranks_ - 1; }
  std::int64_t ranks_, root_, arity_, shift_ = 0;
};

/// Edges on the longest root-to-leaf path of a k-ary heap of `nodes` nodes.
int heap_depth(std::int64_t nodes, int arity) {
  if (arity == 1) return static_cast<int>(nodes - 1);  // a chain: no loop over P levels
  int depth = 0;
  for (std::int64_t level_end = 1, width = 1; level_end < nodes; ++depth) {
    width *= arity;
    level_end += width;
  }
  return depth;
}

}  // namespace

BroadcastTree multitree_tree(int ranks, int root, int arity, int trees, int tree) {
  check_multitree(kMultitreeTreeName, ranks, root, arity, trees, tree);
  const RotatedHeap heap(ranks, root, arity, tree);
  BroadcastTree out;
  out.parent.assign(static_cast<std::size_t>(ranks), -1);
  out.children.resize(static_cast<std::size_t>(ranks));
  for (std::int64_t position = 1; position < ranks; ++position) {
    const int child = heap.rank_at(position);
    const int parent = heap.rank_at(heap.parent_position(position));
    out.parent[static_cast<std::size_t>(child)] = parent;
    out.children[static_cast<std::size_t>(parent)].push_back(child);
  }
  out.depth = heap_depth(ranks, arity);
  return out;
}

TreeLinks multitree_links(int ranks, int root, int arity, int trees, int tree, int rank) {
  constexpr const char* kMultitreeLinksName = "multitree_links";
  check_multitree(kMultitreeLinksName, ranks, root, arity, trees, tree);
  if (rank < 0 || rank >= ranks)
    throw Error(
        fmt::format("{}: rank {} is not a rank of 0..{}", kMultitreeLinksName, rank, ranks - 1));
  const RotatedHeap heap(ranks, root, arity, tree);
  const std::int64_t position = heap.position_of(rank);
  TreeLinks links;
  if (position > 0) links.parent = heap.rank_at(heap.parent_position(position));
  // Children in position order, as multitree_tree adds them.
  const std::int64_t first = heap.first_child_position(position);
  for (std::int64_t child = first; child < first + arity && child < ranks; ++child)
    links.children.push_back(heap.rank_at(child));
  return links;
}

int multitree_depth(int ranks, int arity, int trees) {
  detail::check_ranks("multitree_depth", ranks);
  check_arity_and_trees(arity, trees);
  return heap_depth(ranks, arity);
}

BroadcastTree torus_multitree_tree(const std::array<int, 3>& dims, int root, int tree) {
  std::int64_t nodes = 1;
  for (int n : dims) {
    if (n < 1)
      throw Error(fmt::format("torus dimensions must be 1 or more, not {}x{}x{}", dims[0], dims[1],
                              dims[2]));
    nodes *= n;
  }
  if (nodes > std::numeric_limits<int>::max())
    throw Error(fmt::format("a {}x{}x{} torus has more ranks than an int counts", dims[0], dims[1],
                            dims[2]));
  const int ranks = static_cast<int>(nodes);
  detail::check_root("torus_multitree_tree", ranks, root);
  if (tree < 0 || tree > 2)
    throw Error(fmt::format("tree {} is not one of the torus trees 0, 1, 2", tree));
  const std::array<int, 3> stride{1, dims[0], dims[0] * dims[1]};
  // The rank `hops` neighbours away from r along `axis` (negative: the - direction), wrapping.
  auto step = [&](int r, std::size_t axis, int hops) {
    const int n = dims[axis], at = (r / stride[axis]) % n;
    return r + (((at + hops) % n + n) % n - at) * stride[axis];
  };
  const auto a = static_cast<std::size_t>(tree), b = (a + 1) % 3, c = (a + 2) % 3;
  BroadcastTree out;
  out.parent.assign(static_cast<std::size_t>(ranks), -1);
  out.children.resize(static_cast<std::size_t>(ranks));
  std::vector<int> depth(static_cast<std::size_t>(ranks), 0);
  // Parents are always added before their children, so depths are known when needed. Edges
  // are added line by line in the order a, b, c, detour: a node's children go in that order.
  auto edge = [&](int from, int to) {
    out.parent[static_cast<std::size_t>(to)] = from;
    out.children[static_cast<std::size_t>(from)].push_back(to);
    depth[static_cast<std::size_t>(to)] = depth[static_cast<std::size_t>(from)] + 1;
    out.depth = std::max(out.depth, depth[static_cast<std::size_t>(to)]);
  };
  for (int i = 0; i + 1 < dims[a]; ++i) edge(step(root, a, i), step(root, a, i + 1));
  for (int i = 0; i < dims[a]; ++i) {
    const int line = step(root, a, i);
    for (int j = 0; j + 1 < dims[b]; ++j) edge(step(line, b, -j), step(line, b, -j - 1));
  }
  // The root's c-line is the root's line of tree c's own a-axis, whose + links tree c takes;
  // this tree reaches it from the next c-line over - b links, which no other tree uses there.
  const bool detour = dims[b] >= 2 && dims[c] >= 2;
  for (int i = 0; i < dims[a]; ++i)
    for (int j = 0; j < dims[b]; ++j) {
      const int start = step(step(root, a, i), b, -j);
      if (detour && start == root) continue;
      for (int k = 0; k + 1 < dims[c]; ++k) edge(step(start, c, k), step(start, c, k + 1));
    }
  if (detour) {
    const int beside = step(root, b, 1);
    for (int k = 1; k < dims[c]; ++k) edge(step(beside, c, k), step(root, c, k));
  }
  return out;
}

std::int64_t hockney_segment_bytes(std::int64_t part_bytes, int depth, double alpha, double beta) {
  if (!(alpha > 0) || !(beta > 0))
    throw Error(
        fmt::format("Hockney's segment rule needs alpha > 0 and beta > 0, not alpha={} "
                    "beta={}; take them from a calibration profile (choreo-mpi calibrate)",
                    alpha, beta));
  const std::int64_t whole = std::max<std::int64_t>(part_bytes, 1);
  if (depth <= 1) return std::min(whole, kMaxSegmentBytes);
  const double best = std::sqrt(static_cast<double>(whole) * alpha / ((depth - 1) * beta));
  const auto rounded = static_cast<std::int64_t>(std::llround(best));
  return std::min(std::clamp(rounded, kMinSegmentBytes, kMaxSegmentBytes), whole);
}

}  // namespace choreo::coll
