#include "next.hpp"

#include "next_resolve.hpp"

namespace choreo::intercept::next {

int Init(int* argc, char*** argv) { CHOREO_NEXT(Init, argc, argv); }
int Init_thread(int* argc, char*** argv, int required, int* provided) {
  CHOREO_NEXT(Init_thread, argc, argv, required, provided);
}
int Finalize() { CHOREO_NEXT(Finalize); }
int Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
              MPI_Datatype recvtype, MPI_Comm comm) {
  CHOREO_NEXT(Alltoallv, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
              recvtype, comm);
}
int Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  CHOREO_NEXT(Neighbor_alltoallv, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
              rdispls, recvtype, comm);
}
int Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
              MPI_Comm comm) {
  CHOREO_NEXT(Allreduce, sendbuf, recvbuf, count, type, op, comm);
}
int Bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  CHOREO_NEXT(Bcast, buffer, count, type, root, comm);
}
int Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  CHOREO_NEXT(Allgather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

}  // namespace choreo::intercept::next
