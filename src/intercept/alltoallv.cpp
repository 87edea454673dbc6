// MPI_Alltoallv and MPI_Neighbor_alltoallv, intercepted (exchange_site.hpp does the work).
#include <mpi.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "../mpi/neighbor_lists.hpp"
#include "../mpi/neighbor_quirks.hpp"
#include "calls.hpp"
#include "comm_state.hpp"
#include "next.hpp"
#include "record.hpp"
#include "runtime.hpp"

namespace choreo::intercept {
namespace {

std::int64_t bytes_sent(const int* counts, int blocks, MPI_Datatype type) {
  int size = 0;
  PMPI_Type_size(type, &size);
  std::int64_t total = 0;
  for (int k = 0; k < blocks; ++k) total += counts[k];
  return total * size;
}

bool has_duplicates(std::vector<int> ranks) {
  ranks.erase(std::remove(ranks.begin(), ranks.end(), MPI_PROC_NULL), ranks.end());
  std::sort(ranks.begin(), ranks.end());
  return std::adjacent_find(ranks.begin(), ranks.end()) != ranks.end();
}

/// The neighbours of the communicator's topology in the order MPI's neighbourhood calls use
/// (mpi/neighbor_lists.hpp), and what choreo's exchange cannot take of them.
NeighborTopology read_topology(MPI_Comm comm) {
  choreo::mpi::detail::NeighborLists lists = choreo::mpi::detail::neighbor_lists(comm);
  NeighborTopology topology;
  if (lists.kind == MPI_UNDEFINED) {
    topology.unsupported = Fallback::NoTopology;
    return topology;
  }
  topology.sources = std::move(lists.sources);
  topology.destinations = std::move(lists.destinations);
  // Two edges between one pair (a periodic dimension of 1 or 2, a repeated neighbour) need
  // MPI's rules for which message lands where; choreo matches one message per pair.
  if (has_duplicates(topology.sources) || has_duplicates(topology.destinations))
    topology.unsupported = Fallback::MultipleEdges;
  topology.looped_cart = choreo::mpi::detail::cart_has_looped_dimension(comm);
  return topology;
}

/// MPI_Neighbor_alltoallv on a Cartesian grid with a periodic dimension of 1 or 2 ranks, by
/// MPI-4.1 section 8.6, where MPICH 4.0.2's own swaps that dimension's blocks
/// (mpi/neighbor_quirks.hpp): every receive, then every send, on choreo's duplicate of the
/// communicator; a message's tag is the block it fills at the receiver (block 2d comes from
/// the -1 neighbour, which sent it as its block 2d+1, and vice versa).
int cart_exchange(const NeighborTopology& topology, const void* sendbuf, const int sendcounts[],
                  const int sdispls[], MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  MPI_Aint lower = 0, send_extent = 0, receive_extent = 0;
  PMPI_Type_get_extent(sendtype, &lower, &send_extent);
  PMPI_Type_get_extent(recvtype, &lower, &receive_extent);
  const std::size_t blocks = topology.sources.size();
  std::vector<MPI_Request> requests(2 * blocks, MPI_REQUEST_NULL);
  for (std::size_t k = 0; k < blocks; ++k) {
    const int code =
        next::Irecv(static_cast<char*>(recvbuf) + rdispls[k] * receive_extent, recvcounts[k],
                    recvtype, topology.sources[k], static_cast<int>(k), comm, &requests[k]);
    if (code != MPI_SUCCESS) return code;
  }
  for (std::size_t k = 0; k < blocks; ++k) {
    const int code = next::Isend(static_cast<const char*>(sendbuf) + sdispls[k] * send_extent,
                                 sendcounts[k], sendtype, topology.destinations[k],
                                 static_cast<int>(k ^ 1U), comm, &requests[blocks + k]);
    if (code != MPI_SUCCESS) return code;
  }
  return next::Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
}

/// Why an exchange on `state`'s communicator goes to MPI whatever its counts, if it does. In
/// auto mode without a calibrated machine, unless CHOREO_EXCHANGE names a schedule: the
/// model's schedules are tuned for its default network (a 1 GbE-like switch), whose paced or
/// delayed sends would only slow down another.
std::optional<Fallback> exchange_declined(const CommState& state) {
  if (state.size == 1) return Fallback::SingleRank;
  return auto_mode_declines(runtime().config.exchange != ExchangeAlgorithm::Auto);
}

}  // namespace
}  // namespace choreo::intercept

