#pragma once
// choreo-mpi calibrate-delay: paper 000's Fig. 5 sweep of the delay on a gather.
#include <cstdint>
#include <string>

namespace choreo::tools {

struct CalibrateDelayArgs {
  std::int64_t bytes = 64512;  // 63 KiB, paper 000's message size
  std::int64_t from_ns = 0, to_ns = 1000000;
  int steps = 11;
  int warmup = 2, reps = 20;
  bool json = false;
};

/// Runs the sweep on MPI_COMM_WORLD; rank 0 prints. Throws choreo::Error on every rank alike.
void calibrate_delay(const CalibrateDelayArgs& args, int rank);

}  // namespace choreo::tools
