// reduce_init, gather_init, scatter_init and barrier_init: the binomial trees and the
// dissemination barrier as persistent requests (the plans: rooted_plans.cpp), measured against
// the MPI library's own collective by default, as bcast_init's trees are.
#include <fmt/format.h>

#include <utility>

#include "choreo/error.hpp"
#include "choreo/persist/collectives.hpp"
#include "init_common.hpp"
#include "plans.hpp"

namespace choreo::persist {

namespace {

constexpr const char* kReduceInitCall = "reduce_init";
constexpr const char* kGatherInitCall = "gather_init";
constexpr const char* kScatterInitCall = "scatter_init";
constexpr const char* kBarrierInitCall = "barrier_init";

/// How a collective of this file is run: `tree` ("binomial", "dissemination") or "mpi"; the
/// default is the tree measured against the library's own over the first starts.
struct Way {
  std::string algorithm;
  bool measured = false;
  std::string choice;
};

Way way_of(const char* call, const Options& options, const std::string& tree) {
  const std::string algorithm = detail::chosen_algorithm(call, options, tree, {tree, "mpi"});
  const bool measured = options.algorithm.empty() && options.engine == Engine::Commands;
  std::string choice =
      !options.algorithm.empty()
          ? "named by the caller"
          : (measured ? "the default: the " + tree +
                            " tree, measured against the MPI library's own over the first starts"
                      : "the default tree (only the commands engine measures the library's own)");
  return {algorithm, measured, std::move(choice)};
}

void check_root(const char* call, int root, int ranks) {
  if (root < 0 || root >= ranks)
    throw Error(fmt::format("{}: root {} is not a rank of the communicator (0..{})", call, root,
                            ranks - 1));
}

/// The request once every rank agreed: the library's own, or the plan (with the library's
/// as its rival when measured).
Request rooted_request(const char* call, const Way& way, const std::string& collective,
                       const std::function<detail::Plan()>& make_plan, detail::UserBuffers buffers,
                       MPI_Comm comm, MPI_Datatype type, MPI_Op op, const Options& options,
                       const detail::LibraryFactory& library) {
  if (way.algorithm == "mpi") {
    detail::Plan named;
    named.algorithm = collective + ":mpi";
    named.choice = way.choice;
    return detail::make_library_request(std::move(named), comm, library);
  }
  detail::Plan plan;
  detail::on_every_rank(comm, [&] {
    plan = make_plan();
    plan.choice = way.choice;
    detail::check_tags(call, plan, comm);
  });
  return detail::make_request(std::move(plan), buffers, comm, type, op, options,
                              way.measured ? library : detail::LibraryFactory{});
}

}  // namespace

Request reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                    int root, MPI_Comm comm, const Options& options) {
  const detail::Ranks me = detail::ranks_of(comm);
  int element_size = 1;
  std::int64_t bytes = 0;
  Way way;
  detail::on_every_rank(comm, [&] {
    detail::check_thread_level(kReduceInitCall, options);
    check_root(kReduceInitCall, root, me.size);
    element_size = detail::contiguous_size(kReduceInitCall, type);
    bytes = detail::checked_bytes(kReduceInitCall, count, element_size);
    if (op == MPI_OP_NULL)
      throw Error(fmt::format("{}: op is MPI_OP_NULL; pass e.g. MPI_SUM", kReduceInitCall));
    int commutative = 0;
    MPI_Op_commutative(op, &commutative);
    if (!commutative)
      throw Error(fmt::format(
          "{}: the op is not commutative, but the binomial tree reduces in a rank-dependent "
          "order; use MPI_Reduce_init",
          kReduceInitCall));
    if (sendbuf == MPI_IN_PLACE && me.rank != root)
      throw Error(fmt::format("{}: only the root may pass MPI_IN_PLACE", kReduceInitCall));
    way = way_of(kReduceInitCall, options, "binomial");
  });
  detail::agree_between_ranks(kReduceInitCall, comm,
                              {{"count x type size", bytes},
                               {"root", root},
                               {"algorithm", detail::name_fingerprint(way.algorithm)}});
  const bool at_root = me.rank == root;
  return rooted_request(
      kReduceInitCall, way, "reduce",
      [&] { return detail::reduce_plan(count, element_size, root, me.size, me.rank); },
      {at_root ? recvbuf : nullptr, sendbuf == MPI_IN_PLACE ? nullptr : sendbuf}, comm, type, op,
      options,
      [&](MPI_Comm own) {
        return detail::library_reduce(sendbuf, recvbuf, count, type, op, root, own);
      });
}

