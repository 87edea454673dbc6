// Butterfly (recursive doubling) allreduce with the MPICH fold for P not a power of two.
// The dependency structure is documented in choreo/coll.hpp.
#include "arguments.hpp"
#include "choreo/coll.hpp"

namespace choreo::coll {

namespace {

constexpr const char* kName = "allreduce_recursive_doubling";

/// How P ranks map onto the power-of-two butterfly: the first 2*rem ranks pair up, the even
/// one of each pair standing in for both.
struct Fold {
  int p2 = 1;      ///< ranks in the butterfly
  int rounds = 0;  ///< log2(p2)
  int rem = 0;     ///< ranks folded away: P - p2

  explicit Fold(int ranks)
      : p2(detail::floor_power_of_two(ranks)), rounds(detail::log2_exact(p2)), rem(ranks - p2) {}

  int real_rank(int virtual_rank) const {
    return virtual_rank < rem ? 2 * virtual_rank : virtual_rank + rem;
  }
  /// Tags after the butterfly's 0..rounds-1, so the fold's messages can never match a round's.
  int fold_in_tag() const { return rounds; }
  int fold_out_tag() const { return rounds + 1; }
};

/// Ops of the whole schedule: 3 per butterfly round and rank, plus the fold's 2 ops on each
/// odd rank and 3 (recv, calc, send) on each even one.
std::uint64_t op_count(const Fold& f) {
  return 3ull * static_cast<std::uint64_t>(f.p2) * static_cast<std::uint64_t>(f.rounds) +
         5ull * static_cast<std::uint64_t>(f.rem);
}

/// Emits the butterfly rounds of virtual rank v; round 0 requires `after` unless it is kNoOp.
/// Returns the last round's calc (or `after` when there are no rounds).
std::uint32_t butterfly(sim::CompactBuilder& b, const Fold& f, int v, std::int64_t bytes,
                        std::int64_t reduce_ns, std::uint32_t after) {
  std::uint32_t previous = after;
  for (int i = 0; i < f.rounds; ++i) {
    const int partner = f.real_rank(v ^ (1 << i));
    const std::uint32_t send = b.send(partner, bytes, i);
    const std::uint32_t recv = b.recv(partner, bytes, i);
    if (previous != detail::kNoOp) {
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

/// Rank 2j+1 of a folded pair: hand its data to 2j, get the result back.
void folded_away_rank(sim::CompactBuilder& b, const Fold& f, int r, std::int64_t bytes) {
  const std::uint32_t send = b.send(r - 1, bytes, f.fold_in_tag());
  const std::uint32_t recv = b.recv(r - 1, bytes, f.fold_out_tag());
  b.requires_completed(recv, send);  // the result lands in the buffer just sent
}

/// Rank 2j of a folded pair: reduce 2j+1's data, run the butterfly, return the result.
void standing_in_rank(sim::CompactBuilder& b, const Fold& f, int r, std::int64_t bytes,
                      std::int64_t reduce_ns) {
  const std::uint32_t recv = b.recv(r + 1, bytes, f.fold_in_tag());
  const std::uint32_t calc = b.calc(reduce_ns);
  b.requires_completed(calc, recv);
  const std::uint32_t last = butterfly(b, f, r / 2, bytes, reduce_ns, calc);
  const std::uint32_t send = b.send(r + 1, bytes, f.fold_out_tag());
  b.requires_completed(send, last);
}

}  // namespace

sim::CompactSchedule allreduce_recursive_doubling(int ranks, std::int64_t bytes,
                                                  std::int64_t reduce_ns) {
  detail::check_ranks(kName, ranks);
  detail::check_non_negative(kName, "bytes", bytes);
  detail::check_non_negative(kName, "reduce_ns", reduce_ns);
  const Fold f(ranks);
  // Dependencies: 4 per butterfly round (send, recv on the last calc; calc on both), at most 5
  // per folded pair; sized up front so the builder never regrows its arrays.
  const std::size_t dependencies =
      4 * static_cast<std::size_t>(f.p2) * f.rounds + 5 * static_cast<std::size_t>(f.rem);
  sim::CompactBuilder b(ranks, detail::checked_op_count(kName, ranks, op_count(f)), dependencies);
  for (int r = 0; r < ranks; ++r) {
    b.begin_rank(r);
    if (r >= 2 * f.rem)
      butterfly(b, f, r - f.rem, bytes, reduce_ns, detail::kNoOp);
    else if (r % 2 == 1)
      folded_away_rank(b, f, r, bytes);
    else
      standing_in_rank(b, f, r, bytes, reduce_ns);
  }
  return b.finish();
}

}  // namespace choreo::coll
