/* A C program that uses ScaLAPACK's redistribution as its users do: BLACS grids from
   Cblacs_gridinit and Cblacs_gridmap, descriptors from descinit_, local sizes from numroc_,
   then pdgemr2d_ (the Fortran routine, arguments by reference), Cpdgemr2d, Cpdtrmr2d and
   Cpzgemr2d (the C ones), on submatrices at offsets, with a grid that leaves rank 0 out (it
   passes DESC(CTXT_) = -1). Every element of every target is checked against the formula of
   the source's global index, the untouched ones too. Built against libchoreo_scalapack.so
   linked before ScaLAPACK, and against ScaLAPACK alone (then run with the library preloaded).

   With an argument REPORT.json (CHOREO_REPORT), rank 0 reads the report after MPI_Finalize
   and checks that it counted every call. Prints "scalapack_c_user: OK". */
#include <complex.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void Cblacs_pinfo(int* mypnum, int* nprocs);
void Cblacs_get(int context, int what, int* value);
void Cblacs_gridinit(int* context, const char* order, int nprow, int npcol);
void Cblacs_gridmap(int* context, int* usermap, int ldumap, int nprow, int npcol);
void Cblacs_gridinfo(int context, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int context);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb,
               const int* irsrc, const int* icsrc, const int* ictxt, const int* lld, int* info);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void pdgemr2d_(const int* m, const int* n, double* a, const int* ia, const int* ja,
               const int* desca, double* b, const int* ib, const int* jb, const int* descb,
               const int* ictxt);
void Cpdgemr2d(int m, int n, double* a, int ia, int ja, int* desca, double* b, int ib, int jb,
               int* descb, int ictxt);
void Cpdtrmr2d(char* uplo, char* diag, int m, int n, double* a, int ia, int ja, int* desca,
               double* b, int ib, int jb, int* descb, int ictxt);
void Cpzgemr2d(int m, int n, double complex* a, int ia, int ja, int* desca, double complex* b,
               int ib, int jb, int* descb, int ictxt);

static int failures = 0;

/* A distributed matrix on this process: descriptor, local array, and its grid. */
typedef struct {
  int desc[9];
  int rows, cols, lld, nprow, npcol, myrow, mycol;
  double complex* data;
} Matrix;

static Matrix make(int context, int m, int n, int mb, int nb, int rsrc, int csrc, int pad) {
  Matrix x;
  memset(&x, 0, sizeof x);
  Cblacs_gridinfo(context, &x.nprow, &x.npcol, &x.myrow, &x.mycol);
  if (x.myrow < 0) {
    x.desc[1] = -1; /* not in this grid */
    x.data = malloc(sizeof(double complex));
    return x;
  }
  x.rows = numroc_(&m, &mb, &x.myrow, &rsrc, &x.nprow);
  x.cols = numroc_(&n, &nb, &x.mycol, &csrc, &x.npcol);
  x.lld = (x.rows > 0 ? x.rows : 1) + pad; /* each process its own LLD */
  int info = 0;
  descinit_(x.desc, &m, &n, &mb, &nb, &rsrc, &csrc, &context, &x.lld, &info);
  if (info != 0) {
    fprintf(stderr, "scalapack_c_user: descinit_ INFO = %d\n", info);
    exit(2);
  }
  x.data = calloc((size_t)(x.lld * (x.cols > 0 ? x.cols : 1)), sizeof(double complex));
  return x;
}

static int global_of(int local, int nb, int proc, int first, int procs) {
  const int distance = ((proc - first) % procs + procs) % procs;
  return (local / nb * procs + distance) * nb + local % nb;
}

static double source_value(int i, int j) { return i * 1000.0 + j + 1; }
static double target_value(int i, int j) { return -(i * 1000.0 + j + 1) - 0.5; }

/* Fills (as_complex: both parts) x with f(global row, global column). */
static void fill(Matrix* x, double (*f)(int, int), int as_complex) {
  if (x->myrow < 0) return;
  double* reals = (double*)x->data;
  for (int c = 0; c < x->cols; ++c)
    for (int r = 0; r < x->rows; ++r) {
      const int i = global_of(r, x->desc[4], x->myrow, x->desc[6], x->nprow);
      const int j = global_of(c, x->desc[5], x->mycol, x->desc[7], x->npcol);
      if (as_complex)
        x->data[r + c * x->lld] = f(i, j) + I * (f(i, j) + 0.25);
      else
        reals[r + c * x->lld] = f(i, j);
    }
}

/* Checks x after the m x n submatrix of A at (ia, ja) went to (ib, jb) (1-based); uplo 0 for
   all of it, 'U' or 'L' for a trapezoid with the diagonal. */
