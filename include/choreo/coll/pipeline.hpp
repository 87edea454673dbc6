#pragma once
// Pipelined tree broadcasts (paper 003): the message is cut into parts, each part into
// segments, and each part's segments flow down a k-ary tree one behind the other, so every
// level of the tree works on a different segment at once. bcast_kary_pipeline is one tree;
// bcast_multitree is Trinaryx3's idea on a switch: t parts down t trees whose interior
// nodes are disjoint, so every rank forwards at most one part and the forwarding load is
// spread over the ranks; bcast_multitree_torus maps three trees onto a 3-D torus so that
// no link carries two of them.
//
// These generators tag a message with its segment's number g (segments numbered part by
// part, see Segmentation), not with a step: a pipeline has no global steps, and the number
// lets a receiver place the bytes (and MPI match them) without knowing the tree.
#include <array>
#include <cstdint>
#include <vector>

#include "choreo/core/compact_schedule.hpp"

namespace choreo::coll {

/// One segment of a broadcast message: bytes [offset, offset + bytes) of part `part`.
struct Segment {
  int part = 0;
  std::int64_t offset = 0;
  std::int64_t bytes = 0;
  friend bool operator==(const Segment&, const Segment&) = default;
};

/// How a message of `bytes` is cut: into `parts` parts as evenly as possible (the first
/// bytes % parts one byte longer), each part into segments of segment_bytes, the last one
/// shorter. Segments are numbered part by part: part 0's first, then part 1's, ...
/// Empty parts (bytes < parts) have no segments.
class Segmentation {
 public:
  Segmentation(std::int64_t bytes, int parts, std::int64_t segment_bytes);
  int count() const { return static_cast<int>(segments_.size()); }
  const Segment& operator[](int g) const { return segments_[static_cast<std::size_t>(g)]; }
  /// The numbers of part p's segments, in message order.
  const std::vector<int>& of_part(int part) const {
    return of_part_[static_cast<std::size_t>(part)];
  }

