/* choreo_resilient_allreduce: every redundancy T the communicator allows, sum and max, in place
 * or not, compared with MPI_Allreduce on the same data (integer values: exact in any order). */
#include <stdio.h>

#include "capi_test.h"

void resilient_cases(void) {
  enum { count = 1000 };
  static double send[count], recv[count], reference[count];
  int stages = 0;
  while ((2 << stages) <= g_size) ++stages; /* floor(log2(size)) */
  int call = 0;
  for (int redundancy = 0; redundancy <= stages; ++redundancy)
    for (int variant = 0; variant < 3; ++variant) {
      const MPI_Op op = variant == 1 ? MPI_MAX : MPI_SUM;
      const int in_place = variant == 2;
      ++call;
      for (int i = 0; i < count; ++i) {
        send[i] = value_of(call, g_rank, 0, i) * (g_rank % 2 ? -1 : 1);
        recv[i] = in_place ? send[i] : -1.0;
      }
      MUST(choreo_resilient_allreduce(in_place ? MPI_IN_PLACE : send, recv, count, MPI_DOUBLE, op,
                                      MPI_COMM_WORLD, redundancy));
      MPI_Allreduce(send, reference, count, MPI_DOUBLE, op, MPI_COMM_WORLD);
      char what[96];
      snprintf(what, sizeof what, "resilient allreduce T %d, %s%s", redundancy,
               op == MPI_MAX ? "max" : "sum", in_place ? ", in place" : "");
      expect_same(recv, reference, count, what);
    }
  MUST(choreo_resilient_allreduce_complete(MPI_COMM_WORLD));
}
