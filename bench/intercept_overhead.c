/* What libchoreo_pmpi.so adds to a call, measured in one run against the same work without it:
 *   fallback   MPI_Bcast of one int handed to MPI (no machine profile), against PMPI_Bcast;
 *   fallback   MPI_Alltoallv on MPI_COMM_SELF (nothing to schedule), against PMPI_Alltoallv;
 *   fallback   MPI_Alltoallv with all counts 0 on MPI_COMM_WORLD (the model predicts no gain:
 *              fingerprint, cache look-up, MPI's own call), against PMPI_Alltoallv;
 *   cache hit  MPI_Alltoallv of 8 bytes to every rank, run by choreo (CHOREO_MODE=choreo and
 *              CHOREO_EXCHANGE=direct: the schedule itself adds nothing), against the same
 *              messages posted by hand: MPI_Irecv from every rank, MPI_Isend to every rank in
 *              the same ring order, MPI_Waitall, on a communicator of its own.
 * Each is timed in rounds of N calls, the two sides alternating round by round; per call, the
 * median over rounds and the spread (min..max) of the difference are printed by rank 0. Run it
 * with the library preloaded; without it the differences are the noise floor.
 *   mpiexec -n 2 env LD_PRELOAD=.../libchoreo_pmpi.so CHOREO_MODE=choreo CHOREO_EXCHANGE=direct \
 *     bench/intercept_overhead [ROUNDS] [CALLS]
 * (CHOREO_MODE=choreo makes the cache-hit case run choreo's path; the fallback cases fall back
 * in any mode.) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "median.h"

enum { kMaxRounds = 1000 };

typedef void (*Body)(void* context);

/* Seconds per call of `calls` calls, the slowest rank's. */
static double timed(Body body, void* context, int calls) {
  PMPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int k = 0; k < calls; ++k) body(context);
  double mine = (MPI_Wtime() - start) / calls, slowest = 0;
  PMPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

typedef struct {
  int ranks, rank;
  MPI_Comm comm; /* for the hand-posted exchange */
  int value;     /* bcast */
  int *counts, *displs, *zeros;
  char *send, *recv; /* 8 bytes per rank */
  MPI_Request* requests;
} Context;

static void bcast_intercepted(void* c) {
  MPI_Bcast(&((Context*)c)->value, 1, MPI_INT, 0, MPI_COMM_WORLD);
}
static void bcast_pmpi(void* c) {
  PMPI_Bcast(&((Context*)c)->value, 1, MPI_INT, 0, MPI_COMM_WORLD);
}

static void self_intercepted(void* v) {
  Context* c = v;
  MPI_Alltoallv(c->send, c->counts, c->displs, MPI_CHAR, c->recv, c->counts, c->displs, MPI_CHAR,
                MPI_COMM_SELF);
}
static void self_pmpi(void* v) {
  Context* c = v;
  PMPI_Alltoallv(c->send, c->counts, c->displs, MPI_CHAR, c->recv, c->counts, c->displs, MPI_CHAR,
                 MPI_COMM_SELF);
}

static void empty_intercepted(void* v) {
  Context* c = v;
  MPI_Alltoallv(c->send, c->zeros, c->displs, MPI_CHAR, c->recv, c->zeros, c->displs, MPI_CHAR,
                MPI_COMM_WORLD);
}
static void empty_pmpi(void* v) {
  Context* c = v;
  PMPI_Alltoallv(c->send, c->zeros, c->displs, MPI_CHAR, c->recv, c->zeros, c->displs, MPI_CHAR,
                 MPI_COMM_WORLD);
}

static void hit_intercepted(void* v) {
  Context* c = v;
  MPI_Alltoallv(c->send, c->counts, c->displs, MPI_CHAR, c->recv, c->counts, c->displs, MPI_CHAR,
                MPI_COMM_WORLD);
}
/* The messages choreo's direct schedule posts: receives from rank-1, rank-2, ..., then its own;
   sends to itself, then rank+1, rank+2, ... */