 private:
  std::vector<Segment> segments_;
  std::vector<std::vector<int>> of_part_;
};

/// A k-ary tree over the ranks: parent(r) (-1 for the root) and children(r) in send order.
struct BroadcastTree {
  std::vector<int> parent;
  std::vector<std::vector<int>> children;
  int depth = 0;  ///< edges on the longest root-to-leaf path
  bool is_interior(int rank) const { return !children[static_cast<std::size_t>(rank)].empty(); }
};

/// Tree `tree` (0..trees-1) of bcast_multitree: a k-ary heap whose position 0 is the root and
/// whose positions 1..P-1 hold the other ranks in root-relative order (vr = r - root mod P)
/// rotated by tree * I, I = floor((P-2)/k) being how many non-root ranks are interior. The
/// interior ranks of tree t are thus the block [t I, (t+1) I) of the rotated order, and
/// with trees <= arity those blocks never overlap: each rank is interior in at most one tree.
BroadcastTree multitree_tree(int ranks, int root, int arity, int trees, int tree);

/// One rank's place in a tree: its parent (-1 for the root) and its children in send order.
struct TreeLinks {
  int parent = -1;
  std::vector<int> children;
  friend bool operator==(const TreeLinks&, const TreeLinks&) = default;
};

/// Rank `rank`'s parent and children in multitree_tree(ranks, root, arity, trees, tree), from
/// the heap's closed form instead of the whole tree: the rank's position is its rotated
/// root-relative number, its parent sits at position (p - 1) / arity and its children at
/// arity p + 1 .. arity p + arity. O(arity) time and memory whatever P, which is what a rank
/// needs to build its own program (persistent broadcasts). Throws as multitree_tree does, and
/// unless 0 <= rank < ranks.
TreeLinks multitree_links(int ranks, int root, int arity, int trees, int tree, int rank);

/// The depth of the trees of multitree_tree(ranks, .., arity, trees, ..) (all alike: k-ary
/// heaps of P nodes), in O(log P) for arity >= 2. Throws as multitree_tree does on ranks,
/// arity and trees.
int multitree_depth(int ranks, int arity, int trees = 1);

/// Tree `tree` (0, 1 or 2) of the torus-mapped Trinaryx3 broadcast (paper 003's Fig. 2) on
/// an A x B x C torus, dims = {A, B, C}, rank r at coordinates (r % A, (r / A) % B, r / (A B)):
/// choreo sim's linear placement of A B C ranks on `--network torus:AxBxC`. With axes
/// a = tree, b = tree + 1, c = tree + 2 (mod 3: X-Y-Z, Y-Z-X, Z-X-Y), every edge joins
/// neighbours:
///   - the root's a-line is a chain in the + direction of a (its first child);
///   - from every node of that line a chain in the - direction of b covers the root's ab-plane;
///   - from every node of that plane a chain in the + direction of c covers the torus,
///   - except the root's own c-line: its nodes r + i e_c (i >= 1) hear from r + e_b + i e_c
///     (the next c-line) over its - b link, when axes b and c have 2 or more nodes.
/// Axis k's links thus go: + on the root's k-line to tree k, + elsewhere to tree k + 1 (its
/// c-axis, which avoids that line), - to tree k + 2 (its b-axis: plane and detour). Claim
/// (tests/unit/test_coll_pipeline.cpp): with every dimension >= 3 (so a neighbour is one
/// hop of dimension-order routing in the intended direction), no directed torus link carries
/// two trees, whatever the segment or step. The root has two children per tree (its six
/// links, one tree each), other nodes at most three; depth <= A + B + C - 2.
BroadcastTree torus_multitree_tree(const std::array<int, 3>& dims, int root, int tree);

/// Hockney's rule for the segment of a pipeline: a part of m bytes cut into S segments goes
/// down a tree of depth d in about (S + d - 1)(alpha + beta m / S), least at
/// m / S = sqrt(m alpha / ((d - 1) beta)). With d <= 1 nothing overlaps, so the whole part
/// is one segment. The result is clamped to [kMinSegmentBytes, kMaxSegmentBytes] (and to
/// m, at least 1): below a few KiB the per-message cost dominates any model error, and
/// above some MiB a segment holds the pipeline back for nothing.
inline constexpr std::int64_t kMinSegmentBytes = 4096;
inline constexpr std::int64_t kMaxSegmentBytes = std::int64_t{4} << 20;
/// Shared memory on a recent x86 node with MPICH: ~1.5 us per message, ~4 GB/s.
inline constexpr double kDefaultAlphaSeconds = 1.5e-6;
inline constexpr double kDefaultBetaSecondsPerByte = 0.25e-9;
std::int64_t hockney_segment_bytes(std::int64_t part_bytes, int depth,
                                   double alpha = kDefaultAlphaSeconds,
                                   double beta = kDefaultBetaSecondsPerByte);

/// How many of a link's segments may be in flight: a send of segment j of a part to a child
/// requires the completion of the send of segment j - kPipelineWindow of that part to the
/// same child. A few in flight keep the link busy while the MPI library handles one; more
/// would only make the MPI library juggle requests.
inline constexpr int kPipelineWindow = 4;

/// Pipelined broadcast down one k-ary tree (bcast_multitree with one part). segment_bytes
/// == 0 takes hockney_segment_bytes(bytes, depth). On rank r, for each segment g in order:
///   recv(parent, segment bytes, tag g)           -- non-root only; requires nothing, so
///                                                   every receive can be posted at once
///   send(child, segment bytes, tag g) per child  -- requires that receive, and the send of
///                                                   segment g - kPipelineWindow to the child
/// P - 1 receives of every segment; bytes == 0 or P == 1 yields no ops.
CompactSchedule bcast_kary_pipeline(int ranks, std::int64_t bytes, int root = 0, int arity = 2,
                                    std::int64_t segment_bytes = 0);

/// Trinaryx3-like broadcast: the message cut into `trees` parts, part t pipelined in segments
/// down multitree_tree(.., t). Program order interleaves the parts (segment j of every part,
/// then segment j+1), so the root feeds every tree at once; ops and dependencies are those
/// of bcast_kary_pipeline within each tree. segment_bytes == 0 takes
/// hockney_segment_bytes(bytes / trees, depth). Throws unless 1 <= trees <= arity (so
/// interior-disjoint trees exist).
CompactSchedule bcast_multitree(int ranks, std::int64_t bytes, int root = 0, int trees = 3,
                                int arity = 3, std::int64_t segment_bytes = 0);

/// bcast_multitree with the three trees mapped onto an A x B x C torus
/// (torus_multitree_tree): three parts, each pipelined down one tree, with the same ops,
/// tags and dependencies. segment_bytes == 0 takes hockney_segment_bytes(bytes / 3, the
/// deepest tree's depth). `choreo generate bcast:multitree:ranks=P:bytes=N:x=A:y=B:z=C`.
CompactSchedule bcast_multitree_torus(const std::array<int, 3>& dims, std::int64_t bytes,
                                      int root = 0, std::int64_t segment_bytes = 0);

}  // namespace choreo::coll
