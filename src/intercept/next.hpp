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

// Wrapped only to record them (CHOREO_RECORD; next_record.cpp).
int Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
         MPI_Status* status);
int Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
          MPI_Request* request);
int Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
           MPI_Request* request);
int Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
          MPI_Request* request);
int Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
             void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
             MPI_Comm comm, MPI_Status* status);
int Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                     int recvtag, MPI_Comm comm, MPI_Status* status);
int Send_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request* request);
int Ssend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request* request);
int Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request* request);
int Start(MPI_Request* request);
int Startall(int count, MPI_Request array_of_requests[]);
int Request_free(MPI_Request* request);
int Request_get_status(MPI_Request request, int* flag, MPI_Status* status);
int Wait(MPI_Request* request, MPI_Status* status);
int Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]);
int Waitany(int count, MPI_Request array_of_requests[], int* indx, MPI_Status* status);
int Waitsome(int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],
             MPI_Status array_of_statuses[]);
int Test(MPI_Request* request, int* flag, MPI_Status* status);
int Testall(int count, MPI_Request array_of_requests[], int* flag, MPI_Status array_of_statuses[]);
int Testany(int count, MPI_Request array_of_requests[], int* indx, int* flag, MPI_Status* status);
int Testsome(int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],
             MPI_Status array_of_statuses[]);
int Barrier(MPI_Comm comm);
int Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
           int root, MPI_Comm comm);
int Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
           MPI_Datatype recvtype, int root, MPI_Comm comm);
int Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, MPI_Comm comm);
int Comm_dup(MPI_Comm comm, MPI_Comm* newcomm);
int Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm);
int Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm);
int Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm);
int Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                MPI_Comm* comm_cart);

}  // namespace choreo::intercept::next
