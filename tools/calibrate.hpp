#pragma once
// choreo-mpi calibrate: measure this machine (paper 001 §IV-A) into a machine profile.
#include <cstdint>
#include <string>

namespace choreo::tools {

struct CalibrateArgs {
  std::string output;                 ///< -o: the profile (choreo.profile/1)
  std::int64_t max_bytes = 64 << 20;  ///< largest ping-pong and memcpy size
  std::string pairs = "first";        ///< first: ranks 0 and 1; all: 0 with every k
  double rel_ci = 0.02;               ///< stop when the median's 95% CI is within this
  int min_reps = 10, max_reps = 200;  ///< samples per size
  std::int64_t cache_bytes = 0;       ///< last-level cache; 0: detect
  double time_limit = 90;             ///< seconds shared by all sizes (min_reps aside)
  bool quick = false;                 ///< up to 1 MiB, few samples: for tests
  int attempts = 2;                   ///< measurements before an impossible fit is refused
  bool json = false;                  ///< print the summary as JSON
};

/// Runs the calibration on MPI_COMM_WORLD (at least 2 ranks); rank 0 writes the profile,
/// prints the summary and reports progress on stderr. Throws choreo::Error on every rank
/// alike.
void calibrate(const CalibrateArgs& args, int rank);

}  // namespace choreo::tools
