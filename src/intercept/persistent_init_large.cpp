// MPI-4.0's large-count persistent collective inits (MPI_Bcast_init_c, ...), defined where the
// MPI library is MPI-4 (docs/intercept.md, "Persistent collectives"). Without them a program
// calling the _c form would reach the library's own, which MPICH 4.0.x gets wrong.
//   A call whose counts fit an int is the standard init's call: every rank's block bytes, which
//   MPI requires to match, decide alike, and the standard init serves it as it serves any
//   (choreo::persist under the default, the library's own, or the emulation).
//   Larger counts go to choreo::persist's *_init_c where it has one (bcast, reduce, allreduce,
//   reduce_scatter_block, gather, scatter, allgather, alltoall: its messages past INT_MAX bytes
//   travel in pieces) and the route chooses it (by default: blocks this large always), else,
//   as the v-variants (whose count arrays a narrowed copy could not keep alive for the
//   library's own request), to the library's own MPI_X_init_c, or to the emulation posting
//   MPI_Ix_c at every start where the library's own are wrong.
#include <mpi.h>

#if MPI_VERSION >= 4

#include <algorithm>
#include <climits>
#include <cstdint>
#include <vector>

#include "choreo/persist/collectives.hpp"
#include "persistent_choreo.hpp"
#include "persistent_serve.hpp"

