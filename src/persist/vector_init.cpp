// gatherv_init, scatterv_init and allgatherv_init: the irregular collectives as persistent
// requests (the plans: vector_plans.cpp), measured against the MPI library's own by default.
// A contiguous datatype is moved in place, each block at its displacement. Any other datatype
// whose packed form is its data back to back (element_size) goes through a packed image: the
// buffer of every rank's block is described by one indexed type of the blocks (displacements
// in extents of the type, as MPI counts them), packed whole at start where it is an input and
// unpacked at completion where it is an output; in the image the blocks sit back to back in
// rank order.
#include <fmt/format.h>

#include <algorithm>
#include <span>
#include <vector>

#include "block_layout.hpp"
#include "choreo/core/error.hpp"
#include "choreo/persist/collectives.hpp"
#include "init_common.hpp"
#include "plans.hpp"

namespace choreo::persist {

namespace {

constexpr const char* kGathervInitCall = "gatherv_init";
constexpr const char* kScattervInitCall = "scatterv_init";
constexpr const char* kAllgathervInitCall = "allgatherv_init";

/// The root's bytes for each rank (root_bytes, significant at the root) against each rank's
/// own (`mine`): an MPI_Scatter, then every rank throws the first mismatch.
void check_against_root(const char* call, const std::vector<std::int64_t>& root_bytes,
                        std::int64_t mine, bool mine_counts, int root, MPI_Comm comm) {
  std::int64_t expected = 0;
  MPI_Scatter(root_bytes.empty() ? nullptr : root_bytes.data(), 1, MPI_INT64_T, &expected, 1,
              MPI_INT64_T, root, comm);
  detail::on_every_rank(comm, [&] {
    if (mine_counts && mine != expected) {
      int rank = 0;
      MPI_Comm_rank(comm, &rank);
      throw Error(fmt::format("{}: rank {} moves {} bytes, but the root's counts say {}", call,
                              rank, mine, expected));
    }
  });
}

/// gatherv_init (gather) and scatterv_init, mirrored as gather_init and scatter_init are:
/// `mine` is each rank's one block, `all` the root's counts and displacements.
struct VectorArguments {
  const void* sendbuf;
  void* recvbuf;
  int my_count;
  MPI_Datatype my_type;
  const int* counts;
  const int* displs;
  MPI_Datatype root_type;
  int root;
};

Request linear_init(bool gather, const VectorArguments& a, MPI_Comm comm, const Options& options,
                    const detail::LibraryFactory& library) {
  const char* call = gather ? kGathervInitCall : kScattervInitCall;
  const detail::Ranks me = detail::ranks_of(comm);
  const bool at_root = me.rank == a.root;
  const bool in_place = (gather ? a.sendbuf : a.recvbuf) == MPI_IN_PLACE;
  detail::AllBlocks all;  // significant at the root
  detail::Layout my_layout;
  detail::OwnedType indexed;
  std::int64_t mine = 0;
  detail::Way way;
  detail::on_every_rank(comm, [&] {
    detail::check_thread_level(call, options);
    detail::check_root(call, a.root, me.size);
    if (in_place && !at_root)
      throw Error(fmt::format("{}: only the root may pass MPI_IN_PLACE", call));
    // The root's buffer: gatherv's output (and its input too in place, where the root's own
    // block already sits in it), scatterv's input.
    if (at_root)
      all = detail::all_blocks(call, "rank", a.counts, a.displs, me.size, a.root_type,
                               !gather || in_place, gather, indexed);
    if (!in_place) {
      mine = detail::checked_bytes(call, a.my_count, detail::element_size(call, a.my_type));
      my_layout = detail::layout_of(call, a.my_type, a.my_count, gather, !gather);
    }
    way = detail::way_of(call, options, "linear", "the linear exchange with the root");
  });
  const detail::VectorBlocks& blocks = all.blocks;
  detail::agree_between_ranks(
      call, comm, {{"root", a.root}, {"algorithm", detail::name_fingerprint(way.algorithm)}});
  check_against_root(call, blocks.bytes, mine, !in_place, a.root, comm);
  detail::UserBuffers buffers;
  buffers.user = gather ? (at_root ? a.recvbuf : nullptr) : (in_place ? nullptr : a.recvbuf);
  buffers.send = gather ? (in_place ? nullptr : a.sendbuf) : (at_root ? a.sendbuf : nullptr);
  (gather ? buffers.user_layout : buffers.send_layout) = all.layout;
  (gather ? buffers.send_layout : buffers.user_layout) = my_layout;
  return detail::request_by_way(
      call, way, gather ? "gatherv" : "scatterv",
      [&] { return detail::gatherv_plan(blocks, mine, a.root, me.size, me.rank, gather); }, buffers,
      comm, MPI_BYTE, MPI_OP_NULL, options, library);
}

/// The root's counts and displacements as vectors (empty elsewhere), for the library's call.
std::vector<int> at_root_only(const int values[], int root, MPI_Comm comm) {
  const detail::Ranks me = detail::ranks_of(comm);
  if (me.rank != root) return {};
  return {values, values + me.size};
}

}  // namespace

Request gatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                     MPI_Comm comm, const Options& options) {
  return linear_init(
      true, {sendbuf, recvbuf, sendcount, sendtype, recvcounts, displs, recvtype, root}, comm,
      options, [&](MPI_Comm own) {
        return detail::library_gatherv(sendbuf, sendcount, sendtype, recvbuf,
                                       at_root_only(recvcounts, root, comm),
                                       at_root_only(displs, root, comm), recvtype, root, own);
      });
}

