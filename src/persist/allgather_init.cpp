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
  return allgather_init_c(sendbuf, recvbuf, count, type, comm, options);
}

Request allgather_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type,
                         MPI_Comm comm, const Options& options) {
  const detail::Ranks me = detail::ranks_of(comm);
  const int rank = me.rank, ranks = me.size;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  detail::Way way;
  std::int64_t block_bytes = 0;
  detail::UserBuffers buffers{recvbuf, in_place ? nullptr : sendbuf};
  detail::on_every_rank(comm, [&] {
    detail::check_thread_level(kAllgatherInitCall, options);
    block_bytes = detail::checked_bytes(kAllgatherInitCall, count,
                                        detail::element_size(kAllgatherInitCall, type));
    way = detail::way_of(kAllgatherInitCall, options, "ring", "the ring");
    buffers.user_layout =
        detail::layout_of(kAllgatherInitCall, type, std::int64_t{count} * ranks, in_place, true);
    if (!in_place)
      buffers.send_layout = detail::layout_of(kAllgatherInitCall, type, count, true, false);
  });
  detail::agree_between_ranks(
      kAllgatherInitCall, comm,
      {{"count x type size", block_bytes}, {"algorithm", detail::name_fingerprint(way.algorithm)}});
  return detail::request_by_way(
      kAllgatherInitCall, way, "allgather",
      [&] { return detail::allgather_plan(block_bytes, ranks, rank); }, buffers, comm, MPI_BYTE,
      MPI_OP_NULL, options, detail::library_within_int(block_bytes, [&](MPI_Comm own) {
        return detail::library_allgather(sendbuf, static_cast<int>(count), type, recvbuf, own);
      }));
}

}  // namespace choreo::persist
