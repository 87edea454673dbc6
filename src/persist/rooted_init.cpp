// reduce_init, gather_init, scatter_init and barrier_init: the binomial trees and the
// dissemination barrier as persistent requests (the plans: rooted_plans.cpp), measured against
// the MPI library's own collective by default, as bcast_init's trees are.
#include <fmt/format.h>

#include <utility>

#include "choreo/core/error.hpp"
#include "choreo/persist/collectives.hpp"
#include "init_common.hpp"
#include "plans.hpp"
#include "reduction_unit.hpp"

namespace choreo::persist {

namespace {

constexpr const char* kReduceInitCall = "reduce_init";
constexpr const char* kGatherInitCall = "gather_init";
constexpr const char* kScatterInitCall = "scatter_init";
constexpr const char* kBarrierInitCall = "barrier_init";

}  // namespace

Request reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                    int root, MPI_Comm comm, const Options& options) {
  return reduce_init_c(sendbuf, recvbuf, count, type, op, root, comm, options);
}

Request reduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type,
                      MPI_Op op, int root, MPI_Comm comm, const Options& options) {
  const detail::Ranks me = detail::ranks_of(comm);
  int unit = 1;
  std::int64_t bytes = 0;
  detail::Way way;
  detail::on_every_rank(comm, [&] {
    detail::check_thread_level(kReduceInitCall, options);
    detail::check_root(kReduceInitCall, root, me.size);
    unit = detail::reduction_unit(kReduceInitCall, type);
    bytes = detail::checked_bytes(kReduceInitCall, count, unit);
    detail::check_commutative_op(kReduceInitCall, op, "the binomial tree reduces",
                                 "MPI_Reduce_init");
    if (sendbuf == MPI_IN_PLACE && me.rank != root)
      throw Error(fmt::format("{}: only the root may pass MPI_IN_PLACE", kReduceInitCall));
    way = detail::way_of(kReduceInitCall, options, "binomial", "the binomial tree");
  });
  detail::agree_between_ranks(kReduceInitCall, comm,
                              {{"count x type size", bytes},
                               {"root", root},
                               {"algorithm", detail::name_fingerprint(way.algorithm)}});
  const bool at_root = me.rank == root, in_place = sendbuf == MPI_IN_PLACE;
  return detail::request_by_way(
      kReduceInitCall, way, "reduce",
      [&] { return detail::reduce_plan(count, unit, root, me.size, me.rank); },
      {at_root ? recvbuf : nullptr, in_place ? nullptr : sendbuf}, comm, type, op, options,
      detail::library_within_int(bytes, [&](MPI_Comm own) {
        return detail::library_reduce(sendbuf, recvbuf, static_cast<int>(count), type, op, root,
                                      own);
      }));
}

namespace {

/// The bytes of one rank's block of a gather or scatter, from the arguments significant on this
/// rank: `mine` (count and type on every rank), `roots` (only at the root, unless the root's
/// own side is MPI_IN_PLACE, which leaves `mine` insignificant there).
std::int64_t block_bytes(const char* call, MPI_Count my_count, MPI_Datatype my_type,
                         MPI_Count root_count, MPI_Datatype root_type, bool at_root,
                         bool root_in_place) {
  const auto bytes_of = [&](MPI_Count count, MPI_Datatype type) {
    return detail::checked_bytes(call, count, detail::element_size(call, type));
  };
  if (!at_root) return bytes_of(my_count, my_type);
  const std::int64_t roots = bytes_of(root_count, root_type);
  if (root_in_place) return roots;
  const std::int64_t mine = bytes_of(my_count, my_type);
  if (mine != roots)
    throw Error(fmt::format(
        "{}: the root's own block is {} bytes on one side and {} on the other; both must "
        "hold the same bytes",
        call, mine, roots));
  return roots;
}

}  // namespace

