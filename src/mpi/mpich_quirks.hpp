#pragma once
// Which MPICH a process runs under, and what choreo avoids in the MPICH releases known to go
// wrong (private). Both the redistribution (redist/mpi_quirks.hpp) and the persistent
// collectives (src/persist, src/intercept) ask here, so the version is read in one place.
#include <string_view>

namespace choreo::mpi::detail {

/// The version after "MPICH Version:" in the first line of MPI_Get_library_version (as
/// library_version() gives it), e.g. "4.0.2"; "" for any other MPI.
std::string_view mpich_version(std::string_view library_version);

/// MPICH 4.0.x's own persistent collectives (MPI_Bcast_init, MPI_Gather_init, ...), measured
/// wrong here by tests/mpi/persistent_mpi4_test.c without choreo: MPI_Gather_init leaves the
/// root's blocks unset, collectives go wrong while several are active, and the completion calls
/// misreport them (docs/intercept.md, "Persistent collectives"). Its nonblocking collectives are
/// right. Needs MPI initialised; asks once.
bool library_persistent_collectives_broken();

}  // namespace choreo::mpi::detail
