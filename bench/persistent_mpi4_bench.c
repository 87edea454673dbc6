/* MPI-4's persistent collectives as a program gets them through libchoreo_pmpi.so, side by side
 * in one run with the MPI library's own: for MPI_Bcast_init and MPI_Allreduce_init (doubles,
 * MPI_SUM) at 8 B to 1 MiB,
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

enum { kSubjects = 4, kSizes = 4, kMaxReps = 2000 };
static const char* const kSubjectNames[kSubjects] = {"drop-in", "library", "nonblocking",
                                                     "blocking"};
static const int kBytes[kSizes] = {8, 1024, 65536, 1048576};

typedef int (*BcastInit)(void*, int, MPI_Datatype, int, MPI_Comm, MPI_Info, MPI_Request*);
typedef int (*AllreduceInit)(const void*, void*, int, MPI_Datatype, MPI_Op, MPI_Comm, MPI_Info,
                             MPI_Request*);

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
  int allreduce; /* 0: bcast */
  int count;
  double *buf, *in;
  MPI_Request dropin, library;
} Case;

/* One repetition of `subject`: start..wait after a barrier; the slowest rank's seconds. */
static double run(Case* c, int subject) {
  MPI_Request r = MPI_REQUEST_NULL;
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  switch (subject) {
    case 0:
      MPI_Start(&c->dropin);
      MPI_Wait(&c->dropin, MPI_STATUS_IGNORE);
      break;
    case 1:
      MPI_Start(&c->library);
      MPI_Wait(&c->library, MPI_STATUS_IGNORE);
      break;
    case 2:
      if (c->allreduce)
        MPI_Iallreduce(c->in, c->buf, c->count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r);
      else
        MPI_Ibcast(c->buf, c->count, MPI_DOUBLE, 0, MPI_COMM_WORLD, &r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      break;
    default:
      if (c->allreduce)
        MPI_Allreduce(c->in, c->buf, c->count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      else
        MPI_Bcast(c->buf, c->count, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  }
  double mine = MPI_Wtime() - start, slowest = 0;
  MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

/* The drop-in's result, from inputs rank r holds as r + i: 0 wrong elements expected. */
static int ranks = 1;

static int wrong_elements(const Case* c) {
  int wrong = 0;
  for (int i = 0; i < c->count; ++i) {
    const double expected = c->allreduce ? (double)ranks * i + ranks * (ranks - 1) / 2.0 : i;
    wrong += c->buf[i] != expected;
  }
  return wrong;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  int reps = argc > 1 ? atoi(argv[1]) : 300;
  if (reps < 4 || reps > kMaxReps) {
    if (rank == 0) fprintf(stderr, "persistent_mpi4_bench: REPS must be 4 to %d\n", kMaxReps);
    MPI_Finalize();
    return 1;
  }
  const BcastInit bcast_init = (BcastInit)library_function("Bcast_init");
  const AllreduceInit allreduce_init = (AllreduceInit)library_function("Allreduce_init");
  if (!bcast_init || !allreduce_init) {
    if (rank == 0)
      fprintf(stderr,
              "persistent_mpi4_bench: this MPI library has no persistent collectives of "
              "its own (neither PMPI_Bcast_init nor PMPIX_Bcast_init)\n");
    MPI_Finalize();
    return 1;
  }
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(version, &length);
  version[strcspn(version, "\n")] = '\0';
  const char* setting = getenv("CHOREO_PERSISTENT");
  if (rank == 0)
    printf(
        "# %d ranks, %s, CHOREO_PERSISTENT=%s, %d repetitions per subject, seconds\n"
        "collective,bytes,subject,median,q1,q3,dropin_over_library,dropin_over_nonblocking\n",
        ranks, version, setting ? setting : "(unset)", reps);
  /* Every request is made first and freed at the end: MPICH 4.0.2 hangs when a freed
     persistent collective's handle comes back for another request (docs/intercept.md). */
  static Case cases[2][kSizes];
  for (int allreduce = 0; allreduce < 2; ++allreduce)
    for (int s = 0; s < kSizes; ++s) {
      Case* c = &cases[allreduce][s];
      c->allreduce = allreduce;
      c->count = kBytes[s] / 8;
      c->buf = calloc((size_t)c->count, sizeof(double));
      c->in = calloc((size_t)c->count, sizeof(double));
      for (int i = 0; i < c->count; ++i) c->in[i] = rank + i;
      if (allreduce) {
        MPI_Allreduce_init(c->in, c->buf, c->count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD,
                           MPI_INFO_NULL, &c->dropin);
        allreduce_init(c->in, c->buf, c->count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                       &c->library);
      } else {
        if (rank == 0) memcpy(c->buf, c->in, sizeof(double) * (size_t)c->count);
        MPI_Bcast_init(c->buf, c->count, MPI_DOUBLE, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &c->dropin);
        bcast_init(c->buf, c->count, MPI_DOUBLE, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &c->library);
      }
    }
  static double times[kSubjects][kMaxReps];
  int failures = 0;
  for (int allreduce = 0; allreduce < 2; ++allreduce) {
    for (int s = 0; s < kSizes; ++s) {
      Case* c = &cases[allreduce][s];
      for (int k = 0; k < 12; ++k) /* warm-up: past choreo's measurement in its own bcast */
        for (int subject = 0; subject < kSubjects; ++subject) run(c, subject);
      for (int rep = 0; rep < reps; ++rep)
        for (int k = 0; k < kSubjects; ++k) {
          const int subject = (rep + k) % kSubjects;
          times[subject][rep] = run(c, subject);
        }
      if (!allreduce && rank != 0) memset(c->buf, 0, sizeof(double) * (size_t)c->count);
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
          printf("%s,%d,%s,%.9f,%.9f,%.9f,%.3f,%.3f\n", allreduce ? "allreduce" : "bcast",
                 kBytes[s], kSubjectNames[subject], medians[subject], q1[subject], q3[subject],
                 medians[0] / medians[1], medians[0] / medians[2]);
        if (total) printf("# FAILED: the drop-in's result has %d wrong elements\n", total);
        fflush(stdout);
      }
    }
  }
  for (int allreduce = 0; allreduce < 2; ++allreduce)
    for (int s = 0; s < kSizes; ++s) {
      MPI_Request_free(&cases[allreduce][s].dropin);
      MPI_Request_free(&cases[allreduce][s].library);
      free(cases[allreduce][s].buf);
      free(cases[allreduce][s].in);
    }
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
