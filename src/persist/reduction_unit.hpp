#pragma once
// How far apart a persistent reduction's elements sit in the plan's bytes (private): its
// reductions call MPI_Reduce_local on the caller's type, an element every `unit` bytes:
//   - a contiguous type: its size;
//   - a predefined pair type with padding (MPI_DOUBLE_INT, MPI_LONG_INT, MPI_SHORT_INT,
//     MPI_LONG_DOUBLE_INT: MINLOC and MAXLOC): its extent. Messages carry the padding too; it
//     is a C struct's padding, whose value nobody reads.
// MPI defines its predefined ops on predefined types only (MPICH refuses MPI_SUM on a vector
// of ints), so these are the types a predefined op can meet; a derived type is refused.
#include <mpi.h>

namespace choreo::persist::detail {

/// The unit; throws choreo::Error naming `call` for MPI_DATATYPE_NULL, an empty type or a
/// derived, non-contiguous one.
int reduction_unit(const char* call, MPI_Datatype type);

}  // namespace choreo::persist::detail
