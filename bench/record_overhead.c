/* What CHOREO_RECORD adds to a call, measured in one run: a ping-pong of 8 bytes between
 * ranks 0 and 1 through MPI_Send/MPI_Recv (wrapped by libchoreo_pmpi.so, recorded when
 * CHOREO_RECORD is set) against the same ping-pong through PMPI_Send/PMPI_Recv (never
 * recorded), alternating round by round. Rank 0 prints per round trip the median over rounds
 * of each side and of their difference, with its spread (min..max).
 *   mpiexec -n 2 env LD_PRELOAD=.../libchoreo_pmpi.so CHOREO_RECORD=/tmp/rec \
 *     bench/record_overhead [ROUNDS] [TRIPS]
 * Without CHOREO_RECORD the difference is the wrappers' cost when recording is off. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "median.h"

enum { kMaxRounds = 1000 };

typedef int (*Send)(const void*, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*Recv)(void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status*);

/* Seconds per round trip of `trips` ping-pongs through send and recv. */
static double ping_pong(Send send, Recv recv, int rank, int trips) {
  char byte[8] = {0};
  PMPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int i = 0; i < trips; ++i) {
    if (rank == 0) {
      send(byte, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
      recv(byte, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      recv(byte, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      send(byte, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
    }
  }
  return (MPI_Wtime() - start) / trips;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int rounds = argc > 1 ? atoi(argv[1]) : 21;
  const int trips = argc > 2 ? atoi(argv[2]) : 10000;
  if (rounds > kMaxRounds) rounds = kMaxRounds;
  static double wrapped[kMaxRounds], plain[kMaxRounds], difference[kMaxRounds];
  ping_pong(MPI_Send, MPI_Recv, rank, trips); /* warm-up */
  for (int r = 0; r < rounds; ++r) {
    wrapped[r] = ping_pong(MPI_Send, MPI_Recv, rank, trips);
    plain[r] = ping_pong(PMPI_Send, PMPI_Recv, rank, trips);
    difference[r] = wrapped[r] - plain[r];
  }
  if (rank == 0) {
    const double d = median(difference, rounds);
    qsort(difference, (size_t)rounds, sizeof *difference, compare_doubles);
    printf("round trip of 8 B, %d rounds of %d trips, medians (CHOREO_RECORD %s)\n", rounds, trips,
           getenv("CHOREO_RECORD") ? "set" : "unset");
    printf("  MPI_Send/MPI_Recv    %8.1f ns\n", median(wrapped, rounds) * 1e9);
    printf("  PMPI_Send/PMPI_Recv  %8.1f ns\n", median(plain, rounds) * 1e9);
    printf("  difference           %8.1f ns (%.1f..%.1f); per call %.1f ns\n", d * 1e9,
           difference[0] * 1e9, difference[rounds - 1] * 1e9, d * 1e9 / 2);
  }
  MPI_Finalize();
  return 0;
}
