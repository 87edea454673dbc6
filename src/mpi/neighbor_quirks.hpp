#pragma once
// Where MPI libraries' neighbourhood collectives deliver the wrong blocks (private). Both the
// persistent collectives (src/persist) and the interposition library (src/intercept) ask here.
#include <mpi.h>

namespace choreo::mpi::detail {

/// Whether comm is Cartesian with a periodic dimension of 1 or 2 ranks: there both neighbours of
/// a dimension are one process, and MPI-4.1 section 8.6 (an MPI-3.1 erratum, mpi-forum issue
/// 153) has block s of the sender land in block s^1 of the receiver. Measured here
/// (bench/neighbor_pairing_probe.c): MPICH 4.0.2's MPI_Neighbor_alltoallv, MPI_Ineighbor_alltoallv
/// and MPI_Neighbor_alltoallv_init, and Open MPI 4.1.4's MPI_Ineighbor_alltoallv and
/// MPIX_Neighbor_alltoallv_init, land it in block s instead. Local: reads comm's topology.
bool cart_has_looped_dimension(MPI_Comm comm);

}  // namespace choreo::mpi::detail
