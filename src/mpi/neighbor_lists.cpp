#include "neighbor_lists.hpp"

#include <algorithm>

namespace choreo::mpi::detail {

NeighborLists neighbor_lists(MPI_Comm comm) {
  NeighborLists lists;
  PMPI_Topo_test(comm, &lists.kind);
  if (lists.kind == MPI_DIST_GRAPH) {
    int in = 0, out = 0, weighted = 0;
    PMPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
    lists.sources.resize(static_cast<std::size_t>(in));
    lists.destinations.resize(static_cast<std::size_t>(out));
    std::vector<int> in_weights(static_cast<std::size_t>(std::max(in, 1))),
        out_weights(static_cast<std::size_t>(std::max(out, 1)));
    PMPI_Dist_graph_neighbors(
        comm, in, lists.sources.data(), weighted ? in_weights.data() : MPI_UNWEIGHTED, out,
        lists.destinations.data(), weighted ? out_weights.data() : MPI_UNWEIGHTED);
  } else if (lists.kind == MPI_GRAPH) {
    int rank = 0, count = 0;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Graph_neighbors_count(comm, rank, &count);
    lists.sources.resize(static_cast<std::size_t>(count));
    PMPI_Graph_neighbors(comm, rank, count, lists.sources.data());
    lists.destinations = lists.sources;
  } else if (lists.kind == MPI_CART) {
    int dimensions = 0;
    PMPI_Cartdim_get(comm, &dimensions);
    for (int d = 0; d < dimensions; ++d) {
      int below = MPI_PROC_NULL, above = MPI_PROC_NULL;
      PMPI_Cart_shift(comm, d, 1, &below, &above);
      lists.sources.push_back(below);
      lists.sources.push_back(above);
    }
    lists.destinations = lists.sources;
  } else {
    lists.kind = MPI_UNDEFINED;
  }
  return lists;
}

}  // namespace choreo::mpi::detail
