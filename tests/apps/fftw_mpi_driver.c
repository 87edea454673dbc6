/* fftw_mpi_driver.c: a distributed 3-D complex DFT with FFTW's MPI interface, as a user of
 * Debian's libfftw3-mpi-dev writes it (fftw_mpi_local_size_3d, fftw_mpi_plan_dft_3d).
 *
 * Build: mpicc.openmpi -O2 -o fftw_mpi_driver fftw_mpi_driver.c -lfftw3_mpi -lfftw3 -lm
 * Run:   mpiexec.openmpi -n 3 ./fftw_mpi_driver 50 48 40 --iters 20 --planner estimate
 *
 * Each iteration restores the input (a pseudo-random function of the global index, so the same
 * for any number of ranks), runs the forward transform, keeps a copy, runs the backward
 * transform and scales; the round trip must give back the input. At the end, rank 0 prints
 * the plan FFTW chose (fftw_print_plan: "mpi-transpose-alltoall" calls MPI_Alltoall, or
 * MPI_Alltoallv when the blocks are unequal, i.e. n0 or n1 not a multiple of the ranks;
 * "mpi-transpose-pairwise" uses MPI_Sendrecv), then one line per rank with a hash of the
 * forward output's bytes and the round trip's error, and one "result" line.
 *
 * The results are collected with MPI_Gather only, so a library replacing MPI_Allreduce cannot
 * change what is printed: the hashes must be bit-identical with and without it, since the
 * transposes only move bytes. The planner itself calls MPI_Allreduce/MPI_Bcast (e.g. to agree
 * on the plan): with --planner measure the choice depends on timings, so two runs may pick
 * different plans and round differently; compare runs with --planner estimate.
 */
#include <fftw3-mpi.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
static double unit(uint64_t x) { return (double)(splitmix(x) >> 11) / 9007199254740992.0 - 0.5; }

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *c = p;
  for (size_t i = 0; i < n; ++i) { h ^= c[i]; h *= 1099511628211ull; }
  return h;
}

