/* MPI-4's persistent collectives as a program gets them through libchoreo_pmpi.so, side by side
 * in one run with the MPI library's own: for MPI_Bcast_init, MPI_Allreduce_init,
 * MPI_Reduce_init, MPI_Gather_init, MPI_Scatter_init, MPI_Reduce_scatter_block_init (doubles,
 * MPI_SUM, root 0), MPI_Neighbor_alltoallv_init (a halo exchange on a periodic 1-D Cartesian
 * ring) at 8 B to 1 MiB (per rank's block) and MPI_Barrier_init,
 *   drop-in      MPI_X_init as the program calls it, served by the library under its settings
 *                (CHOREO_PERSISTENT: the default, or choreo, or nonblocking);
 *   library      the MPI library's own persistent collective, PMPI_X_init (MPI-4, MPICH) or
 *                PMPIX_X_init (Open MPI 4.1's mpi-ext.h), found by dlsym;
 *   nonblocking  MPI_Ix posted at every repetition; blocking: MPI_X.
 * Every repetition interleaved (the subjects in turn, each round starting with the next
 * subject), each start..wait after a barrier, the slowest rank's time (MPI_MAX); rank 0 prints
 * per collective and size the median and quartiles of each subject and the drop-in's ratio to
 * the library's persistent collective and to the nonblocking one. The drop-in's result is
 * checked after its timed repetitions. Build: tests' way (-include choreo/mpi_persistent.h,
 * linked with libchoreo_pmpi.so); run:
 *   mpiexec -n 2 bench/persistent_mpi4_bench [REPS]      (bench/README.md) */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "median.h"

enum { kSubjects = 4, kSizes = 4, kMaxReps = 2000, kCollectives = 8 };
static const char* const kSubjectNames[kSubjects] = {"drop-in", "library", "nonblocking",
                                                     "blocking"};
static const int kBytes[kSizes] = {8, 1024, 65536, 1048576};
/* Every collective to root 0 (from it), doubles, MPI_SUM; gather, scatter and reduce_scatter
   (MPI_Reduce_scatter_block) move kBytes per rank's block; neighbor_alltoallv a block of
   kBytes to each neighbour on the ring (on 2 ranks both neighbours are one process); the
   barrier moves nothing (one size). */
enum Collective {
  kBcast,
  kAllreduce,
  kReduce,
  kGather,
  kScatter,
  kReduceScatter,
  kNeighbor,
  kBarrier
};
static const char* const kCollectiveNames[kCollectives] = {
    "bcast",          "allreduce",          "reduce", "gather", "scatter",
    "reduce_scatter", "neighbor_alltoallv", "barrier"};

typedef int (*BcastInit)(void*, int, MPI_Datatype, int, MPI_Comm, MPI_Info, MPI_Request*);
typedef int (*AllreduceInit)(const void*, void*, int, MPI_Datatype, MPI_Op, MPI_Comm, MPI_Info,
                             MPI_Request*);
typedef int (*ReduceInit)(const void*, void*, int, MPI_Datatype, MPI_Op, int, MPI_Comm, MPI_Info,
                          MPI_Request*);
typedef int (*GatherInit)(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, int, MPI_Comm,
                          MPI_Info, MPI_Request*);
typedef int (*BarrierInit)(MPI_Comm, MPI_Info, MPI_Request*);
typedef int (*NeighborInit)(const void*, const int[], const int[], MPI_Datatype, void*, const int[],
                            const int[], MPI_Datatype, MPI_Comm, MPI_Info, MPI_Request*);

/* The MPI library's own PMPI_<name>, else PMPIX_<name>; NULL when it has neither. */
static void* library_function(const char* name) {
  const char* prefixes[2] = {"PMPI_", "PMPIX_"};
  for (int k = 0; k < 2; ++k) {
    char symbol[64];
    snprintf(symbol, sizeof symbol, "%s%s", prefixes[k], name);
    void* found = dlsym(RTLD_DEFAULT, symbol);
    if (found) return found;
  }
  return NULL;
}

typedef struct {
  enum Collective collective;
  int count;                /* doubles per rank's block */
  double *buf, *in;         /* gather: in is the block, buf the root's all; scatter and
                               reduce_scatter: the reverse; neighbor_alltoallv: a block per neighbour */
  int counts[2], displs[2]; /* neighbor_alltoallv: both neighbours' blocks */
  MPI_Request dropin, library;
} Case;

