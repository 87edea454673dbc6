#pragma once
// What one run of a schedule measured, on any engine. Its JSON spelling is
// "choreo.run/1"; `choreo-mpi run --json` writes it and `choreo report` reads it.
#include <cstdint>
#include <string>
#include <vector>

namespace choreo {

struct RunResult {
  std::string label;      ///< free text naming the run ("MPICH, 2 ranks")
  std::string schedule;   ///< path of the schedule that ran
  std::string algorithm;  ///< the schedule's algorithm
  std::string engine;     ///< first line of MPI_Get_library_version, or the simulator
  int ranks = 0;
  int warmup = 0;
  int repetitions = 0;
  std::vector<double> seconds;  ///< per timed iteration: the slowest rank's time
  double median = 0, min = 0, max = 0;
  std::int64_t messages = 0;             ///< sends per iteration, all ranks
  std::int64_t bytes_per_iteration = 0;  ///< bytes sent per iteration, all ranks
  std::int64_t bytes_verified = 0;       ///< received bytes checked, all ranks and iterations

  friend bool operator==(const RunResult&, const RunResult&) = default;
};

std::string run_result_to_json(const RunResult& result);
RunResult run_result_from_json(const std::string& text);

}  // namespace choreo