Request scatterv_init(const void* sendbuf, const int sendcounts[], const int displs[],
                      MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                      int root, MPI_Comm comm, const Options& options) {
  return linear_init(
      false, {sendbuf, recvbuf, recvcount, recvtype, sendcounts, displs, sendtype, root}, comm,
      options, [&](MPI_Comm own) {
        return detail::library_scatterv(sendbuf, at_root_only(sendcounts, root, comm),
                                        at_root_only(displs, root, comm), sendtype, recvbuf,
                                        recvcount, recvtype, root, own);
      });
}

Request allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                        MPI_Comm comm, const Options& options) {
  const detail::Ranks me = detail::ranks_of(comm);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  detail::AllBlocks all;
  detail::Layout send_layout;
  detail::OwnedType indexed;
  detail::Way way;
  detail::on_every_rank(comm, [&] {
    detail::check_thread_level(kAllgathervInitCall, options);
    // In place, the own block already sits in recvbuf: the image is packed at start too.
    all = detail::all_blocks(kAllgathervInitCall, "rank", recvcounts, displs, me.size, recvtype,
                             in_place, true, indexed);
    const detail::VectorBlocks& blocks = all.blocks;
    if (!in_place) {
      const std::int64_t mine = detail::checked_bytes(
          kAllgathervInitCall, sendcount, detail::element_size(kAllgathervInitCall, sendtype));
      send_layout = detail::layout_of(kAllgathervInitCall, sendtype, sendcount, true, false);
      if (mine != blocks.bytes[static_cast<std::size_t>(me.rank)])
        throw Error(fmt::format("{}: rank {} sends {} bytes, but its recvcounts say {}",
                                kAllgathervInitCall, me.rank, mine,
                                blocks.bytes[static_cast<std::size_t>(me.rank)]));
    }
    way = detail::way_of(kAllgathervInitCall, options, "ring", "the ring");
  });
  const detail::VectorBlocks& blocks = all.blocks;
  // Every rank's counts must be the same (displacements are each rank's own layout).
  detail::agree_between_ranks(
      kAllgathervInitCall, comm,
      {{"recvcounts x type size", detail::fingerprint(std::as_bytes(std::span(blocks.bytes)))},
       {"algorithm", detail::name_fingerprint(way.algorithm)}});
  return detail::request_by_way(
      kAllgathervInitCall, way, "allgatherv",
      [&] { return detail::allgatherv_plan(blocks, me.size, me.rank); },
      {recvbuf, in_place ? nullptr : sendbuf, all.layout, send_layout}, comm, MPI_BYTE, MPI_OP_NULL,
      options,
      [&](MPI_Comm own) {
        return detail::library_allgatherv(sendbuf, sendcount, sendtype, recvbuf,
                                          {recvcounts, recvcounts + me.size},
                                          {displs, displs + me.size}, recvtype, own);
      });
}

}  // namespace choreo::persist
