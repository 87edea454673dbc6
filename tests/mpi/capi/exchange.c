/* choreo_exchange_*: every pattern x algorithm, three steps with fresh data (the last one
 * completed with choreo_exchange_test), each compared with MPI_Alltoallv on the same arguments,
 * gaps between the receive blocks included. */
#include <stdio.h>
#include <stdlib.h>

#include "capi_test.h"

/* Where the blocks go: sends packed in rank order; receives in reverse rank order with a gap of
 * 3 elements before each block, which both choreo and MPI must leave alone. */
typedef struct {
  int *sendcounts, *sdispls, *recvcounts, *rdispls;
  int send_total, recv_total;
} Layout;

static Layout layout_of(int pattern) {
  Layout l;
  size_t n = (size_t)g_size;
  l.sendcounts = malloc(n * sizeof(int));
  l.sdispls = malloc(n * sizeof(int));
  l.recvcounts = malloc(n * sizeof(int));
  l.rdispls = malloc(n * sizeof(int));
  l.send_total = 0;
  l.recv_total = 0;
  for (int peer = 0; peer < g_size; ++peer) {
    l.sendcounts[peer] = pattern_count(pattern, g_rank, peer);
    l.sdispls[peer] = l.send_total;
    l.send_total += l.sendcounts[peer];
  }
  for (int peer = g_size - 1; peer >= 0; --peer) {
    l.recvcounts[peer] = pattern_count(pattern, peer, g_rank);
    l.rdispls[peer] = l.recv_total + 3;
    l.recv_total += 3 + l.recvcounts[peer];
  }
  return l;
}

static void free_layout(Layout* l) {
  free(l->sendcounts);
  free(l->sdispls);
  free(l->recvcounts);
  free(l->rdispls);
}

static void one_case(int pattern, int algorithm) {
  Layout l = layout_of(pattern);
  double* send = malloc(sizeof(double) * (size_t)(l.send_total + 1));
  double* recv = malloc(sizeof(double) * (size_t)(l.recv_total + 1));
  double* reference = malloc(sizeof(double) * (size_t)(l.recv_total + 1));
  choreo_exchange_options_t options;
  choreo_exchange_options_init(&options);
  options.algorithm = algorithm;
  choreo_exchange_t* exchange = NULL;
  MUST(choreo_exchange_create(MPI_COMM_WORLD, send, l.sendcounts, l.sdispls, MPI_DOUBLE, recv,
                              l.recvcounts, l.rdispls, MPI_DOUBLE, &options, &exchange));
  const char* name = NULL;
  MUST(choreo_exchange_algorithm(exchange, &name));
  choreo_plan_report_t report;
  MUST(choreo_exchange_report(exchange, &report));
  expect(name != NULL && name[0] != '\0', "pattern %d algorithm %d: no scheduler name", pattern,
         algorithm);
  expect(report.slots >= 0 && report.degree_bound >= 0, "pattern %d algorithm %d: report", pattern,
         algorithm);

  for (int step = 0; step < 3; ++step) {
    for (int peer = 0; peer < g_size; ++peer)
      for (int i = 0; i < l.sendcounts[peer]; ++i)
        send[l.sdispls[peer] + i] = value_of(step, g_rank, peer, i);
    for (int i = 0; i < l.recv_total; ++i) recv[i] = reference[i] = -1.0;
    MUST(choreo_exchange_start(exchange));
    if (step < 2) {
      MUST(choreo_exchange_wait(exchange));
    } else {
      int done = 0;
      while (!done) MUST(choreo_exchange_test(exchange, &done));
    }
    MPI_Alltoallv(send, l.sendcounts, l.sdispls, MPI_DOUBLE, reference, l.recvcounts, l.rdispls,
                  MPI_DOUBLE, MPI_COMM_WORLD);
    char what[96];
    snprintf(what, sizeof what, "exchange pattern %d, algorithm %d (%s), step %d", pattern,
             algorithm, name, step);
    expect_same(recv, reference, l.recv_total, what);
  }
  MUST(choreo_exchange_free(&exchange));
  expect(exchange == NULL, "choreo_exchange_free left the handle set");
  free(send);
  free(recv);
  free(reference);
  free_layout(&l);
}

void exchange_cases(void) {
  for (int pattern = 0; pattern < PATTERNS; ++pattern)
    for (int algorithm = CHOREO_EXCHANGE_AUTO; algorithm <= CHOREO_EXCHANGE_OPTIMAL_PACED;
         ++algorithm)
      one_case(pattern, algorithm);
}
