#pragma once
// choreo-mpi run --generate COLL:ALGO --sizes MIN:MAX and choreo-mpi collective --call C
// --sizes MIN:MAX: one timed, verified run per size, printed as OSU's benchmarks print
// (size, then microseconds), so their columns can be read side by side.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "choreo/core/run_result.hpp"
#include "choreo/mpi/executor.hpp"

namespace choreo::tools {

struct SweepArgs {
  std::string generate;  ///< run: choreo's generator, "allgather:ring" (ranks from the run)
  std::string call;      ///< collective: the MPI collective
  std::vector<std::int64_t> sizes;
  mpi::RunOptions options;
  std::string label, output;
  bool json = false;
};

/// Runs every size on `comm`; rank 0 prints a line per size as it completes (or, with
/// `json`, one choreo.sweep/1 document at the end) and writes `output` if given. Throws
/// choreo::Error on every rank alike for a bad generator or call.
void run_sweep(const SweepArgs& args, MPI_Comm comm);

}  // namespace choreo::tools