namespace choreo::intercept::persistent {
namespace {

/// Whether the standard init can take a call whose block is `bytes` (agreed by all ranks).
bool fits_int(std::int64_t bytes) { return bytes >= 0 && bytes <= INT_MAX; }

/// A count for the standard init of a call that fits_int: a significant count is at most the
/// block's bytes, so it fits; one past INT_MAX can only be of an empty datatype (still no bytes
/// when narrowed) or an argument MPI ignores on this rank.
int narrow(MPI_Count count) {
  return static_cast<int>(std::clamp<MPI_Count>(count, INT_MIN, INT_MAX));
}

/// Serves a call that keeps its _c form: choreo::persist's large-count init where one is given
/// (make_choreo) and chosen, else the library's own MPI_X_init_c, else the emulation.
template <class CallLibrary, class SetUp>
int serve_large(const char* call, MPI_Comm comm, MPI_Request* request, bool has_library,
                CallLibrary call_library, SetUp set_up, const MakeChoreo& make_choreo = {},
                const AgreedBytes& agreed_bytes = {}) {
  return serve(call, comm, request, has_library, make_choreo, call_library, set_up, agreed_bytes);
}

/// The root-relative side of a rooted call's block: the root's (receive side of a gather, send
/// side of a scatter) at the root, the rank's own elsewhere.
std::int64_t rooted_bytes(MPI_Comm comm, int root, MPI_Count root_count, MPI_Datatype root_type,
                          MPI_Count own_count, MPI_Datatype own_type) {
  return at_root(comm, root) ? signature_bytes(root_count, root_type)
                             : signature_bytes(own_count, own_type);
}

// The large-count inits that share a signature, each served by one function below.
using ReductionInit = int (*)(const void*, void*, int, MPI_Datatype, MPI_Op, MPI_Comm, MPI_Info,
                              MPI_Request*);
using ReductionInitC = int (*)(const void*, void*, MPI_Count, MPI_Datatype, MPI_Op, MPI_Comm,
                               MPI_Info, MPI_Request*);
using ReductionPostC = int (*)(const void*, void*, MPI_Count, MPI_Datatype, MPI_Op, MPI_Comm,
                               MPI_Request*);
using BlocksInit = int (*)(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, MPI_Comm,
                           MPI_Info, MPI_Request*);
using BlocksInitC = int (*)(const void*, MPI_Count, MPI_Datatype, void*, MPI_Count, MPI_Datatype,
                            MPI_Comm, MPI_Info, MPI_Request*);
using BlocksPostC = int (*)(const void*, MPI_Count, MPI_Datatype, void*, MPI_Count, MPI_Datatype,
                            MPI_Comm, MPI_Request*);
using RootedInit = int (*)(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, int, MPI_Comm,
                           MPI_Info, MPI_Request*);
using RootedInitC = int (*)(const void*, MPI_Count, MPI_Datatype, void*, MPI_Count, MPI_Datatype,
                            int, MPI_Comm, MPI_Info, MPI_Request*);
using RootedPostC = int (*)(const void*, MPI_Count, MPI_Datatype, void*, MPI_Count, MPI_Datatype,
                            int, MPI_Comm, MPI_Request*);
// choreo::persist's request for each (persistent_choreo.hpp); nullptr where it has none.
using ReductionChoreoC = persist::Request (*)(const void*, void*, MPI_Count, MPI_Datatype, MPI_Op,
                                              MPI_Comm, MPI_Info, std::vector<MPI_Datatype>&);
using BlocksChoreoC = persist::Request (*)(const void*, MPI_Count, MPI_Datatype, void*, MPI_Count,
                                           MPI_Datatype, MPI_Comm, MPI_Info,
                                           std::vector<MPI_Datatype>&);
using RootedChoreoC = persist::Request (*)(const void*, MPI_Count, MPI_Datatype, void*, MPI_Count,
                                           MPI_Datatype, int, MPI_Comm, MPI_Info,
                                           std::vector<MPI_Datatype>&);

/// An init of (sendbuf, recvbuf, count, type, op, comm): allreduce, scan, exscan,
/// reduce_scatter_block (count: its recvcount).
int reduction_c(const char* call, ReductionInit standard, ReductionInitC library,
                ReductionPostC post, ReductionChoreoC choreo, const void* sendbuf, void* recvbuf,
                MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                MPI_Request* request) {
  if (fits_int(signature_bytes(count, datatype)))
    return standard(sendbuf, recvbuf, narrow(count), datatype, op, comm, info, request);
  return serve_large(
      call, comm, request, library != nullptr,
      [&] { return library(sendbuf, recvbuf, count, datatype, op, comm, info, request); },
      [&](Emulated& e) {
        const MPI_Datatype held = e.hold(datatype);
        e.post = [=](MPI_Request* r) { return post(sendbuf, recvbuf, count, held, op, comm, r); };
      },
      choreo == nullptr ? MakeChoreo{} : MakeChoreo([&](std::vector<MPI_Datatype>& held) {
        return choreo(sendbuf, recvbuf, count, datatype, op, comm, info, held);
      }),
      [&] { return signature_bytes(count, datatype); });
}

/// An init of (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm): allgather,
/// alltoall (the block is the receive side's), neighbor_allgather and neighbor_alltoall (the
/// send side's: `send_side`).
int blocks_c(const char* call, bool send_side, BlocksInit standard, BlocksInitC library,
             BlocksPostC post, BlocksChoreoC choreo, const void* sendbuf, MPI_Count sendcount,
             MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
             MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const auto block = [&] {
    return send_side ? signature_bytes(sendcount, sendtype) : signature_bytes(recvcount, recvtype);
  };
  if (fits_int(block()))
    return standard(sendbuf, narrow(sendcount), sendtype, recvbuf, narrow(recvcount), recvtype,
                    comm, info, request);
  return serve_large(
      call, comm, request, library != nullptr,
      [&] {
        return library(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info,
                       request);
      },
      [&](Emulated& e) {
        const MPI_Datatype held_send = e.hold(sendtype), held_recv = e.hold(recvtype);
        e.post = [=](MPI_Request* r) {
          return post(sendbuf, sendcount, held_send, recvbuf, recvcount, held_recv, comm, r);
        };
      },
      choreo == nullptr ? MakeChoreo{} : MakeChoreo([&](std::vector<MPI_Datatype>& held) {
        return choreo(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, held);
      }),
      block);
}

/// gather (`root_receives`) and scatter: the block is the root's side at the root.
int rooted_c(const char* call, bool root_receives, RootedInit standard, RootedInitC library,
             RootedPostC post, RootedChoreoC choreo, const void* sendbuf, MPI_Count sendcount,
             MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
             int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const std::int64_t bytes =
      root_receives ? rooted_bytes(comm, root, recvcount, recvtype, sendcount, sendtype)
                    : rooted_bytes(comm, root, sendcount, sendtype, recvcount, recvtype);
  if (fits_int(bytes))
    return standard(sendbuf, narrow(sendcount), sendtype, recvbuf, narrow(recvcount), recvtype,
                    root, comm, info, request);
  return serve_large(
      call, comm, request, library != nullptr,
      [&] {
        return library(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info,
                       request);
      },
      [&](Emulated& e) {
        const MPI_Datatype held_send = e.hold(sendtype), held_recv = e.hold(recvtype);
        e.post = [=](MPI_Request* r) {
          return post(sendbuf, sendcount, held_send, recvbuf, recvcount, held_recv, root, comm, r);
        };
      },
      MakeChoreo([&](std::vector<MPI_Datatype>& held) {
        return choreo(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info,
                      held);
      }),
      [&] { return bytes; });
}

}  // namespace
}  // namespace choreo::intercept::persistent

