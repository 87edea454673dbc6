#pragma once
// The MPI library's own persistent collective behind a choreo request (private): what the
// model takes where choreo's trees cannot win, so the default is never slower than MPI.
// MPI-4 libraries give MPI_Bcast_init; Open MPI 4.1 gives MPIX_Bcast_init (mpi-ext.h);
// elsewhere every start() issues MPI_Ibcast, the same collective without the init.
#include <mpi.h>

#include <string_view>

namespace choreo::persist::detail {

class LibraryCollective {
 public:
  /// A broadcast over comm (the request's own communicator). Collective.
  LibraryCollective(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm);
  LibraryCollective(const LibraryCollective&) = delete;
  LibraryCollective& operator=(const LibraryCollective&) = delete;
  ~LibraryCollective();  ///< frees a persistent request (before its communicator goes)

  void start();
  void wait();
  bool test();
  /// "MPI_Bcast_init", "MPIX_Bcast_init" or "MPI_Ibcast".
  static std::string_view bcast_name();

 private:
  void* buf_;
  int count_, root_;
  MPI_Datatype type_;
  MPI_Comm comm_;
  MPI_Request request_ = MPI_REQUEST_NULL;
};

}  // namespace choreo::persist::detail
