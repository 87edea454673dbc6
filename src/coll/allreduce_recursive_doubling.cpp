// Butterfly (recursive doubling) allreduce with the MPICH fold for P not a power of two.
// The dependency structure is documented in choreo/coll/generators.hpp.
#include "allreduce_rank_programs.hpp"
#include "choreo/coll/generators.hpp"
#include "choreo/core/shaped_schedule.hpp"
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

}  // namespace

namespace {

/// Every rank's program into `b` (a CompactBuilder or a ShapedBuilder), after the checks.
template <class Builder, class MakeBuilder>
auto build(int ranks, std::int64_t bytes, std::int64_t reduce_ns, MakeBuilder make_builder) {
  detail::check_ranks(kAllreduceRecursiveDoublingName, ranks);
  detail::check_non_negative(kAllreduceRecursiveDoublingName, "bytes", bytes);
  detail::check_non_negative(kAllreduceRecursiveDoublingName, "reduce_ns", reduce_ns);
  const Fold f(ranks);
  Builder b = make_builder(
      f, detail::checked_op_count(kAllreduceRecursiveDoublingName, ranks, op_count(f)));
  for (int r = 0; r < ranks; ++r) {
    b.begin_rank(r);
    detail::allreduce_recursive_doubling_rank(b, f, r, bytes, reduce_ns);
  }
  return b.finish();
}

}  // namespace

CompactSchedule allreduce_recursive_doubling(int ranks, std::int64_t bytes,
                                             std::int64_t reduce_ns) {
  return build<CompactBuilder>(ranks, bytes, reduce_ns, [&](const Fold& f, auto ops) {
    // Dependencies: 4 per butterfly round (send, recv on the last calc; calc on both), at
    // most 5 per folded pair; sized up front so the builder never regrows its arrays.
    const std::size_t dependencies =
        4 * static_cast<std::size_t>(f.p2) * f.rounds + 5 * static_cast<std::size_t>(f.rem);
    return CompactBuilder(ranks, ops, dependencies);
  });
}

ShapedSchedule allreduce_recursive_doubling_shaped(int ranks, std::int64_t bytes,
                                                   std::int64_t reduce_ns) {
  return build<ShapedBuilder>(ranks, bytes, reduce_ns,
                              [&](const Fold&, auto ops) { return ShapedBuilder(ranks, ops); });
}

}  // namespace choreo::coll
