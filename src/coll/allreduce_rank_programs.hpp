#pragma once
// One rank's program of the butterfly and ring allreduces (private), written into any
// ProgramBuilder: allreduce_recursive_doubling and allreduce_ring call these for every rank,
// a persistent allreduce (src/persist) for its own rank only. The programs are documented
// with the generators in choreo/coll/generators.hpp.
#include <cstdint>

#include "program_builder.hpp"
#include "steps.hpp"

namespace choreo::coll::detail {

/// Rank r of allreduce_recursive_doubling over f's ranks: O(log P) ops.
template <ProgramBuilder Builder>
void allreduce_recursive_doubling_rank(Builder& b, const Fold& f, int r, std::int64_t bytes,
                                       std::int64_t reduce_ns) {
  if (r >= 2 * f.rem) {
    butterfly_rounds(b, f, r - f.rem, bytes, reduce_ns, kNoOp);
  } else if (r % 2 == 1) {
    fold_hand_off(b, f, r, bytes);
  } else {
    // Rank 2j of a folded pair: reduce 2j+1's data, run the butterfly, return the result.
    const std::uint32_t calc = fold_take_in(b, f, r, bytes, reduce_ns);
    const std::uint32_t last = butterfly_rounds(b, f, r / 2, bytes, reduce_ns, calc);
    const std::uint32_t send = b.send(r + 1, bytes, f.fold_out_tag());
    b.requires_completed(send, last);
  }
}

/// The first step at or after `step` of a ring phase that moves bytes, where step s sends
/// chunk (first_sent - s) mod P and receives the chunk before it. With bytes >= P every step
/// does. Otherwise only chunks 0..bytes-1 hold bytes, so a step moves some only while the
/// chunk it sends is at most `bytes`, and the steps before that are jumped over at once: they
/// would add no op, and a step without ops leaves the frontier as it was (Frontier). A rank
/// thus visits O(bytes) steps, not 2 (P-1), which is what makes its program O(its messages).
inline std::int64_t next_step_with_bytes(const EvenSplit& chunks, std::int64_t first_sent,
                                         std::int64_t step) {
  if (chunks.bytes >= chunks.parts) return step;
  const std::int64_t sent = ((first_sent - step) % chunks.parts + chunks.parts) % chunks.parts;
  return sent <= chunks.bytes ? step : step + (sent - chunks.bytes);
}

/// The ring's reduce-scatter over `ranks`, rank r: step s (tag s) sends chunk r - s (the
/// input's own at s = 0, else what step s-1 reduced) to r+1 and receives chunk r - s - 1 from
/// r-1 to add in, P-1 steps; afterwards rank r holds chunk r + 1 fully reduced. Sizes come
/// from chunks.chunk(i) (a side of 0 adds no op); next_step(s) is the first step at or after s
/// worth visiting (s itself where any step may move bytes); a calc's reduce_ns is scaled by
/// its chunk's share of `total`. allreduce_ring's first half, and a persistent reduce-scatter.
template <ProgramBuilder Builder, class Chunks, class NextStep>
void reduce_scatter_ring_steps(Builder& b, Frontier& order, int ranks, int r, const Chunks& chunks,
                               std::int64_t total, std::int64_t reduce_ns, NextStep next_step) {
  const int right = mod_add(r, 1, ranks), left = mod_sub(r, 1, ranks);
  for (std::int64_t s = next_step(0); s + 1 < ranks; s = next_step(s + 1)) {
    const std::int64_t out = chunks.chunk(mod_sub(r, s, ranks));
    const std::int64_t in = chunks.chunk(mod_sub(r, s + 1, ranks));
    // The send reads what the previous step's calc reduced.
    sendrecv_reduce_step(b, order, right, out, left, in, static_cast<int>(s),
                         scaled_ns(reduce_ns, in, total));
  }
}

/// Rank r of allreduce_ring over `ranks`: 2 (P-1) steps, of which those that move no byte
/// (bytes < P) add no op and are skipped. `order` must be empty (a new Frontier) for each rank.
template <ProgramBuilder Builder>
void allreduce_ring_rank(Builder& b, Frontier& order, int ranks, int r, std::int64_t bytes,
                         std::int64_t reduce_ns) {
  const EvenSplit chunks{bytes, ranks};
  const int right = mod_add(r, 1, ranks), left = mod_sub(r, 1, ranks);
  reduce_scatter_ring_steps(b, order, ranks, r, chunks, bytes, reduce_ns,
                            [&](std::int64_t s) { return next_step_with_bytes(chunks, r, s); });
  // Allgather, step t (tag P-1+t): send chunk r + 1 - t, receive chunk r - t.
  for (std::int64_t t = next_step_with_bytes(chunks, right, 0); t + 1 < ranks;
       t = next_step_with_bytes(chunks, right, t + 1)) {
    const int tag = static_cast<int>(ranks - 1 + t);
    const std::int64_t out = chunks.chunk(mod_sub(right, t, ranks));
    const std::int64_t in = chunks.chunk(mod_sub(r, t, ranks));
    // The send forwards the chunk that arrived in the previous step.
    sendrecv_step(b, order, right, out, left, in, tag);
  }
}

}  // namespace choreo::coll::detail
