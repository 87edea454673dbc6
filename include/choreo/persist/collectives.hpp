#pragma once
// Persistent collectives in the shape of MPI-4's MPI_Bcast_init, MPI_Reduce_init,
// MPI_Allreduce_init, MPI_Gather_init, MPI_Scatter_init, MPI_Allgather_init,
// MPI_Alltoallv_init, MPI_Reduce_scatter(_block)_init, MPI_Barrier_init and
// MPI_Neighbor_alltoallv_init, built from the Schedules of choreo's collective generators (and,
// for alltoallv, its schedulers) and run by one of three engines (options.hpp;
// docs/persistent.md).
//
// Each call is collective over comm: every rank must pass the same count (x type size),
// root, algorithm and layout options, or every rank throws choreo::Error naming the
// mismatch. Buffers are bound at init, as in MPI: they must stay valid and in place until
// the request is freed, and must not be touched between start() and completion.
// Reductions (reduce_init, allreduce_init, reduce_scatter_*) take contiguous datatypes and
// MPI's pair types with padding (MPI_DOUBLE_INT, ... for MPI_MINLOC and MPI_MAXLOC), not derived
// non-contiguous ones (MPI defines no predefined op on those). The data-moving collectives take any
// datatype whose packed form (MPI_Pack) is its data back to back, as on every homogeneous MPI: a
// non-contiguous buffer is packed at start and unpacked at completion, and messages move its bytes.
// The irregular ones (the v-variants, alltoallv, neighbor_alltoallv) pack such a buffer through
// an indexed type of its blocks.
#include <mpi.h>

#include "choreo/persist/options.hpp"
#include "choreo/persist/request.hpp"

namespace choreo::persist {

/// Broadcast of count elements of type from root's buf to every rank's buf. Algorithms:
/// "binomial", "kary_pipeline", "multitree", "mpi" (the MPI library's own); "" (default):
/// the model's tree, measured against the library's own with the commands engine.
Request bcast_init(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
                   const Options& options = {});
/// bcast_init with MPI-4's large count, as MPI_Bcast_init_c: count may pass INT_MAX (the bytes
/// travel in segments an int counts; the default then takes a pipeline, never the binomial
/// tree's whole-buffer message, and does not measure the library's own, which takes an int
/// count here). Datatypes as bcast_init; a non-contiguous one is packed whole, so its count
/// stays within an int.
Request bcast_init_c(void* buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
                     const Options& options = {});

/// The *_init_c forms below are MPI-4's large-count ones (MPI_Allreduce_init_c, ...): counts
/// may pass INT_MAX. Messages and reductions past Options::max_message_bytes travel in pieces;
/// where a call's bytes pass INT_MAX the MPI library's own collective (which takes an int count
/// here) is neither measured nor available as "mpi". A non-contiguous datatype is packed whole,
/// so its count stays within an int.

/// recvbuf = op over all ranks of sendbuf (sendbuf may be MPI_IN_PLACE: recvbuf holds the
/// input). op must be commutative (MPI_Op_commutative). Algorithms: "recdbl", "ring", "mpi";
/// "" (default): the model's of the two, measured against the library's own with the commands
/// engine.
Request allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm, const Options& options = {});
Request allreduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type,
                         MPI_Op op, MPI_Comm comm, const Options& options = {});

/// recvbuf holds every rank's count elements of sendbuf in rank order (sendbuf may be
/// MPI_IN_PLACE: block `rank` of recvbuf holds the input). Algorithm: "ring".
Request allgather_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                       MPI_Comm comm, const Options& options = {});
Request allgather_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type,
                         MPI_Comm comm, const Options& options = {});

/// recvbuf at root = op over all ranks of sendbuf (at the root sendbuf may be MPI_IN_PLACE:
/// recvbuf holds its input; recvbuf matters at the root only). op must be commutative; any
/// predefined op on a contiguous type works. Algorithms: "binomial", "mpi" (the MPI library's
/// own); "" (default): the binomial tree measured against the library's own over the first
/// starts with the commands engine, the faster kept (describe() says which).
Request reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                    int root, MPI_Comm comm, const Options& options = {});
Request reduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type,
                      MPI_Op op, int root, MPI_Comm comm, const Options& options = {});

