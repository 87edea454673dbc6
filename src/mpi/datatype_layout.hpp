#pragma once
// Whether a datatype's data sit back to back from the buffer's address (private): the one test
// behind every choreo path that moves a typed buffer as bytes (the interposition library's
// collectives and persistent inits, choreo::persist). PMPI_ calls, so that it asks the MPI
// library even inside libchoreo_pmpi.so.
#include <mpi.h>

namespace choreo::mpi::detail {

/// count elements of type are count x size bytes in one block from the buffer's address:
/// lower bound and true lower bound 0, extent and true extent equal to the size. A valid,
/// committed type only (MPI_DATATYPE_NULL is not contiguous).
bool is_contiguous(MPI_Datatype type);

}  // namespace choreo::mpi::detail