static void usage(void) {
  fprintf(stderr, "usage: fftw_mpi_driver N0 N1 N2 [--iters K] [--planner estimate|measure|patient]"
                  " [--transposed-out] [--in-place] [--destroy-input]\n");
  exit(2);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fftw_mpi_init();
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);

  if (argc < 4) usage();
  ptrdiff_t n0 = atol(argv[1]), n1 = atol(argv[2]), n2 = atol(argv[3]);
  int iters = 10, transposed_out = 0, in_place = 0, destroy_input = 0;
  unsigned flags = FFTW_ESTIMATE;
  const char *planner = "estimate";
  for (int i = 4; i < argc; ++i) {
    if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--planner") && i + 1 < argc) {
      planner = argv[++i];
      if (!strcmp(planner, "estimate")) flags = FFTW_ESTIMATE;
      else if (!strcmp(planner, "measure")) flags = FFTW_MEASURE;
      else if (!strcmp(planner, "patient")) flags = FFTW_PATIENT;
      else usage();
    } else if (!strcmp(argv[i], "--transposed-out")) transposed_out = 1;
    else if (!strcmp(argv[i], "--in-place")) in_place = 1;
    else if (!strcmp(argv[i], "--destroy-input")) destroy_input = 1;
    else usage();
  }
  if (n0 < 1 || n1 < 1 || n2 < 1 || iters < 1) usage();

  /* local_n0 rows of n1 x n2 on input; with TRANSPOSED_OUT, local_n1 rows of n0 x n2 on output */
  ptrdiff_t local_n0, start0, local_n1, start1;
  ptrdiff_t alloc = fftw_mpi_local_size_3d_transposed(n0, n1, n2, MPI_COMM_WORLD, &local_n0,
                                                      &start0, &local_n1, &start1);
  fftw_complex *in = fftw_alloc_complex(alloc > 0 ? alloc : 1);
  fftw_complex *out = in_place ? in : fftw_alloc_complex(alloc > 0 ? alloc : 1);
  fftw_complex *orig = fftw_alloc_complex(alloc > 0 ? alloc : 1);
  fftw_complex *spec = fftw_alloc_complex(alloc > 0 ? alloc : 1);
  /* FFTW_DESTROY_INPUT lets the planner use the input as scratch: only then can the transposes
   * be out of place, which FFTW's MPI_Alltoall(v) transpose requires (mpi/transpose-alltoall.c). */
  if (destroy_input) flags |= FFTW_DESTROY_INPUT;
  unsigned tflag_f = transposed_out ? FFTW_MPI_TRANSPOSED_OUT : 0;
  unsigned tflag_b = transposed_out ? FFTW_MPI_TRANSPOSED_IN : 0;
  double t0 = MPI_Wtime();
  fftw_plan fwd = fftw_mpi_plan_dft_3d(n0, n1, n2, in, out, MPI_COMM_WORLD, FFTW_FORWARD,
                                       flags | tflag_f);
  fftw_plan bwd = fftw_mpi_plan_dft_3d(n0, n1, n2, out, in, MPI_COMM_WORLD, FFTW_BACKWARD,
                                       flags | tflag_b);
  double t_plan = MPI_Wtime() - t0;
  if (!fwd || !bwd) {
    if (me == 0) fprintf(stderr, "fftw_mpi_driver: FFTW could not plan this transform\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

  /* MEASURE planning overwrote the arrays: fill them now. */
  for (ptrdiff_t i = 0; i < local_n0; ++i)
    for (ptrdiff_t j = 0; j < n1; ++j)
      for (ptrdiff_t k = 0; k < n2; ++k) {
        ptrdiff_t l = (i * n1 + j) * n2 + k;
        uint64_t g = (uint64_t)(((start0 + i) * n1 + j) * n2 + k);
        orig[l][0] = unit(2 * g);
        orig[l][1] = unit(2 * g + 1);
      }
  ptrdiff_t nin = local_n0 * n1 * n2;
  ptrdiff_t nout = transposed_out ? local_n1 * n0 * n2 : nin;
  double scale = 1.0 / ((double)n0 * n1 * n2), err = 0;

  t0 = MPI_Wtime();
  for (int it = 0; it < iters; ++it) {
    memcpy(in, orig, sizeof(fftw_complex) * nin);
    fftw_execute(fwd);
    if (it == 0) memcpy(spec, out, sizeof(fftw_complex) * nout);
    else if (memcmp(spec, out, sizeof(fftw_complex) * nout) != 0) {
      fprintf(stderr, "fftw_mpi_driver: rank %d: forward output of iteration %d differs from "
                      "the first one\n", me, it);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    fftw_execute(bwd);
    for (ptrdiff_t l = 0; l < nin; ++l) {
      double dr = fabs(in[l][0] * scale - orig[l][0]), di = fabs(in[l][1] * scale - orig[l][1]);
      if (dr > err) err = dr;
      if (di > err) err = di;
    }
  }
  double t_exec = MPI_Wtime() - t0;

  /* Per-rank results gathered with MPI_Gather (not one of the calls choreo replaces). */
  struct { uint64_t hash; double err, plan_s, exec_s; } mine, *all = NULL;
  mine.hash = fnv(14695981039346656037ull, spec, sizeof(fftw_complex) * nout);
  mine.err = err;
  mine.plan_s = t_plan;
  mine.exec_s = t_exec;
  if (me == 0) all = malloc(sizeof *all * np);
  MPI_Gather(&mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE, 0, MPI_COMM_WORLD);
  if (me == 0) {
    printf("fftw_mpi_driver: %td x %td x %td complex, %d ranks, %d iterations, planner %s%s%s%s\n",
           n0, n1, n2, np, iters, planner, transposed_out ? ", transposed out" : "",
           in_place ? ", in place" : "", destroy_input ? ", destroy input" : "");
    printf("plan (forward): ");
    fflush(stdout);
    fftw_print_plan(fwd);
    printf("\nplan (backward): ");
    fflush(stdout);
    fftw_print_plan(bwd);
    printf("\n");
    double maxerr = 0, tp = 0, te = 0;
    for (int r = 0; r < np; ++r) {
      printf("rank %d forward-output fnv64 %016llx roundtrip-maxerr %.3e\n", r,
             (unsigned long long)all[r].hash, all[r].err);
      if (all[r].err > maxerr) maxerr = all[r].err;
      if (all[r].plan_s > tp) tp = all[r].plan_s;
      if (all[r].exec_s > te) te = all[r].exec_s;
    }
    printf("time: planning %.3f s, %d round trips %.3f s\n", tp, iters, te);
    int ok = maxerr < 1e-9;
    printf("result: %s (round-trip max error %.3e, limit 1e-9)\n", ok ? "passed" : "FAILED",
           maxerr);
    fflush(stdout);
    free(all);
    if (!ok) MPI_Abort(MPI_COMM_WORLD, 1);
  }
  fftw_destroy_plan(fwd);
  fftw_destroy_plan(bwd);
  fftw_free(in);
  if (!in_place) fftw_free(out);
  fftw_free(orig);
  fftw_free(spec);
  fftw_mpi_cleanup();
  MPI_Finalize();
  return 0;
}
