/* choreo's C API in one program: a persistent irregular exchange (choreo_exchange_*) run for a
 * few steps with fresh data, every received element compared with what MPI_Alltoallv delivers
 * for the same arguments. docs/c-api.md shows how to build it with pkg-config and with CMake.
 *
 *   mpiexec -n 4 ./exchange      prints "exchange: 4 ranks, 3 steps, N elements checked: OK"
 */
#include <choreo/choreo.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* Every choreo call returns a code; choreo_last_error() says what went wrong and the fix. */
#define CHOREO_CHECK(call)                                                        \
  do {                                                                            \
    int code_ = (call);                                                           \
    if (code_ != CHOREO_SUCCESS) {                                                \
      fprintf(stderr, "%s: %s\n", choreo_error_name(code_), choreo_last_error()); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                               \
    }                                                                             \
  } while (0)

/* An irregular pattern: how many doubles rank `from` sends to rank `to` (some send none). */
static int count_of(int from, int to) { return (from * 7 + to * 3) % 5; }

/* What rank `from` sends to `to` at `step`, element i: different for every one. */
static double value_of(int step, int from, int to, int i) {
  return step * 1e6 + from * 1e4 + to * 1e2 + i;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* MPI_Alltoallv's arguments: counts and displacements per rank, in elements. */
  int* sendcounts = malloc(sizeof(int) * (size_t)size);
  int* sdispls = malloc(sizeof(int) * (size_t)size);
  int* recvcounts = malloc(sizeof(int) * (size_t)size);
  int* rdispls = malloc(sizeof(int) * (size_t)size);
  int sent = 0, received = 0;
  for (int peer = 0; peer < size; ++peer) {
    sendcounts[peer] = count_of(rank, peer);
    sdispls[peer] = sent;
    sent += sendcounts[peer];
    recvcounts[peer] = count_of(peer, rank);
    rdispls[peer] = received;
    received += recvcounts[peer];
  }
  double* sendbuf = malloc(sizeof(double) * (size_t)(sent + 1));
  double* recvbuf = malloc(sizeof(double) * (size_t)(received + 1));
  double* expected = malloc(sizeof(double) * (size_t)(received + 1));

  /* Made once (collective): the plan, and persistent requests bound to the buffers. */
  choreo_exchange_options_t options;
  choreo_exchange_options_init(&options);
  options.algorithm = CHOREO_EXCHANGE_AUTO;
  choreo_exchange_t* exchange = NULL;
  CHOREO_CHECK(choreo_exchange_create(MPI_COMM_WORLD, sendbuf, sendcounts, sdispls, MPI_DOUBLE,
                                      recvbuf, recvcounts, rdispls, MPI_DOUBLE, &options,
                                      &exchange));
  const char* algorithm = NULL;
  CHOREO_CHECK(choreo_exchange_algorithm(exchange, &algorithm));

  const int steps = 3;
  long checked = 0, wrong = 0;
  for (int step = 0; step < steps; ++step) {
    for (int peer = 0; peer < size; ++peer)
      for (int i = 0; i < sendcounts[peer]; ++i)
        sendbuf[sdispls[peer] + i] = value_of(step, rank, peer, i);
    for (int i = 0; i < received; ++i) recvbuf[i] = -1.0;

    CHOREO_CHECK(choreo_exchange_start(exchange));
    /* ... computation that touches neither buffer may go here ... */
    CHOREO_CHECK(choreo_exchange_wait(exchange));

    /* The reference: MPI's own collective with the same arguments. */
    MPI_Alltoallv(sendbuf, sendcounts, sdispls, MPI_DOUBLE, expected, recvcounts, rdispls,
                  MPI_DOUBLE, MPI_COMM_WORLD);
    for (int i = 0; i < received; ++i, ++checked)
      if (recvbuf[i] != expected[i]) {
        if (wrong++ == 0)
          fprintf(stderr, "rank %d, step %d: element %d is %g, MPI_Alltoallv says %g\n", rank, step,
                  i, recvbuf[i], expected[i]);
      }
  }
  CHOREO_CHECK(choreo_exchange_free(&exchange)); /* collective, before MPI_Finalize */

  long totals[2] = {checked, wrong}, sums[2] = {0, 0};
  MPI_Reduce(totals, sums, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("exchange: %d ranks, %d steps, plan %s, %ld elements checked: %s\n", size, steps,
           algorithm, sums[0], sums[1] == 0 ? "OK" : "WRONG");
  free(sendbuf);
  free(recvbuf);
  free(expected);
  free(sendcounts);
  free(sdispls);
  free(recvcounts);
  free(rdispls);
  int failed = sums[1] != 0;
  MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return failed ? 1 : 0;
}