using choreo::intercept::persistent::blocks_c;
using choreo::intercept::persistent::choreo_allgather;
using choreo::intercept::persistent::choreo_allreduce;
using choreo::intercept::persistent::choreo_alltoall;
using choreo::intercept::persistent::choreo_gather;
using choreo::intercept::persistent::choreo_reduce;
using choreo::intercept::persistent::choreo_reduce_scatter_block;
using choreo::intercept::persistent::choreo_scatter;
using choreo::intercept::persistent::degrees;
using choreo::intercept::persistent::Emulated;
using choreo::intercept::persistent::fits_int;
using choreo::intercept::persistent::library_function;
using choreo::intercept::persistent::narrow;
using choreo::intercept::persistent::peers;
using choreo::intercept::persistent::reduction_c;
using choreo::intercept::persistent::rooted_bytes;
using choreo::intercept::persistent::rooted_c;
using choreo::intercept::persistent::serve_large;
using choreo::intercept::persistent::signature_bytes;

/// The MPI library's own MPI_<name>_init_c (PMPI_, found by dlsym), or nullptr.
#define CHOREO_LIBRARY_C(name) library_function<decltype(&MPI_##name##_init_c)>(#name "_init_c")

// ---- one block size per call: the standard init where it fits ------------------------------

extern "C" int MPI_Bcast_init_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root,
                                MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  if (fits_int(signature_bytes(count, datatype)))
    return MPI_Bcast_init(buffer, narrow(count), datatype, root, comm, info, request);
  // Past an int's count choreo::persist's pipelines take it (MPICH 4.0.2's own and its
  // MPI_Ibcast_c fail there: "Invalid communicator").
  static const auto library = CHOREO_LIBRARY_C(Bcast);
  return choreo::intercept::persistent::serve(
      "MPI_Bcast_init_c", comm, request, library != nullptr,
      [&](std::vector<MPI_Datatype>& held) {
        return choreo::persist::bcast_init_c(
            buffer, count, choreo::intercept::persistent::held_type(datatype, held), root, comm,
            choreo::intercept::persistent::persist_options(info));
      },
      [&] { return library(buffer, count, datatype, root, comm, info, request); },
      [&](Emulated& e) {
        const MPI_Datatype held = e.hold(datatype);
        e.post = [=](MPI_Request* r) { return PMPI_Ibcast_c(buffer, count, held, root, comm, r); };
      },
      [&] { return signature_bytes(count, datatype); });
}

extern "C" int MPI_Reduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                                 MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                                 MPI_Info info, MPI_Request* request) {
  if (fits_int(signature_bytes(count, datatype)))
    return MPI_Reduce_init(sendbuf, recvbuf, narrow(count), datatype, op, root, comm, info,
                           request);
  static const auto library = CHOREO_LIBRARY_C(Reduce);
  return serve_large(
      "MPI_Reduce_init_c", comm, request, library != nullptr,
      [&] { return library(sendbuf, recvbuf, count, datatype, op, root, comm, info, request); },
      [&](Emulated& e) {
        const MPI_Datatype held = e.hold(datatype);
        e.post = [=](MPI_Request* r) {
          return PMPI_Ireduce_c(sendbuf, recvbuf, count, held, op, root, comm, r);
        };
      },
      [&](std::vector<MPI_Datatype>& held) {
        return choreo_reduce(sendbuf, recvbuf, count, datatype, op, root, comm, info, held);
      },
      [&] { return signature_bytes(count, datatype); });
}

extern "C" int MPI_Allreduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                    MPI_Request* request) {
  static const auto library = CHOREO_LIBRARY_C(Allreduce);
  return reduction_c("MPI_Allreduce_init_c", &MPI_Allreduce_init, library, &PMPI_Iallreduce_c,
                     &choreo_allreduce, sendbuf, recvbuf, count, datatype, op, comm, info, request);
}

extern "C" int MPI_Scan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                               MPI_Request* request) {
  static const auto library = CHOREO_LIBRARY_C(Scan);
  return reduction_c("MPI_Scan_init_c", &MPI_Scan_init, library, &PMPI_Iscan_c, nullptr, sendbuf,
                     recvbuf, count, datatype, op, comm, info, request);
}

