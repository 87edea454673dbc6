#include "library_collective.hpp"

#if defined(OPEN_MPI) && MPI_VERSION < 4
#include <mpi-ext.h>
#endif

#include "choreo/error.hpp"

namespace choreo::persist::detail {

namespace {
#if MPI_VERSION >= 4
constexpr bool kPersistent = true;
constexpr std::string_view kBcastName = "MPI_Bcast_init";
int bcast_init(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
               MPI_Request* request) {
  return MPI_Bcast_init(buf, count, type, root, comm, MPI_INFO_NULL, request);
}
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
constexpr bool kPersistent = true;
constexpr std::string_view kBcastName = "MPIX_Bcast_init";
int bcast_init(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
               MPI_Request* request) {
  return MPIX_Bcast_init(buf, count, type, root, comm, MPI_INFO_NULL, request);
}
#else
constexpr bool kPersistent = false;
constexpr std::string_view kBcastName = "MPI_Ibcast";
int bcast_init(void*, int, MPI_Datatype, int, MPI_Comm, MPI_Request*) { return MPI_SUCCESS; }
#endif

void check(int result, std::string_view call) {
  if (result != MPI_SUCCESS)
    throw Error(std::string(call) + " failed in the MPI library (error code " +
                std::to_string(result) + ")");
}
}  // namespace

LibraryCollective::LibraryCollective(void* buf, int count, MPI_Datatype type, int root,
                                     MPI_Comm comm)
    : buf_(buf), count_(count), root_(root), type_(type), comm_(comm) {
  if (kPersistent) check(bcast_init(buf, count, type, root, comm, &request_), kBcastName);
}

LibraryCollective::~LibraryCollective() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (kPersistent && !finalized && request_ != MPI_REQUEST_NULL) MPI_Request_free(&request_);
}

void LibraryCollective::start() {
  if (kPersistent)
    check(MPI_Start(&request_), "MPI_Start");
  else
    check(MPI_Ibcast(buf_, count_, type_, root_, comm_, &request_), kBcastName);
}

void LibraryCollective::wait() { check(MPI_Wait(&request_, MPI_STATUS_IGNORE), "MPI_Wait"); }

bool LibraryCollective::test() {
  int done = 0;
  check(MPI_Test(&request_, &done, MPI_STATUS_IGNORE), "MPI_Test");
  return done != 0;
}

std::string_view LibraryCollective::bcast_name() { return kBcastName; }

}  // namespace choreo::persist::detail
