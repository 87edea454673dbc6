#include "datatype_layout.hpp"

namespace choreo::mpi::detail {

bool is_contiguous(MPI_Datatype type) {
  if (type == MPI_DATATYPE_NULL) return false;
  MPI_Aint lower_bound = 0, extent = 0, true_lower_bound = 0, true_extent = 0;
  int size = 0;
  if (PMPI_Type_get_extent(type, &lower_bound, &extent) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent(type, &true_lower_bound, &true_extent) != MPI_SUCCESS ||
      PMPI_Type_size(type, &size) != MPI_SUCCESS)
    return false;
  return lower_bound == 0 && true_lower_bound == 0 && extent == size && true_extent == size;
}

}  // namespace choreo::mpi::detail
