/* The C API (include/choreo/choreo.h) under mpiexec, from C99: the neighbour exchange, the
 * persistent collectives, the resilient allreduce and redistribution against MPI's own
 * results, then the error codes and messages. Prints "capi: N cases OK" on rank 0 and exits 0
 * only when every check passed on every rank. */
#define _POSIX_C_SOURCE 200809L
#include "capi_test.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int g_rank = 0, g_size = 1;
static long g_cases = 0, g_failures = 0;

void expect(int ok, const char* format, ...) {
  ++g_cases;
  if (ok) return;
  ++g_failures;
  va_list args;
  va_start(args, format);
  fprintf(stderr, "capi: rank %d: FAILED: ", g_rank);
  vfprintf(stderr, format, args);
  fprintf(stderr, "\n");
  va_end(args);
}

void expect_code(int code, int expected, const char* words, const char* what) {
  const char* message = choreo_last_error();
  expect(code == expected, "%s: returned %s, expected %s (last error: %s)", what,
         choreo_error_name(code), choreo_error_name(expected), message);
  if (expected != CHOREO_SUCCESS && words != NULL)
    expect(strstr(message, words) != NULL, "%s: the message '%s' does not say '%s'", what, message,
           words);
}

void must(int code, const char* call, const char* file, int line) {
  if (code == CHOREO_SUCCESS) return;
  fprintf(stderr, "capi: rank %d: %s:%d: %s returned %s: %s\n", g_rank, file, line, call,
          choreo_error_name(code), choreo_last_error());
  MPI_Abort(MPI_COMM_WORLD, 1);
}

int pattern_count(int pattern, int from, int to) {
  switch (pattern) {
    case 0:
      return (from * 7 + to * 3 + 1) % 5;
    case 1:
      return from == to ? 0 : 1000 + 37 * from + to;
    default:
      return from == 0 ? 64 : 0;
  }
}

double value_of(int step, int from, int to, int index) {
  return step * 1e8 + from * 1e6 + to * 1e4 + index;
}

void expect_same(const double* got, const double* reference, int n, const char* what) {
  int first = -1, wrong = 0;
  for (int i = 0; i < n; ++i)
    if (got[i] != reference[i] && wrong++ == 0) first = i;
  expect(wrong == 0, "%s: %d of %d elements differ from MPI's, the first at %d: %g, not %g", what,
         wrong, n, first, first >= 0 ? got[first] : 0.0, first >= 0 ? reference[first] : 0.0);
}

int main(int argc, char** argv) {
  /* Before MPI_Init and after MPI_Finalize: CHOREO_ERR_MPI, found without another MPI call. */
  double x = 1;
  const int before_init =
      choreo_resilient_allreduce(&x, &x, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, 0);
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  expect_code(before_init, CHOREO_ERR_MPI, "MPI is not initialised", "a call before MPI_Init");

  exchange_cases();
  persist_cases(provided == MPI_THREAD_MULTIPLE);
  resilient_cases();
  redist_cases();
  error_cases();

  long totals[2] = {g_cases, g_failures}, sums[2] = {0, 0};
  MPI_Allreduce(totals, sums, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) {
    if (sums[1] == 0)
      printf("capi: %ld cases OK\n", sums[0]);
    else
      printf("capi: %ld of %ld cases FAILED\n", sums[1], sums[0]);
  }
  MPI_Finalize();
  const int after_finalize = choreo_resilient_allreduce_complete(MPI_COMM_WORLD);
  if (after_finalize != CHOREO_ERR_MPI || strstr(choreo_last_error(), "finalised") == NULL) {
    fprintf(stderr, "capi: rank %d: FAILED: a call after MPI_Finalize returned %s: %s\n", g_rank,
            choreo_error_name(after_finalize), choreo_last_error());
    return 1;
  }
  return sums[1] == 0 ? 0 : 1;
}
