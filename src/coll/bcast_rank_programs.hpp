#pragma once
// One rank's program of the binomial and the pipelined tree broadcasts (private), written into
// any ProgramBuilder: bcast_binomial and the pipelined tree generators call these for every
// rank, a persistent broadcast (src/persist) for its own rank only. The programs are
// documented with the generators in choreo/coll/generators.hpp and choreo/coll/pipeline.hpp.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "arguments.hpp"
#include "choreo/coll/pipeline.hpp"
#include "program_builder.hpp"

namespace choreo::coll::detail {

/// The bit of vr's parent link in the binomial tree: its lowest set bit, or for the root
/// (vr == 0) the first power of two >= P, so that the root's children are all vr + 2^j < P.
inline std::int64_t binomial_parent_mask(std::int64_t vr, std::int64_t ranks) {
  std::int64_t mask = 1;
  while (mask < ranks && (vr & mask) == 0) mask *= 2;
  return mask;
}

/// Rank r of bcast_binomial: O(log P) ops. Rank arithmetic is 64-bit so that r + 2^j cannot
/// overflow for P near INT_MAX.
template <ProgramBuilder Builder>
void bcast_binomial_rank(Builder& b, std::int64_t r, std::int64_t ranks, std::int64_t root,
                         std::int64_t bytes) {
  const std::int64_t vr = (r - root + ranks) % ranks;
  const std::int64_t mask = binomial_parent_mask(vr, ranks);
  // The message over a link of bit 2^j goes in step k-1-j, k = log2(the root's mask): the
  // root sends its largest subtree first. The tag is that step.
  const std::int64_t top = binomial_parent_mask(0, ranks);
  auto step = [top](std::int64_t bit) {
    int s = 0;
    for (std::int64_t m = top / 2; m > bit; m /= 2) ++s;
    return s;
  };
  std::uint32_t recv = kNoOp;
  if (vr != 0) recv = b.recv(static_cast<int>((r - mask + ranks) % ranks), bytes, step(mask));
  for (std::int64_t child = mask / 2; child > 0; child /= 2) {
    if (vr + child >= ranks) continue;
    const std::uint32_t send = b.send(static_cast<int>((r + child) % ranks), bytes, step(child));
    if (recv != kNoOp) b.requires_completed(send, recv);  // forwards what arrived
  }
}

/// A rank's links in one tree of a pipelined broadcast, viewed (no copy of the children).
struct RankLinks {
  int parent = -1;  ///< -1 at the root
  std::span<const int> children;
};

/// The recent sends on one link: the send of a segment waits for the send kPipelineWindow
/// segments earlier on the same link, so only the last kPipelineWindow are kept.
class LinkWindow {
 public:
  /// The send a new send on this link must wait for; kNoOp while fewer were sent.
  std::uint32_t oldest() const { return sent_ >= kWindow ? last_[sent_ % kWindow] : kNoOp; }
  void push(std::uint32_t send) { last_[sent_++ % kWindow] = send; }

 private:
  static constexpr auto kWindow = static_cast<std::size_t>(kPipelineWindow);
  std::array<std::uint32_t, kWindow> last_{};
  std::size_t sent_ = 0;
};

/// Rank r of a pipelined broadcast whose part t goes down a tree in which r has the links
/// trees[t]: for each segment, the receive from the parent, then one send per child. Program
/// order interleaves the parts (segment j of every part, then segment j+1): the root feeds
/// every tree at once. O(segments x children) ops, O(trees x children) other state.
template <ProgramBuilder Builder>
void pipelined_trees_rank(Builder& b, std::span<const RankLinks> trees,
                          const Segmentation& segments) {
  std::vector<std::vector<LinkWindow>> windows(trees.size());
  std::size_t longest = 0;
  for (std::size_t t = 0; t < trees.size(); ++t) {
    windows[t].resize(trees[t].children.size());
    longest = std::max(longest, segments.of_part(static_cast<int>(t)).size());
  }
  for (std::size_t j = 0; j < longest; ++j)
    for (std::size_t t = 0; t < trees.size(); ++t) {
      const auto& own = segments.of_part(static_cast<int>(t));
      if (j >= own.size()) continue;
      const int g = own[j];
      const std::int64_t bytes = segments[g].bytes;
      std::uint32_t recv = kNoOp;
      if (trees[t].parent >= 0) recv = b.recv(trees[t].parent, bytes, g);
      for (std::size_t c = 0; c < trees[t].children.size(); ++c) {
        const std::uint32_t send = b.send(trees[t].children[c], bytes, g);
        if (recv != kNoOp) b.requires_completed(send, recv);  // forwards what arrived
        LinkWindow& link = windows[t][c];
        if (link.oldest() != kNoOp) b.requires_completed(send, link.oldest());
        link.push(send);
      }
    }
}

/// Rank r of bcast_multitree(ranks, .., root, trees, arity, ..) cut as `segments` (whose
/// parts are the trees): the rank's links come from multitree_links, so neither a tree nor
/// a rank list is built. bcast_kary_pipeline is the case trees == 1.
template <ProgramBuilder Builder>
void bcast_multitree_rank(Builder& b, int ranks, int root, int trees, int arity,
                          const Segmentation& segments, int r) {
  std::vector<TreeLinks> links;
  for (int t = 0; t < trees; ++t) links.push_back(multitree_links(ranks, root, arity, trees, t, r));
  std::vector<RankLinks> views;
  for (const TreeLinks& tree : links) views.push_back({tree.parent, tree.children});
  pipelined_trees_rank(b, std::span<const RankLinks>(views), segments);
}

}  // namespace choreo::coll::detail
