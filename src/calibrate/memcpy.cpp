// Phase 5 of the calibration (detail.hpp): memcpy on rank 0, its addresses rotating through a
// buffer several times the last-level cache so that no copy finds its data cached.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>

#include "detail.hpp"

namespace choreo::calibration::detail {

bool clock_sees_computation(RotatingCopy& copier) {
  const auto wall0 = std::chrono::steady_clock::now();
  const double t0 = MPI_Wtime();
  copier.sweep();
  const double mpi_seconds = MPI_Wtime() - t0;
  const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - wall0;
  return mpi_seconds >= 0.01 * wall.count();
}

SizeSamples sample_memcpy(RotatingCopy& copier, std::int64_t bytes, const Rule& rule) {
  SizeSamples s{bytes, 1, {}};
  copier.copy(bytes, 1);  // warm-up
  for (std::int64_t count = 1;; count *= 2) {
    double t = std::numeric_limits<double>::infinity();
    for (int twice = 0; twice < 2; ++twice) {  // the faster: an interruption must not decide
      const double t0 = MPI_Wtime();
      copier.copy(bytes, count);
      t = std::min(t, MPI_Wtime() - t0);
    }
    if (t >= rule.sample_seconds / 2 || count >= kMaxBatch) {
      s.batch = batch_for(count, t, rule);
      break;
    }
  }
  const double start = MPI_Wtime();
  do {
    const double t0 = MPI_Wtime();
    copier.copy(bytes, s.batch);
    s.seconds.push_back((MPI_Wtime() - t0) / static_cast<double>(s.batch));
  } while (!enough(s.seconds, MPI_Wtime() - start, rule));
  return s;
}

}  // namespace choreo::calibration::detail
