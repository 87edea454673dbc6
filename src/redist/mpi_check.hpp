#pragma once
// One way for the redistribution's MPI calls to fail: a choreo::Error naming the call.
#include <fmt/format.h>
#include <mpi.h>

#include "choreo/core/error.hpp"

namespace choreo::redist {

inline void check_mpi(int status, const char* call) {
  if (status != MPI_SUCCESS)
    throw Error(fmt::format("{} failed (MPI error {}) in a redistribution", call, status));
}

}  // namespace choreo::redist
