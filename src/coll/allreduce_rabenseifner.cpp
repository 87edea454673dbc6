// Rabenseifner's allreduce (MPICH's MPIR_Allreduce_intra_reduce_scatter_allgather, Open MPI's
// ompi_coll_base_allreduce_intra_redscat_allgather): a recursive-halving reduce-scatter and a
// recursive-doubling allgather on the largest power of two of ranks, with the fold of
// allreduce_recursive_doubling for the others.
#include "arguments.hpp"
#include "choreo/coll/generators.hpp"
#include "steps.hpp"

namespace choreo::coll {

namespace {

constexpr const char* kAllreduceRabenseifnerName = "allreduce_rabenseifner";

struct Plan {
  detail::Fold fold;
  detail::EvenSplit chunks;  ///< the vector in p2 chunks
  std::int64_t bytes, reduce_ns;
  int first_tag;  ///< 1 after a fold-in step, else 0

  int halving_tag(int round) const { return first_tag + round; }
  int doubling_tag(int round) const { return first_tag + fold.rounds + (fold.rounds - 1 - round); }
  int fold_out_tag() const { return first_tag + 2 * fold.rounds; }
};

/// Reduce-scatter and allgather of virtual rank v, after `order`'s frontier; returns with the
/// frontier at the allgather's last step.
void halving_doubling(CompactBuilder& b, const Plan& plan, int v, detail::Frontier& order) {
  const detail::Fold& f = plan.fold;
  std::int64_t first = 0, last = f.p2;  // the chunks v is responsible for
  // Halving, round i (partner v XOR 2^i): the lower of the two keeps the lower half.
  for (int i = 0; i < f.rounds; ++i) {
    const int partner = f.real_rank(v ^ (1 << i));
    const std::int64_t middle = first + (last - first) / 2;
    const bool lower = (v & (1 << i)) == 0;
    const std::int64_t out =
        lower ? plan.chunks.range(middle, last) : plan.chunks.range(first, middle);
    const std::int64_t in =
        lower ? plan.chunks.range(first, middle) : plan.chunks.range(middle, last);
    if (lower)
      last = middle;
    else
      first = middle;
    // The send reads part of what the previous round reduced.
    detail::sendrecv_reduce_step(b, order, partner, out, partner, in, plan.halving_tag(i),
                                 detail::scaled_ns(plan.reduce_ns, in, plan.bytes));
  }
  // Doubling, rounds in reverse: exchange the reduced chunks, the ranges doubling.
  for (int i = f.rounds - 1; i >= 0; --i) {
    const int partner = f.real_rank(v ^ (1 << i));
    const std::int64_t width = last - first;
    const bool lower = (v & (1 << i)) == 0;
    const std::int64_t out = plan.chunks.range(first, last);
    const std::int64_t in =
        lower ? plan.chunks.range(last, last + width) : plan.chunks.range(first - width, first);
    if (lower)
      last += width;
    else
      first -= width;
    // The send reads what was reduced or gathered before.
    detail::sendrecv_step(b, order, partner, out, partner, in, plan.doubling_tag(i));
  }
}

}  // namespace

CompactSchedule allreduce_rabenseifner(int ranks, std::int64_t bytes, std::int64_t reduce_ns) {
  detail::check_ranks(kAllreduceRabenseifnerName, ranks);
  detail::check_non_negative(kAllreduceRabenseifnerName, "bytes", bytes);
  detail::check_non_negative(kAllreduceRabenseifnerName, "reduce_ns", reduce_ns);
  const detail::Fold f(ranks);
  const Plan plan{f, {bytes, f.p2}, bytes, reduce_ns, f.rem > 0 ? 1 : 0};
  // 5 ops a round (halving: send, recv, calc; doubling: send, recv) on each butterfly rank,
  // 2 on each folded rank and 3 on its stand-in.
  const auto ops = 5ull * static_cast<std::uint64_t>(f.p2) * static_cast<std::uint64_t>(f.rounds) +
                   5ull * static_cast<std::uint64_t>(f.rem);
  return detail::build_in_steps(
      kAllreduceRabenseifnerName, ranks, ops,
      [&](CompactBuilder& b, detail::Frontier& order, int r) {
        if (bytes == 0) return;  // nothing moves; MPI libraries return at once
        if (r >= 2 * f.rem) {
          halving_doubling(b, plan, r - f.rem, order);
        } else if (r % 2 == 1) {
          // Hand the whole vector to r - 1, get the result back.
          const std::uint32_t send = b.send(r - 1, bytes, 0);
          const std::uint32_t recv = b.recv(r - 1, bytes, plan.fold_out_tag());
          b.requires_completed(recv, send);  // the result lands in the buffer just sent
        } else {
          const std::uint32_t recv = b.recv(r + 1, bytes, 0);
          const std::uint32_t calc = b.calc(reduce_ns);
          b.requires_completed(calc, recv);
          order.add(calc);
          order.end_step();
          halving_doubling(b, plan, r / 2, order);
          const std::uint32_t send = b.send(r + 1, bytes, plan.fold_out_tag());
          order.gate(b, send);  // returns the result the allgather completed
        }
      });
}

}  // namespace choreo::coll
