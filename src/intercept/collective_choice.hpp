#pragma once
// Which algorithm an intercepted MPI_Bcast, MPI_Allreduce or MPI_Allgather runs: every
// algorithm choreo can run as a command list (src/persist), and the one the MPI library would
// run by its default rules, predicted with choreo's simulator on the machine model; choreo's
// fastest is taken when it is predicted clearly faster than MPI's. No MPI here: the decision
// depends only on what MPI requires to be equal on every rank (sizes, rank count) and on the
// settings, so every rank makes the same one alone.
#include <cstdint>
#include <string>
#include <string_view>

#include "choreo/coll/mpi_defaults.hpp"
#include "choreo/sched/exchange_plan.hpp"

namespace choreo::intercept {

// What the MPI library runs by default (src/coll/mpi_defaults.cpp, shared with `choreo import`).
using coll::library_of;
using coll::mpi_default_algorithm;
using coll::MpiLibrary;

struct CollectiveChoice {
  bool choreo = false;        ///< take choreo's algorithm
  std::string algorithm;      ///< choreo's fastest ("multitree", "ring", ...); "" if none runs
  std::string mpi_algorithm;  ///< the generator standing in for MPI's own
  double choreo_seconds = 0, mpi_seconds = 0;
};

/// Predicted gain choreo must show over MPI's own before it takes a call: the model's error
/// on this kind of prediction is of this order (docs/BENCHMARKS.md, model validation).
inline constexpr double kRequiredGain = 1.1;

/// `collective` is "bcast", "allreduce" or "allgather". `forced` (CHOREO_MODE=choreo) takes
/// choreo's fastest whatever MPI's prediction.
CollectiveChoice choose_collective(std::string_view collective, std::int64_t bytes, int ranks,
                                   const ExchangeModel& model, MpiLibrary library, bool forced);

}  // namespace choreo::intercept