static int ranks = 1, rank = 0;
static MPI_Comm ring;   /* periodic 1-D Cartesian, for neighbor_alltoallv */
static int left, right; /* its neighbours */

/* The nonblocking (nonblocking != 0) or the blocking collective of c. */
static void post(Case* c, int nonblocking) {
  MPI_Request r = MPI_REQUEST_NULL;
  MPI_Request* q = nonblocking ? &r : NULL;
  const int n = c->count;
  switch (c->collective) {
    case kBcast:
      q ? MPI_Ibcast(c->buf, n, MPI_DOUBLE, 0, MPI_COMM_WORLD, q)
        : MPI_Bcast(c->buf, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
      break;
    case kAllreduce:
      q ? MPI_Iallreduce(c->in, c->buf, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, q)
        : MPI_Allreduce(c->in, c->buf, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      break;
    case kReduce:
      q ? MPI_Ireduce(c->in, c->buf, n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD, q)
        : MPI_Reduce(c->in, c->buf, n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
      break;
    case kGather:
      q ? MPI_Igather(c->in, n, MPI_DOUBLE, c->buf, n, MPI_DOUBLE, 0, MPI_COMM_WORLD, q)
        : MPI_Gather(c->in, n, MPI_DOUBLE, c->buf, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
      break;
    case kScatter:
      q ? MPI_Iscatter(c->in, n, MPI_DOUBLE, c->buf, n, MPI_DOUBLE, 0, MPI_COMM_WORLD, q)
        : MPI_Scatter(c->in, n, MPI_DOUBLE, c->buf, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
      break;
    case kReduceScatter:
      q ? MPI_Ireduce_scatter_block(c->in, c->buf, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, q)
        : MPI_Reduce_scatter_block(c->in, c->buf, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      break;
    case kNeighbor:
      q ? MPI_Ineighbor_alltoallv(c->in, c->counts, c->displs, MPI_DOUBLE, c->buf, c->counts,
                                  c->displs, MPI_DOUBLE, ring, q)
        : MPI_Neighbor_alltoallv(c->in, c->counts, c->displs, MPI_DOUBLE, c->buf, c->counts,
                                 c->displs, MPI_DOUBLE, ring);
      break;
    default:
      q ? MPI_Ibarrier(MPI_COMM_WORLD, q) : MPI_Barrier(MPI_COMM_WORLD);
  }
  if (q) MPI_Wait(q, MPI_STATUS_IGNORE);
}

/* One repetition of `subject`: start..wait after a barrier; the slowest rank's seconds. */
static double run(Case* c, int subject) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  if (subject < 2) {
    MPI_Request* q = subject == 0 ? &c->dropin : &c->library;
    MPI_Start(q);
    MPI_Wait(q, MPI_STATUS_IGNORE);
  } else {
    post(c, subject == 2);
  }
  double mine = MPI_Wtime() - start, slowest = 0;
  MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

/* Rank r's input element i is r + i (scatter: the root's block r; reduce_scatter: i counts
   over all blocks; neighbor_alltoallv: block k's element i is r + i + k / 2); 0 wrong elements
   expected. Block 0 comes from the left neighbour, which sent it as its block 1 (MPI-4.1
   section 8.6, also where both neighbours are one process). */
static int wrong_elements(const Case* c) {
  int wrong = 0;
  const double sum_of_ranks = ranks * (ranks - 1) / 2.0;
  for (int i = 0; i < c->count; ++i) switch (c->collective) {
      case kBcast:
        wrong += c->buf[i] != i;
        break;
      case kAllreduce:
        wrong += c->buf[i] != (double)ranks * i + sum_of_ranks;
        break;
      case kReduce:
        wrong += rank == 0 && c->buf[i] != (double)ranks * i + sum_of_ranks;
        break;
      case kGather:
        for (int r = 0; rank == 0 && r < ranks; ++r) wrong += c->buf[r * c->count + i] != r + i;
        break;
      case kScatter:
        wrong += c->buf[i] != rank + i;
        break;
      case kReduceScatter:
        wrong += c->buf[i] != (double)ranks * (rank * c->count + i) + sum_of_ranks;
        break;
      case kNeighbor:
        wrong += c->buf[i] != left + i + 0.5;
        wrong += c->buf[c->count + i] != right + i;
        break;
      default:
        break;
    }
  return wrong;
}

/* The drop-in and the library's own persistent request of c. */
static void make_requests(Case* c, void* const library[kCollectives]) {
  const int n = c->count;
  MPI_Comm w = MPI_COMM_WORLD;
  MPI_Info none = MPI_INFO_NULL;
  switch (c->collective) {
    case kBcast:
      MPI_Bcast_init(c->buf, n, MPI_DOUBLE, 0, w, none, &c->dropin);
      ((BcastInit)library[kBcast])(c->buf, n, MPI_DOUBLE, 0, w, none, &c->library);
      break;
    case kAllreduce:
      MPI_Allreduce_init(c->in, c->buf, n, MPI_DOUBLE, MPI_SUM, w, none, &c->dropin);
      ((AllreduceInit)library[kAllreduce])(c->in, c->buf, n, MPI_DOUBLE, MPI_SUM, w, none,
                                           &c->library);
      break;
    case kReduce:
      MPI_Reduce_init(c->in, c->buf, n, MPI_DOUBLE, MPI_SUM, 0, w, none, &c->dropin);
      ((ReduceInit)library[kReduce])(c->in, c->buf, n, MPI_DOUBLE, MPI_SUM, 0, w, none,
                                     &c->library);
      break;
    case kGather:
      MPI_Gather_init(c->in, n, MPI_DOUBLE, c->buf, n, MPI_DOUBLE, 0, w, none, &c->dropin);
      ((GatherInit)library[kGather])(c->in, n, MPI_DOUBLE, c->buf, n, MPI_DOUBLE, 0, w, none,
                                     &c->library);
      break;
    case kScatter:
      MPI_Scatter_init(c->in, n, MPI_DOUBLE, c->buf, n, MPI_DOUBLE, 0, w, none, &c->dropin);
      ((GatherInit)library[kScatter])(c->in, n, MPI_DOUBLE, c->buf, n, MPI_DOUBLE, 0, w, none,
                                      &c->library);
      break;
    case kReduceScatter: /* the same signature as MPI_Allreduce_init */
      MPI_Reduce_scatter_block_init(c->in, c->buf, n, MPI_DOUBLE, MPI_SUM, w, none, &c->dropin);
      ((AllreduceInit)library[kReduceScatter])(c->in, c->buf, n, MPI_DOUBLE, MPI_SUM, w, none,
                                               &c->library);
      break;
    case kNeighbor:
      MPI_Neighbor_alltoallv_init(c->in, c->counts, c->displs, MPI_DOUBLE, c->buf, c->counts,
                                  c->displs, MPI_DOUBLE, ring, none, &c->dropin);
      ((NeighborInit)library[kNeighbor])(c->in, c->counts, c->displs, MPI_DOUBLE, c->buf, c->counts,
                                         c->displs, MPI_DOUBLE, ring, none, &c->library);
      break;
    default:
      MPI_Barrier_init(w, none, &c->dropin);
      ((BarrierInit)library[kBarrier])(w, none, &c->library);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  int reps = argc > 1 ? atoi(argv[1]) : 300;
  if (reps < 4 || reps > kMaxReps) {
    if (rank == 0) fprintf(stderr, "persistent_mpi4_bench: REPS must be 4 to %d\n", kMaxReps);
    MPI_Finalize();
    return 1;
  }
  static const char* const kInits[kCollectives] = {"Bcast_init",
                                                   "Allreduce_init",
                                                   "Reduce_init",
                                                   "Gather_init",
                                                   "Scatter_init",
                                                   "Reduce_scatter_block_init",
                                                   "Neighbor_alltoallv_init",
                                                   "Barrier_init"};
  void* library[kCollectives];
  for (int k = 0; k < kCollectives; ++k) {
    library[k] = library_function(kInits[k]);
    if (!library[k]) {
      if (rank == 0)
        fprintf(stderr,
                "persistent_mpi4_bench: this MPI library has no persistent collectives of "
                "its own (neither PMPI_%s nor PMPIX_%s)\n",
                kInits[k], kInits[k]);
      MPI_Finalize();
      return 1;
    }
  }
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(version, &length);
  version[strcspn(version, "\n")] = '\0';
  const char* setting = getenv("CHOREO_PERSISTENT");
  const int periodic = 1;
  MPI_Cart_create(MPI_COMM_WORLD, 1, &ranks, &periodic, 0, &ring);
  MPI_Cart_shift(ring, 0, 1, &left, &right);
  if (rank == 0)
    printf(
        "# %d ranks, %s, CHOREO_PERSISTENT=%s, %d repetitions per subject, seconds\n"
        "collective,bytes,subject,median,q1,q3,dropin_over_library,dropin_over_nonblocking\n",
        ranks, version, setting ? setting : "(unset)", reps);
  /* Every request is made first and freed at the end: MPICH 4.0.2 hangs when a freed
     persistent collective's handle comes back for another request (docs/intercept.md). */
  static Case cases[kCollectives][kSizes];
  for (int k = 0; k < kCollectives; ++k)
    for (int s = 0; s < kSizes; ++s) {
      Case* c = &cases[k][s];
      c->collective = (enum Collective)k;
      c->count = k == kBarrier ? 0 : kBytes[s] / 8;
      const size_t block = (size_t)c->count, all = block * (size_t)ranks;
      c->buf = calloc(k == kGather ? all : k == kNeighbor ? 2 * block : block, sizeof(double));
      c->in = calloc(k == kScatter || k == kReduceScatter ? all
                     : k == kNeighbor                     ? 2 * block
                                                          : block,
                     sizeof(double));
      c->counts[0] = c->counts[1] = c->count;
      c->displs[0] = 0;
      c->displs[1] = c->count;
      for (size_t i = 0; k == kNeighbor && i < block; ++i) c->in[block + i] = rank + i + 0.5;
      for (size_t i = 0; k == kReduceScatter && i < all; ++i) c->in[i] = rank + (double)i;
      for (size_t i = 0; k != kReduceScatter && i < block; ++i)
        if (k == kScatter)
          for (int r = 0; r < ranks; ++r)
            c->in[(size_t)r * block + i] = rank == 0 ? r + (double)i : 0;
        else
          c->in[i] = rank + (double)i;
      if (k == kBcast && rank == 0) memcpy(c->buf, c->in, sizeof(double) * block);
      if (k != kBarrier || s == 0) make_requests(c, library);
    }
  static double times[kSubjects][kMaxReps];
  int failures = 0;
  for (int k = 0; k < kCollectives; ++k) {
    for (int s = 0; s < (k == kBarrier ? 1 : kSizes); ++s) {
      Case* c = &cases[k][s];
      for (int warm = 0; warm < 12; ++warm) /* warm-up: past choreo's measurement */
        for (int subject = 0; subject < kSubjects; ++subject) run(c, subject);
      for (int rep = 0; rep < reps; ++rep)
        for (int j = 0; j < kSubjects; ++j) {
          const int subject = (rep + j) % kSubjects;
          times[subject][rep] = run(c, subject);
        }
      /* The drop-in's result from poisoned outputs (the broadcast's root keeps its input). */
      const size_t out = (size_t)c->count * (k == kGather ? (size_t)ranks : k == kNeighbor ? 2 : 1);
      if (k != kBcast || rank != 0)
        for (size_t i = 0; i < out; ++i) c->buf[i] = -1;
      MPI_Start(&c->dropin);
      MPI_Wait(&c->dropin, MPI_STATUS_IGNORE);
      int wrong = wrong_elements(c), total = 0;
      MPI_Allreduce(&wrong, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      failures += total;
      if (rank == 0) {
        double medians[kSubjects], q1[kSubjects], q3[kSubjects];
        for (int subject = 0; subject < kSubjects; ++subject) {
          medians[subject] = median(times[subject], reps); /* sorts */
          q1[subject] = times[subject][reps / 4];
          q3[subject] = times[subject][(3 * reps) / 4];
        }
        for (int subject = 0; subject < kSubjects; ++subject)
          printf("%s,%d,%s,%.9f,%.9f,%.9f,%.3f,%.3f\n", kCollectiveNames[k],
                 k == kBarrier ? 0 : kBytes[s], kSubjectNames[subject], medians[subject],
                 q1[subject], q3[subject], medians[0] / medians[1], medians[0] / medians[2]);
        if (total) printf("# FAILED: the drop-in's result has %d wrong elements\n", total);
        fflush(stdout);
      }
    }
  }
  for (int k = 0; k < kCollectives; ++k)
    for (int s = 0; s < kSizes; ++s) {
      if (k != kBarrier || s == 0) {
        MPI_Request_free(&cases[k][s].dropin);
        MPI_Request_free(&cases[k][s].library);
      }
      free(cases[k][s].buf);
      free(cases[k][s].in);
    }
  MPI_Comm_free(&ring);
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
