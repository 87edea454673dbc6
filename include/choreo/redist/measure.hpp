#pragma once
// Timed, verified redistributions of doubles, for choreo-mpi, the MPI tests and the
// benchmark against ScaLAPACK: local arrays filled with value_at(global index), a timed loop
// whose slowest rank sets each iteration, every target element checked after every
// iteration, and the peak memory a method adds on top of the arrays.
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "choreo/core/run_result.hpp"
#include "choreo/mpi/executor.hpp"
#include "choreo/redist/distribution.hpp"
#include "choreo/redist/peak_memory.hpp"

namespace choreo::redist {

/// This rank's local arrays of a redistribution (at least one element each, so that data()
/// is never null), the source filled with value_at.
struct LocalArrays {
  std::vector<double> source, target;
};
LocalArrays make_arrays(const ArrayDistribution& from, const ArrayDistribution& to, int rank);

/// Collective over comm: warm-up + repetitions iterations of: poison the target, barrier,
/// execute() (timed), check every target element against value_at. Returns the slowest
/// rank's time per timed iteration and the elements checked (in bytes_verified: 8 per
/// element, all ranks and iterations). Throws the same choreo::Error on every rank, naming
/// the first wrong element, when any element on any rank is wrong.
RunResult time_verified(MPI_Comm comm, const ArrayDistribution& to, LocalArrays& arrays,
                        const mpi::RunOptions& options, const std::function<void()>& execute);

/// Collective: every rank exchanges `bytes` with its neighbours (contiguous and strided), so
/// that the MPI library's lazily allocated transport buffers exist before PeakMemory looks:
/// they are the library's fixed cost, not a method's.
void warm_up_transport(MPI_Comm comm, std::int64_t bytes);

/// The largest value over comm's ranks.
std::int64_t max_over(MPI_Comm comm, std::int64_t value);
double max_over(MPI_Comm comm, double value);

}  // namespace choreo::redist