using namespace choreo::intercept;

namespace {

int serve_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  auto mpi = [&] {
    return next::Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                           recvtype, comm);
  };
  if (!intercepting()) return mpi();
  CallRecord record(Function::Alltoallv);
  if (auto reason = blanket_reason(Function::Alltoallv, record))
    return record.hand_over(*reason, mpi);
  if (comm == MPI_COMM_NULL) return mpi();  // MPI reports the error as it would
  return guarded(record, mpi, [&]() -> int {
    CommState& state = state_of(comm);
    if (state.inter) return record.hand_over(Fallback::Intercommunicator, mpi);
    if (record.timing())
      record.bytes(sendbuf == MPI_IN_PLACE ? bytes_sent(recvcounts, state.size, recvtype)
                                           : bytes_sent(sendcounts, state.size, sendtype));
    if (auto reason = exchange_declined(state)) return record.hand_over(*reason, mpi);
    ExchangeArgs args{sendbuf,    sendcounts, sdispls,  sendtype,   recvbuf,
                      recvcounts, rdispls,    recvtype, state.size, state.size};
    return run_exchange(state, state.alltoallv, args, std::nullopt, mpi, record);
  });
}

}  // namespace

/// The program's call: recorded under CHOREO_RECORD (record.hpp) with the bytes it sends to
/// each rank, then served as above.
extern "C" int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return record::collective(
      choreo::trace::Collective::Alltoallv, comm,
      [&] {
        return serve_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                               recvtype, comm);
      },
      [&](choreo::trace::Event& e) {
        const bool in_place = sendbuf == MPI_IN_PLACE;
        int size = 0;
        PMPI_Comm_size(comm, &size);
        for (int r = 0; r < size; ++r)
          e.send_bytes.push_back(in_place ? record::bytes(recvcounts[r], recvtype)
                                          : record::bytes(sendcounts[r], sendtype));
      });
}

extern "C" int MPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[],
                                      const int sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                      const int recvcounts[], const int rdispls[],
                                      MPI_Datatype recvtype, MPI_Comm comm) {
  auto mpi = [&] {
    return next::Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                    rdispls, recvtype, comm);
  };
  if (!intercepting()) return mpi();
  CallRecord record(Function::NeighborAlltoallv);
  // A setting that sends every call to MPI (CHOREO_MODE=mpi, CHOREO_DISABLE) is obeyed. Auto
  // mode's declining is not, on a grid whose looped dimension MPI's own call may get wrong, so
  // the communicator's topology is read (once) before it.
  const Runtime& rt = runtime();
  if (rt.blanket) return record.hand_over(*rt.blanket, mpi);
  if (rt.config.disabled[static_cast<std::size_t>(Function::NeighborAlltoallv)])
    return record.hand_over(Fallback::Disabled, mpi);
  if (comm == MPI_COMM_NULL || sendbuf == MPI_IN_PLACE) return mpi();  // MPI's error
  return guarded(record, mpi, [&]() -> int {
    CommState& state = state_of(comm);
    if (state.inter) return record.hand_over(Fallback::Intercommunicator, mpi);
    if (!state.topology) state.topology = read_topology(comm);
    const NeighborTopology& topology = *state.topology;
    if (topology.looped_cart) {
      record.took_choreo();
      return cart_exchange(topology, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                           rdispls, recvtype, private_comm_of(state));
    }
    if (auto reason = blanket_reason(Function::NeighborAlltoallv, record))
      return record.hand_over(*reason, mpi);
    const int sends = static_cast<int>(topology.destinations.size());
    if (record.timing()) record.bytes(bytes_sent(sendcounts, sends, sendtype));
    if (topology.unsupported == Fallback::NoTopology)
      return record.hand_over(Fallback::NoTopology, mpi);
    if (auto reason = exchange_declined(state)) return record.hand_over(*reason, mpi);
    ExchangeArgs args{sendbuf,
                      sendcounts,
                      sdispls,
                      sendtype,
                      recvbuf,
                      recvcounts,
                      rdispls,
                      recvtype,
                      sends,
                      static_cast<int>(topology.sources.size()),
                      topology.destinations.data(),
                      topology.sources.data()};
    return run_exchange(state, state.neighbor, args, topology.unsupported, mpi, record);
  });
}