extern "C" int MPI_Exscan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                 MPI_Request* request) {
  static const auto library = CHOREO_LIBRARY_C(Exscan);
  return reduction_c("MPI_Exscan_init_c", &MPI_Exscan_init, library, &PMPI_Iexscan_c, nullptr,
                     sendbuf, recvbuf, count, datatype, op, comm, info, request);
}

extern "C" int MPI_Reduce_scatter_block_init_c(const void* sendbuf, void* recvbuf,
                                               MPI_Count recvcount, MPI_Datatype datatype,
                                               MPI_Op op, MPI_Comm comm, MPI_Info info,
                                               MPI_Request* request) {
  static const auto library = CHOREO_LIBRARY_C(Reduce_scatter_block);
  return reduction_c("MPI_Reduce_scatter_block_init_c", &MPI_Reduce_scatter_block_init, library,
                     &PMPI_Ireduce_scatter_block_c, &choreo_reduce_scatter_block, sendbuf, recvbuf,
                     recvcount, datatype, op, comm, info, request);
}

extern "C" int MPI_Gather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                 void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                 int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static const auto library = CHOREO_LIBRARY_C(Gather);
  return rooted_c("MPI_Gather_init_c", true, &MPI_Gather_init, library, &PMPI_Igather_c,
                  &choreo_gather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                  comm, info, request);
}

extern "C" int MPI_Scatter_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                  int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static const auto library = CHOREO_LIBRARY_C(Scatter);
  return rooted_c("MPI_Scatter_init_c", false, &MPI_Scatter_init, library, &PMPI_Iscatter_c,
                  &choreo_scatter, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                  comm, info, request);
}

extern "C" int MPI_Allgather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                    void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                    MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static const auto library = CHOREO_LIBRARY_C(Allgather);
  return blocks_c("MPI_Allgather_init_c", false, &MPI_Allgather_init, library, &PMPI_Iallgather_c,
                  &choreo_allgather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                  comm, info, request);
}

extern "C" int MPI_Alltoall_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                   void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                   MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static const auto library = CHOREO_LIBRARY_C(Alltoall);
  return blocks_c("MPI_Alltoall_init_c", false, &MPI_Alltoall_init, library, &PMPI_Ialltoall_c,
                  &choreo_alltoall, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                  comm, info, request);
}

extern "C" int MPI_Neighbor_allgather_init_c(const void* sendbuf, MPI_Count sendcount,
                                             MPI_Datatype sendtype, void* recvbuf,
                                             MPI_Count recvcount, MPI_Datatype recvtype,
                                             MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static const auto library = CHOREO_LIBRARY_C(Neighbor_allgather);
  return blocks_c("MPI_Neighbor_allgather_init_c", true, &MPI_Neighbor_allgather_init, library,
                  &PMPI_Ineighbor_allgather_c, nullptr, sendbuf, sendcount, sendtype, recvbuf,
                  recvcount, recvtype, comm, info, request);
}

extern "C" int MPI_Neighbor_alltoall_init_c(const void* sendbuf, MPI_Count sendcount,
                                            MPI_Datatype sendtype, void* recvbuf,
                                            MPI_Count recvcount, MPI_Datatype recvtype,
                                            MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static const auto library = CHOREO_LIBRARY_C(Neighbor_alltoall);
  return blocks_c("MPI_Neighbor_alltoall_init_c", true, &MPI_Neighbor_alltoall_init, library,
                  &PMPI_Ineighbor_alltoall_c, nullptr, sendbuf, sendcount, sendtype, recvbuf,
                  recvcount, recvtype, comm, info, request);
}

// ---- count arrays: the library's own _c form, else the emulation ----------------------------

extern "C" int MPI_Gatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void* recvbuf, const MPI_Count recvcounts[],
                                  const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                                  MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static const auto library = CHOREO_LIBRARY_C(Gatherv);
  return serve_large(
      "MPI_Gatherv_init_c", comm, request, library != nullptr,
      [&] {
        return library(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                       comm, info, request);
      },
      [&](Emulated& e) {
        const int n = choreo::intercept::persistent::at_root(comm, root) ? peers(comm) : 0;
        const MPI_Count* counts = e.keep(recvcounts, n);
        const MPI_Aint* places = e.keep(displs, n);
        const MPI_Datatype held_send = e.hold(sendtype), held_recv = e.hold(recvtype);
        e.post = [=](MPI_Request* r) {
          return PMPI_Igatherv_c(sendbuf, sendcount, held_send, recvbuf, counts, places, held_recv,
                                 root, comm, r);
        };
      });
}

