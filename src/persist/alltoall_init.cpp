// alltoall_init: the pairwise-exchange alltoall as a persistent request (the plan:
// alltoall_plan.cpp), measured against the MPI library's own by default. Unlike alltoallv_init,
// init exchanges no counts: every rank's blocks are the same size, so a rank builds its program
// alone, in O(P) time and memory.
#include <fmt/format.h>

#include "choreo/core/error.hpp"
#include "choreo/persist/collectives.hpp"
#include "init_common.hpp"
#include "plans.hpp"

namespace choreo::persist {

namespace {
constexpr const char* kAlltoallInitCall = "alltoall_init";
}  // namespace

Request alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, const Options& options) {
  return alltoall_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, options);
}

Request alltoall_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                        const Options& options) {
  const detail::Ranks me = detail::ranks_of(comm);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  std::int64_t bytes = 0;
  detail::Way way;
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
    way = detail::way_of(kAlltoallInitCall, options, "pairwise", "the pairwise exchange");
  });
  detail::agree_between_ranks(
      kAlltoallInitCall, comm,
      {{"block bytes", bytes}, {"algorithm", detail::name_fingerprint(way.algorithm)}});
  return detail::request_by_way(
      kAlltoallInitCall, way, "alltoall",
      [&] { return detail::alltoall_plan(bytes, in_place, me.size, me.rank); }, buffers, comm,
      MPI_BYTE, MPI_OP_NULL, options, detail::library_within_int(bytes, [&](MPI_Comm own) {
        return detail::library_alltoall(sendbuf, static_cast<int>(sendcount), sendtype, recvbuf,
                                        static_cast<int>(recvcount), recvtype, own);
      }));
}

}  // namespace choreo::persist
