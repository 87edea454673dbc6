// allgather_init: the ring allgather as a persistent request, in place in recvbuf.
#include "choreo/coll.hpp"
#include "choreo/persist/collectives.hpp"
#include "init_common.hpp"
#include "plans.hpp"

namespace choreo::persist {

namespace {

constexpr const char* kAllgatherInitCall = "allgather_init";

/// Step s (the tag): send block r-s, receive block r-s-1, both in recvbuf.
detail::Placer allgather_ring_placer(int ranks, int rank, std::int64_t block_bytes) {
  return [=](const sim::CompactSchedule& s, sim::OpIndex op) {
    const int behind = s.kind(op) == OpKind::Send ? s.tag(op) : s.tag(op) + 1;
    const std::int64_t block = ((rank - behind) % ranks + ranks) % ranks;
    return detail::Place{detail::BufferId::User, block * block_bytes};
  };
}

}  // namespace

detail::Plan detail::allgather_plan(std::int64_t block_bytes, int ranks, int rank) {
  Plan plan = plan_from_schedule(coll::allgather_ring(ranks, block_bytes), rank, 1,
                                 allgather_ring_placer(ranks, rank, block_bytes), "allgather:ring");
  plan.initial_copy_bytes = block_bytes;
  plan.initial_copy_offset = rank * block_bytes;
  return plan;
}

Request allgather_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                       MPI_Comm comm, const Options& options) {
  const detail::Ranks me = detail::ranks_of(comm);
  const int rank = me.rank, ranks = me.size;
  std::string algorithm;
  std::int64_t block_bytes = 0;
  detail::on_every_rank(comm, [&] {
    detail::check_thread_level(kAllgatherInitCall, options);
    block_bytes = detail::checked_bytes(kAllgatherInitCall, count,
                                        detail::contiguous_size(kAllgatherInitCall, type));
    algorithm = detail::chosen_algorithm(kAllgatherInitCall, options, "ring", {"ring"});
  });
  detail::agree_between_ranks(kAllgatherInitCall, comm, {{"count x type size", block_bytes}});
  detail::Plan plan;
  detail::on_every_rank(comm, [&] {
    plan = detail::allgather_plan(block_bytes, ranks, rank);
    detail::check_tags(kAllgatherInitCall, plan, comm);
  });
  const void* input = sendbuf == MPI_IN_PLACE ? nullptr : sendbuf;
  return detail::make_request(std::move(plan), {recvbuf, input}, comm, type, MPI_OP_NULL, options);
}

}  // namespace choreo::persist
