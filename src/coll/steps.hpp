#pragma once
// Step bookkeeping shared by the step-structured generators in src/coll (private): program
// order across steps, the rank-by-rank build loop, sendrecv steps, block partitions of a
// message, the power-of-two fold and scaled reduction costs. The steps write into any
// ProgramBuilder (a generator's CompactBuilder, or one rank's persistent plan).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "arguments.hpp"
#include "choreo/core/compact_schedule.hpp"
#include "program_builder.hpp"

namespace choreo::coll::detail {

/// Smallest k with 2^k >= n, for n >= 1 (the number of steps of Bruck's algorithms).
constexpr int ceil_log2(std::int64_t n) {
  int k = 0;
  while ((std::int64_t{1} << k) < n) ++k;
  return k;
}

/// (a - b) mod m and (a + b) mod m for 0 <= a, b < m, without overflowing an int.
constexpr int mod_sub(int a, std::int64_t b, int m) {
  return static_cast<int>(((a - b) % m + m) % m);
}
constexpr int mod_add(int a, std::int64_t b, int m) { return static_cast<int>((a + b) % m); }

/// The ops of the last step that emitted any. Steps of these algorithms are blocking calls
/// (a sendrecv, a copy, a reduction): every op of a step requires the frontier, and the step's
/// terminal ops become the next frontier. A step whose ops were all skipped (0 bytes) leaves
/// the frontier as it was, so skipped steps are transparent.
class Frontier {
 public:
  /// Makes op (of the rank being built) require every op of the frontier.
  template <ProgramBuilder Builder>
  void gate(Builder& b, std::uint32_t op) const {
    for (std::uint32_t dependency : ops_) b.requires_completed(op, dependency);
  }
  /// Adds op to the terminal ops of the current step (kNoOp is ignored).
  void add(std::uint32_t op) {
    if (op != kNoOp) next_.push_back(op);
  }
  /// Ends the current step: its terminal ops, if any, become the frontier.
  void end_step() {
    if (next_.empty()) return;
    ops_.swap(next_);
    next_.clear();
  }
  void reset() {
    ops_.clear();
    next_.clear();
  }

 private:
  std::vector<std::uint32_t> ops_, next_;
};

/// The schedule of a step-structured generator: build_rank(b, order, r) adds the ops of rank r
/// (begin_rank done, the frontier reset) as steps. `ops` counts the ops of all ranks and is
/// checked against what the simulator can index; the builder is sized for two dependencies an
/// op.
template <typename BuildRank>
CompactSchedule build_in_steps(const char* generator, int ranks, std::uint64_t ops,
                               BuildRank build_rank) {
  CompactBuilder b(ranks, checked_op_count(generator, ranks, ops), 2 * ops);
  Frontier order;
  for (int r = 0; r < ranks; ++r) {
    b.begin_rank(r);
    order.reset();
    build_rank(b, order, r);
  }
  return b.finish();
}

/// The ops of one sendrecv; kNoOp for a side that moves 0 bytes.
struct SendRecv {
  std::uint32_t send = kNoOp, recv = kNoOp;
};

/// A sendrecv of a step: send_bytes to `to` and recv_bytes from `from`, both with `tag` and
/// both after the frontier (the send forwards what earlier steps delivered, and a sendrecv
/// loop has one step outstanding at a time). A side of 0 bytes is left out, as MPI libraries
/// skip it. The step is not ended: the caller decides which ops complete it.
template <ProgramBuilder Builder>
SendRecv gated_sendrecv(Builder& b, const Frontier& order, int to, std::int64_t send_bytes,
                        int from, std::int64_t recv_bytes, int tag) {
  SendRecv ops;
  if (send_bytes > 0) {
    ops.send = b.send(to, send_bytes, tag);
    order.gate(b, ops.send);
  }
  if (recv_bytes > 0) {
    ops.recv = b.recv(from, recv_bytes, tag);
    order.gate(b, ops.recv);
  }
  return ops;
}

/// A step that is only a sendrecv: its send and receive become the next frontier.
template <ProgramBuilder Builder>
void sendrecv_step(Builder& b, Frontier& order, int to, std::int64_t send_bytes, int from,
                   std::int64_t recv_bytes, int tag) {
  const SendRecv ops = gated_sendrecv(b, order, to, send_bytes, from, recv_bytes, tag);
  order.add(ops.send);
  order.add(ops.recv);
  order.end_step();
}

/// A step of a reduce-scatter: a sendrecv (its receive also waits for the frontier because
/// the incoming buffer is free once the last calc read it), then a calc of calc_ns that adds
/// the received bytes in once the whole sendrecv returned. The calc, or the send when nothing
/// arrives, becomes the next frontier.
template <ProgramBuilder Builder>
void sendrecv_reduce_step(Builder& b, Frontier& order, int to, std::int64_t send_bytes, int from,
                          std::int64_t recv_bytes, int tag, std::int64_t calc_ns) {
  const SendRecv ops = gated_sendrecv(b, order, to, send_bytes, from, recv_bytes, tag);
  std::uint32_t calc = kNoOp;
  if (ops.recv != kNoOp) {
    calc = b.calc(calc_ns);
    b.requires_completed(calc, ops.recv);
    if (ops.send != kNoOp) b.requires_completed(calc, ops.send);
  }
  order.add(calc != kNoOp ? calc : ops.send);
  order.end_step();
}

/// `bytes` split into `parts` chunks as evenly as possible, the first bytes % parts chunks one
/// byte longer (MPICH's and Open MPI's allreduce split; chunks are empty when bytes < parts).
struct EvenSplit {
  std::int64_t bytes = 0, parts = 1;
  std::int64_t chunk(std::int64_t i) const { return bytes / parts + (i < bytes % parts ? 1 : 0); }
  /// Bytes of chunks [first, last).
  std::int64_t range(std::int64_t first, std::int64_t last) const {
    const std::int64_t longer = bytes % parts;
    return (last - first) * (bytes / parts) +
           std::max<std::int64_t>(0, std::min(last, longer) - std::min(first, longer));
  }
};

/// How P ranks map onto a power-of-two butterfly (the fold of allreduce_recursive_doubling):
/// for j < rem, rank 2j+1 hands its data to rank 2j, which stands in for both as virtual
/// rank j; ranks r >= 2*rem are virtual rank r - rem.
struct Fold {
  int p2 = 1;      ///< ranks in the butterfly: the largest power of two <= P
  int rounds = 0;  ///< log2(p2)
  int rem = 0;     ///< ranks folded away: P - p2

