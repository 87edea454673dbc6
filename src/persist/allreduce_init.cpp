// allreduce_init: recursive doubling and ring allreduce as persistent requests (the plans:
// allreduce_plan.cpp).
#include <fmt/format.h>

#include "choice.hpp"
#include "choreo/core/error.hpp"
#include "choreo/persist/collectives.hpp"
#include "init_common.hpp"
#include "plans.hpp"
#include "reduction_unit.hpp"

namespace choreo::persist {

namespace {

constexpr const char* kAllreduceInitCall = "allreduce_init";

}  // namespace

Request allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm, const Options& options) {
  return allreduce_init_c(sendbuf, recvbuf, count, type, op, comm, options);
}

Request allreduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type,
                         MPI_Op op, MPI_Comm comm, const Options& options) {
  const detail::Ranks me = detail::ranks_of(comm);
  const int rank = me.rank, ranks = me.size;
  std::string algorithm, choice;
  std::int64_t bytes = 0;
  int unit = 1;
  detail::on_every_rank(comm, [&] {
    detail::check_thread_level(kAllreduceInitCall, options);
    unit = detail::reduction_unit(kAllreduceInitCall, type);
    bytes = detail::checked_bytes(kAllreduceInitCall, count, unit);
    detail::check_commutative_op(kAllreduceInitCall, op, "recursive doubling and the ring reduce",
                                 "MPI_Allreduce_init");
    if (options.algorithm.empty()) {
      const detail::AllreduceChoice model = detail::choose_allreduce(bytes, ranks, options);
      algorithm = model.algorithm;
      choice = "chosen by the model: " + detail::describe_choice(model);
    } else {
      algorithm =
          detail::chosen_algorithm(kAllreduceInitCall, options, "", {"recdbl", "ring", "mpi"});
      choice = "named by the caller";
    }
  });
  detail::agree_between_ranks(
      kAllreduceInitCall, comm,
      {{"count x type size", bytes}, {"algorithm", detail::name_fingerprint(algorithm)}});
  const detail::LibraryFactory library = detail::library_within_int(bytes, [&](MPI_Comm own) {
    return detail::library_allreduce(sendbuf, recvbuf, static_cast<int>(count), type, op, own);
  });
  if (algorithm == "mpi" && !library)
    throw Error(
        fmt::format("{}: the MPI library's own allreduce (\"mpi\") takes an int count, "
                    "and this call's bytes pass INT_MAX; name recdbl or ring",
                    kAllreduceInitCall));
  if (algorithm == "mpi") {
    detail::Plan named;
    named.algorithm = "allreduce:mpi";
    named.choice = std::move(choice);
    return detail::make_library_request(std::move(named), comm, library);
  }
  detail::Plan plan;
  detail::on_every_rank(comm, [&] {
    plan = detail::allreduce_plan(algorithm, count, unit, ranks, rank);
    plan.choice = std::move(choice);
    detail::check_tags(kAllreduceInitCall, plan, comm);
  });
  // The model's algorithm and the MPI library's own allreduce: the default engine with no
  // algorithm named measures both over the first starts and keeps the faster (LibraryTrial);
  // one rank moves no message, so there is nothing to measure.
  const bool measured =
      options.algorithm.empty() && options.engine == Engine::Commands && ranks > 1 && library;
  const void* input = sendbuf == MPI_IN_PLACE ? nullptr : sendbuf;
  return detail::make_request(std::move(plan), {recvbuf, input}, comm, type, op, options,
                              measured ? library : detail::LibraryFactory{});
}

}  // namespace choreo::persist
