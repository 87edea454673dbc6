#pragma once
// choreo-mpi sweep jitter: `choreo jitter sweep` as an MPI job. The options and the output
// are the serial command's (cli/jitter_sweep.hpp); the (point, trial) parts of the study are
// spread over the ranks and gathered to rank 0, which sums every point's trials in trial
// order, so the CSV, JSON and figures are those of the serial run, byte for byte.
// choreo-mpi sweep compare: `choreo compare` (cli/sim_compare.hpp) the same way, its
// (schedule, setting, trial) simulations spread over the ranks.
#include <mpi.h>

#include <CLI/CLI.hpp>

#include "cli/jitter_sweep.hpp"
#include "cli/sim_compare.hpp"

namespace choreo::tools {

struct MpiSweepArgs {
  cli::JitterSweepArgs jitter;
  cli::SimCompareArgs compare;
  bool json = false;
  const CLI::App* jitter_command = nullptr;   ///< set by add_mpi_sweep_command
  const CLI::App* compare_command = nullptr;  ///< set by add_mpi_sweep_command
};

/// Adds `sweep` and its `jitter` and `compare` subcommands to `app`; returns `sweep`.
CLI::App* add_mpi_sweep_command(CLI::App& app, MpiSweepArgs& args);

/// Runs the sweep on `comm`: every rank computes its share, rank 0 writes and prints. Throws
/// choreo::Error on every rank alike for bad options (before any work); its message is empty
/// on the ranks that have already printed theirs, or that rank 0 speaks for.
void run_mpi_sweep(const MpiSweepArgs& args, MPI_Comm comm);

}  // namespace choreo::tools
