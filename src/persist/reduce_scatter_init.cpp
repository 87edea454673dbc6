// reduce_scatter_block_init and reduce_scatter_init: the ring reduce-scatter as persistent
// requests (the plan: reduce_scatter_plan.cpp), measured against the MPI library's own by
// default. Contiguous datatypes and commutative ops, as the other reductions.
#include <fmt/format.h>

#include <algorithm>
#include <span>
#include <vector>

#include "choreo/core/error.hpp"
#include "choreo/persist/collectives.hpp"
#include "init_common.hpp"
#include "plans.hpp"
#include "reduction_unit.hpp"

namespace choreo::persist {

namespace {

constexpr const char* kReduceScatterBlockInitCall = "reduce_scatter_block_init";
constexpr const char* kReduceScatterInitCall = "reduce_scatter_init";

/// Both: `counts` (elements per rank's block, in rank order) must be the same on every rank;
/// mpi_call names MPI's own, for a refusal. Where the largest block's bytes pass INT_MAX the
/// library's own is not used (library_within_int).
Request reduce_scatter_with(const char* call, const char* mpi_call, const void* sendbuf,
                            void* recvbuf, const std::vector<std::int64_t>& counts,
                            MPI_Datatype type, MPI_Op op, MPI_Comm comm, const Options& options,
                            const detail::LibraryFactory& library) {
  const detail::Ranks me = detail::ranks_of(comm);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  int unit = 1;
  detail::Way way;
  detail::on_every_rank(comm, [&] {
    detail::check_thread_level(call, options);
    unit = detail::reduction_unit(call, type);
    detail::check_commutative_op(call, op, "the ring reduces", mpi_call);
    way = detail::way_of(call, options, "ring", "the ring");
  });
  detail::agree_between_ranks(
      call, comm,
      {{"recvcounts", detail::fingerprint(std::as_bytes(std::span(counts)))},
       {"type size", unit},
       {"algorithm", detail::name_fingerprint(way.algorithm)}});
  return detail::request_by_way(
      call, way, "reduce_scatter",
      [&] { return detail::reduce_scatter_plan(counts, unit, in_place, me.size, me.rank); },
      {recvbuf, in_place ? nullptr : sendbuf}, comm, type, op, options,
      detail::library_within_int(counts.empty() ? 0 : *std::ranges::max_element(counts) * unit,
                                 library));
}

}  // namespace

Request reduce_scatter_block_init(const void* sendbuf, void* recvbuf, int recvcount,
                                  MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                                  const Options& options) {
  return reduce_scatter_block_init_c(sendbuf, recvbuf, recvcount, type, op, comm, options);
}

Request reduce_scatter_block_init_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                    MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                                    const Options& options) {
  const detail::Ranks me = detail::ranks_of(comm);
  detail::on_every_rank(comm, [&] {
    if (recvcount < 0)
      throw Error(fmt::format("{}: recvcount must be 0 or more, not {}",
                              kReduceScatterBlockInitCall, recvcount));
  });
  const std::vector<std::int64_t> counts(static_cast<std::size_t>(me.size), recvcount);
  return reduce_scatter_with(kReduceScatterBlockInitCall, "MPI_Reduce_scatter_block_init", sendbuf,
                             recvbuf, counts, type, op, comm, options, [&](MPI_Comm own) {
                               return detail::library_reduce_scatter_block(
                                   sendbuf, recvbuf, static_cast<int>(recvcount), type, op, own);
                             });
}

Request reduce_scatter_init(const void* sendbuf, void* recvbuf, const int recvcounts[],
                            MPI_Datatype type, MPI_Op op, MPI_Comm comm, const Options& options) {
  const detail::Ranks me = detail::ranks_of(comm);
  std::vector<std::int64_t> counts;
  detail::on_every_rank(comm, [&] {
    for (int r = 0; r < me.size; ++r) {
      if (recvcounts[r] < 0)
        throw Error(fmt::format("{}: recvcounts[{}] must be 0 or more, not {}",
                                kReduceScatterInitCall, r, recvcounts[r]));
      counts.push_back(recvcounts[r]);
    }
  });
  return reduce_scatter_with(kReduceScatterInitCall, "MPI_Reduce_scatter_init", sendbuf, recvbuf,
                             counts, type, op, comm, options, [&](MPI_Comm own) {
                               return detail::library_reduce_scatter(
                                   sendbuf, recvbuf, {recvcounts, recvcounts + me.size}, type, op,
                                   own);
                             });
}

}  // namespace choreo::persist
