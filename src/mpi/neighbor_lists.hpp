#pragma once
// A process's neighbours on its communicator's topology, in the order MPI's neighbourhood
// collectives use (private). Both the persistent neighbourhood exchange (src/persist) and the
// interposed MPI_Neighbor_alltoallv (src/intercept) read them here.
#include <mpi.h>

#include <vector>

namespace choreo::mpi::detail {

struct NeighborLists {
  int kind = MPI_UNDEFINED;  ///< MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH, or MPI_UNDEFINED: none
  /// A distributed graph's as MPI_Dist_graph_neighbors lists them, a graph's as
  /// MPI_Graph_neighbors does (the same list both ways), a Cartesian grid's per dimension the
  /// -1 then the +1 neighbour (MPI_Cart_shift; MPI_PROC_NULL off a non-periodic edge).
  std::vector<int> sources, destinations;
};

/// Local: reads comm's topology (empty lists and MPI_UNDEFINED where it has none).
NeighborLists neighbor_lists(MPI_Comm comm);

}  // namespace choreo::mpi::detail
