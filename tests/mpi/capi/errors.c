/* Errors: bad arguments give CHOREO_ERR_ARG with a message naming the problem, on every rank
 * alike when only one rank passed them (nobody left waiting); misuse gives CHOREO_ERR_STATE;
 * the message is per thread and survives successful calls. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi_test.h"

#define MAX_RANKS 64

/* A small all-to-all of one double per pair; `skew` makes rank 0 send one more to rank 1. */
static int exchange_with(int skew, int null_counts_on, int null_handle_on, int algorithm,
                         choreo_exchange_t** exchange) {
  static double send[MAX_RANKS + 1], recv[MAX_RANKS + 1];
  int sendcounts[MAX_RANKS], sdispls[MAX_RANKS], recvcounts[MAX_RANKS], rdispls[MAX_RANKS];
  for (int peer = 0; peer < g_size; ++peer) {
    sendcounts[peer] = recvcounts[peer] = 1;
    sdispls[peer] = rdispls[peer] = peer;
  }
  if (skew && g_rank == 0) sendcounts[1 % g_size] = 2;
  choreo_exchange_options_t options;
  choreo_exchange_options_init(&options);
  options.algorithm = algorithm;
  return choreo_exchange_create(MPI_COMM_WORLD, send, g_rank == null_counts_on ? NULL : sendcounts,
                                sdispls, MPI_DOUBLE, recv, recvcounts, rdispls, MPI_DOUBLE,
                                &options, g_rank == null_handle_on ? NULL : exchange);
}

static void exchange_errors(void) {
  choreo_exchange_t* exchange = NULL;
  /* Only rank 0 forgets where the handle goes, only the last rank passes NULL counts: every
   * rank must return the same error, and no handle. */
  expect_code(exchange_with(0, -1, 0, CHOREO_EXCHANGE_AUTO, &exchange), CHOREO_ERR_ARG,
              "exchange (where the handle goes) is NULL", "create with a NULL handle address");
  expect(exchange == NULL, "a failed create left a handle");
  expect_code(exchange_with(0, g_size - 1, -1, CHOREO_EXCHANGE_AUTO, &exchange), CHOREO_ERR_ARG,
              "send_counts or send_displacements is null", "create with NULL counts on one rank");
  expect(exchange == NULL, "a failed create left a handle");
  if (g_size > 1) {
    expect_code(exchange_with(1, -1, -1, CHOREO_EXCHANGE_AUTO, &exchange), CHOREO_ERR_ARG,
                "expects", "create with mismatched counts");
    expect(exchange == NULL, "a failed create left a handle");
  }
  expect_code(exchange_with(0, -1, -1, 99, &exchange), CHOREO_ERR_ARG, "unknown algorithm 99",
              "create with algorithm 99");
  int counts[1] = {0};
  expect_code(choreo_exchange_create(MPI_COMM_NULL, NULL, counts, counts, MPI_DOUBLE, NULL, counts,
                                     counts, MPI_DOUBLE, NULL, &exchange),
              CHOREO_ERR_ARG, "MPI_COMM_NULL", "create on MPI_COMM_NULL");

  /* Misuse of a good handle. */
  MUST(exchange_with(0, -1, -1, CHOREO_EXCHANGE_RING, &exchange));
  expect_code(choreo_exchange_wait(exchange), CHOREO_ERR_STATE, "not started", "wait before start");
  int done = 0;
  expect_code(choreo_exchange_test(exchange, &done), CHOREO_ERR_STATE, "not started",
              "test before start");
  MUST(choreo_exchange_start(exchange));
  expect_code(choreo_exchange_start(exchange), CHOREO_ERR_STATE, "already", "start twice");
  expect_code(choreo_exchange_test(exchange, NULL), CHOREO_ERR_ARG, "done is NULL",
              "test with done NULL");
  MUST(choreo_exchange_wait(exchange));
  MUST(choreo_exchange_free(&exchange));
  expect_code(choreo_exchange_start(NULL), CHOREO_ERR_ARG, "exchange is NULL", "start(NULL)");
  expect_code(choreo_exchange_free(&exchange), CHOREO_SUCCESS, NULL, "free of a NULL handle");
  expect_code(choreo_exchange_free(NULL), CHOREO_SUCCESS, NULL, "free(NULL)");
}

static void persist_errors(void) {
  double buf[8] = {0};
  choreo_request_t* request = NULL;
  choreo_persist_options_t options;
  choreo_persist_options_init(&options);
  options.engine = 7;
  expect_code(choreo_bcast_init(buf, 8, MPI_DOUBLE, 0, MPI_COMM_WORLD, &options, &request),
              CHOREO_ERR_ARG, "not an engine", "bcast_init with engine 7");
  expect(request == NULL, "a failed init left a handle");
  choreo_persist_options_init(&options);
  options.algorithm = "nope";
  expect_code(choreo_allgather_init(buf, buf, 1, MPI_DOUBLE, MPI_COMM_WORLD, &options, &request),
              CHOREO_ERR_ARG, "nope", "allgather_init with algorithm 'nope'");
  if (g_size > 1)
    expect_code(choreo_allreduce_init(MPI_IN_PLACE, buf, g_rank == 0 ? 4 : 8, MPI_DOUBLE, MPI_SUM,
                                      MPI_COMM_WORLD, NULL, &request),
                CHOREO_ERR_ARG, "ranks passed different", "allreduce_init, counts differ");
  expect_code(choreo_bcast_init(buf, 8, MPI_DOUBLE, 0, MPI_COMM_WORLD, NULL,
                                g_rank == g_size - 1 ? NULL : &request),
              CHOREO_ERR_ARG, "request (where the handle goes) is NULL",
              "bcast_init with a NULL handle address on one rank");
  expect(request == NULL, "a failed init left a handle");

  MUST(choreo_bcast_init(buf, 8, MPI_DOUBLE, 0, MPI_COMM_WORLD, NULL, &request));
  expect_code(choreo_request_wait(request), CHOREO_ERR_STATE, NULL, "request wait before start");
  MUST(choreo_request_start(request));
  expect_code(choreo_request_start(request), CHOREO_ERR_STATE, NULL, "request start twice");
  MUST(choreo_request_wait(request));
  MUST(choreo_request_free(&request));
  expect_code(choreo_request_free(&request), CHOREO_SUCCESS, NULL, "free of a NULL request");
}

