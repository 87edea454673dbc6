#include "next.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace choreo::intercept::next {
namespace {

#ifdef CHOREO_EXPORT_PMPI
/// MPI's own `name`: the next definition after this library's in the lookup order.
template <class Function>
Function resolve(Function, const char* name) {
  void* found = dlsym(RTLD_NEXT, name);
  if (found == nullptr) {
    // Without MPI's own function no call can be made; say which and stop, as MPI would.
    const std::string line =
        std::string("choreo: cannot find MPI's own ") + name + " (dlsym: " + dlerror() + ")\n";
    [[maybe_unused]] const auto written = ::write(2, line.data(), line.size());
    std::abort();
  }
  return reinterpret_cast<Function>(found);
}
#define CHOREO_NEXT(name, ...)                                  \
  static const auto own = resolve(&PMPI_##name, "PMPI_" #name); \
  return own(__VA_ARGS__)
#else
#define CHOREO_NEXT(name, ...) return PMPI_##name(__VA_ARGS__)
#endif

}  // namespace

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
