#include "persistent_choreo.hpp"

#include "choreo/persist/collectives.hpp"
#include "persistent_serve.hpp"

namespace choreo::intercept::persistent {

persist::Request choreo_gather(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                               MPI_Comm comm, MPI_Info info, std::vector<MPI_Datatype>& held) {
  // The receive side matters at the root only (elsewhere it may be any handle).
  const bool root_side = at_root(comm, root);
  return persist::gather_init_c(
      sendbuf, sendcount, sendbuf == MPI_IN_PLACE ? sendtype : held_type(sendtype, held), recvbuf,
      recvcount, root_side ? held_type(recvtype, held) : recvtype, root, comm,
      persist_options(info));
}

persist::Request choreo_scatter(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                                MPI_Comm comm, MPI_Info info, std::vector<MPI_Datatype>& held) {
  // The send side matters at the root only (elsewhere it may be any handle).
  const bool root_side = at_root(comm, root);
  return persist::scatter_init_c(
      sendbuf, sendcount, root_side ? held_type(sendtype, held) : sendtype, recvbuf, recvcount,
      recvbuf == MPI_IN_PLACE ? recvtype : held_type(recvtype, held), root, comm,
      persist_options(info));
}

persist::Request choreo_allgather(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info, std::vector<MPI_Datatype>& held) {
  // choreo's allgather moves recvcount elements of recvtype from sendbuf as bytes: the send
  // side must be the same contiguous bytes. Where it is not on some rank, a count no rank
  // accepts makes every rank refuse alike (persist's checks agree), so all fall back together;
  // a rank deciding alone would leave the others in choreo's init.
  const bool same_bytes = sendbuf == MPI_IN_PLACE || contiguous_bytes(sendcount, sendtype) ==
                                                         contiguous_bytes(recvcount, recvtype);
  return persist::allgather_init_c(sendbuf, recvbuf, same_bytes ? recvcount : -1,
                                   held_type(recvtype, held), comm, persist_options(info));
}

persist::Request choreo_alltoall(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                 void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                 MPI_Comm comm, MPI_Info info, std::vector<MPI_Datatype>& held) {
  return persist::alltoall_init_c(
      sendbuf, sendcount, sendbuf == MPI_IN_PLACE ? sendtype : held_type(sendtype, held), recvbuf,
      recvcount, held_type(recvtype, held), comm, persist_options(info));
}

persist::Request choreo_reduce(const void* sendbuf, void* recvbuf, MPI_Count count,
                               MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                               MPI_Info info, std::vector<MPI_Datatype>& held) {
  return persist::reduce_init_c(sendbuf, recvbuf, count, held_type(datatype, held), op, root, comm,
                                persist_options(info));
}

persist::Request choreo_allreduce(const void* sendbuf, void* recvbuf, MPI_Count count,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                  std::vector<MPI_Datatype>& held) {
  return persist::allreduce_init_c(sendbuf, recvbuf, count, held_type(datatype, held), op, comm,
                                   persist_options(info));
}

persist::Request choreo_reduce_scatter_block(const void* sendbuf, void* recvbuf,
                                             MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op,
                                             MPI_Comm comm, MPI_Info info,
                                             std::vector<MPI_Datatype>& held) {
  return persist::reduce_scatter_block_init_c(
      sendbuf, recvbuf, recvcount, held_type(datatype, held), op, comm, persist_options(info));
}

}  // namespace choreo::intercept::persistent