static void resilient_and_redist_errors(void) {
  double x[4] = {1, 2, 3, 4}, y[4];
  expect_code(choreo_resilient_allreduce(x, y, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, 40),
              CHOREO_ERR_ARG, "40", "resilient allreduce with T 40");
  expect_code(choreo_resilient_allreduce(x, y, 4, MPI_DOUBLE, MPI_OP_NULL, MPI_COMM_WORLD, 0),
              CHOREO_ERR_ARG, "MPI_OP_NULL", "resilient allreduce with MPI_OP_NULL");
  expect_code(choreo_resilient_allreduce(x, y, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_NULL, 0),
              CHOREO_ERR_ARG, "MPI_COMM_NULL", "resilient allreduce on MPI_COMM_NULL");

  const int64_t shape[2] = {10, 10};
  choreo_redist_t* redist = NULL;
  char grid[32];
  snprintf(grid, sizeof grid, "block,block@1x%d", g_size);
  expect_code(choreo_redist_create(MPI_COMM_WORLD, 2, shape, "cyclic(0),cyclic@1x1", grid,
                                   MPI_DOUBLE, &redist),
              CHOREO_ERR_ARG, "cyclic(0)", "redist from cyclic(0)");
  expect_code(choreo_redist_create(MPI_COMM_WORLD, 2, shape, "desc:10,12,2,2,0,0,10@1x1", grid,
                                   MPI_DOUBLE, &redist),
              CHOREO_ERR_ARG, "describes an array of 10x12 but shape[] is 10x10",
              "redist from a descriptor of another shape");
  expect_code(choreo_redist_create(MPI_COMM_WORLD, 0, shape, grid, grid, MPI_DOUBLE, &redist),
              CHOREO_ERR_ARG, "ndims is 0", "redist with 0 dimensions");
  expect_code(choreo_redist_create(MPI_COMM_WORLD, 2, shape, g_rank == 0 ? NULL : grid, grid,
                                   MPI_DOUBLE, &redist),
              CHOREO_ERR_ARG, "from is NULL", "redist with no source text on rank 0");
  expect(redist == NULL, "a failed create left a handle");
  /* Every rank holds data and passes no arrays: each finds it before communicating. */
  MUST(choreo_redist_create(MPI_COMM_WORLD, 2, shape, grid, "cyclic,cyclic@1x1", MPI_DOUBLE,
                            &redist));
  expect_code(choreo_redist_execute(redist, NULL, NULL), CHOREO_ERR_ARG, "pass its local array",
              "redist execute without arrays");
  MUST(choreo_redist_free(&redist));
}

/* The message belongs to the thread whose call failed. */
static void* fail_in_thread(void* message) {
  choreo_request_start(NULL);
  strncpy(message, choreo_last_error(), 255);
  return NULL;
}

static void last_error_semantics(void) {
  choreo_exchange_start(NULL);
  char before[256];
  strncpy(before, choreo_last_error(), sizeof before - 1);
  before[sizeof before - 1] = '\0';
  /* A successful call leaves the message alone. */
  MUST(choreo_resilient_allreduce_complete(MPI_COMM_WORLD));
  expect(strcmp(before, choreo_last_error()) == 0, "a successful call changed the last error");
  char in_thread[256] = {0};
  pthread_t thread;
  expect(pthread_create(&thread, NULL, fail_in_thread, in_thread) == 0, "pthread_create");
  pthread_join(thread, NULL);
  expect(strstr(in_thread, "choreo_request_start: request is NULL") != NULL,
         "the thread's own message is '%s'", in_thread);
  expect(strcmp(before, choreo_last_error()) == 0,
         "another thread's failure changed this thread's message to '%s'", choreo_last_error());
  expect(strstr(before, "choreo_exchange_start: exchange is NULL") != NULL,
         "the message names the function: '%s'", before);
}

static void names(void) {
  expect(strcmp(choreo_error_name(CHOREO_ERR_ARG), "CHOREO_ERR_ARG") == 0, "error name");
  expect(strcmp(choreo_error_name(CHOREO_ERR_STATE), "CHOREO_ERR_STATE") == 0, "error name");
  expect(strcmp(choreo_error_name(12345), "unknown error code") == 0, "unknown error name");
  expect(strcmp(choreo_version(), CHOREO_EXPECTED_VERSION) == 0, "choreo_version() is '%s'",
         choreo_version());
}

void error_cases(void) {
  if (g_size > MAX_RANKS) return;
  exchange_errors();
  persist_errors();
  resilient_and_redist_errors();
  last_error_semantics();
  names();
}