static void check(const char* what, const Matrix* x, int m, int n, int ia, int ja, int ib, int jb,
                  char uplo, int as_complex) {
  if (x->myrow < 0) return;
  const double* reals = (const double*)x->data;
  int wrong = 0;
  for (int c = 0; c < x->cols; ++c)
    for (int r = 0; r < x->rows; ++r) {
      const int i = global_of(r, x->desc[4], x->myrow, x->desc[6], x->nprow);
      const int j = global_of(c, x->desc[5], x->mycol, x->desc[7], x->npcol);
      const int si = i - (ib - 1), sj = j - (jb - 1); /* in the submatrix */
      int moved = si >= 0 && sj >= 0 && si < m && sj < n;
      if (moved && uplo == 'U') moved = si <= sj + (m > n ? m - n : 0);
      if (moved && uplo == 'L') moved = si >= sj - (n > m ? n - m : 0);
      const double want = moved ? source_value(si + ia - 1, sj + ja - 1) : target_value(i, j);
      if (as_complex) {
        const double complex got = x->data[r + c * x->lld];
        wrong += creal(got) != want || cimag(got) != want + 0.25;
      } else {
        wrong += reals[r + c * x->lld] != want;
      }
    }
  if (wrong > 0) {
    ++failures;
    fprintf(stderr, "scalapack_c_user: FAILED: %s: %d wrong elements on process (%d,%d)\n", what,
            wrong, x->myrow, x->mycol);
  }
}

/* The "calls" of `routine` in a choreo.report/1 file, or -1. */
static long calls_in_report(const char* path, const char* routine) {
  FILE* f = fopen(path, "r");
  if (f == NULL) return -1;
  static char text[1 << 16];
  const size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = 0;
  char key[64];
  snprintf(key, sizeof key, "\"%s\"", routine);
  const char* at = strstr(text, key);
  if (at == NULL) return -1;
  at = strstr(at, "\"calls\":");
  return at == NULL ? -1 : strtol(at + 8, NULL, 10);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, procs = 0;
  Cblacs_pinfo(&me, &procs);
  /* The context spanning everyone, a 1 x P row, a P x 1 column in "Col" order, and (with two
     or more processes) a grid of everyone but rank 0, mapped in reverse. */
  int all = 0, row = 0, column = 0, rest = -1;
  Cblacs_get(0, 0, &all);
  Cblacs_gridinit(&all, "Row", 1, procs);
  Cblacs_get(0, 0, &row);
  Cblacs_gridinit(&row, "Row", 1, procs);
  Cblacs_get(0, 0, &column);
  Cblacs_gridinit(&column, "Col", procs, 1);
  if (procs >= 2) {
    int map[8];
    for (int k = 0; k < procs - 1; ++k) map[k] = procs - 1 - k;
    Cblacs_get(0, 0, &rest);
    Cblacs_gridmap(&rest, map, 1, 1, procs - 1);
  } else {
    rest = column;
  }

  /* pdgemr2d_ (Fortran), then Cpdgemr2d three times (the plan cache), then the trapezoid. */
  const int m = 20, n = 25, ia = 3, ja = 2, ib = 5, jb = 4;
  Matrix a = make(row, 37, 29, 3, 3, 0, procs - 1, 0);
  fill(&a, source_value, 0);
  for (int round = 0; round < 5; ++round) {
    Matrix b = make(round % 2 == 0 ? column : rest, 30, 33, 5, 2, 0, 0, round);
    fill(&b, target_value, 0);
    char uplo = 0;
    if (round == 0) {
      pdgemr2d_(&m, &n, (double*)a.data, &ia, &ja, a.desc, (double*)b.data, &ib, &jb, b.desc, &all);
    } else if (round < 4) {
      Cpdgemr2d(m, n, (double*)a.data, ia, ja, a.desc, (double*)b.data, ib, jb, b.desc, all);
    } else {
      uplo = 'U';
      Cpdtrmr2d("U", "N", m, n, (double*)a.data, ia, ja, a.desc, (double*)b.data, ib, jb, b.desc,
                all);
    }
    char what[32];
    snprintf(what, sizeof what, "round %d", round);
    check(what, &b, m, n, ia, ja, ib, jb, uplo, 0);
    free(b.data);
  }
  /* Complex doubles, lower trapezoid left to pzgemr2d's whole submatrix. */
  Matrix z = make(column, 37, 29, 4, 3, procs - 1, 0, 1);
  fill(&z, source_value, 1);
  Matrix w = make(rest, 30, 33, 2, 5, 0, 0, 2);
  fill(&w, target_value, 1);
  Cpzgemr2d(m, n, z.data, ia, ja, z.desc, w.data, ib, jb, w.desc, all);
  check("pzgemr2d", &w, m, n, ia, ja, ib, jb, 0, 1);

  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  if (me == 0 && argc > 1) {
    const long gemr = calls_in_report(argv[1], "pdgemr2d");
    const long trmr = calls_in_report(argv[1], "pdtrmr2d");
    const long zgemr = calls_in_report(argv[1], "pzgemr2d");
    if (gemr != 4L * procs || trmr != procs || zgemr != procs) {
      fprintf(stderr,
              "scalapack_c_user: FAILED: %s counts pdgemr2d %ld, pdtrmr2d %ld, pzgemr2d %ld "
              "calls; expected %d, %d, %d\n",
              argv[1], gemr, trmr, zgemr, 4 * procs, procs, procs);
      ++total;
    }
  }
  if (me == 0 && total == 0) printf("scalapack_c_user: OK\n");
  return total == 0 ? 0 : 1;
}
