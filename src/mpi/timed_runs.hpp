#pragma once
// What every choreo MPI runner shares: failures agreed on by all ranks (so none waits in a
// collective while another throws), the MPI library's name, and the timed loop
// prepare -> barrier -> execute (timed) -> verify, whose slowest rank sets each iteration.
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>

#include "choreo/core/run_result.hpp"
#include "choreo/mpi/executor.hpp"
#include "fault_watch.hpp"

namespace choreo::mpi::detail {

/// Every rank passes its own failure message ("" when fine); if any is non-empty, all ranks
/// throw choreo::Error with the message of the lowest failing rank.
void agree_on_failure(const std::string& local, MPI_Comm comm);

/// Runs `check` on every rank; if any throws choreo::Error (or std::bad_alloc, which becomes
/// one), all ranks throw the first one.
void collectively(MPI_Comm comm, const std::function<void()>& check);

/// First line of MPI_Get_library_version, trimmed of packaging details.
std::string library_version();

/// nanosleep for the whole time, resumed after signals (SMPI turns it into simulated time).
void sleep_for(std::int64_t nanoseconds);

/// Throws choreo::Error unless warm-up >= 0 and repetitions >= 1.
void check_options(const RunOptions& options);

/// The loop behind every timed run. `verify(iteration, bytes_checked)` returns "" or the
/// first problem, and adds the bytes it checked. Fills seconds, median/min/max, warmup,
/// repetitions, bytes_verified and engine; the caller fills what describes the workload.
struct TimedBody {
  std::function<void()> prepare;  ///< untimed: fill send data, poison receive buffers
  /// Timed. Waits through the watch where it can, so a stuck run ends with a Fault.
  std::function<void(FaultWatch&)> execute;
  std::function<std::string(int, std::int64_t&)> verify;
};
/// Barriers and agreements go through a FaultWatch with options.timeout_seconds +
/// `expected_idle_seconds` (the longest a rank may wait for another's computation).
RunResult time_iterations(MPI_Comm comm, const RunOptions& options, const TimedBody& body,
                          double expected_idle_seconds = 0);

}  // namespace choreo::mpi::detail
