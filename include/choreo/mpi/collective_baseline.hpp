#pragma once
// The MPI library's own collectives as baselines for a pattern (paper 000, Table 3 and
// Fig. 6): MPI_Bcast, MPI_Scatter, MPI_Gather, MPI_Allgather, MPI_Alltoall where the
// pattern has their shape, and MPI_Alltoallv / MPI_Neighbor_alltoallv for any pattern.
// Timed and verified like choreo's own schedules: every received byte is checked.
#include <mpi.h>

#include <string>
#include <string_view>
#include <vector>

#include "choreo/core/pattern.hpp"
#include "choreo/core/run_result.hpp"
#include "choreo/mpi/executor.hpp"

namespace choreo::mpi {

enum class Collective { Bcast, Scatter, Gather, Allgather, Alltoall, Alltoallv, NeighborAlltoallv };

/// "bcast", "scatter", "gather", "allgather", "alltoall", "alltoallv", "neighbor_alltoallv";
/// throws choreo::Error listing the names otherwise.
Collective parse_collective(std::string_view name);
/// The MPI function's name, e.g. "MPI_Neighbor_alltoallv".
std::string_view mpi_function(Collective collective);
/// The short name parse_collective reads.
std::string_view collective_name(Collective collective);

/// The collectives that move this pattern's messages as they are, in paper 000's pairing:
/// a scatter from one root (equal sizes) fits MPI_Bcast and MPI_Scatter; a gather fits
/// MPI_Gather; a full alltoall (equal sizes) fits MPI_Allgather and MPI_Alltoall; every
/// pattern fits MPI_Alltoallv and MPI_Neighbor_alltoallv (the latter not under SMPI,
/// which lacks it).
std::vector<Collective> collectives_that_fit(const Pattern& pattern);

/// Runs `collective` on `pattern` over `comm` (size must equal pattern.ranks): send data
/// filled, receive buffers poisoned, barrier, the call timed, every received byte checked.
/// Collective over comm; every rank gets the same result or throws the same choreo::Error
/// (also when the collective does not fit the pattern, naming the ones that do).
RunResult run_collective(const Pattern& pattern, Collective collective, MPI_Comm comm,
                         const RunOptions& options);

}  // namespace choreo::mpi
