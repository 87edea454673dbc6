#include "blacs.hpp"

// BLACS's C interface (ScaLAPACK's BLACS/SRC); Debian builds it with 32-bit ints.
extern "C" {
void Cblacs_gridinfo(int context, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_get(int context, int what, int* value);
MPI_Comm Cblacs2sys_handle(int system_context);
}

namespace choreo::scalapack {
namespace {

// Cblacs_get's WHAT for the system context behind a BLACS context: a handle to the context's
// own MPI communicator, which Cblacs2sys_handle turns into the MPI_Comm.
constexpr int kGetBlacsContext = 10;

}  // namespace

GridInfo grid_info(int context) {
  GridInfo g;
  Cblacs_gridinfo(context, &g.nprow, &g.npcol, &g.my_row, &g.my_col);
  // As ScaLAPACK's redistribution does: coordinates outside the grid mean "not in it".
  if (g.my_row >= g.nprow || g.my_col >= g.npcol) g.my_row = g.my_col = -1;
  return g;
}

MPI_Comm communicator_of(int context) {
  int system = -1;
  Cblacs_get(context, kGetBlacsContext, &system);
  return Cblacs2sys_handle(system);
}

}  // namespace choreo::scalapack
