#pragma once
// A run that cannot finish: a rank waited longer than its timeout with nothing completing, or
// MPI reported an error on one of its operations. Every rank throws a Fault whose message is
// its own line (what it was doing, what is still pending, who failed first); the MPI state
// still holds operations that will never complete, so the process cannot call MPI_Finalize.
// The caller prints the line, calls wait_for_others() so every rank gets to print its own,
// and ends the process (std::_Exit or MPI_Abort).
#include <mpi.h>

#include "choreo/core/error.hpp"

namespace choreo::mpi {

class Fault : public Error {
 public:
  Fault(const std::string& line, MPI_Comm faults) : Error(line), faults_(faults) {}

  /// Waits up to `grace_seconds` for every rank of the run to reach the same point (a rank
  /// stuck inside a blocking MPI call never does); returns whether all did.
  bool wait_for_others(double grace_seconds) const;

 private:
  MPI_Comm faults_;  ///< the run's communicator for faults, never freed
};

}  // namespace choreo::mpi
