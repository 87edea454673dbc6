#pragma once
// Runs a Schedule on real MPI (or SimGrid SMPI): persistent requests built once, then
// warm-up and timed iterations, each verifying every received byte.
#include <mpi.h>

#include "choreo/run_result.hpp"
#include "choreo/schedule.hpp"

namespace choreo::mpi {

struct RunOptions {
  int warmup = 2;        ///< iterations run and verified but not timed
  int repetitions = 10;  ///< timed iterations
};

/// Collective over `comm`, whose size must equal schedule.ranks; returns the same result on
/// every rank (label and schedule path left empty for the caller). Throws choreo::Error on
/// every rank alike when the schedule is invalid or a byte did not arrive as sent.
RunResult run(const Schedule& schedule, MPI_Comm comm, const RunOptions& options);

}  // namespace choreo::mpi
