// The C API of choreo::resilient_allreduce (include/choreo/mpi/resilient_allreduce.hpp).
#include "boundary.hpp"
#include "choreo/mpi/resilient_allreduce.hpp"

extern "C" {

int choreo_resilient_allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                               MPI_Op op, MPI_Comm comm, int redundancy) noexcept {
  // Every argument problem is found by resilient_allreduce on every rank alike.
  return choreo::capi::guarded("choreo_resilient_allreduce", CHOREO_ERR_ARG, [&] {
    choreo::capi::require_communicator(comm);
    choreo::resilient_allreduce(sendbuf, recvbuf, count, type, op, comm, redundancy);
  });
}

int choreo_resilient_allreduce_complete(MPI_Comm comm) noexcept {
  return choreo::capi::guarded("choreo_resilient_allreduce_complete", CHOREO_ERR_ARG, [&] {
    choreo::capi::require_communicator(comm);
    choreo::resilient_allreduce_complete(comm);
  });
}

}  // extern "C"
