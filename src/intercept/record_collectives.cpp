// The blocking collectives choreo does not serve, recorded (CHOREO_RECORD) with their
// arguments: the bytes of one rank's block (or the vector) and the root. MPI_Allreduce,
// MPI_Bcast, MPI_Allgather and MPI_Alltoallv are recorded where they are served
// (collectives.cpp, alltoallv.cpp).
#include "next.hpp"
#include "record.hpp"

using namespace choreo::intercept;
using choreo::trace::Collective;
using choreo::trace::Event;

namespace {

int comm_rank(MPI_Comm comm) {
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  return rank;
}

}  // namespace

extern "C" int MPI_Barrier(MPI_Comm comm) {
  return record::collective(
      Collective::Barrier, comm, [&] { return next::Barrier(comm); }, [](Event&) {});
}

extern "C" int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                          MPI_Op op, int root, MPI_Comm comm) {
  return record::collective(
      Collective::Reduce, comm,
      [&] { return next::Reduce(sendbuf, recvbuf, count, type, op, root, comm); },
      [&](Event& e) {
        e.root = root;
        e.collective_bytes = record::bytes(count, type);
      });
}

extern "C" int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return record::collective(
      Collective::Alltoall, comm,
      [&] {
        return next::Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
      },
      [&](Event& e) {
        e.collective_bytes = sendbuf == MPI_IN_PLACE ? record::bytes(recvcount, recvtype)
                                                     : record::bytes(sendcount, sendtype);
      });
}

// Gather and scatter: the root's receive (send) block equals every rank's send (receive)
// block, so each rank records the block from the side of the call it uses.
extern "C" int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                          int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return record::collective(
      Collective::Gather, comm,
      [&] {
        return next::Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
      },
      [&](Event& e) {
        e.root = root;
        e.collective_bytes = comm_rank(comm) == root ? record::bytes(recvcount, recvtype)
                                                     : record::bytes(sendcount, sendtype);
      });
}

extern "C" int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return record::collective(
      Collective::Scatter, comm,
      [&] {
        return next::Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                             comm);
      },
      [&](Event& e) {
        e.root = root;
        e.collective_bytes = comm_rank(comm) == root ? record::bytes(sendcount, sendtype)
                                                     : record::bytes(recvcount, recvtype);
      });
}
