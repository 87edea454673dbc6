/* How far apart MPI_Barrier releases the ranks: max - min of MPI_Wtime right after it.
 * Under SMPI the clocks are one clock, so this is exact; paper 001's "load imbalance" at
 * small sizes is this skew (bench/validate_model.sh). Build with smpicc or mpicc. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 0; i < 3; ++i) MPI_Barrier(MPI_COMM_WORLD); /* the last one is measured */
  const double exit = MPI_Wtime();
  double first = 0, last = 0;
  MPI_Reduce(&exit, &first, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
  MPI_Reduce(&exit, &last, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("%d ranks: barrier exit skew %.3f us\n", size, (last - first) * 1e6);
  MPI_Finalize();
  return 0;
}
