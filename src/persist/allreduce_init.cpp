// allreduce_init: recursive doubling and ring allreduce as persistent requests. The
// generators are called with the element count, so their chunks never split an element.
#include <fmt/format.h>

#include "choreo/coll.hpp"
#include "choreo/error.hpp"
#include "choreo/persist/collectives.hpp"
#include "init_common.hpp"
#include "plans.hpp"

namespace choreo::persist {

namespace {

constexpr const char* kAllreduceInitCall = "allreduce_init";
// Recursive doubling sends the whole vector log2 P times, the ring 2 (P-1)/P of it: the
// ring wins once the vector is large against the per-message cost.
constexpr std::int64_t kRingFromBytes = 16 * 1024;

/// Elements before chunk c of the ring's P chunks (the generator's even split).
std::int64_t chunk_start(std::int64_t count, int ranks, std::int64_t chunk) {
  const std::int64_t longer = count % ranks;
  return chunk * (count / ranks) + std::min(chunk, longer);
}

detail::Placer allreduce_ring_placer(std::int64_t count, int ranks, int rank, int element_size) {
  return [=](const sim::CompactSchedule& s, sim::OpIndex op) {
    const int tag = s.tag(op);
    const bool send = s.kind(op) == OpKind::Send;
    const bool reducing = tag < ranks - 1;  // reduce-scatter steps, then the allgather's
    const int step = reducing ? tag : tag - (ranks - 1);
    // Reduce-scatter step s: send chunk r-s, receive chunk r-s-1 (into scratch, then
    // reduced in); allgather step t: send chunk r+1-t, receive chunk r-t in place.
    const std::int64_t chunk =
        ((reducing ? rank - step : rank + 1 - step) - (send ? 0 : 1) + 2 * std::int64_t{ranks}) %
        ranks;
    const std::int64_t offset = chunk_start(count, ranks, chunk) * element_size;
    const bool to_scratch = !send && reducing;
    return detail::Place{to_scratch ? detail::BufferId::Scratch : detail::BufferId::User, offset};
  };
}

/// Sends go from the vector; receives land in scratch to be reduced in, except the fold's
/// final receive (tag k+1), which is the result itself.
detail::Placer recursive_doubling_placer(int ranks) {
  int rounds = 0;
  while ((2 << rounds) <= ranks) ++rounds;
  return [rounds](const sim::CompactSchedule& s, sim::OpIndex op) {
    const bool into_scratch = s.kind(op) == OpKind::Recv && s.tag(op) != rounds + 1;
    return detail::Place{into_scratch ? detail::BufferId::Scratch : detail::BufferId::User, 0};
  };
}

}  // namespace

detail::Plan detail::allreduce_plan(const std::string& algorithm, std::int64_t count,
                                    int element_size, int ranks, int rank) {
  const bool ring = algorithm == "ring";
  Plan plan = plan_from_schedule(
      ring ? coll::allreduce_ring(ranks, count) : coll::allreduce_recursive_doubling(ranks, count),
      rank, element_size,
      ring ? allreduce_ring_placer(count, ranks, rank, element_size)
           : recursive_doubling_placer(ranks),
      "allreduce:" + algorithm);
  plan.scratch_bytes = count * element_size;
  plan.initial_copy_bytes = count * element_size;
  return plan;
}

Request allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm, const Options& options) {
  const detail::Ranks me = detail::ranks_of(comm);
  const int rank = me.rank, ranks = me.size;
  std::string algorithm;
  std::int64_t bytes = 0;
  int element_size = 1;
  detail::on_every_rank(comm, [&] {
    detail::check_thread_level(kAllreduceInitCall, options);
    element_size = detail::contiguous_size(kAllreduceInitCall, type);
    bytes = detail::checked_bytes(kAllreduceInitCall, count, element_size);
    int commutative = 0;
    if (op == MPI_OP_NULL)
      throw Error(fmt::format("{}: op is MPI_OP_NULL; pass e.g. MPI_SUM", kAllreduceInitCall));
    MPI_Op_commutative(op, &commutative);
    if (!commutative)
      throw Error(
          fmt::format("{}: the op is not commutative, but recursive doubling and the "
                      "ring reduce in a rank-dependent order; use MPI_Allreduce_init",
                      kAllreduceInitCall));
    algorithm =
        detail::chosen_algorithm(kAllreduceInitCall, options,
                                 bytes <= kRingFromBytes ? "recdbl" : "ring", {"recdbl", "ring"});
  });
  detail::agree_between_ranks(
      kAllreduceInitCall, comm,
      {{"count x type size", bytes}, {"algorithm", detail::name_fingerprint(algorithm)}});
  detail::Plan plan;
  detail::on_every_rank(comm, [&] {
    plan = detail::allreduce_plan(algorithm, count, element_size, ranks, rank);
    detail::check_tags(kAllreduceInitCall, plan, comm);
  });
  const void* input = sendbuf == MPI_IN_PLACE ? nullptr : sendbuf;
  return detail::make_request(std::move(plan), {recvbuf, input}, comm, type, op, options);
}

}  // namespace choreo::persist
