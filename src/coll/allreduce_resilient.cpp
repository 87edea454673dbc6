// Paper 004's jitter-resilient butterfly allreduce: the butterfly, then T redundant exchanges
// of the result with the partners of the first T stages; a first-of group picks whichever
// copy of the result is there first. The op sequence is documented in
// choreo/coll/resilient.hpp.
#include <fmt/format.h>

#include <vector>

#include "choreo/coll/resilient.hpp"
#include "choreo/core/error.hpp"
#include "steps.hpp"

namespace choreo::coll {

namespace {

constexpr const char* kAllreduceResilientName = "allreduce_resilient";

using detail::Fold;

/// Tags of the redundant exchanges: after the fold's K and K+1, so T = 0 leaves every tag of
/// allreduce_recursive_doubling as it was.
int redundant_tag(const Fold& f, int j) { return f.rounds + 2 + j; }

/// Ops of the whole schedule: per butterfly rank 3 per round, the ready op and 2 per
/// redundant exchange; 5 per folded pair (2 on the odd rank, 3 on the even one).
std::uint64_t op_count(const Fold& f, int redundant) {
  const auto per_rank = 3ull * static_cast<std::uint64_t>(f.rounds) + 1ull +
                        2ull * static_cast<std::uint64_t>(redundant);
  return per_rank * static_cast<std::uint64_t>(f.p2) + 5ull * static_cast<std::uint64_t>(f.rem);
}

/// The redundant exchanges of virtual rank v after its butterfly ended in `last`; returns the
/// ready op, whose first-of group is `last` and the redundant receives.
std::uint32_t redundant_exchanges(CompactBuilder& b, const Fold& f, int v, std::int64_t bytes,
                                  int redundant, std::uint32_t last) {
  std::vector<std::uint32_t> copies;
  copies.reserve(static_cast<std::size_t>(redundant));
  for (int j = 0; j < redundant; ++j)
    copies.push_back(b.recv(f.real_rank(v ^ (1 << j)), bytes, redundant_tag(f, j)));
  const std::uint32_t ready = b.calc(0);
  // The butterfly's own result first: it is the member the op waits for without noise, and
  // the one GOAL keeps (docs/formats.md).
  b.requires_any(ready, last);
  for (std::uint32_t copy : copies) b.requires_any(ready, copy);
  for (int j = 0; j < redundant; ++j) {
    const std::uint32_t send = b.send(f.real_rank(v ^ (1 << j)), bytes, redundant_tag(f, j));
    b.requires_completed(send, ready);
  }
  return ready;
}

}  // namespace

CompactSchedule allreduce_resilient(int ranks, std::int64_t bytes, int redundant,
                                    std::int64_t reduce_ns) {
  detail::check_ranks(kAllreduceResilientName, ranks);
  detail::check_non_negative(kAllreduceResilientName, "bytes", bytes);
  detail::check_non_negative(kAllreduceResilientName, "reduce_ns", reduce_ns);
  const Fold f(ranks);
  if (redundant < 0 || redundant > f.rounds)
    throw Error(fmt::format(
        "{}: T = {} is outside 0..{}: {} ranks run a butterfly of K = {} stages (on {} ranks), "
        "and the redundant exchanges reuse the partners of the first T of them; choose T in "
        "0..{}",
        kAllreduceResilientName, redundant, f.rounds, ranks, f.rounds, f.p2, f.rounds));
  // Dependencies: 4 per round, 1 + T in the first-of group and T sends per butterfly rank, at
  // most 5 per folded pair.
  const std::size_t dependencies =
      static_cast<std::size_t>(f.p2) *
          (4 * static_cast<std::size_t>(f.rounds) + 1 + 2 * static_cast<std::size_t>(redundant)) +
      5 * static_cast<std::size_t>(f.rem);
  CompactBuilder b(ranks,
                   detail::checked_op_count(kAllreduceResilientName, ranks, op_count(f, redundant)),
                   dependencies);
  if (ranks == 1) {  // nothing to reduce or to wait for, as in allreduce_recursive_doubling
    b.begin_rank(0);
    return b.finish();
  }
  for (int r = 0; r < ranks; ++r) {
    b.begin_rank(r);
    if (r < 2 * f.rem && r % 2 == 1) {
      detail::fold_hand_off(b, f, r, bytes);
      continue;
    }
    const bool standing_in = r < 2 * f.rem;
    const int v = standing_in ? r / 2 : r - f.rem;
    const std::uint32_t first =
        standing_in ? detail::fold_take_in(b, f, r, bytes, reduce_ns) : detail::kNoOp;
    const std::uint32_t last = detail::butterfly_rounds(b, f, v, bytes, reduce_ns, first);
    const std::uint32_t ready = redundant_exchanges(b, f, v, bytes, redundant, last);
    if (standing_in) {
      const std::uint32_t send = b.send(r + 1, bytes, f.fold_out_tag());
      b.requires_completed(send, ready);
    }
  }
  return b.finish();
}

}  // namespace choreo::coll
