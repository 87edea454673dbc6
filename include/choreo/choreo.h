/* choreo's C API: the neighbour exchange, the persistent collectives, the jitter-resilient
 * allreduce and block-cyclic redistribution, for C (C99 and later) and for C++ through a
 * stable ABI. One shared library: link with -lchoreo (pkg-config choreo, or the CMake target
 * choreo::capi). docs/c-api.md walks through it; docs/examples/exchange.c is a whole program.
 *
 * Conventions
 * - Every function returns CHOREO_SUCCESS (0) or an error code below; on failure
 *   choreo_last_error() says what was wrong and how to fix it. Nothing is printed, nothing
 *   exits, no C++ exception leaves the library.
 * - MPI must be initialised (MPI_Init or MPI_Init_thread) before any call that takes a
 *   communicator, and every handle must be freed before MPI_Finalize.
 * - Objects are opaque handles made by a *_create or *_init call and released by the matching
 *   *_free call, which takes the handle's address and sets it to NULL (freeing NULL is a no-op).
 * - Calls that make a handle are collective over their communicator. Problems with the
 *   arguments (a NULL pointer, negative or mismatched counts, an unknown algorithm, options
 *   that differ between ranks) are agreed on: every rank returns the same error and message,
 *   and none is left waiting. Only an invalid communicator (MPI_COMM_NULL) and MPI not being
 *   initialised are reported by the calling rank alone, before any communication. Errors
 *   of the other calls (start, wait, test, execute, ...) are the calling rank's own.
 * - Handles are not thread safe: one thread at a time per handle (as for an MPI request).
 *
 * The MPI handles in these signatures are those of the MPI the library was built with
 * (MPICH and Open MPI differ in ABI): compile and link with that MPI. pkg-config and CMake
 * (find_package(choreo) stops with a message naming both) see to it. */
#ifndef CHOREO_CHOREO_H
#define CHOREO_CHOREO_H

#include <mpi.h>
#include <stdint.h>

#if defined(__GNUC__)
#define CHOREO_API __attribute__((visibility("default")))
#else
#define CHOREO_API
#endif

