#pragma once
// What choreo keeps about one of the program's communicators, carried on it as an attribute
// (so a freed communicator's state goes with it, and a handle MPI reuses starts afresh).
#include <mpi.h>

#include <optional>
#include <vector>

#include "collective_site.hpp"
#include "exchange_site.hpp"

namespace choreo::intercept {

/// The neighbours of a communicator's topology, in MPI's order for neighbourhood calls.
struct NeighborTopology {
  std::vector<int> sources, destinations;  ///< MPI_PROC_NULL where a Cartesian edge is missing
  std::optional<Fallback> unsupported;     ///< no topology, or two edges between one pair
  /// A Cartesian grid with a periodic dimension of 1 or 2 ranks (mpi/neighbor_quirks.hpp).
  bool looped_cart = false;
};

struct CommState {
  MPI_Comm user = MPI_COMM_NULL;          ///< the program's communicator
  MPI_Comm private_comm = MPI_COMM_NULL;  ///< choreo's duplicate, made at the first checkpoint
  int rank = 0, size = 0;
  bool inter = false;
  ExchangeSite alltoallv;
  ExchangeSite neighbor;
  CollectiveSite collectives;                ///< MPI_Bcast, MPI_Allreduce and MPI_Allgather
  std::optional<NeighborTopology> topology;  ///< read at the first neighbourhood call
};

/// Choreo's state of `comm`, made at its first intercepted call (local: no communication).
CommState& state_of(MPI_Comm comm);
/// The private duplicate; made at the first call, which must be collective over the
/// communicator (a checkpoint).
MPI_Comm private_comm_of(CommState& state);
/// The attribute's delete callback: frees the duplicate and the state.
int delete_comm_state(MPI_Comm comm, int keyval, void* attribute, void* extra);
/// At MPI_Finalize: every state still attached is deleted.
void delete_all_comm_states();

}  // namespace choreo::intercept
