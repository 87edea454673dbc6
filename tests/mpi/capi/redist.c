/* choreo_redist_*: arrays of 1 and 2 dimensions moved between block, cyclic(n), collapsed and
 * ScaLAPACK-descriptor distributions on grids of every shape the rank count allows. The
 * reference is MPI's own reading of the same distributions, MPI_Type_create_darray: each
 * rank's source and expected target arrays are cut out of the whole array with it. */
#include <stdio.h>
#include <stdlib.h>

#include "capi_test.h"

/* One distribution as choreo's text and as darray's arguments (Fortran order: first index
 * fastest, as choreo's local arrays; darray's process grid is row-major, choreo's ":row"). */
typedef struct {
  char text[64];
  int distribs[2];
  int dargs[2];
  int psizes[2];
} Distribution;

/* This rank's local array of `d` cut from `global` by a darray type; returns its length. */
static int darray_local(const Distribution* d, int ndims, const int* gsizes, const double* global,
                        double** local) {
  MPI_Datatype type;
  MPI_Type_create_darray(g_size, g_rank, ndims, gsizes, d->distribs, d->dargs, d->psizes,
                         MPI_ORDER_FORTRAN, MPI_DOUBLE, &type);
  MPI_Type_commit(&type);
  int bytes = 0;
  MPI_Type_size(type, &bytes);
  const int n = bytes / (int)sizeof(double);
  *local = malloc(sizeof(double) * (size_t)(n + 1));
  MPI_Sendrecv(global, 1, type, 0, 0, *local, n, MPI_DOUBLE, 0, 0, MPI_COMM_SELF,
               MPI_STATUS_IGNORE);
  MPI_Type_free(&type);
  return n;
}

static void one_case(int ndims, const int* gsizes, const Distribution* from,
                     const Distribution* to) {
  int total = 1;
  int64_t shape[2];
  for (int d = 0; d < ndims; ++d) {
    total *= gsizes[d];
    shape[d] = gsizes[d];
  }
  double* global = malloc(sizeof(double) * (size_t)total);
  for (int i = 0; i < total; ++i) global[i] = i + 0.5;
  double *source = NULL, *expected = NULL;
  const int source_n = darray_local(from, ndims, gsizes, global, &source);
  const int target_n = darray_local(to, ndims, gsizes, global, &expected);
  double* target = malloc(sizeof(double) * (size_t)(target_n + 1));

  choreo_redist_t* redist = NULL;
  MUST(choreo_redist_create(MPI_COMM_WORLD, ndims, shape, from->text, to->text, MPI_DOUBLE,
                            &redist));
  int64_t source_elements = -1, target_elements = -1;
  MUST(choreo_redist_local_elements(redist, &source_elements, &target_elements));
  expect(source_elements == source_n && target_elements == target_n,
         "redist %s -> %s: local arrays of %lld and %lld elements, darray says %d and %d",
         from->text, to->text, (long long)source_elements, (long long)target_elements, source_n,
         target_n);
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < target_n; ++i) target[i] = -1.0;
    MUST(choreo_redist_execute(redist, source, target));
    char what[192];
    snprintf(what, sizeof what, "redist %s -> %s, round %d", from->text, to->text, round);
    expect_same(target, expected, target_n, what);
  }
  MUST(choreo_redist_free(&redist));
  expect(redist == NULL, "choreo_redist_free left the handle set");
  free(global);
  free(source);
  free(expected);
  free(target);
}

static Distribution dist2(int kind0, int arg0, int kind1, int arg1, int p, int q) {
  Distribution d;
  d.distribs[0] = kind0;
  d.distribs[1] = kind1;
  d.dargs[0] = arg0;
  d.dargs[1] = arg1;
  d.psizes[0] = p;
  d.psizes[1] = q;
  d.text[0] = '\0';
  return d;
}

void redist_cases(void) {
  const int dflt = MPI_DISTRIBUTE_DFLT_DARG;
  const int block = MPI_DISTRIBUTE_BLOCK, cyclic = MPI_DISTRIBUTE_CYCLIC;
  const int none = MPI_DISTRIBUTE_NONE;
  const int s = g_size;
  int p = 1; /* p x q = s with p <= q */
  for (int f = 1; f * f <= s; ++f)
    if (s % f == 0) p = f;
  const int q = s / p;
  const int matrix[2] = {37, 23};

  Distribution from = dist2(block, dflt, block, dflt, p, q);
  Distribution to = dist2(cyclic, 3, cyclic, 2, q, p);
  snprintf(from.text, sizeof from.text, "block,block@%dx%d:row", p, q);
  snprintf(to.text, sizeof to.text, "cyclic(3),cyclic(2)@%dx%d:row", q, p);
  one_case(2, matrix, &from, &to);
  one_case(2, matrix, &to, &from);

  from = dist2(none, dflt, cyclic, 5, 1, s);
  to = dist2(cyclic, 2, none, dflt, s, 1);
  snprintf(from.text, sizeof from.text, "*,cyclic(5)@%d", s);
  snprintf(to.text, sizeof to.text, "cyclic(2),*@%d", s);
  one_case(2, matrix, &from, &to);

  /* A ScaLAPACK descriptor on a 1 x s BLACS grid: every rank holds all 37 rows (LLD 37). */
  from = dist2(cyclic, 4, cyclic, 3, 1, s);
  to = dist2(cyclic, 1, block, dflt, p, q);
  snprintf(from.text, sizeof from.text, "desc:37,23,4,3,0,0,37@1x%d", s);
  snprintf(to.text, sizeof to.text, "cyclic,block@%dx%d:row", p, q);
  one_case(2, matrix, &from, &to);

  const int vector[1] = {101};
  from = dist2(cyclic, 4, none, dflt, s, 1);
  to = dist2(block, dflt, none, dflt, s, 1);
  snprintf(from.text, sizeof from.text, "cyclic(4)@%d", s);
  snprintf(to.text, sizeof to.text, "block@%d", s);
  one_case(1, vector, &from, &to);
}