/// The root's recvbuf holds every rank's sendcount elements of sendtype in rank order, as
/// MPI_Gather (the root may pass MPI_IN_PLACE as sendbuf: its block is in place; recvbuf,
/// recvcount and recvtype matter at the root only). Algorithms and default as reduce_init.
Request gather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                    const Options& options = {});
Request gather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                      MPI_Comm comm, const Options& options = {});

/// Rank r's recvbuf gets block r of the root's sendbuf, as MPI_Scatter (the root may pass
/// MPI_IN_PLACE as recvbuf; sendbuf, sendcount and sendtype matter at the root only).
/// Algorithms and default as reduce_init.
Request scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                     const Options& options = {});
Request scatter_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, const Options& options = {});

/// Block d of rank r's sendbuf goes to block r of rank d's recvbuf, as MPI_Alltoall (sendbuf
/// may be MPI_IN_PLACE: recvbuf holds the input). Algorithms: "pairwise" (P-1 sendrecv steps
/// at growing distance), "mpi"; default as reduce_init. Init exchanges no counts.
Request alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                      const Options& options = {});
Request alltoall_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                        const Options& options = {});

/// The irregular collectives, as MPI_Gatherv, MPI_Scatterv and MPI_Allgatherv (MPI_IN_PLACE
/// where MPI allows it). Counts and displacements are copied at init; datatypes as the other
/// data-moving collectives (a non-contiguous one is packed through an indexed type of the
/// blocks). Every rank's bytes are checked against the root's counts (gatherv, scatterv: an
/// MPI_Scatter at init) or against every other rank's counts (allgatherv). Algorithms:
/// "linear" (gatherv, scatterv: the root exchanges a message with every rank), "ring"
/// (allgatherv), "mpi"; default as reduce_init.
Request gatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                     MPI_Comm comm, const Options& options = {});
Request scatterv_init(const void* sendbuf, const int sendcounts[], const int displs[],
                      MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                      int root, MPI_Comm comm, const Options& options = {});
Request allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                        MPI_Comm comm, const Options& options = {});

/// Reduce-scatter, as MPI_Reduce_scatter_block and MPI_Reduce_scatter: sendbuf holds P blocks
/// (recvcount elements each, or recvcounts[b] for block b, in rank order); rank r's recvbuf
/// gets block r reduced by op over all ranks. In place (sendbuf MPI_IN_PLACE), recvbuf holds
/// the input and gets the result at its start. Every rank passes the same counts; op must be
/// commutative; datatypes as the other reductions. Algorithms: "ring" (P-1 steps, each block
/// crossing every link once), "mpi"; default as reduce_init.
Request reduce_scatter_block_init(const void* sendbuf, void* recvbuf, int recvcount,
                                  MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                                  const Options& options = {});
Request reduce_scatter_block_init_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                    MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                                    const Options& options = {});
Request reduce_scatter_init(const void* sendbuf, void* recvbuf, const int recvcounts[],
                            MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                            const Options& options = {});

/// No rank's instance completes before every rank started it. Algorithms: "dissemination",
/// "mpi"; default as reduce_init.
Request barrier_init(MPI_Comm comm, const Options& options = {});

/// Personalised exchange with irregular counts, as MPI_Alltoallv: rank r sends
/// sendcounts[d] elements of sendtype from sendbuf + sdispls[d] elements to rank d, which
/// receives them as recvcounts[r] elements of recvtype at recvbuf + rdispls[r] elements
/// (both sides must agree on the bytes). The counts and displacements are copied at init, which
/// gathers every rank's counts into the whole pattern and orders its messages with one of
/// paper 000's schedulers (src/sched): Options::algorithm "openshop" (default), "optimal",
/// "delay", "ring" or "direct" (docs/persistent.md). sendbuf must not be MPI_IN_PLACE.
Request alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                       const Options& options = {});

/// The neighbourhood exchange of MPI_Neighbor_alltoallv on comm's topology (Cartesian, graph
/// or distributed graph): block k of sendbuf (sendcounts[k] elements at sdispls[k]) goes to the
/// k-th out-neighbour, block k of recvbuf comes from the k-th in-neighbour, in MPI's order of
/// neighbours (a Cartesian dimension's -1 neighbour before its +1 one). Init checks, with each
/// neighbour only, that both sides of every edge describe the same bytes: O(degree) time and
/// memory. Datatypes as alltoallv_init. Algorithms: "direct" (every receive, then every send,
/// posted at start), "mpi"; default as reduce_init.
Request neighbor_alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                const Options& options = {});

}  // namespace choreo::persist
