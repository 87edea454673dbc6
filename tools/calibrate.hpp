#pragma once
// choreo-mpi calibrate: measure this machine (paper 001 §IV-A) into a machine profile.
#include <string>

#include "../src/calibrate/calibrate.hpp"

namespace choreo::tools {

struct CalibrateArgs {
  std::string output;                       ///< -o: the profile (choreo.profile/1)
  std::string pairs = "first";              ///< first: ranks 0 and 1; all: 0 with every k
  bool json = false;                        ///< print the summary as JSON
  calibration::CalibrationOptions options;  ///< the rest (all_pairs is set from `pairs`)
};

/// Runs the calibration on MPI_COMM_WORLD (at least 2 ranks); rank 0 writes the profile,
/// prints the summary and reports progress on stderr. Throws choreo::Error on every rank
/// alike.
void calibrate(const CalibrateArgs& args, int rank);

}  // namespace choreo::tools
