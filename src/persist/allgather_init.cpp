// allgather_init: the ring allgather as a persistent request, in place in recvbuf (the plan:
// allgather_plan.cpp), measured against the MPI library's own by default; any datatype whose
// packed form is its data (the driver packs non-contiguous ones).
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
  const bool in_place = sendbuf == MPI_IN_PLACE;
  std::string algorithm;
  std::int64_t block_bytes = 0;
  detail::UserBuffers buffers{recvbuf, in_place ? nullptr : sendbuf};
  detail::on_every_rank(comm, [&] {
    detail::check_thread_level(kAllgatherInitCall, options);
    block_bytes = detail::checked_bytes(kAllgatherInitCall, count,
                                        detail::element_size(kAllgatherInitCall, type));
    algorithm = detail::chosen_algorithm(kAllgatherInitCall, options, "ring", {"ring", "mpi"});
    buffers.user_layout =
        detail::layout_of(kAllgatherInitCall, type, std::int64_t{count} * ranks, in_place, true);
    if (!in_place)
      buffers.send_layout = detail::layout_of(kAllgatherInitCall, type, count, true, false);
  });
  detail::agree_between_ranks(
      kAllgatherInitCall, comm,
      {{"count x type size", block_bytes}, {"algorithm", detail::name_fingerprint(algorithm)}});
  const detail::LibraryFactory library = [&](MPI_Comm own) {
    return detail::library_allgather(sendbuf, count, type, recvbuf, own);
  };
  const bool measured = options.algorithm.empty() && options.engine == Engine::Commands;
  const std::string choice = detail::named_or(
      options, measured ? "the default: the ring, measured against the MPI library's own over "
                          "the first starts"
                        : "the default: the ring");
  if (algorithm == "mpi") {
    detail::Plan named;
    named.algorithm = "allgather:mpi";
    named.choice = choice;
    return detail::make_library_request(std::move(named), comm, library);
  }
  detail::Plan plan;
  detail::on_every_rank(comm, [&] {
    plan = detail::allgather_plan(block_bytes, ranks, rank);
    plan.choice = choice;
    detail::check_tags(kAllgatherInitCall, plan, comm);
  });
  return detail::make_request(std::move(plan), buffers, comm, MPI_BYTE, MPI_OP_NULL, options,
                              measured ? library : detail::LibraryFactory{});
}

}  // namespace choreo::persist
