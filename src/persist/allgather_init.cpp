// allgather_init: the ring allgather as a persistent request, in place in recvbuf (the plan:
// allgather_plan.cpp).
#include "choreo/persist/collectives.hpp"
#include "init_common.hpp"
#include "plans.hpp"

namespace choreo::persist {

namespace {

constexpr const char* kAllgatherInitCall = "allgather_init";

}  // namespace

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
    plan.choice = detail::named_or(options, "the only algorithm");
    detail::check_tags(kAllgatherInitCall, plan, comm);
  });
  const void* input = sendbuf == MPI_IN_PLACE ? nullptr : sendbuf;
  return detail::make_request(std::move(plan), {recvbuf, input}, comm, type, MPI_OP_NULL, options);
}

}  // namespace choreo::persist
