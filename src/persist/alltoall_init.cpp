// alltoall_init: the pairwise-exchange alltoall as a persistent request (the plan:
// alltoall_plan.cpp), measured against the MPI library's own by default. Unlike alltoallv_init,
// init exchanges no counts: every rank's blocks are the same size, so a rank builds its program
// alone, in O(P) time and memory.
#include <fmt/format.h>

#include "choreo/error.hpp"
#include "choreo/persist/collectives.hpp"
#include "init_common.hpp"
#include "plans.hpp"

namespace choreo::persist {

namespace {
constexpr const char* kAlltoallInitCall = "alltoall_init";
}  // namespace

Request alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, const Options& options) {
  const detail::Ranks me = detail::ranks_of(comm);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  std::int64_t bytes = 0;
  std::string algorithm;
  detail::UserBuffers buffers{recvbuf, in_place ? nullptr : sendbuf};
  detail::on_every_rank(comm, [&] {
    detail::check_thread_level(kAlltoallInitCall, options);
    bytes = detail::checked_bytes(kAlltoallInitCall, recvcount,
                                  detail::element_size(kAlltoallInitCall, recvtype));
    buffers.user_layout = detail::layout_of(kAlltoallInitCall, recvtype,
                                            std::int64_t{recvcount} * me.size, in_place, true);
    if (!in_place) {
      buffers.send_layout = detail::layout_of(kAlltoallInitCall, sendtype,
                                              std::int64_t{sendcount} * me.size, true, false);
      const std::int64_t sent = detail::checked_bytes(
          kAlltoallInitCall, sendcount, detail::element_size(kAlltoallInitCall, sendtype));
      if (sent != bytes)
        throw Error(
            fmt::format("{}: a block is {} bytes to send but {} to receive; both sides "
                        "must hold the same bytes",
                        kAlltoallInitCall, sent, bytes));
    }
    algorithm =
        detail::chosen_algorithm(kAlltoallInitCall, options, "pairwise", {"pairwise", "mpi"});
  });
  detail::agree_between_ranks(
      kAlltoallInitCall, comm,
      {{"block bytes", bytes}, {"algorithm", detail::name_fingerprint(algorithm)}});
  const detail::LibraryFactory library = [&](MPI_Comm own) {
    return detail::library_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                    own);
  };
  const bool measured = options.algorithm.empty() && options.engine == Engine::Commands;
  const std::string choice =
      !options.algorithm.empty()
          ? "named by the caller"
          : (measured ? "the default: pairwise exchange, measured against the MPI library's own "
                        "over the first starts"
                      : "the default: pairwise exchange");
  if (algorithm == "mpi") {
    detail::Plan named;
    named.algorithm = "alltoall:mpi";
    named.choice = choice;
    return detail::make_library_request(std::move(named), comm, library);
  }
  detail::Plan plan;
  detail::on_every_rank(comm, [&] {
    plan = detail::alltoall_plan(bytes, in_place, me.size, me.rank);
    plan.choice = choice;
    detail::check_tags(kAlltoallInitCall, plan, comm);
  });
  return detail::make_request(std::move(plan), buffers, comm, MPI_BYTE, MPI_OP_NULL, options,
                              measured ? library : detail::LibraryFactory{});
}

}  // namespace choreo::persist
