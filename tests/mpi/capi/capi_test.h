/* The C API's MPI test (tests/mpi/capi): shared helpers and the cases of each wrapped module.
 * Every result is compared with what MPI's own collective (or MPI's own darray datatype)
 * gives for the same arguments, never with choreo's output. */
#ifndef CHOREO_CAPI_TEST_H
#define CHOREO_CAPI_TEST_H

#include <choreo/choreo.h>
#include <mpi.h>

extern int g_rank, g_size;

/* Counts one check; when ok is 0, prints "capi: rank R: FAILED: ..." and counts a failure. */
void expect(int ok, const char* format, ...);

/* Expects `code` and, for an error, choreo_last_error() containing `words`. */
void expect_code(int code, int expected, const char* words, const char* what);

/* A set-up step that must work: on failure the whole test stops (MPI_Abort) with the message. */
#define MUST(call) must((call), #call, __FILE__, __LINE__)
void must(int code, const char* call, const char* file, int line);

/* How many elements rank `from` sends to rank `to` in pattern 0, 1 or 2 (irregular, with
 * zero-sized messages; large; one sender). */
int pattern_count(int pattern, int from, int to);
#define PATTERNS 3

/* A value unique to (step, sender, receiver, index), exact in a double. */
double value_of(int step, int from, int to, int index);

/* Compares n doubles with the reference; reports the first difference under `what`. */
void expect_same(const double* got, const double* reference, int n, const char* what);

void exchange_cases(void);
void persist_cases(int thread_multiple);
void resilient_cases(void);
void redist_cases(void);
void error_cases(void);

#endif