  explicit Fold(int ranks)
      : p2(floor_power_of_two(ranks)), rounds(log2_exact(p2)), rem(ranks - p2) {}

  int real_rank(int virtual_rank) const {
    return virtual_rank < rem ? 2 * virtual_rank : virtual_rank + rem;
  }
  /// Tags of allreduce_recursive_doubling's fold, after the butterfly's 0..rounds-1 so its
  /// messages can never match a round's.
  int fold_in_tag() const { return rounds; }
  int fold_out_tag() const { return rounds + 1; }
  /// Real ranks behind virtual ranks [first, last): one each, two for those below rem.
  std::int64_t real_ranks(std::int64_t first, std::int64_t last) const {
    return (last - first) + std::max<std::int64_t>(0, std::min<std::int64_t>(last, rem) - first);
  }
};

/// The butterfly rounds of virtual rank v (allreduce_recursive_doubling's, paper 004's):
/// round i exchanges `bytes` with v XOR 2^i (tag i) and reduces; round 0 requires `after`
/// unless it is kNoOp. Returns the last round's calc (or `after` when there are no rounds).
template <ProgramBuilder Builder>
std::uint32_t butterfly_rounds(Builder& b, const Fold& f, int v, std::int64_t bytes,
                               std::int64_t reduce_ns, std::uint32_t after) {
  std::uint32_t previous = after;
  for (int i = 0; i < f.rounds; ++i) {
    const int partner = f.real_rank(v ^ (1 << i));
    const std::uint32_t send = b.send(partner, bytes, i);
    const std::uint32_t recv = b.recv(partner, bytes, i);
    if (previous != kNoOp) {
      // The buffer sent and received into holds the previous round's reduction.
      b.requires_completed(send, previous);
      b.requires_completed(recv, previous);
    }
    const std::uint32_t calc = b.calc(reduce_ns);
    b.requires_completed(calc, recv);
    b.requires_completed(calc, send);
    previous = calc;
  }
  return previous;
}

/// Rank 2j+1 of a folded pair (allreduce's fold): hands its vector to 2j (tag fold_in_tag)
/// and receives the result back (tag fold_out_tag) into the buffer it just sent.
template <ProgramBuilder Builder>
void fold_hand_off(Builder& b, const Fold& f, int r, std::int64_t bytes) {
  const std::uint32_t send = b.send(r - 1, bytes, f.fold_in_tag());
  const std::uint32_t recv = b.recv(r - 1, bytes, f.fold_out_tag());
  b.requires_completed(recv, send);
}

/// Rank 2j of a folded pair: receives 2j+1's vector and reduces it; returns that calc, which
/// the butterfly's round 0 then requires. The result goes back with tag fold_out_tag.
template <ProgramBuilder Builder>
std::uint32_t fold_take_in(Builder& b, const Fold& f, int r, std::int64_t bytes,
                           std::int64_t reduce_ns) {
  const std::uint32_t recv = b.recv(r + 1, bytes, f.fold_in_tag());
  const std::uint32_t calc = b.calc(reduce_ns);
  b.requires_completed(calc, recv);
  return calc;
}

/// nanoseconds * part / whole rounded to the nearest integer (halves up); 0 when whole is 0.
/// Exact for every 64-bit input (128-bit intermediate).
inline std::int64_t scaled_ns(std::int64_t nanoseconds, std::int64_t part, std::int64_t whole) {
  if (whole <= 0) return 0;
  __extension__ using Wide = __int128;
  const Wide scaled = (Wide{nanoseconds} * part * 2 + whole) / (Wide{whole} * 2);
  return static_cast<std::int64_t>(scaled);
}

}  // namespace choreo::coll::detail
