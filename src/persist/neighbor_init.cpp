// neighbor_alltoallv_init: MPI_Neighbor_alltoallv as a persistent request (the plan:
// neighbor_plan.cpp), measured against the MPI library's own by default. A rank deals with its
// neighbours only: init reads its neighbour lists from the topology and checks each edge's
// count with one neighbourhood exchange, so time and memory are O(degree), never O(P).
#include <fmt/format.h>

#include <utility>
#include <vector>

#include "../mpi/neighbor_lists.hpp"
#include "../mpi/neighbor_quirks.hpp"
#include "block_layout.hpp"
#include "choreo/core/error.hpp"
#include "choreo/persist/collectives.hpp"
#include "init_common.hpp"
#include "plans.hpp"

namespace choreo::persist {

namespace {

constexpr const char* kNeighborAlltoallvInitCall = "neighbor_alltoallv_init";

/// A rank's neighbours in MPI's order, with the tag of each message. On a graph, repeated edges
/// share one tag and pair in list order (MPI's non-overtaking rule, as MPI libraries pair them).
/// On a Cartesian grid, dimension d's blocks are 2d (the -1 neighbour) and 2d+1 (the +1 one); a
/// block sent to the -1 neighbour arrives there as from its +1 neighbour, so a message's tag
/// is the block it fills at the receiver. Distinct tags keep a periodic dimension of 1 or 2
/// ranks right, where both neighbours are the same rank.
struct Neighbors {
  std::vector<int> sources, destinations;
  std::vector<int> receive_tags, send_tags;
};

Neighbors neighbors_of(MPI_Comm comm) {
  mpi::detail::NeighborLists lists = mpi::detail::neighbor_lists(comm);
  if (lists.kind == MPI_UNDEFINED)
    throw Error(fmt::format(
        "{}: the communicator has no topology; make one with MPI_Cart_create, MPI_Graph_create "
        "or MPI_Dist_graph_create_adjacent",
        kNeighborAlltoallvInitCall));
  Neighbors n{std::move(lists.sources), std::move(lists.destinations), {}, {}};
  if (lists.kind == MPI_CART) {
    for (std::size_t block = 0; block < n.sources.size(); ++block) {
      const int tag = static_cast<int>(block);
      n.receive_tags.push_back(tag);
      n.send_tags.push_back(tag ^ 1);  // block 2d lands in the neighbour's 2d+1, and vice versa
    }
  } else {
    n.receive_tags.assign(n.sources.size(), 0);
    n.send_tags.assign(n.destinations.size(), 0);
  }
  return n;
}

/// One side's blocks (sends or receives) as messages, placed by `blocks` (block_layout.hpp:
/// in place, or in the packed image of a non-contiguous type).
std::vector<detail::NeighborMessage> messages_of(const std::vector<int>& peers,
                                                 const std::vector<int>& tags,
                                                 const detail::VectorBlocks& blocks) {
  std::vector<detail::NeighborMessage> messages;
  for (std::size_t k = 0; k < peers.size(); ++k)
    messages.push_back({peers[k], tags[k], blocks.bytes[k], blocks.offsets[k]});
  return messages;
}

/// Throws unless a side with neighbours passes its count and displacement arrays.
void check_arrays(const char* side, std::size_t neighbours, const int counts[],
                  const int displs[]) {
  if (neighbours > 0 && (counts == nullptr || displs == nullptr))
    throw Error(
        fmt::format("{}: the {} counts and displacements must be arrays of one entry per "
                    "neighbour, not null",
                    kNeighborAlltoallvInitCall, side));
}

std::vector<int> copied(const int values[], std::size_t count) {
  if (count == 0) return {};
  return {values, values + count};
}

/// Each receive block's bytes as its sender counts them, exchanged with the data's own pairing
/// (the peers and tags above) on a duplicate of comm, so no message of the program's can match:
/// O(degree). MPI's MPI_Neighbor_alltoall would not do: MPICH 4.0.2's reverses a graph's
/// repeated edges.
std::vector<std::int64_t> arriving_bytes(const std::vector<detail::NeighborMessage>& receives,
                                         const std::vector<detail::NeighborMessage>& sends,
                                         MPI_Comm comm) {
  MPI_Comm own = MPI_COMM_NULL;
  MPI_Comm_dup(comm, &own);
  std::vector<std::int64_t> arriving(receives.size(), 0), sent(sends.size());
  std::vector<MPI_Request> requests;
  requests.reserve(receives.size() + sends.size());
  for (std::size_t k = 0; k < receives.size(); ++k)
    MPI_Irecv(&arriving[k], 1, MPI_INT64_T, receives[k].peer, receives[k].tag, own,
              &requests.emplace_back());
  for (std::size_t k = 0; k < sends.size(); ++k) {
    sent[k] = sends[k].bytes;
    MPI_Isend(&sent[k], 1, MPI_INT64_T, sends[k].peer, sends[k].tag, own, &requests.emplace_back());
  }
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  MPI_Comm_free(&own);
  return arriving;
}

}  // namespace

Request neighbor_alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                const Options& options) {
  const char* call = kNeighborAlltoallvInitCall;
  Neighbors neighbors;
  std::vector<detail::NeighborMessage> receives, sends;
  detail::AllBlocks sent, received;
  detail::OwnedType send_indexed, receive_indexed;
  detail::Way way;
  detail::on_every_rank(comm, [&] {
    detail::check_thread_level(call, options);
    neighbors = neighbors_of(comm);
    if (sendbuf == MPI_IN_PLACE)
      throw Error(
          fmt::format("{}: MPI_IN_PLACE is not defined for neighbourhood collectives; "
                      "pass a separate send buffer",
                      call));
    check_arrays("send", neighbors.destinations.size(), sendcounts, sdispls);
    check_arrays("receive", neighbors.sources.size(), recvcounts, rdispls);
    sent = detail::all_blocks(call, "neighbour", sendcounts, sdispls,
                              static_cast<int>(neighbors.destinations.size()), sendtype, true,
                              false, send_indexed);
    received = detail::all_blocks(call, "neighbour", recvcounts, rdispls,
                                  static_cast<int>(neighbors.sources.size()), recvtype, false, true,
                                  receive_indexed);
    sends = messages_of(neighbors.destinations, neighbors.send_tags, sent.blocks);
    receives = messages_of(neighbors.sources, neighbors.receive_tags, received.blocks);
    way = detail::way_of(call, options, "direct", "every message posted at once");
    if (way.measured && mpi::detail::cart_has_looped_dimension(comm)) {
      // The libraries measured here deliver the wrong blocks on such a grid; a faster wrong
      // answer must not win the trial.
      way.measured = false;
      way.choice =
          "the default: every message posted at once, not measured against the MPI library's "
          "own, which pairs the blocks of a periodic dimension of 1 or 2 ranks wrongly "
          "(MPI-4.1 section 8.6)";
    }
  });
  detail::agree_between_ranks(call, comm, {{"algorithm", detail::name_fingerprint(way.algorithm)}});
  const std::vector<std::int64_t> arriving = arriving_bytes(receives, sends, comm);
  detail::on_every_rank(comm, [&] {
    for (std::size_t k = 0; k < receives.size(); ++k)
      if (receives[k].peer != MPI_PROC_NULL && arriving[k] != receives[k].bytes)
        throw Error(fmt::format(
            "{}: rank {} sends {} bytes to this rank's receive block {}, which expects {} "
            "(recvcounts[{}] x recvtype size); both sides must describe the same bytes",
            call, receives[k].peer, arriving[k], k, receives[k].bytes, k));
  });
  std::erase_if(receives, [](const auto& m) { return m.peer == MPI_PROC_NULL; });
  std::erase_if(sends, [](const auto& m) { return m.peer == MPI_PROC_NULL; });
  return detail::request_by_way(
      call, way, "neighbor_alltoallv",
      [&] { return detail::neighbor_alltoallv_plan(receives, sends); },
      {recvbuf, sendbuf, received.layout, sent.layout}, comm, MPI_BYTE, MPI_OP_NULL, options,
      [&](MPI_Comm own) {
        const std::size_t out = neighbors.destinations.size(), in = neighbors.sources.size();
        return detail::library_neighbor_alltoallv(
            sendbuf, copied(sendcounts, out), copied(sdispls, out), sendtype, recvbuf,
            copied(recvcounts, in), copied(rdispls, in), recvtype, own);
      });
}

}  // namespace choreo::persist
