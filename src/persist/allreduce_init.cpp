// allreduce_init: recursive doubling and ring allreduce as persistent requests (the plans:
// allreduce_plan.cpp).
#include <fmt/format.h>

#include "choreo/error.hpp"
#include "choreo/persist/collectives.hpp"
#include "init_common.hpp"
#include "plans.hpp"
#include "reduction_unit.hpp"

namespace choreo::persist {

namespace {

constexpr const char* kAllreduceInitCall = "allreduce_init";
// Recursive doubling sends the whole vector log2 P times, the ring 2 (P-1)/P of it: the
// ring wins once the vector is large against the per-message cost.
constexpr std::int64_t kRingFromBytes = 16 * 1024;

}  // namespace

Request allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm, const Options& options) {
  const detail::Ranks me = detail::ranks_of(comm);
  const int rank = me.rank, ranks = me.size;
  std::string algorithm;
  std::int64_t bytes = 0;
  int unit = 1;
  detail::on_every_rank(comm, [&] {
    detail::check_thread_level(kAllreduceInitCall, options);
    unit = detail::reduction_unit(kAllreduceInitCall, type);
    bytes = detail::checked_bytes(kAllreduceInitCall, count, unit);
    detail::check_commutative_op(kAllreduceInitCall, op, "recursive doubling and the ring reduce",
                                 "MPI_Allreduce_init");
    algorithm =
        detail::chosen_algorithm(kAllreduceInitCall, options,
                                 bytes <= kRingFromBytes ? "recdbl" : "ring", {"recdbl", "ring"});
  });
  detail::agree_between_ranks(
      kAllreduceInitCall, comm,
      {{"count x type size", bytes}, {"algorithm", detail::name_fingerprint(algorithm)}});
  detail::Plan plan;
  detail::on_every_rank(comm, [&] {
    plan = detail::allreduce_plan(algorithm, count, unit, ranks, rank);
    plan.choice = detail::named_or(options, "the default rule: recdbl up to 16 KiB, ring above");
    detail::check_tags(kAllreduceInitCall, plan, comm);
  });
  const void* input = sendbuf == MPI_IN_PLACE ? nullptr : sendbuf;
  return detail::make_request(std::move(plan), {recvbuf, input}, comm, type, op, options);
}

}  // namespace choreo::persist
