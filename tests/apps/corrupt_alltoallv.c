/* corrupt_alltoallv.c: a deliberately wrong PMPI library, to check that compare_app.sh notices
 * one wrong byte. Every MPI_Alltoallv after the first CORRUPT_AFTER calls (default 10) flips the
 * lowest bit of the first byte it received from the next rank (or itself, with one rank).
 * Build: mpicc.openmpi -fPIC -shared -o corrupt_alltoallv.so corrupt_alltoallv.c
 * Expect: tests/apps/compare_app.sh fftw corrupt_alltoallv.so  ->  DIFFERENT, exit 1 */
#include <mpi.h>
#include <stdlib.h>

static long calls;

int MPI_Alltoallv(const void *sb, const int sc[], const int sd[], MPI_Datatype st, void *rb,
                  const int rc[], const int rd[], MPI_Datatype rt, MPI_Comm comm) {
  int err = PMPI_Alltoallv(sb, sc, sd, st, rb, rc, rd, rt, comm);
  const char *e = getenv("CORRUPT_AFTER");
  if (++calls <= (e ? atol(e) : 10)) return err;
  int me, n, size;
  MPI_Aint lb, extent;
  PMPI_Comm_rank(comm, &me);
  PMPI_Comm_size(comm, &n);
  PMPI_Type_size(rt, &size);
  PMPI_Type_get_extent(rt, &lb, &extent);
  int from = (me + 1) % n;
  if (rc[from] > 0 && size > 0) ((unsigned char *)rb)[(MPI_Aint)rd[from] * extent] ^= 1;
  return err;
}
