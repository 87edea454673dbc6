/* choreo_*_init and choreo_request_*: each persistent collective, engine and a few algorithms,
 * two rounds with fresh data (the second completed with choreo_request_test), compared with
 * MPI_Bcast, MPI_Allreduce, MPI_Allgather and MPI_Alltoallv on the same data. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi_test.h"

/* Completes a started request: round 0 with wait, round 1 by testing until done. */
static void complete(choreo_request_t* request, int round) {
  if (round == 0) {
    MUST(choreo_request_wait(request));
    return;
  }
  int done = 0;
  while (!done) MUST(choreo_request_test(request, &done));
}

static void describe(char* what, size_t size, const char* collective, int engine,
                     const char* algorithm, int round) {
  snprintf(what, size, "%s, engine %d, algorithm %s, round %d", collective, engine,
           algorithm != NULL ? algorithm : "(default)", round);
}

static void bcast_case(const choreo_persist_options_t* options) {
  enum { count = 1001 };
  static double buf[count], reference[count];
  const int root = g_size - 1;
  choreo_request_t* request = NULL;
  MUST(choreo_bcast_init(buf, count, MPI_DOUBLE, root, MPI_COMM_WORLD, options, &request));
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < count; ++i)
      buf[i] = reference[i] = g_rank == root ? value_of(round, root, 0, i) : -1.0;
    MUST(choreo_request_start(request));
    complete(request, round);
    MPI_Bcast(reference, count, MPI_DOUBLE, root, MPI_COMM_WORLD);
    char what[128];
    describe(what, sizeof what, "bcast", options->engine, options->algorithm, round);
    expect_same(buf, reference, count, what);
  }
  MUST(choreo_request_free(&request));
  expect(request == NULL, "choreo_request_free left the handle set");
}

static void allreduce_case(const choreo_persist_options_t* options, int in_place) {
  enum { count = 777 };
  static double send[count], recv[count], reference[count];
  choreo_request_t* request = NULL;
  MUST(choreo_allreduce_init(in_place ? MPI_IN_PLACE : send, recv, count, MPI_DOUBLE,
                             in_place ? MPI_MAX : MPI_SUM, MPI_COMM_WORLD, options, &request));
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < count; ++i) {
      send[i] = value_of(round, g_rank, 0, i) - 5e5 * (g_rank % 2);
      recv[i] = in_place ? send[i] : -1.0;
    }
    MUST(choreo_request_start(request));
    complete(request, round);
    MPI_Allreduce(send, reference, count, MPI_DOUBLE, in_place ? MPI_MAX : MPI_SUM, MPI_COMM_WORLD);
    char what[128];
    describe(what, sizeof what, in_place ? "allreduce in place (max)" : "allreduce (sum)",
             options->engine, options->algorithm, round);
    expect_same(recv, reference, count, what);
  }
  MUST(choreo_request_free(&request));
}

static void allgather_case(const choreo_persist_options_t* options) {
  enum { count = 333 };
  static double send[count];
  double* recv = malloc(sizeof(double) * (size_t)(count * g_size));
  double* reference = malloc(sizeof(double) * (size_t)(count * g_size));
  choreo_request_t* request = NULL;
  MUST(choreo_allgather_init(send, recv, count, MPI_DOUBLE, MPI_COMM_WORLD, options, &request));
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < count; ++i) send[i] = value_of(round, g_rank, 0, i);
    for (int i = 0; i < count * g_size; ++i) recv[i] = -1.0;
    MUST(choreo_request_start(request));
    complete(request, round);
    MPI_Allgather(send, count, MPI_DOUBLE, reference, count, MPI_DOUBLE, MPI_COMM_WORLD);
    char what[128];
    describe(what, sizeof what, "allgather", options->engine, options->algorithm, round);
    expect_same(recv, reference, count * g_size, what);
  }
  MUST(choreo_request_free(&request));
  free(recv);
  free(reference);
}

static void alltoallv_case(const choreo_persist_options_t* options) {
  size_t n = (size_t)g_size;
  int* sendcounts = malloc(n * sizeof(int));
  int* sdispls = malloc(n * sizeof(int));
  int* recvcounts = malloc(n * sizeof(int));
  int* rdispls = malloc(n * sizeof(int));
  int sent = 0, received = 0;
  for (int peer = 0; peer < g_size; ++peer) {
    sendcounts[peer] = pattern_count(0, g_rank, peer) * 10;
    sdispls[peer] = sent;
    sent += sendcounts[peer];
    recvcounts[peer] = pattern_count(0, peer, g_rank) * 10;
    rdispls[peer] = received;
    received += recvcounts[peer];
  }
  double* send = malloc(sizeof(double) * (size_t)(sent + 1));
  double* recv = malloc(sizeof(double) * (size_t)(received + 1));
  double* reference = malloc(sizeof(double) * (size_t)(received + 1));
  choreo_request_t* request = NULL;
  MUST(choreo_alltoallv_init(send, sendcounts, sdispls, MPI_DOUBLE, recv, recvcounts, rdispls,
                             MPI_DOUBLE, MPI_COMM_WORLD, options, &request));
  for (int round = 0; round < 2; ++round) {
    for (int peer = 0; peer < g_size; ++peer)
      for (int i = 0; i < sendcounts[peer]; ++i)
        send[sdispls[peer] + i] = value_of(round, g_rank, peer, i);
    for (int i = 0; i < received; ++i) recv[i] = -1.0;
    MUST(choreo_request_start(request));
    complete(request, round);
    MPI_Alltoallv(send, sendcounts, sdispls, MPI_DOUBLE, reference, recvcounts, rdispls, MPI_DOUBLE,
                  MPI_COMM_WORLD);
    char what[128];
    describe(what, sizeof what, "alltoallv", options->engine, options->algorithm, round);
    expect_same(recv, reference, received, what);
  }
  MUST(choreo_request_free(&request));
  free(send);
  free(recv);
  free(reference);
  free(sendcounts);
  free(sdispls);
  free(recvcounts);
  free(rdispls);
}

void persist_cases(int thread_multiple) {
  for (int engine = CHOREO_ENGINE_COMMANDS; engine <= CHOREO_ENGINE_INLINE; ++engine) {
    if (engine == CHOREO_ENGINE_THREAD && !thread_multiple) continue;
    choreo_persist_options_t options;
    choreo_persist_options_init(&options);
    options.engine = engine;
    bcast_case(&options);
    allreduce_case(&options, 0);
    allreduce_case(&options, 1);
    allgather_case(&options);
    alltoallv_case(&options);
    options.algorithm = "binomial";
    bcast_case(&options);
    options.algorithm = "ring";
    allreduce_case(&options, 0);
    alltoallv_case(&options);
  }
  /* The request names what runs. */
  choreo_persist_options_t options;
  choreo_persist_options_init(&options);
  options.algorithm = "binomial";
  double buf[4] = {0, 0, 0, 0};
  choreo_request_t* request = NULL;
  MUST(choreo_bcast_init(buf, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD, &options, &request));
  const char* name = NULL;
  MUST(choreo_request_algorithm(request, &name));
  expect(strcmp(name, "bcast:binomial") == 0, "choreo_request_algorithm gives '%s'", name);
  MUST(choreo_request_free(&request));
}
