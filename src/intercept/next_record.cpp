// The MPI library's own point-to-point, completion, collective and communicator functions
// that the recorder (record_*.cpp) wraps: next.hpp says why they are reached this way.
#include "next.hpp"
#include "next_resolve.hpp"

namespace choreo::intercept::next {

int Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  CHOREO_NEXT(Send, buf, count, datatype, dest, tag, comm);
}
int Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  CHOREO_NEXT(Ssend, buf, count, datatype, dest, tag, comm);
}
int Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
         MPI_Status* status) {
  CHOREO_NEXT(Recv, buf, count, datatype, source, tag, comm, status);
}
int Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
          MPI_Request* request) {
  CHOREO_NEXT(Isend, buf, count, datatype, dest, tag, comm, request);
}
int Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
           MPI_Request* request) {
  CHOREO_NEXT(Issend, buf, count, datatype, dest, tag, comm, request);
}
int Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
          MPI_Request* request) {
  CHOREO_NEXT(Irecv, buf, count, datatype, source, tag, comm, request);
}
int Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
             void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
             MPI_Comm comm, MPI_Status* status) {
  CHOREO_NEXT(Sendrecv, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
              source, recvtag, comm, status);
}
int Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                     int recvtag, MPI_Comm comm, MPI_Status* status) {
  CHOREO_NEXT(Sendrecv_replace, buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
}
int Send_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request* request) {
  CHOREO_NEXT(Send_init, buf, count, datatype, dest, tag, comm, request);
}
int Ssend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  CHOREO_NEXT(Ssend_init, buf, count, datatype, dest, tag, comm, request);
}
int Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request* request) {
  CHOREO_NEXT(Recv_init, buf, count, datatype, source, tag, comm, request);
}
int Start(MPI_Request* request) { CHOREO_NEXT(Start, request); }
int Startall(int count, MPI_Request array_of_requests[]) {
  CHOREO_NEXT(Startall, count, array_of_requests);
}
int Request_free(MPI_Request* request) { CHOREO_NEXT(Request_free, request); }
int Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  CHOREO_NEXT(Request_get_status, request, flag, status);
}
int Wait(MPI_Request* request, MPI_Status* status) { CHOREO_NEXT(Wait, request, status); }
int Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]) {
  CHOREO_NEXT(Waitall, count, array_of_requests, array_of_statuses);
}
int Waitany(int count, MPI_Request array_of_requests[], int* indx, MPI_Status* status) {
  CHOREO_NEXT(Waitany, count, array_of_requests, indx, status);
}
int Waitsome(int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],
             MPI_Status array_of_statuses[]) {
  CHOREO_NEXT(Waitsome, incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
}
int Test(MPI_Request* request, int* flag, MPI_Status* status) {
  CHOREO_NEXT(Test, request, flag, status);
}
int Testall(int count, MPI_Request array_of_requests[], int* flag, MPI_Status array_of_statuses[]) {
  CHOREO_NEXT(Testall, count, array_of_requests, flag, array_of_statuses);
}
int Testany(int count, MPI_Request array_of_requests[], int* indx, int* flag, MPI_Status* status) {
  CHOREO_NEXT(Testany, count, array_of_requests, indx, flag, status);
}
int Testsome(int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],
             MPI_Status array_of_statuses[]) {
  CHOREO_NEXT(Testsome, incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
}
int Barrier(MPI_Comm comm) { CHOREO_NEXT(Barrier, comm); }
int Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
           int root, MPI_Comm comm) {
  CHOREO_NEXT(Reduce, sendbuf, recvbuf, count, datatype, op, root, comm);
}
int Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  CHOREO_NEXT(Alltoall, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
int Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
           MPI_Datatype recvtype, int root, MPI_Comm comm) {
  CHOREO_NEXT(Gather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}
int Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, MPI_Comm comm) {
  CHOREO_NEXT(Scatter, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}
int Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) { CHOREO_NEXT(Comm_dup, comm, newcomm); }
int Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  CHOREO_NEXT(Comm_split, comm, color, key, newcomm);
}
int Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  CHOREO_NEXT(Comm_split_type, comm, split_type, key, info, newcomm);
}
int Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  CHOREO_NEXT(Comm_create, comm, group, newcomm);
}
int Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                MPI_Comm* comm_cart) {
  CHOREO_NEXT(Cart_create, comm_old, ndims, dims, periods, reorder, comm_cart);
}

}  // namespace choreo::intercept::next