namespace {

/// A gather's or a scatter's arguments.
struct TreeArguments {
  const void* sendbuf;
  MPI_Count sendcount;
  MPI_Datatype sendtype;
  void* recvbuf;
  MPI_Count recvcount;
  MPI_Datatype recvtype;
  int root;
};

/// gather_init (gather) and scatter_init, mirror images: each rank's own block is the send
/// side of a gather and the receive side of a scatter ("mine"); the root's whole buffer is the
/// other side, and MPI_IN_PLACE at the root goes on "mine".
Request binomial_tree_init(bool gather, const TreeArguments& a, MPI_Comm comm,
                           const Options& options) {
  const char* call = gather ? kGatherInitCall : kScatterInitCall;
  const detail::Ranks me = detail::ranks_of(comm);
  const bool at_root = me.rank == a.root;
  const bool in_place = (gather ? a.sendbuf : a.recvbuf) == MPI_IN_PLACE;
  const MPI_Count my_count = gather ? a.sendcount : a.recvcount;
  const MPI_Datatype my_type = gather ? a.sendtype : a.recvtype;
  const MPI_Count root_count = gather ? a.recvcount : a.sendcount;
  const MPI_Datatype root_type = gather ? a.recvtype : a.sendtype;
  std::int64_t bytes = 0;
  detail::Way way;
  detail::UserBuffers buffers;
  buffers.user = gather ? (at_root ? a.recvbuf : nullptr) : (in_place ? nullptr : a.recvbuf);
  buffers.send = gather ? (in_place ? nullptr : a.sendbuf) : (at_root ? a.sendbuf : nullptr);
  detail::on_every_rank(comm, [&] {
    detail::check_thread_level(call, options);
    detail::check_root(call, a.root, me.size);
    if (in_place && !at_root)
      throw Error(fmt::format("{}: only the root may pass MPI_IN_PLACE", call));
    bytes = block_bytes(call, my_count, my_type, root_count, root_type, at_root, in_place);
    way = detail::way_of(call, options, "binomial", "the binomial tree");
    detail::Layout& mine = gather ? buffers.send_layout : buffers.user_layout;
    detail::Layout& roots = gather ? buffers.user_layout : buffers.send_layout;
    if (!in_place) mine = detail::layout_of(call, my_type, my_count, gather, !gather);
    if (at_root)
      roots = detail::layout_of(call, root_type, std::int64_t{root_count} * me.size,
                                gather ? in_place : true, gather);
  });
  detail::agree_between_ranks(call, comm,
                              {{"block bytes", bytes},
                               {"root", a.root},
                               {"algorithm", detail::name_fingerprint(way.algorithm)}});
  return detail::request_by_way(
      call, way, gather ? "gather" : "scatter",
      [&] {
        return gather ? detail::gather_plan(bytes, a.root, me.size, me.rank)
                      : detail::scatter_plan(bytes, a.root, me.size, me.rank);
      },
      buffers, comm, MPI_BYTE, MPI_OP_NULL, options,
      detail::library_within_int(bytes, [&](MPI_Comm own) {
        // Within an int: the block's bytes are, and so every count of them.
        const int sendcount = static_cast<int>(a.sendcount),
                  recvcount = static_cast<int>(a.recvcount);
        return gather ? detail::library_gather(a.sendbuf, sendcount, a.sendtype, a.recvbuf,
                                               recvcount, a.recvtype, a.root, own)
                      : detail::library_scatter(a.sendbuf, sendcount, a.sendtype, a.recvbuf,
                                                recvcount, a.recvtype, a.root, own);
      }));
}

}  // namespace

Request gather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                    const Options& options) {
  return gather_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                       options);
}

Request gather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                      MPI_Comm comm, const Options& options) {
  return binomial_tree_init(
      true, {sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root}, comm, options);
}

Request scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                     const Options& options) {
  return scatter_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                        options);
}

Request scatter_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, const Options& options) {
  return binomial_tree_init(
      false, {sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root}, comm, options);
}

Request barrier_init(MPI_Comm comm, const Options& options) {
  const detail::Ranks me = detail::ranks_of(comm);
  detail::Way way;
  detail::on_every_rank(comm, [&] {
    detail::check_thread_level(kBarrierInitCall, options);
    way = detail::way_of(kBarrierInitCall, options, "dissemination", "the dissemination barrier");
  });
  detail::agree_between_ranks(kBarrierInitCall, comm,
                              {{"algorithm", detail::name_fingerprint(way.algorithm)}});
  return detail::request_by_way(
      kBarrierInitCall, way, "barrier", [&] { return detail::barrier_plan(me.size, me.rank); }, {},
      comm, MPI_BYTE, MPI_OP_NULL, options,
      [](MPI_Comm own) { return detail::library_barrier(own); });
}

}  // namespace choreo::persist
