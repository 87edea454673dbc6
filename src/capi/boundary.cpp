// Errors, the version, and the checks every C entry point shares.
#include "boundary.hpp"

#include <fmt/format.h>

#include "../mpi/timed_runs.hpp"

namespace {
// One message per thread: a failure on one thread never overwrites what another reads.
thread_local std::string last_error;
}  // namespace

namespace choreo::capi {

int fail(const char* function, int code, const char* message) noexcept {
  try {
    last_error = fmt::format("{}: {}", function, message);
  } catch (...) {
    last_error.clear();  // out of memory for the message: the code still tells
  }
  return code;
}

void require(const void* pointer, const char* what) {
  if (pointer == nullptr)
    throw Failure(CHOREO_ERR_ARG, fmt::format("{} is NULL; pass a valid pointer", what));
}

void require_communicator(MPI_Comm comm) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized)
    throw Failure(CHOREO_ERR_MPI, initialized ? "MPI is already finalised; call choreo before "
                                                "MPI_Finalize"
                                              : "MPI is not initialised; call MPI_Init first");
  if (comm == MPI_COMM_NULL)
    throw Failure(CHOREO_ERR_ARG, "the communicator is MPI_COMM_NULL; pass e.g. MPI_COMM_WORLD");
}

void on_every_rank(MPI_Comm comm, const std::function<void()>& check) {
  mpi::detail::collectively(comm, check);
}

}  // namespace choreo::capi

extern "C" {

const char* choreo_last_error(void) noexcept { return last_error.c_str(); }

const char* choreo_error_name(int code) noexcept {
  switch (code) {
    case CHOREO_SUCCESS:
      return "CHOREO_SUCCESS";
    case CHOREO_ERR_ARG:
      return "CHOREO_ERR_ARG";
    case CHOREO_ERR_STATE:
      return "CHOREO_ERR_STATE";
    case CHOREO_ERR_MPI:
      return "CHOREO_ERR_MPI";
    case CHOREO_ERR_NO_MEMORY:
      return "CHOREO_ERR_NO_MEMORY";
    case CHOREO_ERR_INTERNAL:
      return "CHOREO_ERR_INTERNAL";
    default:
      return "unknown error code";
  }
}

const char* choreo_version(void) noexcept { return CHOREO_VERSION; }

}  // extern "C"
