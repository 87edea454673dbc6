#pragma once
// The size of an MPI datatype, asked of the MPI library directly (the interposition library
// does not wrap MPI_Type_size, so PMPI_ is MPI's own).
#include <mpi.h>

namespace choreo::intercept {

inline int type_size(MPI_Datatype type) {
  int size = 0;
  PMPI_Type_size(type, &size);
  return size;
}

}  // namespace choreo::intercept