static void hit_by_hand(void* v) {
  Context* c = v;
  int n = 0;
  for (int d = 1; d <= c->ranks; ++d) {
    const int from = (c->rank - d % c->ranks + c->ranks) % c->ranks;
    MPI_Irecv(c->recv + 8 * from, 8, MPI_CHAR, from, 1, c->comm, &c->requests[n++]);
  }
  for (int d = 0; d < c->ranks; ++d) {
    const int to = (c->rank + d) % c->ranks;
    MPI_Isend(c->send + 8 * to, 8, MPI_CHAR, to, 1, c->comm, &c->requests[n++]);
  }
  MPI_Waitall(n, c->requests, MPI_STATUSES_IGNORE);
}

static void compare(const char* what, Body subject, Body baseline, Context* c, int rounds,
                    int calls) {
  double with[kMaxRounds], without[kMaxRounds], added[kMaxRounds];
  for (int k = 0; k < 3; ++k) { /* warm-up: first calls plan and wire up */
    timed(subject, c, calls);
    timed(baseline, c, calls);
  }
  for (int r = 0; r < rounds; ++r) {
    with[r] = timed(subject, c, calls);
    without[r] = timed(baseline, c, calls);
    added[r] = with[r] - without[r];
  }
  double sorted[kMaxRounds];
  memcpy(sorted, added, sizeof(double) * (size_t)rounds);
  qsort(sorted, (size_t)rounds, sizeof(double), compare_doubles);
  if (c->rank == 0)
    printf("%-44s %10.3f %10.3f %10.3f  [%.3f .. %.3f]\n", what, 1e6 * median(with, rounds),
           1e6 * median(without, rounds), 1e6 * median(added, rounds), 1e6 * sorted[0],
           1e6 * sorted[rounds - 1]);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Context c;
  MPI_Comm_size(MPI_COMM_WORLD, &c.ranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
  const int rounds = argc > 1 ? atoi(argv[1]) : 21;
  const int calls = argc > 2 ? atoi(argv[2]) : 2000;
  if (rounds < 1 || rounds > kMaxRounds || calls < 1) {
    if (c.rank == 0)
      fprintf(stderr, "intercept_overhead: ROUNDS must be 1..%d and CALLS >= 1\n", kMaxRounds);
    MPI_Finalize();
    return 1;
  }
  MPI_Comm_dup(MPI_COMM_WORLD, &c.comm);
  c.value = 7;
  c.counts = malloc(sizeof(int) * (size_t)c.ranks);
  c.displs = malloc(sizeof(int) * (size_t)c.ranks);
  c.zeros = calloc((size_t)c.ranks, sizeof(int));
  c.send = malloc(8 * (size_t)c.ranks);
  c.recv = malloc(8 * (size_t)c.ranks);
  c.requests = malloc(sizeof(MPI_Request) * 2 * (size_t)c.ranks);
  for (int k = 0; k < c.ranks; ++k) {
    c.counts[k] = 8;
    c.displs[k] = 8 * k;
  }
  memset(c.send, c.rank, 8 * (size_t)c.ranks);

  char library[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(library, &length);
  library[strcspn(library, "\n,")] = '\0';
  if (c.rank == 0) {
    printf("# %s, %d ranks, %d rounds of %d calls; microseconds per call (medians over rounds)\n",
           library, c.ranks, rounds, calls);
    printf("%-44s %10s %10s %10s  %s\n", "# case", "with", "without", "added", "added: min .. max");
  }
  compare("fallback: MPI_Bcast, 1 int", bcast_intercepted, bcast_pmpi, &c, rounds, calls);
  compare("fallback: MPI_Alltoallv on MPI_COMM_SELF", self_intercepted, self_pmpi, &c, rounds,
          calls);
  compare("fallback: MPI_Alltoallv, all counts 0", empty_intercepted, empty_pmpi, &c, rounds,
          calls);
  compare("cache hit: MPI_Alltoallv, 8 B to every rank", hit_intercepted, hit_by_hand, &c, rounds,
          calls);
  MPI_Comm_free(&c.comm);
  free(c.counts);
  free(c.displs);
  free(c.zeros);
  free(c.send);
  free(c.recv);
  free(c.requests);
  MPI_Finalize();
  return 0;
}
