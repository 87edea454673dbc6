#pragma once
// Machine calibration (docs/calibration.md): paper 001's micro-benchmarks (§IV-A) and Hoefler
// et al.'s LogGP round trips, measured on an MPI communicator into a machine profile. Private
// to choreo: the entry point of `choreo-mpi calibrate`, which parses the options, prints and
// writes files; this measures, and neither prints nor exits (progress goes to a callback,
// errors are choreo::Error on every rank alike).
//
// The phases, in order:
//   1. ping-pong between each pair (0, k): one-way time = round trip / 2, for sizes 1 B to
//      max_bytes by factors of 2, plus points 1/8 below and above the sizes where MPI
//      libraries switch protocol;
//   2. bursts PRTT(n, 0, s) (LogGP's g and G), and 3. the time inside MPI_Send of isolated
//      1-byte messages (o_s) and inside MPI_Recv of 1-byte messages already arrived (o_r),
//      on the same pairs;
//   4. beyond the paper, both again as a collective call meets them, on every rank at once:
//      an exchange (each rank sends to rank + 1 and receives from rank - 1) and a memcpy of
//      data just written, one operation per sample, timed as choreo-mpi times a collective
//      call (buffers written, barrier, slowest rank), every byte checked;
//   5. memcpy on rank 0, its source and destination rotating through a buffer several
//      times the last-level cache so that no copy finds its data cached.
// Each size: a warm-up, then barrier-separated samples, each the mean of a batch of
// operations lasting ~100 us (found by doubling), until the 95% confidence interval of the
// median is within rel_ci of it (or max_reps, or its share of time_limit is spent).
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "choreo/model/profile.hpp"

namespace choreo::calibration {

/// What `choreo-mpi calibrate` takes besides its output (the messages name its options).
struct CalibrationOptions {
  std::int64_t max_bytes = 64 << 20;  ///< largest ping-pong and memcpy size
  bool all_pairs = false;             ///< rank 0 with every other rank; else ranks 0 and 1
  double rel_ci = 0.02;               ///< stop when the median's 95% CI is within this
  int min_reps = 10, max_reps = 200;  ///< samples per size
  std::int64_t cache_bytes = 0;       ///< last-level cache; 0: detect
  double time_limit = 90;             ///< seconds shared by all sizes (min_reps aside)
  bool quick = false;                 ///< up to 1 MiB, few samples: for tests
  int attempts = 2;                   ///< measurements before an impossible fit is refused
};

/// What the measurement reports as it goes, on rank 0 of the communicator only.
struct CalibrationEvent {
  enum class Kind {
    Busy,       ///< before measuring: load average `load` on `cpus` CPUs, at least one a CPU
    Size,       ///< `phase` starts size `index` of `count`, `bytes` bytes
    PhaseDone,  ///< `phase` measured `count` sizes, `samples` samples; `elapsed` seconds so far
    Retry,      ///< attempt `attempt` of `attempts` fitted what no machine can (`problems`)
  };
  Kind kind = Kind::Size;
  std::string_view phase;  ///< ping-pong, burst, send-o, recv-o, collective or memcpy
  std::size_t index = 0, count = 0, samples = 0;
  std::int64_t bytes = 0;
  double elapsed = 0;  ///< seconds since the measurement started (after the memcpy buffer)
  double load = 0;
  int cpus = 0;
  int attempt = 0, attempts = 0;
  std::vector<std::string> problems;
};
using ProgressCallback = std::function<void(const CalibrationEvent&)>;

/// The measured profile and, on rank 0, why its fit is not physical after the last attempt
/// (empty when it is).
struct Calibration {
  MachineProfile profile;  ///< rank 0's is complete: samples, fits, ci95, measured_on
  std::vector<std::string> problems;
};

/// Throws choreo::Error (the same on every rank) unless `options`, with --quick applied, can
/// run on `ranks` ranks.
void check_options(const CalibrationOptions& options, int ranks);

/// Runs the calibration on `comm` (at least 2 ranks; every rank calls it). Rank 0 of `comm`
/// gets the profile; `progress` (may be empty) is called on rank 0 only.
Calibration measure_machine(MPI_Comm comm, const CalibrationOptions& options,
                            const ProgressCallback& progress);

}  // namespace choreo::calibration
