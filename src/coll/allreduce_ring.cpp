// Ring allreduce (MPICH's MPIR_Allreduce_intra_ring, Open MPI's
// ompi_coll_base_allreduce_intra_ring without its segmentation): a ring reduce-scatter of P
// chunks, then a ring allgather of the reduced chunks.
#include "allreduce_rank_programs.hpp"
#include "arguments.hpp"
#include "choreo/coll/generators.hpp"
#include "steps.hpp"

namespace choreo::coll {

namespace {
constexpr const char* kAllreduceRingName = "allreduce_ring";
}  // namespace

CompactSchedule allreduce_ring(int ranks, std::int64_t bytes, std::int64_t reduce_ns) {
  detail::check_ranks(kAllreduceRingName, ranks);
  detail::check_non_negative(kAllreduceRingName, "bytes", bytes);
  detail::check_non_negative(kAllreduceRingName, "reduce_ns", reduce_ns);
  const auto p = static_cast<std::uint64_t>(ranks);
  // Per rank and phase P-1 steps: a send, a receive and (reduce-scatter) a calc.
  const std::uint64_t ops = p * 5 * (p - 1);
  return detail::build_in_steps(kAllreduceRingName, ranks, ops,
                                [&](CompactBuilder& b, detail::Frontier& order, int r) {
                                  detail::allreduce_ring_rank(b, order, ranks, r, bytes, reduce_ns);
                                });
}

}  // namespace choreo::coll
