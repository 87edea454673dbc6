// Open MPI's split-binary-tree broadcast (ompi_coll_base_bcast_intra_split_bintree, Open MPI
// 3.x's choice from 2 KiB to 362 KiB; paper 000's MPI_Bcast): the message is cut in two
// halves; the odd relative ranks' binary tree pipelines the first half in segments and the
// even ones' tree the second, then partners swap halves.
#include <algorithm>
#include <vector>

#include "arguments.hpp"
#include "choreo/coll/generators.hpp"
#include "choreo/core/error.hpp"

namespace choreo::coll {
namespace {

constexpr const char* kSplitBintreeName = "bcast_split_bintree";

/// Open MPI's binary tree (topo_build_tree with fan-out 2) on relative ranks: level l holds
/// 2^l - 1 .. 2^(l+1) - 2, and s on level l has the children s + 2^l and s + 2^(l+1).
std::vector<std::int64_t> tree_children(std::int64_t s, std::int64_t ranks) {
  std::int64_t level = 1;  // 2^l of s's level
  while (2 * level - 1 <= s) level *= 2;
  std::vector<std::int64_t> out;
  for (const std::int64_t c : {s + level, s + 2 * level})
    if (c < ranks) out.push_back(c);
  return out;
}

std::int64_t tree_parent(std::int64_t s) {
  // s's level 2^l: the parent p on the level above has s = p + 2^(l-1) or p + 2^l.
  std::int64_t level = 1;
  while (2 * level - 1 <= s) level *= 2;
  const std::int64_t up = level / 2;  // 2^(l-1): the parent's level
  const std::int64_t first = s - up;  // s = p + 2^(l-1) with p on level l-1
  return first >= up - 1 && first <= 2 * up - 2 ? first : s - level;
}

}  // namespace

CompactSchedule bcast_split_bintree(int ranks, std::int64_t bytes, int root, std::int64_t segment) {
  detail::check_per_rank_bytes(kSplitBintreeName, ranks, bytes);
  detail::check_root(kSplitBintreeName, ranks, root);
  if (segment < 1) throw Error("bcast_split_bintree: the segment must be at least 1 byte");
  const std::int64_t p = ranks;
  const std::int64_t half[2] = {bytes / 2, bytes - bytes / 2};
  const std::int64_t segments[2] = {(half[0] + segment - 1) / segment,
                                    (half[1] + segment - 1) / segment};
  const auto segment_bytes = [&](int h, std::int64_t g) {
    return std::min(segment, half[h] - g * segment);
  };
  const int swap_tag = static_cast<int>(std::max(segments[0], segments[1]));
  const auto world = [&](std::int64_t s) { return static_cast<int>((s + root) % p); };
  const std::uint64_t ops =
      static_cast<std::uint64_t>(p) * (3 * static_cast<std::uint64_t>(segments[1] + 1) + 4);
  CompactBuilder b(ranks, detail::checked_op_count(kSplitBintreeName, ranks, ops));
  for (int r = 0; r < ranks; ++r) {
    b.begin_rank(r);
    if (bytes == 0 || ranks == 1) continue;
    const std::int64_t s = (r - root + p) % p;
    std::uint32_t last = detail::kNoOp;  // the op phase 2 waits for
    const auto after = [&](std::uint32_t op, std::uint32_t dependency) {
      if (dependency != detail::kNoOp) b.requires_completed(op, dependency);
    };
    if (s == 0) {  // blocking sends, segment by segment: half 0 to s = 1, half 1 to s = 2
      for (std::int64_t g = 0; g < std::max(segments[0], segments[1]); ++g)
        for (int h = 0; h < 2; ++h)
          if (g < segments[h] && 1 + h < p) {
            const auto op = b.send(world(1 + h), segment_bytes(h, g), static_cast<int>(g));
            after(op, last);
            last = op;
          }
      if (p % 2 == 0) after(b.send(world(p - 1), half[1], swap_tag), last);  // no partner
      continue;
    }
    const int h = s % 2 == 1 ? 0 : 1;  // odd ranks carry half 0, even ones half 1
    const int parent = world(tree_parent(s));
    const auto children = tree_children(s, p);
    std::vector<std::uint32_t> received;
    std::uint32_t last_send = detail::kNoOp;
    for (std::int64_t g = 0; g < segments[h]; ++g) {
      // A leaf receives blocking; an inner rank keeps the next segment's receive posted while
      // it forwards the one before, each send blocking.
      const auto recv = b.recv(parent, segment_bytes(h, g), static_cast<int>(g));
      if (children.empty()) {
        after(recv, g > 0 ? received.back() : detail::kNoOp);
      } else if (g >= 2) {
        after(recv, last_send);
      }
      received.push_back(recv);
      const auto forward = [&](std::int64_t k) {
        for (const std::int64_t c : children) {
          const auto send = b.send(world(c), segment_bytes(h, k), static_cast<int>(k));
          after(send, received[static_cast<std::size_t>(k)]);
          after(send, last_send);
          last_send = send;
        }
      };
      if (!children.empty() && g >= 1) forward(g - 1);
      if (!children.empty() && g + 1 == segments[h]) forward(g);
    }
    last = children.empty() ? (received.empty() ? detail::kNoOp : received.back()) : last_send;
    // Phase 2: swap halves with the partner (odd s with s + 1); the last rank of an even P
    // has none and gets half 1 from the root.
    const std::int64_t partner = s % 2 == 1 ? s + 1 : s - 1;
    if (partner >= p) {
      after(b.recv(world(0), half[1], swap_tag), last);
      continue;
    }
    const auto recv = b.recv(world(partner), half[1 - h], swap_tag);
    const auto send = b.send(world(partner), half[h], swap_tag);
    after(recv, last);
    after(send, last);
  }
  return b.finish();
}

}  // namespace choreo::coll
