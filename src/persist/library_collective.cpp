#include "library_collective.hpp"

#if defined(OPEN_MPI) && MPI_VERSION < 4
#include <mpi-ext.h>
#endif

#include <cctype>
#include <memory>
#include <utility>
#include <vector>

#include "../mpi/mpich_quirks.hpp"
#include "choreo/core/error.hpp"

namespace choreo::persist::detail {

namespace {

// PERSISTENT(Bcast) names the library's persistent init of a collective, or nullptr.
#if MPI_VERSION >= 4
#define PERSISTENT(name) MPI_##name##_init
constexpr const char* kPersistentPrefix = "MPI_";
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
#define PERSISTENT(name) MPIX_##name##_init
constexpr const char* kPersistentPrefix = "MPIX_";
#else
#define PERSISTENT(name) nullptr
constexpr const char* kPersistentPrefix = "";
#endif

/// Whether the library's persistent init is to be used (it has one, and it is not known wrong).
bool use_persistent() {
  return *kPersistentPrefix != '\0' && !mpi::detail::library_persistent_collectives_broken();
}

void check(int result, const std::string& call) {
  if (result != MPI_SUCCESS)
    throw Error(call + " failed in the MPI library (error code " + std::to_string(result) + ")");
}

/// "MPI_Ibcast" for "Bcast".
std::string nonblocking_name(const std::string& name) {
  std::string lower = name;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return "MPI_I" + lower;
}

}  // namespace

LibraryCollective::LibraryCollective(const std::string& name, const Call& init, Call post)
    : name_(init && use_persistent() ? kPersistentPrefix + name + "_init" : nonblocking_name(name)),
      persistent_(init && use_persistent()),
      post_(std::move(post)) {
  if (persistent_) check(init(&request_), name_);
}

LibraryCollective::~LibraryCollective() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (persistent_ && !finalized && request_ != MPI_REQUEST_NULL) MPI_Request_free(&request_);
}

void LibraryCollective::start() {
  if (persistent_)
    check(MPI_Start(&request_), "MPI_Start");
  else
    check(post_(&request_), name_);
}

void LibraryCollective::wait() { check(MPI_Wait(&request_, MPI_STATUS_IGNORE), "MPI_Wait"); }

bool LibraryCollective::test() {
  int done = 0;
  check(MPI_Test(&request_, &done, MPI_STATUS_IGNORE), "MPI_Test");
  return done != 0;
}

// Each collective: its persistent init where the library has one, and its nonblocking form.
// The lambdas capture the arguments by value: they outlive this call.
#if MPI_VERSION >= 4 || defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
#define INIT(name, ...) \
  [=](MPI_Request* request) { return PERSISTENT(name)(__VA_ARGS__, MPI_INFO_NULL, request); }
#else
#define INIT(name, ...) LibraryCollective::Call()
#endif

std::unique_ptr<LibraryCollective> library_bcast(void* buf, int count, MPI_Datatype type, int root,
                                                 MPI_Comm comm) {
  return std::make_unique<LibraryCollective>(
      "Bcast", INIT(Bcast, buf, count, type, root, comm),
      [=](MPI_Request* request) { return MPI_Ibcast(buf, count, type, root, comm, request); });
}

std::unique_ptr<LibraryCollective> library_reduce(const void* sendbuf, void* recvbuf, int count,
                                                  MPI_Datatype type, MPI_Op op, int root,
                                                  MPI_Comm comm) {
  return std::make_unique<LibraryCollective>(
      "Reduce", INIT(Reduce, sendbuf, recvbuf, count, type, op, root, comm),
      [=](MPI_Request* request) {
        return MPI_Ireduce(sendbuf, recvbuf, count, type, op, root, comm, request);
      });
}

std::unique_ptr<LibraryCollective> library_allreduce(const void* sendbuf, void* recvbuf, int count,
                                                     MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  return std::make_unique<LibraryCollective>(
      "Allreduce", INIT(Allreduce, sendbuf, recvbuf, count, type, op, comm),
      [=](MPI_Request* request) {
        return MPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, request);
      });
}

std::unique_ptr<LibraryCollective> library_gather(const void* sendbuf, int sendcount,
                                                  MPI_Datatype sendtype, void* recvbuf,
                                                  int recvcount, MPI_Datatype recvtype, int root,
                                                  MPI_Comm comm) {
  return std::make_unique<LibraryCollective>(
      "Gather",
      INIT(Gather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
      [=](MPI_Request* request) {
        return MPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                           request);
      });
}

std::unique_ptr<LibraryCollective> library_scatter(const void* sendbuf, int sendcount,
                                                   MPI_Datatype sendtype, void* recvbuf,
                                                   int recvcount, MPI_Datatype recvtype, int root,
                                                   MPI_Comm comm) {
  return std::make_unique<LibraryCollective>(
      "Scatter",
      INIT(Scatter, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
      [=](MPI_Request* request) {
        return MPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                            request);
      });
}

std::unique_ptr<LibraryCollective> library_allgather(const void* sendbuf, int count,
                                                     MPI_Datatype type, void* recvbuf,
                                                     MPI_Comm comm) {
  return std::make_unique<LibraryCollective>(
      "Allgather", INIT(Allgather, sendbuf, count, type, recvbuf, count, type, comm),
      [=](MPI_Request* request) {
        return MPI_Iallgather(sendbuf, count, type, recvbuf, count, type, comm, request);
      });
}

std::unique_ptr<LibraryCollective> library_alltoall(const void* sendbuf, int sendcount,
                                                    MPI_Datatype sendtype, void* recvbuf,
                                                    int recvcount, MPI_Datatype recvtype,
                                                    MPI_Comm comm) {
  return std::make_unique<LibraryCollective>(
      "Alltoall", INIT(Alltoall, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
      [=](MPI_Request* request) {
        return MPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                             request);
      });
}

