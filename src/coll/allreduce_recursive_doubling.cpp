// Butterfly (recursive doubling) allreduce with the MPICH fold for P not a power of two.
// The dependency structure is documented in choreo/coll.hpp.
#include "choreo/coll.hpp"
#include "steps.hpp"

namespace choreo::coll {

namespace {

constexpr const char* kAllreduceRecursiveDoublingName = "allreduce_recursive_doubling";

using detail::Fold;

/// Ops of the whole schedule: 3 per butterfly round and rank, plus the fold's 2 ops on each
/// odd rank and 3 (recv, calc, send) on each even one.
std::uint64_t op_count(const Fold& f) {
  return 3ull * static_cast<std::uint64_t>(f.p2) * static_cast<std::uint64_t>(f.rounds) +
         5ull * static_cast<std::uint64_t>(f.rem);
}

/// Rank 2j of a folded pair: reduce 2j+1's data, run the butterfly, return the result.
void standing_in_rank(sim::CompactBuilder& b, const Fold& f, int r, std::int64_t bytes,
                      std::int64_t reduce_ns) {
  const std::uint32_t calc = detail::fold_take_in(b, f, r, bytes, reduce_ns);
  const std::uint32_t last = detail::butterfly_rounds(b, f, r / 2, bytes, reduce_ns, calc);
  const std::uint32_t send = b.send(r + 1, bytes, f.fold_out_tag());
  b.requires_completed(send, last);
}

}  // namespace

sim::CompactSchedule allreduce_recursive_doubling(int ranks, std::int64_t bytes,
                                                  std::int64_t reduce_ns) {
  detail::check_ranks(kAllreduceRecursiveDoublingName, ranks);
  detail::check_non_negative(kAllreduceRecursiveDoublingName, "bytes", bytes);
  detail::check_non_negative(kAllreduceRecursiveDoublingName, "reduce_ns", reduce_ns);
  const Fold f(ranks);
  // Dependencies: 4 per butterfly round (send, recv on the last calc; calc on both), at most 5
  // per folded pair; sized up front so the builder never regrows its arrays.
  const std::size_t dependencies =
      4 * static_cast<std::size_t>(f.p2) * f.rounds + 5 * static_cast<std::size_t>(f.rem);
  sim::CompactBuilder b(
      ranks, detail::checked_op_count(kAllreduceRecursiveDoublingName, ranks, op_count(f)),
      dependencies);
  for (int r = 0; r < ranks; ++r) {
    b.begin_rank(r);
    if (r >= 2 * f.rem)
      detail::butterfly_rounds(b, f, r - f.rem, bytes, reduce_ns, detail::kNoOp);
    else if (r % 2 == 1)
      detail::fold_hand_off(b, f, r, bytes);
    else
      standing_in_rank(b, f, r, bytes, reduce_ns);
  }
  return b.finish();
}

}  // namespace choreo::coll
