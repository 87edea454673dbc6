#pragma once
// What libchoreo_scalapack.so needs of BLACS (which Debian ships inside libscalapack): a
// context's grid and this process's place in it, and the MPI communicator behind a context.
#include <mpi.h>

namespace choreo::scalapack {

/// A BLACS process grid as this process sees it; my_row / my_col are -1 when the process is
/// not in the grid (a context of -1, or one this process does not belong to).
struct GridInfo {
  int nprow = -1, npcol = -1, my_row = -1, my_col = -1;
  bool mine() const { return my_row >= 0 && my_col >= 0; }
  int size() const { return nprow * npcol; }
};

GridInfo grid_info(int context);

/// The communicator of a context this process belongs to: its ranks are the grid's processes
/// in row-major order (rank = row * npcol + col), whether the grid was made by
/// Cblacs_gridinit ("Row" or "Col") or Cblacs_gridmap. BLACS keeps it; do not free it.
MPI_Comm communicator_of(int context);

}  // namespace choreo::scalapack
