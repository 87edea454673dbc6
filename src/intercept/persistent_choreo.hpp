#pragma once
// choreo::persist's request for an MPI-4 persistent init call's arguments (private): what
// serve's MakeChoreo returns, shared by the standard inits (persistent_init.cpp, whose int
// counts widen) and their large-count forms (persistent_init_large.cpp). The datatypes the
// request keeps are duplicated into `held`; root-only arguments are read at the root only.
#include <mpi.h>

#include <vector>

#include "choreo/persist/request.hpp"

namespace choreo::intercept::persistent {

persist::Request choreo_gather(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                               MPI_Comm comm, MPI_Info info, std::vector<MPI_Datatype>& held);
persist::Request choreo_scatter(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                                MPI_Comm comm, MPI_Info info, std::vector<MPI_Datatype>& held);
persist::Request choreo_allgather(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info, std::vector<MPI_Datatype>& held);
persist::Request choreo_alltoall(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                 void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                 MPI_Comm comm, MPI_Info info, std::vector<MPI_Datatype>& held);
persist::Request choreo_reduce(const void* sendbuf, void* recvbuf, MPI_Count count,
                               MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                               MPI_Info info, std::vector<MPI_Datatype>& held);
persist::Request choreo_allreduce(const void* sendbuf, void* recvbuf, MPI_Count count,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                  std::vector<MPI_Datatype>& held);
persist::Request choreo_reduce_scatter_block(const void* sendbuf, void* recvbuf,
                                             MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op,
                                             MPI_Comm comm, MPI_Info info,
                                             std::vector<MPI_Datatype>& held);

}  // namespace choreo::intercept::persistent