extern "C" int MPI_Scatterv_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint displs[], MPI_Datatype sendtype, void* recvbuf,
                                   MPI_Count recvcount, MPI_Datatype recvtype, int root,
                                   MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static const auto library = CHOREO_LIBRARY_C(Scatterv);
  return serve_large(
      "MPI_Scatterv_init_c", comm, request, library != nullptr,
      [&] {
        return library(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                       comm, info, request);
      },
      [&](Emulated& e) {
        const int n = choreo::intercept::persistent::at_root(comm, root) ? peers(comm) : 0;
        const MPI_Count* counts = e.keep(sendcounts, n);
        const MPI_Aint* places = e.keep(displs, n);
        const MPI_Datatype held_send = e.hold(sendtype), held_recv = e.hold(recvtype);
        e.post = [=](MPI_Request* r) {
          return PMPI_Iscatterv_c(sendbuf, counts, places, held_send, recvbuf, recvcount, held_recv,
                                  root, comm, r);
        };
      });
}

extern "C" int MPI_Allgatherv_init_c(const void* sendbuf, MPI_Count sendcount,
                                     MPI_Datatype sendtype, void* recvbuf,
                                     const MPI_Count recvcounts[], const MPI_Aint displs[],
                                     MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                     MPI_Request* request) {
  static const auto library = CHOREO_LIBRARY_C(Allgatherv);
  return serve_large(
      "MPI_Allgatherv_init_c", comm, request, library != nullptr,
      [&] {
        return library(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                       info, request);
      },
      [&](Emulated& e) {
        const int n = peers(comm);
        const MPI_Count* counts = e.keep(recvcounts, n);
        const MPI_Aint* places = e.keep(displs, n);
        const MPI_Datatype held_send = e.hold(sendtype), held_recv = e.hold(recvtype);
        e.post = [=](MPI_Request* r) {
          return PMPI_Iallgatherv_c(sendbuf, sendcount, held_send, recvbuf, counts, places,
                                    held_recv, comm, r);
        };
      });
}

extern "C" int MPI_Alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                                    const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                    const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                    MPI_Request* request) {
  static const auto library = CHOREO_LIBRARY_C(Alltoallv);
  return serve_large(
      "MPI_Alltoallv_init_c", comm, request, library != nullptr,
      [&] {
        return library(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                       recvtype, comm, info, request);
      },
      [&](Emulated& e) {
        const int n = peers(comm);
        const int sent = sendbuf == MPI_IN_PLACE ? 0 : n;  // MPI ignores them in place
        const MPI_Count* scounts = e.keep(sendcounts, sent);
        const MPI_Aint* splaces = e.keep(sdispls, sent);
        const MPI_Count* rcounts = e.keep(recvcounts, n);
        const MPI_Aint* rplaces = e.keep(rdispls, n);
        const MPI_Datatype held_send = e.hold(sendtype), held_recv = e.hold(recvtype);
        e.post = [=](MPI_Request* r) {
          return PMPI_Ialltoallv_c(sendbuf, scounts, splaces, held_send, recvbuf, rcounts, rplaces,
                                   held_recv, comm, r);
        };
      });
}

extern "C" int MPI_Alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                                    const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                    void* recvbuf, const MPI_Count recvcounts[],
                                    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                    MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static const auto library = CHOREO_LIBRARY_C(Alltoallw);
  return serve_large(
      "MPI_Alltoallw_init_c", comm, request, library != nullptr,
      [&] {
        return library(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                       recvtypes, comm, info, request);
      },
      [&](Emulated& e) {
        const int n = peers(comm);
        const int sent = sendbuf == MPI_IN_PLACE ? 0 : n;
        const MPI_Count* scounts = e.keep(sendcounts, sent);
        const MPI_Aint* splaces = e.keep(sdispls, sent);
        const MPI_Datatype* stypes = e.hold(sendtypes, sent);
        const MPI_Count* rcounts = e.keep(recvcounts, n);
        const MPI_Aint* rplaces = e.keep(rdispls, n);
        const MPI_Datatype* rtypes = e.hold(recvtypes, n);
        e.post = [=](MPI_Request* r) {
          return PMPI_Ialltoallw_c(sendbuf, scounts, splaces, stypes, recvbuf, rcounts, rplaces,
                                   rtypes, comm, r);
        };
      });
}

