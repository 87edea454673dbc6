#pragma once
// The MPI library's own implementations of the functions the library intercepts.
//
// Open MPI's Fortran bindings call PMPI_* directly, so a library that defined only MPI_* would
// never see a Fortran program's calls (cp2k, Quantum ESPRESSO). Built for Open MPI, the library
// therefore also exports each intercepted function under its PMPI_ name (src/CMakeLists.txt)
// and reaches MPI's own through dlsym(RTLD_NEXT): a plain PMPI_ call would come back to itself.
// MPICH's Fortran bindings call MPI_*, which the library sees already.
#include <mpi.h>

namespace choreo::intercept::next {

int Init(int* argc, char*** argv);
int Init_thread(int* argc, char*** argv, int required, int* provided);
int Finalize();
int Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
              MPI_Datatype recvtype, MPI_Comm comm);
int Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
              MPI_Comm comm);
int Bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm);
int Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm);

}  // namespace choreo::intercept::next