namespace {

/// The bytes of one rank's block of a gather or scatter, from the arguments significant on this
/// rank: `mine` (count and type on every rank), `roots` (only at the root, unless the root's
/// own side is MPI_IN_PLACE, which leaves `mine` insignificant there).
std::int64_t block_bytes(const char* call, int my_count, MPI_Datatype my_type, int root_count,
                         MPI_Datatype root_type, bool at_root, bool root_in_place) {
  const auto bytes_of = [&](int count, MPI_Datatype type) {
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

Request gather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                    const Options& options) {
  const detail::Ranks me = detail::ranks_of(comm);
  const bool at_root = me.rank == root;
  std::int64_t bytes = 0;
  Way way;
  detail::UserBuffers buffers{at_root ? recvbuf : nullptr,
                              sendbuf == MPI_IN_PLACE ? nullptr : sendbuf};
  detail::on_every_rank(comm, [&] {
    detail::check_thread_level(kGatherInitCall, options);
    check_root(kGatherInitCall, root, me.size);
    if (sendbuf == MPI_IN_PLACE && !at_root)
      throw Error(fmt::format("{}: only the root may pass MPI_IN_PLACE", kGatherInitCall));
    bytes = block_bytes(kGatherInitCall, sendcount, sendtype, recvcount, recvtype, at_root,
                        sendbuf == MPI_IN_PLACE);
    way = way_of(kGatherInitCall, options, "binomial");
    if (sendbuf != MPI_IN_PLACE)
      buffers.send_layout = detail::layout_of(kGatherInitCall, sendtype, sendcount, true, false);
    if (at_root)
      buffers.user_layout =
          detail::layout_of(kGatherInitCall, recvtype, std::int64_t{recvcount} * me.size,
                            sendbuf == MPI_IN_PLACE, true);
  });
  detail::agree_between_ranks(kGatherInitCall, comm,
                              {{"block bytes", bytes},
                               {"root", root},
                               {"algorithm", detail::name_fingerprint(way.algorithm)}});
  return rooted_request(
      kGatherInitCall, way, "gather",
      [&] { return detail::gather_plan(bytes, root, me.size, me.rank); }, buffers, comm, MPI_BYTE,
      MPI_OP_NULL, options,
      [&](MPI_Comm own) {
        return detail::library_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                      root, own);
      });
}

Request scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                     const Options& options) {
  const detail::Ranks me = detail::ranks_of(comm);
  const bool at_root = me.rank == root;
  std::int64_t bytes = 0;
  Way way;
  detail::UserBuffers buffers{recvbuf == MPI_IN_PLACE ? nullptr : recvbuf,
                              at_root ? sendbuf : nullptr};
  detail::on_every_rank(comm, [&] {
    detail::check_thread_level(kScatterInitCall, options);
    check_root(kScatterInitCall, root, me.size);
    if (recvbuf == MPI_IN_PLACE && !at_root)
      throw Error(fmt::format("{}: only the root may pass MPI_IN_PLACE", kScatterInitCall));
    bytes = block_bytes(kScatterInitCall, recvcount, recvtype, sendcount, sendtype, at_root,
                        recvbuf == MPI_IN_PLACE);
    way = way_of(kScatterInitCall, options, "binomial");
    if (recvbuf != MPI_IN_PLACE)
      buffers.user_layout = detail::layout_of(kScatterInitCall, recvtype, recvcount, false, true);
    if (at_root)
      buffers.send_layout = detail::layout_of(kScatterInitCall, sendtype,
                                              std::int64_t{sendcount} * me.size, true, false);
  });
  detail::agree_between_ranks(kScatterInitCall, comm,
                              {{"block bytes", bytes},
                               {"root", root},
                               {"algorithm", detail::name_fingerprint(way.algorithm)}});
  return rooted_request(
      kScatterInitCall, way, "scatter",
      [&] { return detail::scatter_plan(bytes, root, me.size, me.rank); }, buffers, comm, MPI_BYTE,
      MPI_OP_NULL, options,
      [&](MPI_Comm own) {
        return detail::library_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                       root, own);
      });
}

Request barrier_init(MPI_Comm comm, const Options& options) {
  const detail::Ranks me = detail::ranks_of(comm);
  Way way;
  detail::on_every_rank(comm, [&] {
    detail::check_thread_level(kBarrierInitCall, options);
    way = way_of(kBarrierInitCall, options, "dissemination");
  });
  detail::agree_between_ranks(kBarrierInitCall, comm,
                              {{"algorithm", detail::name_fingerprint(way.algorithm)}});
  return rooted_request(
      kBarrierInitCall, way, "barrier", [&] { return detail::barrier_plan(me.size, me.rank); }, {},
      comm, MPI_BYTE, MPI_OP_NULL, options,
      [](MPI_Comm own) { return detail::library_barrier(own); });
}

}  // namespace choreo::persist
