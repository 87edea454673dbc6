// Ring allreduce (MPICH's MPIR_Allreduce_intra_ring, Open MPI's
// ompi_coll_base_allreduce_intra_ring without its segmentation): a ring reduce-scatter of P
// chunks, then a ring allgather of the reduced chunks.
#include "arguments.hpp"
#include "choreo/coll.hpp"
#include "steps.hpp"

namespace choreo::coll {

namespace {
constexpr const char* kAllreduceRingName = "allreduce_ring";
}  // namespace

sim::CompactSchedule allreduce_ring(int ranks, std::int64_t bytes, std::int64_t reduce_ns) {
  detail::check_ranks(kAllreduceRingName, ranks);
  detail::check_non_negative(kAllreduceRingName, "bytes", bytes);
  detail::check_non_negative(kAllreduceRingName, "reduce_ns", reduce_ns);
  const detail::EvenSplit chunks{bytes, ranks};
  const auto p = static_cast<std::uint64_t>(ranks);
  // Per rank and phase P-1 steps: a send, a receive and (reduce-scatter) a calc.
  const std::uint64_t ops = p * 5 * (p - 1);
  return detail::build_in_steps(
      kAllreduceRingName, ranks, ops, [&](sim::CompactBuilder& b, detail::Frontier& order, int r) {
        const int right = detail::mod_add(r, 1, ranks), left = detail::mod_sub(r, 1, ranks);
        // Reduce-scatter, step s (tag s): send chunk r - s (reduced in step s-1), receive chunk
        // r - s - 1 and add it in. Afterwards rank r holds chunk r + 1 fully reduced.
        for (int s = 0; s + 1 < ranks; ++s) {
          const std::int64_t out = chunks.chunk(detail::mod_sub(r, s, ranks));
          const std::int64_t in = chunks.chunk(detail::mod_sub(r, s + std::int64_t{1}, ranks));
          // The send reads what the previous step's calc reduced.
          detail::sendrecv_reduce_step(b, order, right, out, left, in, s,
                                       detail::scaled_ns(reduce_ns, in, bytes));
        }
        // Allgather, step t (tag P-1+t): send chunk r + 1 - t, receive chunk r - t.
        for (int t = 0; t + 1 < ranks; ++t) {
          const int tag = ranks - 1 + t;
          const std::int64_t out = chunks.chunk(detail::mod_sub(right, t, ranks));
          const std::int64_t in = chunks.chunk(detail::mod_sub(r, t, ranks));
          // The send forwards the chunk that arrived in the previous step.
          detail::sendrecv_step(b, order, right, out, left, in, tag);
        }
      });
}

}  // namespace choreo::coll
