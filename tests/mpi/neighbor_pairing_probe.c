/* Which block lands where in MPI_Neighbor_alltoallv on a periodic 1-D Cartesian communicator
   of 1 or 2 processes, where a rank's -1 and +1 neighbours are one process. MPI-4.1 section 8.6
   (Example 8.10; an erratum to MPI-3.1) says the block sent to the -1 neighbour arrives there
   as the block from its +1 neighbour: rank r's receive block 0 holds its left neighbour's send
   block 1, and receive block 1 its right neighbour's send block 0.

   Written against the standard names only. Prints one line per form (blocking, nonblocking,
   persistent) saying "standard" or "WRONG", and exits 1 when the blocking or the persistent
   form is wrong: run with libchoreo_pmpi.so, which serves both there, they must be right
   (docs/intercept.md). The nonblocking form is the library's: its line is for the reader. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int periodic = 1;
  MPI_Comm ring;
  MPI_Cart_create(MPI_COMM_WORLD, 1, &size, &periodic, 0, &ring);
  MPI_Comm_rank(ring, &rank);
  int left = 0, right = 0;
  MPI_Cart_shift(ring, 0, 1, &left, &right);
  const int sent[2] = {100 + rank, 200 + rank};
  const int counts[2] = {1, 1}, displs[2] = {0, 1};
  const char* forms[3] = {"MPI_Neighbor_alltoallv", "MPI_Ineighbor_alltoallv",
                          "MPI_Neighbor_alltoallv_init"};
  int served_right = 1; /* the blocking and the persistent form */
  for (int form = 0; form < 3; ++form) {
    int got[2] = {-1, -1};
    MPI_Request request;
    if (form == 0)
      MPI_Neighbor_alltoallv(sent, counts, displs, MPI_INT, got, counts, displs, MPI_INT, ring);
    if (form == 1) {
      MPI_Ineighbor_alltoallv(sent, counts, displs, MPI_INT, got, counts, displs, MPI_INT, ring,
                              &request);
      MPI_Wait(&request, MPI_STATUS_IGNORE);
    }
    if (form == 2) {
      MPI_Neighbor_alltoallv_init(sent, counts, displs, MPI_INT, got, counts, displs, MPI_INT, ring,
                                  MPI_INFO_NULL, &request);
      MPI_Start(&request);
      MPI_Wait(&request, MPI_STATUS_IGNORE);
      MPI_Request_free(&request);
    }
    const int right_here = got[0] == 200 + left && got[1] == 100 + right;
    int right_everywhere = 0;
    MPI_Allreduce(&right_here, &right_everywhere, 1, MPI_INT, MPI_LAND, ring);
    if (form != 1) served_right = served_right && right_everywhere;
    if (rank == 0)
      printf("%d ranks: %-28s %s\n", size, forms[form], right_everywhere ? "standard" : "WRONG");
  }
  MPI_Comm_free(&ring);
  MPI_Finalize();
  return served_right ? 0 : 1;
}
