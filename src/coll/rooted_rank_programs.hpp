#pragma once
// One rank's program of the binomial reduce, gather and scatter and of the dissemination
// barrier (private), written into any ProgramBuilder: the generators (reduce_binomial.cpp,
// gather_binomial.cpp, barrier_dissemination.cpp) call these for every rank, a persistent
// collective (src/persist) for its own rank only. Documented with the generators in
// choreo/coll/generators.hpp. Rank arithmetic is 64-bit so that vr + 2^j cannot overflow.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "arguments.hpp"
#include "program_builder.hpp"

namespace choreo::coll::detail {

/// Blocks in the binomial subtree of relative rank vr (itself and its descendants): its lowest
/// set bit, cut at P; all P for the root.
inline std::int64_t binomial_subtree_blocks(std::int64_t vr, std::int64_t ranks) {
  if (vr == 0) return ranks;
  return std::min(vr & -vr, ranks - vr);
}

/// Rank r of reduce_binomial (MPICH's MPIR_Reduce_intra_binomial for a commutative op):
/// relative to the root, receive and reduce each child's vector, smallest subtree first, then
/// send the result to the parent; each op requires the one before. The tag is the step (the
/// link's bit). Nothing for an empty vector.
template <ProgramBuilder Builder>
void reduce_binomial_rank(Builder& b, std::int64_t ranks, std::int64_t r, std::int64_t root,
                          std::int64_t amount, std::int64_t reduce_ns) {
  if (amount == 0) return;
  const std::int64_t vr = (r - root + ranks) % ranks;
  std::uint32_t last = kNoOp;
  const auto after_last = [&](std::uint32_t op) {
    if (last != kNoOp) b.requires_completed(op, last);
    last = op;
  };
  int step = 0;
  for (std::int64_t mask = 1; mask < ranks; mask *= 2, ++step) {
    if ((vr & mask) != 0) {  // the parent's turn: send the partial result up, done
      after_last(b.send(static_cast<int>(((vr - mask) + root) % ranks), amount, step));
      break;
    }
    if (vr + mask >= ranks) continue;
    after_last(b.recv(static_cast<int>((vr + mask + root) % ranks), amount, step));
    after_last(b.calc(reduce_ns));  // the reduction of what arrived
  }
}

/// The ceil(log2 P) steps of a binomial gather or scatter.
inline int binomial_steps(std::int64_t ranks) {
  int steps = 0;
  while ((std::int64_t{1} << steps) < ranks) ++steps;
  return steps;
}

/// Rank r of gather_binomial (up) or scatter_binomial (down), MPICH's
/// MPIR_Gather_intra_binomial and MPIR_Scatter_intra_binomial: the message over the link of
/// bit j carries the child's subtree, binomial_subtree_blocks(child) blocks of
/// `amount_per_rank`. Gather goes up, children by growing bit then the parent, with tag j;
/// scatter is its mirror image, largest subtree first, with tag steps-1-j. Each op requires the
/// one before. Nothing for empty blocks.
template <ProgramBuilder Builder>
void binomial_tree_rank(Builder& b, bool up, std::int64_t ranks, std::int64_t r, std::int64_t root,
                        std::int64_t amount_per_rank) {
  if (amount_per_rank == 0) return;
  const int steps = binomial_steps(ranks);
  const std::int64_t vr = (r - root + ranks) % ranks;
  const auto world = [&](std::int64_t v) { return static_cast<int>((v + root) % ranks); };
  struct Link {
    bool child;
    std::int64_t peer, blocks;
    int bit;
  };
  std::vector<Link> links;  // in gather order: children by growing bit, then the parent
  int bit = 0;
  for (std::int64_t mask = 1; mask < ranks; mask *= 2, ++bit) {
    if ((vr & mask) != 0) {
      links.push_back({false, vr - mask, binomial_subtree_blocks(vr, ranks), bit});
      break;
    }
    if (vr + mask < ranks)
      links.push_back({true, vr + mask, binomial_subtree_blocks(vr + mask, ranks), bit});
  }
  if (!up) std::reverse(links.begin(), links.end());
  std::uint32_t last = kNoOp;
  for (const Link& link : links) {
    const int tag = up ? link.bit : steps - 1 - link.bit;
    const bool receives = link.child == up;
    const std::int64_t amount = link.blocks * amount_per_rank;
    const std::uint32_t op =
        receives ? b.recv(world(link.peer), amount, tag) : b.send(world(link.peer), amount, tag);
    if (last != kNoOp) b.requires_completed(op, last);
    last = op;
  }
}

/// Rank r of barrier_dissemination (MPICH's MPIR_Barrier_intra_dissemination): in round i an
/// empty message to r + 2^i and one from r - 2^i, tag i; a round starts when the previous
/// round's send and receive are both done (one MPI_Sendrecv per round).
template <ProgramBuilder Builder>
void barrier_dissemination_rank(Builder& b, std::int64_t ranks, std::int64_t r) {
  std::uint32_t last_send = kNoOp, last_recv = kNoOp;
  for (int i = 0; (std::int64_t{1} << i) < ranks; ++i) {
    const std::int64_t distance = std::int64_t{1} << i;
    const auto to = static_cast<int>((r + distance) % ranks);
    const auto from = static_cast<int>(((r - distance) % ranks + ranks) % ranks);
    const std::uint32_t send = b.send(to, 0, i), recv = b.recv(from, 0, i);
    for (std::uint32_t op : {send, recv})
      if (last_send != kNoOp) {
        b.requires_completed(op, last_send);
        b.requires_completed(op, last_recv);
      }
    last_send = send;
    last_recv = recv;
  }
}

}  // namespace choreo::coll::detail
