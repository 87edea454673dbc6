#pragma once
// Runs a Schedule on real MPI (or SimGrid SMPI): persistent requests built once, then
// warm-up and timed iterations, each verifying every received byte.
#include <mpi.h>

#include "choreo/core/run_result.hpp"
#include "choreo/core/schedule.hpp"

namespace choreo::mpi {

struct RunOptions {
  int warmup = 2;        ///< iterations run and verified but not timed
  int repetitions = 10;  ///< timed iterations
  /// Seconds a rank may wait with nothing completing before the run ends with a
  /// choreo::mpi::Fault on every rank (choreo/mpi/fault.hpp); 0: wait forever. The schedule
  /// executor adds the longest rank's calc and delay time, which others may wait out.
  double timeout_seconds = 60;
};

/// Collective over `comm`, whose size must equal schedule.ranks; returns the same result on
/// every rank (label and schedule path left empty for the caller). Throws choreo::Error on
/// every rank alike when the schedule is invalid or a byte did not arrive as sent; throws
/// choreo::mpi::Fault when the run cannot finish (a timeout, an MPI error): see its header.
RunResult run(const Schedule& schedule, MPI_Comm comm, const RunOptions& options);

}  // namespace choreo::mpi