std::unique_ptr<LibraryCollective> library_barrier(MPI_Comm comm) {
  return std::make_unique<LibraryCollective>(
      "Barrier", INIT(Barrier, comm),
      [=](MPI_Request* request) { return MPI_Ibarrier(comm, request); });
}

namespace {
/// Counts and displacements that live as long as the request: both calls of a LibraryCollective
/// hold them (MPI's persistent inits keep the pointers until the request is freed).
struct Arrays {
  std::vector<int> counts, displs;
};
std::shared_ptr<const Arrays> keep(std::vector<int> counts, std::vector<int> displs) {
  return std::make_shared<const Arrays>(Arrays{std::move(counts), std::move(displs)});
}
}  // namespace

std::unique_ptr<LibraryCollective> library_gatherv(const void* sendbuf, int sendcount,
                                                   MPI_Datatype sendtype, void* recvbuf,
                                                   std::vector<int> recvcounts,
                                                   std::vector<int> displs, MPI_Datatype recvtype,
                                                   int root, MPI_Comm comm) {
  const auto a = keep(std::move(recvcounts), std::move(displs));
  return std::make_unique<LibraryCollective>(
      "Gatherv",
      INIT(Gatherv, sendbuf, sendcount, sendtype, recvbuf, a->counts.data(), a->displs.data(),
           recvtype, root, comm),
      [=](MPI_Request* request) {
        return MPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, a->counts.data(),
                            a->displs.data(), recvtype, root, comm, request);
      });
}

std::unique_ptr<LibraryCollective> library_scatterv(const void* sendbuf,
                                                    std::vector<int> sendcounts,
                                                    std::vector<int> displs, MPI_Datatype sendtype,
                                                    void* recvbuf, int recvcount,
                                                    MPI_Datatype recvtype, int root,
                                                    MPI_Comm comm) {
  const auto a = keep(std::move(sendcounts), std::move(displs));
  return std::make_unique<LibraryCollective>(
      "Scatterv",
      INIT(Scatterv, sendbuf, a->counts.data(), a->displs.data(), sendtype, recvbuf, recvcount,
           recvtype, root, comm),
      [=](MPI_Request* request) {
        return MPI_Iscatterv(sendbuf, a->counts.data(), a->displs.data(), sendtype, recvbuf,
                             recvcount, recvtype, root, comm, request);
      });
}

std::unique_ptr<LibraryCollective> library_allgatherv(const void* sendbuf, int sendcount,
                                                      MPI_Datatype sendtype, void* recvbuf,
                                                      std::vector<int> recvcounts,
                                                      std::vector<int> displs,
                                                      MPI_Datatype recvtype, MPI_Comm comm) {
  const auto a = keep(std::move(recvcounts), std::move(displs));
  return std::make_unique<LibraryCollective>(
      "Allgatherv",
      INIT(Allgatherv, sendbuf, sendcount, sendtype, recvbuf, a->counts.data(), a->displs.data(),
           recvtype, comm),
      [=](MPI_Request* request) {
        return MPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, a->counts.data(),
                               a->displs.data(), recvtype, comm, request);
      });
}

std::unique_ptr<LibraryCollective> library_reduce_scatter_block(const void* sendbuf, void* recvbuf,
                                                                int recvcount, MPI_Datatype type,
                                                                MPI_Op op, MPI_Comm comm) {
  return std::make_unique<LibraryCollective>(
      "Reduce_scatter_block",
      INIT(Reduce_scatter_block, sendbuf, recvbuf, recvcount, type, op, comm),
      [=](MPI_Request* request) {
        return MPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm, request);
      });
}

std::unique_ptr<LibraryCollective> library_reduce_scatter(const void* sendbuf, void* recvbuf,
                                                          std::vector<int> recvcounts,
                                                          MPI_Datatype type, MPI_Op op,
                                                          MPI_Comm comm) {
  const auto a = keep(std::move(recvcounts), {});
  return std::make_unique<LibraryCollective>(
      "Reduce_scatter", INIT(Reduce_scatter, sendbuf, recvbuf, a->counts.data(), type, op, comm),
      [=](MPI_Request* request) {
        return MPI_Ireduce_scatter(sendbuf, recvbuf, a->counts.data(), type, op, comm, request);
      });
}

std::unique_ptr<LibraryCollective> library_neighbor_alltoallv(
    const void* sendbuf, std::vector<int> sendcounts, std::vector<int> sdispls,
    MPI_Datatype sendtype, void* recvbuf, std::vector<int> recvcounts, std::vector<int> rdispls,
    MPI_Datatype recvtype, MPI_Comm comm) {
  const auto out = keep(std::move(sendcounts), std::move(sdispls));
  const auto in = keep(std::move(recvcounts), std::move(rdispls));
  return std::make_unique<LibraryCollective>(
      "Neighbor_alltoallv",
      INIT(Neighbor_alltoallv, sendbuf, out->counts.data(), out->displs.data(), sendtype, recvbuf,
           in->counts.data(), in->displs.data(), recvtype, comm),
      [=](MPI_Request* request) {
        return MPI_Ineighbor_alltoallv(sendbuf, out->counts.data(), out->displs.data(), sendtype,
                                       recvbuf, in->counts.data(), in->displs.data(), recvtype,
                                       comm, request);
      });
}

std::string library_bcast_name() {
  return use_persistent() ? std::string(kPersistentPrefix) + "Bcast_init" : "MPI_Ibcast";
}

}  // namespace choreo::persist::detail
