#pragma once
// The MPI library's own persistent collective behind a choreo request (private): what the
// model takes where choreo's trees cannot win, so the default is never slower than MPI.
// MPI-4 libraries give MPI_X_init; Open MPI 4.1 gives MPIX_X_init (mpi-ext.h); elsewhere, and
// where the library's own are known wrong (MPICH 4.0.x, mpi/mpich_quirks.hpp), every start()
// posts the nonblocking collective MPI_IX, the same collective without the init.
#include <mpi.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace choreo::persist::detail {

class LibraryCollective {
 public:
  /// Makes the persistent request (MPI_X_init or MPIX_X_init), or posts the nonblocking
  /// collective; returns the MPI error code.
  using Call = std::function<int(MPI_Request*)>;
  /// `init` is empty where the library has no persistent form. `name` is "Bcast", "Reduce", ...
  /// Collective when init is called (the constructor calls it once).
  LibraryCollective(const std::string& name, const Call& init, Call post);
  LibraryCollective(const LibraryCollective&) = delete;
  LibraryCollective& operator=(const LibraryCollective&) = delete;
  ~LibraryCollective();  ///< frees a persistent request (before its communicator goes)

  void start();
  void wait();
  bool test();
  /// What runs: "MPI_Bcast_init", "MPIX_Bcast_init" or "MPI_Ibcast".
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  bool persistent_;
  Call post_;
  MPI_Request request_ = MPI_REQUEST_NULL;
};

// The library's side of each collective choreo::persist runs, on comm (the request's own).
// Collective: a persistent init is made here.
std::unique_ptr<LibraryCollective> library_bcast(void* buf, int count, MPI_Datatype type, int root,
                                                 MPI_Comm comm);
std::unique_ptr<LibraryCollective> library_reduce(const void* sendbuf, void* recvbuf, int count,
                                                  MPI_Datatype type, MPI_Op op, int root,
                                                  MPI_Comm comm);
std::unique_ptr<LibraryCollective> library_allreduce(const void* sendbuf, void* recvbuf, int count,
                                                     MPI_Datatype type, MPI_Op op, MPI_Comm comm);
std::unique_ptr<LibraryCollective> library_gather(const void* sendbuf, int sendcount,
                                                  MPI_Datatype sendtype, void* recvbuf,
                                                  int recvcount, MPI_Datatype recvtype, int root,
                                                  MPI_Comm comm);
std::unique_ptr<LibraryCollective> library_scatter(const void* sendbuf, int sendcount,
                                                   MPI_Datatype sendtype, void* recvbuf,
                                                   int recvcount, MPI_Datatype recvtype, int root,
                                                   MPI_Comm comm);
std::unique_ptr<LibraryCollective> library_allgather(const void* sendbuf, int count,
                                                     MPI_Datatype type, void* recvbuf,
                                                     MPI_Comm comm);
std::unique_ptr<LibraryCollective> library_alltoall(const void* sendbuf, int sendcount,
                                                    MPI_Datatype sendtype, void* recvbuf,
                                                    int recvcount, MPI_Datatype recvtype,
                                                    MPI_Comm comm);
std::unique_ptr<LibraryCollective> library_barrier(MPI_Comm comm);
/// The irregular ones: counts and displacements are copied (the request keeps them, as MPI's
/// persistent inits require); those that do not matter on this rank may be empty.
std::unique_ptr<LibraryCollective> library_gatherv(const void* sendbuf, int sendcount,
                                                   MPI_Datatype sendtype, void* recvbuf,
                                                   std::vector<int> recvcounts,
                                                   std::vector<int> displs, MPI_Datatype recvtype,
                                                   int root, MPI_Comm comm);
std::unique_ptr<LibraryCollective> library_scatterv(const void* sendbuf,
                                                    std::vector<int> sendcounts,
                                                    std::vector<int> displs, MPI_Datatype sendtype,
                                                    void* recvbuf, int recvcount,
                                                    MPI_Datatype recvtype, int root, MPI_Comm comm);
std::unique_ptr<LibraryCollective> library_allgatherv(const void* sendbuf, int sendcount,
                                                      MPI_Datatype sendtype, void* recvbuf,
                                                      std::vector<int> recvcounts,
                                                      std::vector<int> displs,
                                                      MPI_Datatype recvtype, MPI_Comm comm);
std::unique_ptr<LibraryCollective> library_reduce_scatter_block(const void* sendbuf, void* recvbuf,
                                                                int recvcount, MPI_Datatype type,
                                                                MPI_Op op, MPI_Comm comm);
std::unique_ptr<LibraryCollective> library_reduce_scatter(const void* sendbuf, void* recvbuf,
                                                          std::vector<int> recvcounts,
                                                          MPI_Datatype type, MPI_Op op,
                                                          MPI_Comm comm);

/// The neighbourhood exchange on comm's topology; counts and displacements per neighbour.
std::unique_ptr<LibraryCollective> library_neighbor_alltoallv(
    const void* sendbuf, std::vector<int> sendcounts, std::vector<int> sdispls,
    MPI_Datatype sendtype, void* recvbuf, std::vector<int> recvcounts, std::vector<int> rdispls,
    MPI_Datatype recvtype, MPI_Comm comm);

/// What library_bcast runs: "MPI_Bcast_init", "MPIX_Bcast_init" or "MPI_Ibcast".
std::string library_bcast_name();

}  // namespace choreo::persist::detail
