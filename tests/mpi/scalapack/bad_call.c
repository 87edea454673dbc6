/* One invalid ScaLAPACK redistribution call, named by the argument, which libchoreo_scalapack.so
   must refuse with one clear line naming the field and the fix, and stop the job (as ScaLAPACK's
   exit(1) does): no crash, no hang, no wrong result. Run on 2 processes. Cases:
     lld        B's leading dimension below the rows process 1 holds
     block      MB_ = 0
     source     RSRC_ outside the grid
     submatrix  IA + M - 1 beyond M_
     uplo       UPLO = 'X'
     context    ICTXT that leaves process 0 out
     disagree   A's processes pass different NB_ while process 0 is outside B's grid
     size       M < 0 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

void Cblacs_pinfo(int* mypnum, int* nprocs);
void Cblacs_get(int context, int what, int* value);
void Cblacs_gridinit(int* context, const char* order, int nprow, int npcol);
void Cblacs_gridmap(int* context, int* usermap, int ldumap, int nprow, int npcol);
void Cpdgemr2d(int m, int n, double* a, int ia, int ja, int* desca, double* b, int ib, int jb,
               int* descb, int ictxt);
void Cpdtrmr2d(char* uplo, char* diag, int m, int n, double* a, int ia, int ja, int* desca,
               double* b, int ib, int jb, int* descb, int ictxt);

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const char* what = argc > 1 ? argv[1] : "";
  int me = 0, procs = 0, all = 0, row = 0, last = -1;
  Cblacs_pinfo(&me, &procs);
  Cblacs_get(0, 0, &all);
  Cblacs_gridinit(&all, "Row", 1, procs);
  Cblacs_get(0, 0, &row);
  Cblacs_gridinit(&row, "Row", 1, procs);
  int map[1] = {procs - 1};
  Cblacs_get(0, 0, &last);
  Cblacs_gridmap(&last, map, 1, 1, 1);
  /* A and B: 8 x 8 in 2 x 2 blocks on the 1 x P row; 8 rows on every process. */
  double a[64] = {0}, b[64] = {0};
  int desca[9] = {1, row, 8, 8, 2, 2, 0, 0, 8}, descb[9] = {1, row, 8, 8, 2, 2, 0, 0, 8};
  int m = 4, ictxt = all;
  if (strcmp(what, "lld") == 0 && me == 1) descb[8] = 7;
  if (strcmp(what, "block") == 0) desca[4] = 0;
  if (strcmp(what, "source") == 0) descb[6] = 1;
  if (strcmp(what, "size") == 0) m = -1;
  if (strcmp(what, "context") == 0) ictxt = last;
  if (strcmp(what, "disagree") == 0) {
    desca[5] = me == 0 ? 2 : 4;
    descb[1] = last; /* B on the last process only: the others learn it from it */
    if (me != procs - 1) descb[1] = -1;
  }
  if (strcmp(what, "submatrix") == 0)
    Cpdgemr2d(4, 4, a, 6, 1, desca, b, 1, 1, descb, ictxt);
  else if (strcmp(what, "uplo") == 0)
    Cpdtrmr2d("X", "N", 4, 4, a, 1, 1, desca, b, 1, 1, descb, ictxt);
  else
    Cpdgemr2d(m, 4, a, 1, 1, desca, b, 1, 1, descb, ictxt);
  if (me == 0) printf("bad_call: '%s' was accepted\n", what);
  MPI_Finalize();
  return 0;
}