extern "C" int MPI_Reduce_scatter_init_c(const void* sendbuf, void* recvbuf,
                                         const MPI_Count recvcounts[], MPI_Datatype datatype,
                                         MPI_Op op, MPI_Comm comm, MPI_Info info,
                                         MPI_Request* request) {
  static const auto library = CHOREO_LIBRARY_C(Reduce_scatter);
  return serve_large(
      "MPI_Reduce_scatter_init_c", comm, request, library != nullptr,
      [&] { return library(sendbuf, recvbuf, recvcounts, datatype, op, comm, info, request); },
      [&](Emulated& e) {
        int size = 0;  // the local group's blocks, on either kind of communicator
        PMPI_Comm_size(comm, &size);
        const MPI_Count* counts = e.keep(recvcounts, size);
        const MPI_Datatype held = e.hold(datatype);
        e.post = [=](MPI_Request* r) {
          return PMPI_Ireduce_scatter_c(sendbuf, recvbuf, counts, held, op, comm, r);
        };
      });
}

extern "C" int MPI_Neighbor_allgatherv_init_c(const void* sendbuf, MPI_Count sendcount,
                                              MPI_Datatype sendtype, void* recvbuf,
                                              const MPI_Count recvcounts[], const MPI_Aint displs[],
                                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                              MPI_Request* request) {
  static const auto library = CHOREO_LIBRARY_C(Neighbor_allgatherv);
  return serve_large(
      "MPI_Neighbor_allgatherv_init_c", comm, request, library != nullptr,
      [&] {
        return library(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                       info, request);
      },
      [&](Emulated& e) {
        const int in = degrees(comm).first;
        const MPI_Count* counts = e.keep(recvcounts, in);
        const MPI_Aint* places = e.keep(displs, in);
        const MPI_Datatype held_send = e.hold(sendtype), held_recv = e.hold(recvtype);
        e.post = [=](MPI_Request* r) {
          return PMPI_Ineighbor_allgatherv_c(sendbuf, sendcount, held_send, recvbuf, counts, places,
                                             held_recv, comm, r);
        };
      });
}

extern "C" int MPI_Neighbor_alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                                             const MPI_Aint sdispls[], MPI_Datatype sendtype,
                                             void* recvbuf, const MPI_Count recvcounts[],
                                             const MPI_Aint rdispls[], MPI_Datatype recvtype,
                                             MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static const auto library = CHOREO_LIBRARY_C(Neighbor_alltoallv);
  return serve_large(
      "MPI_Neighbor_alltoallv_init_c", comm, request, library != nullptr,
      [&] {
        return library(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                       recvtype, comm, info, request);
      },
      [&](Emulated& e) {
        const auto [in, out] = degrees(comm);
        const MPI_Count* scounts = e.keep(sendcounts, out);
        const MPI_Aint* splaces = e.keep(sdispls, out);
        const MPI_Count* rcounts = e.keep(recvcounts, in);
        const MPI_Aint* rplaces = e.keep(rdispls, in);
        const MPI_Datatype held_send = e.hold(sendtype), held_recv = e.hold(recvtype);
        e.post = [=](MPI_Request* r) {
          return PMPI_Ineighbor_alltoallv_c(sendbuf, scounts, splaces, held_send, recvbuf, rcounts,
                                            rplaces, held_recv, comm, r);
        };
      });
}

extern "C" int MPI_Neighbor_alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                                             const MPI_Aint sdispls[],
                                             const MPI_Datatype sendtypes[], void* recvbuf,
                                             const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                             const MPI_Datatype recvtypes[], MPI_Comm comm,
                                             MPI_Info info, MPI_Request* request) {
  static const auto library = CHOREO_LIBRARY_C(Neighbor_alltoallw);
  return serve_large(
      "MPI_Neighbor_alltoallw_init_c", comm, request, library != nullptr,
      [&] {
        return library(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                       recvtypes, comm, info, request);
      },
      [&](Emulated& e) {
        const auto [in, out] = degrees(comm);
        const MPI_Count* scounts = e.keep(sendcounts, out);
        const MPI_Aint* splaces = e.keep(sdispls, out);
        const MPI_Datatype* stypes = e.hold(sendtypes, out);
        const MPI_Count* rcounts = e.keep(recvcounts, in);
        const MPI_Aint* rplaces = e.keep(rdispls, in);
        const MPI_Datatype* rtypes = e.hold(recvtypes, in);
        e.post = [=](MPI_Request* r) {
          return PMPI_Ineighbor_alltoallw_c(sendbuf, scounts, splaces, stypes, recvbuf, rcounts,
                                            rplaces, rtypes, comm, r);
        };
      });
}

#undef CHOREO_LIBRARY_C

#endif  // MPI_VERSION >= 4