#ifdef __cplusplus
#define CHOREO_NOEXCEPT noexcept
extern "C" {
#else
#define CHOREO_NOEXCEPT
#endif

/* ---------------------------------------------------------------------------------------
 * Errors and version */

enum {
  CHOREO_SUCCESS = 0,
  /** An argument is invalid: a NULL pointer, a negative or mismatched count, an unknown
   *  algorithm or engine, a malformed distribution, options that differ between ranks. */
  CHOREO_ERR_ARG = 1,
  /** The handle is in the wrong state: start on an active handle, wait or test on one that
   *  was not started. */
  CHOREO_ERR_STATE = 2,
  /** MPI is not initialised, or already finalised. (A failing MPI call inside choreo goes to
   *  the communicator's error handler, by default MPI_ERRORS_ARE_FATAL, as in MPI itself.) */
  CHOREO_ERR_MPI = 3,
  /** Memory ran out. */
  CHOREO_ERR_NO_MEMORY = 4,
  /** Anything else: a bug in choreo; the message says where. */
  CHOREO_ERR_INTERNAL = 5
};

/** The message of the last call that failed on this thread ("" if none has): what was wrong
 *  and how to fix it. Successful calls leave it alone (as errno). The text stays valid until
 *  the next failing call on this thread. */
CHOREO_API const char* choreo_last_error(void) CHOREO_NOEXCEPT;

/** The name of an error code, e.g. "CHOREO_ERR_ARG"; "unknown error code" otherwise. */
CHOREO_API const char* choreo_error_name(int code) CHOREO_NOEXCEPT;

/** The library's version, "MAJOR.MINOR.PATCH". */
CHOREO_API const char* choreo_version(void) CHOREO_NOEXCEPT;

/* ---------------------------------------------------------------------------------------
 * Neighbour exchange: a persistent, scheduled MPI_Alltoallv (paper 000). Made once with the
 * arguments of MPI_Alltoallv, then started and completed as often as needed; each rank sends
 * in the order of a contention-aware plan that every rank computes alike. */

typedef struct choreo_exchange choreo_exchange_t;

/** Which send order the exchange uses; all give the same received data. */
enum {
  CHOREO_EXCHANGE_AUTO = 0,         /**< the candidate the model predicts fastest */
  CHOREO_EXCHANGE_DIRECT = 1,       /**< every send at once: what MPI_Alltoallv does */
  CHOREO_EXCHANGE_RING = 2,         /**< Thakur's ring order, no delays */
  CHOREO_EXCHANGE_DELAY = 3,        /**< delay insertion; a delay slot lasts one slot */
  CHOREO_EXCHANGE_OPTIMAL = 4,      /**< contention-free, fewest slots (and delays) */
  CHOREO_EXCHANGE_OPTIMAL_PACED = 5 /**< optimal, the send of slot t waits until t slots */
};

typedef struct choreo_exchange_options {
  int algorithm; /**< CHOREO_EXCHANGE_*; the same on every rank */
  /** A machine profile written by `choreo-mpi calibrate` (read on rank 0): what the model
   *  predicts with, and the slot length (one message's time through a port); NULL for the
   *  model's defaults (docs/scheduling.md). */
  const char* profile;
  int tag; /**< MPI tag of every message (on a private duplicate of comm) */
} choreo_exchange_options_t;

/** Fills options with the defaults: CHOREO_EXCHANGE_AUTO, no profile, tag 0x6368. */
CHOREO_API void choreo_exchange_options_init(choreo_exchange_options_t* options) CHOREO_NOEXCEPT;

/** Collective over comm. The arguments are those of MPI_Alltoallv (counts and displacements
 *  in elements of the datatypes, one entry per rank of comm; MPI_IN_PLACE is not supported);
 *  they are read now. The buffers are bound: they must stay valid until the exchange is freed
 *  and must not be touched between start and completion. Rank i's send bytes to j must equal
 *  rank j's receive bytes from i, or every rank returns CHOREO_ERR_ARG naming the pair.
 *  options may be NULL for the defaults. On success *exchange is the new handle. */
CHOREO_API int choreo_exchange_create(MPI_Comm comm, const void* sendbuf, const int sendcounts[],
                                      const int sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                      const int recvcounts[], const int rdispls[],
                                      MPI_Datatype recvtype,
                                      const choreo_exchange_options_t* options,
                                      choreo_exchange_t** exchange) CHOREO_NOEXCEPT;

/** Posts the receives and the sends due at once, and returns (a paced plan also begins a
 *  barrier); later sends start in test() or wait(). CHOREO_ERR_STATE if already started. */
CHOREO_API int choreo_exchange_start(choreo_exchange_t* exchange) CHOREO_NOEXCEPT;

/** Blocks until every send and receive of this rank completed; recvbuf then holds the data.
 *  CHOREO_ERR_STATE if the exchange was not started. */
CHOREO_API int choreo_exchange_wait(choreo_exchange_t* exchange) CHOREO_NOEXCEPT;

/** Completes what has arrived without blocking: *done is 1 (and the exchange inactive again)
 *  once everything of this rank completed, else 0. CHOREO_ERR_STATE if not started. */
CHOREO_API int choreo_exchange_test(choreo_exchange_t* exchange, int* done) CHOREO_NOEXCEPT;

/** The schedule in use: "direct", "ring", "delay", "optimal" or "optimal-paced" (a string
 *  constant). */
CHOREO_API int choreo_exchange_algorithm(const choreo_exchange_t* exchange,
                                         const char** name) CHOREO_NOEXCEPT;

/** The plan as the model saw it; the same on every rank. */
typedef struct choreo_plan_report {
  int slots;            /**< slotted plans: length of the longest rank's plan */
  int delays;           /**< slotted plans: delay slots before ranks' last sends */
  int degree_bound;     /**< largest in- or out-degree: no contention-free plan is shorter */
  int64_t predicted_ns; /**< the model's time for the plan */
  int64_t direct_ns;    /**< the model's time for CHOREO_EXCHANGE_DIRECT (MPI_Alltoallv's) */
  int64_t slot_ns;      /**< the length of a delay or paced slot (0: none) */
} choreo_plan_report_t;

CHOREO_API int choreo_exchange_report(const choreo_exchange_t* exchange,
                                      choreo_plan_report_t* report) CHOREO_NOEXCEPT;

/** Collective (frees a duplicate communicator). Free after completion: an active exchange's
 *  receives are cancelled. Sets *exchange to NULL; NULL or a NULL handle is a no-op. */
CHOREO_API int choreo_exchange_free(choreo_exchange_t** exchange) CHOREO_NOEXCEPT;

/* ---------------------------------------------------------------------------------------
 * Persistent collectives (paper 003), shaped like MPI-4's MPI_Bcast_init, MPI_Allreduce_init,
 * MPI_Allgather_init and MPI_Alltoallv_init: built once from choreo's collective schedules,
 * then started and completed any number of times. docs/persistent.md has the algorithms. */

typedef struct choreo_request choreo_request_t;

/** Who moves a started collective forward. */
enum {
  CHOREO_ENGINE_COMMANDS = 0, /**< precompiled requests, progressed by test and wait */
  CHOREO_ENGINE_THREAD = 1,   /**< a progress thread (needs MPI_THREAD_MULTIPLE) */
  CHOREO_ENGINE_INLINE = 2    /**< no overlap: wait (or test) runs the whole collective */
};

typedef struct choreo_persist_options {
  int engine;            /**< CHOREO_ENGINE_* */
  const char* algorithm; /**< NULL or "": the collective's default (docs/persistent.md) */
  int64_t segment_bytes; /**< pipelined broadcasts; 0: chosen from alpha and beta */
  int arity;             /**< tree arity; 0: the algorithm's default */
  int parts;             /**< multitree broadcast: parts and trees */
  double alpha;          /**< Hockney latency (s) for the segment rule */
  double beta;           /**< Hockney seconds per byte */
  int allow_serialized;  /**< 1: the thread engine accepts MPI_THREAD_SERIALIZED, the caller
                              making no MPI call while a request is active */
} choreo_persist_options_t;

/** Fills options with the defaults (the commands engine, default algorithms). */
CHOREO_API void choreo_persist_options_init(choreo_persist_options_t* options) CHOREO_NOEXCEPT;

/* Each *_init is collective over comm: every rank passes the same count (x type size), root,
 * algorithm and layout options, or every rank returns CHOREO_ERR_ARG naming the difference.
 * Datatypes must be contiguous. Buffers are bound until the request is freed. options may be
 * NULL for the defaults. On success *request is the new handle. */

/** Broadcast of count elements from root's buf to every rank's buf. */
CHOREO_API int choreo_bcast_init(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
                                 const choreo_persist_options_t* options,
                                 choreo_request_t** request) CHOREO_NOEXCEPT;

/** recvbuf = op over all ranks of sendbuf; op commutative; sendbuf may be MPI_IN_PLACE. */
CHOREO_API int choreo_allreduce_init(const void* sendbuf, void* recvbuf, int count,
                                     MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                                     const choreo_persist_options_t* options,
                                     choreo_request_t** request) CHOREO_NOEXCEPT;

/** recvbuf holds every rank's count elements in rank order; sendbuf may be MPI_IN_PLACE. */
CHOREO_API int choreo_allgather_init(const void* sendbuf, void* recvbuf, int count,
                                     MPI_Datatype type, MPI_Comm comm,
                                     const choreo_persist_options_t* options,
                                     choreo_request_t** request) CHOREO_NOEXCEPT;

/** MPI_Alltoallv's arguments (counts and displacements are copied); the messages are ordered
 *  by one of paper 000's schedulers (options->algorithm: "openshop", the default, "optimal",
 *  "delay", "ring" or "direct"). sendbuf must not be MPI_IN_PLACE. */
CHOREO_API int choreo_alltoallv_init(const void* sendbuf, const int sendcounts[],
                                     const int sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                     const int recvcounts[], const int rdispls[],
                                     MPI_Datatype recvtype, MPI_Comm comm,
                                     const choreo_persist_options_t* options,
                                     choreo_request_t** request) CHOREO_NOEXCEPT;

/** Starts one instance. CHOREO_ERR_STATE if the previous one was not completed. */
CHOREO_API int choreo_request_start(choreo_request_t* request) CHOREO_NOEXCEPT;

/** Blocks until the started instance completed; the buffers then hold the result.
 *  CHOREO_ERR_STATE if the request is not active. */
CHOREO_API int choreo_request_wait(choreo_request_t* request) CHOREO_NOEXCEPT;

/** *done is 1 once the started instance completed (the request is inactive again), else 0.
 *  CHOREO_ERR_STATE if the request is not active. */
CHOREO_API int choreo_request_test(choreo_request_t* request, int* done) CHOREO_NOEXCEPT;

/** The generator that runs, e.g. "bcast:multitree"; owned by the request. */
CHOREO_API int choreo_request_algorithm(const choreo_request_t* request,
                                        const char** name) CHOREO_NOEXCEPT;

/** Waits for an active request, then releases it (do it on every rank alike, as
 *  MPI_Request_free). Sets *request to NULL; NULL or a NULL handle is a no-op. */
CHOREO_API int choreo_request_free(choreo_request_t** request) CHOREO_NOEXCEPT;

/* ---------------------------------------------------------------------------------------
 * Jitter-resilient allreduce (paper 004): a butterfly allreduce followed by T redundant
 * exchanges of the result, so a rank held up by noise does not hold up its partners. */

/** MPI_Allreduce's arguments (sendbuf may be MPI_IN_PLACE; op commutative) plus redundancy
 *  T, 0 <= T <= floor(log2(size of comm)), the same on every rank. Collective and blocking:
 *  recvbuf holds the result on return. Messages the rank no longer needs are completed by
 *  later calls, by choreo_resilient_allreduce_complete or by MPI_Comm_free / MPI_Finalize. */
CHOREO_API int choreo_resilient_allreduce(const void* sendbuf, void* recvbuf, int count,
                                          MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                                          int redundancy) CHOREO_NOEXCEPT;

/** Local: waits until every message of this rank's earlier calls on comm has completed. */
CHOREO_API int choreo_resilient_allreduce_complete(MPI_Comm comm) CHOREO_NOEXCEPT;

/* ---------------------------------------------------------------------------------------
 * Redistribution (paper 002): moves a distributed array from one block-cyclic distribution
 * to another, array to array through MPI derived datatypes, with no pack buffers.
 *
 * A distribution is text, as `choreo redist plan` reads it (docs/redistribution.md):
 *   HPF form:        DIST[,DIST...][@GRID[:OPTION...]], DIST = block | cyclic | cyclic(n) | *,
 *                    GRID = PxQx..., OPTION = row | col | first=R | ranks=R,R,... | src=AxB
 *                    e.g. "cyclic(50),cyclic(50)@2x2", "*,block@4"
 *   ScaLAPACK form:  desc:M,N,MB,NB,RSRC,CSRC,LLD@PxQ[:col][:first=R|:ranks=R,...]
 *                    (a dense descriptor on a BLACS grid, "Row" order unless :col)
 * Each rank's piece is stored column-major (first index fastest), as ScaLAPACK stores it. */

typedef struct choreo_redist choreo_redist_t;

/** Collective over comm, every rank passing the same arguments: plans the move of an array of
 *  ndims dimensions with extents shape[] (a ScaLAPACK form must describe the same M x N) and
 *  elements of type base, from distribution `from` to distribution `to`. */
CHOREO_API int choreo_redist_create(MPI_Comm comm, int ndims, const int64_t shape[],
                                    const char* from, const char* to, MPI_Datatype base,
                                    choreo_redist_t** redist) CHOREO_NOEXCEPT;

/** How many elements this rank's source and target local arrays hold (0 when the rank is not
 *  in that grid); either pointer may be NULL. */
CHOREO_API int choreo_redist_local_elements(const choreo_redist_t* redist, int64_t* source_elements,
                                            int64_t* target_elements) CHOREO_NOEXCEPT;

/** Moves this rank's part from its source local array to its target local array (either may
 *  be NULL when the rank holds no elements of it); returns when this rank's sends and
 *  receives are complete. The arrays must not overlap. Collective: every rank of the
 *  communicator calls it, ranks that hold nothing too. */
CHOREO_API int choreo_redist_execute(choreo_redist_t* redist, const void* source,
                                     void* target) CHOREO_NOEXCEPT;

/** Collective (frees datatypes, a duplicate communicator and a shared-memory window). Sets
 * *redist to NULL. */
CHOREO_API int choreo_redist_free(choreo_redist_t** redist) CHOREO_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* CHOREO_CHOREO_H */
