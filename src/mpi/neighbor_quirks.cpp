#include "neighbor_quirks.hpp"

#include <vector>

namespace choreo::mpi::detail {

bool cart_has_looped_dimension(MPI_Comm comm) {
  int kind = MPI_UNDEFINED;
  if (comm == MPI_COMM_NULL || PMPI_Topo_test(comm, &kind) != MPI_SUCCESS || kind != MPI_CART)
    return false;
  int ndims = 0;
  PMPI_Cartdim_get(comm, &ndims);
  if (ndims <= 0) return false;
  std::vector<int> dims(static_cast<std::size_t>(ndims)), periods(dims.size()), coords(dims.size());
  PMPI_Cart_get(comm, ndims, dims.data(), periods.data(), coords.data());
  for (std::size_t d = 0; d < dims.size(); ++d)
    if (periods[d] != 0 && dims[d] <= 2) return true;
  return false;
}

}  // namespace choreo::mpi::detail
