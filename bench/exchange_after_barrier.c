/* One exchange between two ranks after a barrier, the way choreo-mpi times a collective
 * call: median of 41 calls per size, with the receive posted before or after the send,
 * after WARMUP untimed exchanges per size (default 0).
 * Shows, without choreo, that MPICH (ch4:ucx) on shared memory takes 20-80 us per exchange
 * from 128 B to 8 KiB during its first ~70 exchanges between two ranks, and 1-2 us after
 * (UCX finishing its wire-up): a run with few warm-up calls measures that, a ping-pong
 * calibration, after thousands of messages, does not (docs/BENCHMARKS.md, paper 001's
 * validation on real MPI).
 *   mpicc.mpich -O2 bench/exchange_after_barrier.c -o exchange_after_barrier
 *   mpiexec.mpich -n 2 ./exchange_after_barrier        # slow from 128 B to 8 KiB
 *   mpiexec.mpich -n 2 ./exchange_after_barrier 100    # 1-2 us */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { kCalls = 41 };

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "exchange_after_barrier: run it on exactly 2 ranks\n");
    MPI_Finalize();
    return 2;
  }
  const int peer = 1 - rank;
  const int warmup = argc > 1 ? atoi(argv[1]) : 0;
  for (int bytes = 64; bytes <= 65536; bytes *= 2) {
    char* out = calloc((size_t)bytes, 1);
    char* in = calloc((size_t)bytes, 1);
    for (int send_first = 0; send_first < 2; ++send_first) {
      double seconds[kCalls];
      for (int call = -warmup; call < kCalls; ++call) {
        MPI_Request requests[2];
        MPI_Barrier(MPI_COMM_WORLD);
        const double start = MPI_Wtime();
        if (send_first) {
          MPI_Isend(out, bytes, MPI_CHAR, peer, 0, MPI_COMM_WORLD, &requests[0]);
          MPI_Irecv(in, bytes, MPI_CHAR, peer, 0, MPI_COMM_WORLD, &requests[1]);
        } else {
          MPI_Irecv(in, bytes, MPI_CHAR, peer, 0, MPI_COMM_WORLD, &requests[1]);
          MPI_Isend(out, bytes, MPI_CHAR, peer, 0, MPI_COMM_WORLD, &requests[0]);
        }
        MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
        if (call >= 0) seconds[call] = MPI_Wtime() - start;
      }
      qsort(seconds, kCalls, sizeof seconds[0], by_value);
      if (rank == 0)
        printf("%6d B  %-10s median %7.2f us\n", bytes, send_first ? "send-first" : "recv-first",
               seconds[kCalls / 2] * 1e6);
    }
    free(out);
    free(in);
  }
  MPI_Finalize();
  return 0;
}
