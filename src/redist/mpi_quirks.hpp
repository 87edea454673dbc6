#pragma once
// What the redistribution avoids in MPI libraries known to go wrong.
#include <string>

namespace choreo::redist {

/// MPICH 4.0rc2 to 4.0.3 (Debian 12 ships 4.0.2) packs a derived datatype with a wrong element
/// size once the process has made more than 512 of them (pmodels/mpich#6341), so that other
/// code's messages afterwards carry wrong bytes: ScaLAPACK's own p?gemr2d, called after
/// choreo's datatype path had built its types, wrote bytes it never set into its target
/// (tests/mpi/scalapack_random_test). Where this holds, Method::Auto and Method::Shared build
/// no derived datatype for a contiguous base type (they pack instead) and Auto does not time
/// the all-datatype engine; Method::Datatype still does what it is asked. Needs MPI initialised.
bool derived_datatypes_unsafe();

/// Whether a library with this first line of MPI_Get_library_version (as
/// mpi::detail::library_version gives it) is one of those.
bool packs_wrong_past_512_types(const std::string& library_version);

}  // namespace choreo::redist
