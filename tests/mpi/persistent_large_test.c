/* MPI-4.0's 21 large-count persistent collective inits (MPI_Bcast_init_c, ...) as a program
   calls them, through libchoreo_pmpi.so: each made once, started and completed for 3 rounds
   with new data, its result checked against a closed form. Written against the standard names
   only; MPI-4 libraries (MPICH 4) only. Without choreo, MPICH 4.0.2's own give wrong data
   (docs/intercept.md). With --large-allreduce, one MPI_Allreduce_init_c past an int's count
   (by hand: 4 GiB a rank). With --large, one MPI_Bcast_init_c of 2^31 + 3 bytes (past an int's
   count; 2 GiB a rank) checked at both ends and in between. Prints "persistent_large: OK" on
   rank 0, or the first wrong element of each collective and "persistent_large: FAILED". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kN = 5, kRounds = 3 };
static int rank, size, failures;

#define CHECK(cond, ...)                          \
  do {                                            \
    if (!(cond) && failures++ < 20) {             \
      fprintf(stderr, "rank %d: FAILED: ", rank); \
      fprintf(stderr, __VA_ARGS__);               \
      fprintf(stderr, "\n");                      \
    }                                             \
  } while (0)

/* Element i of block b of rank r's input in round t. */
static int v(int r, int b, int i, int t) { return r * 1000 + b * 100 + i + t * 7; }

static void run(MPI_Request* request) {
  MPI_Start(request);
  MPI_Wait(request, MPI_STATUS_IGNORE);
}

static void large_bcast(void) {
  const MPI_Count count = ((MPI_Count)1 << 31) + 3;
  unsigned char* buffer = malloc((size_t)count);
  if (!buffer) {
    CHECK(0, "no memory for the 2 GiB broadcast");
    return;
  }
  const MPI_Count probes[3] = {0, count / 2 + 1, count - 1};
  for (int k = 0; k < 3; ++k) buffer[probes[k]] = rank == 0 ? (unsigned char)(41 + k) : 0;
  MPI_Request request;
  MPI_Bcast_init_c(buffer, count, MPI_BYTE, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &request);
  run(&request);
  MPI_Request_free(&request);
  for (int k = 0; k < 3; ++k)
    CHECK(buffer[probes[k]] == 41 + k, "bcast of 2^31 + 3 bytes: byte %lld is %d",
          (long long)probes[k], buffer[probes[k]]);
  free(buffer);
}

/* MPI_Allreduce_init_c of 2^31 + 3 int8s (sums over the ranks, every element checked): past
   an int's count, so choreo::persist's allreduce moves it in pieces. 4 GiB a rank and more;
   run by hand (--large-allreduce), not in CI. */
static void large_allreduce(void) {
  const MPI_Count count = ((MPI_Count)1 << 31) + 3;
  signed char *in = malloc((size_t)count), *out = malloc((size_t)count);
  if (!in || !out) {
    CHECK(0, "no memory for the 2 GiB allreduce");
    free(in);
    free(out);
    return;
  }
  for (MPI_Count i = 0; i < count; ++i) in[i] = (signed char)((i + rank) % 5);
  memset(out, -1, (size_t)count);
  MPI_Request request;
  MPI_Allreduce_init_c(in, out, count, MPI_INT8_T, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                       &request);
  const double start = MPI_Wtime();
  run(&request);
  const double seconds = MPI_Wtime() - start;
  MPI_Request_free(&request);
  MPI_Count wrong = 0, first = -1;
  for (MPI_Count i = 0; i < count; ++i) {
    int sum = 0;
    for (int r = 0; r < size; ++r) sum += (int)((i + r) % 5);
    if (out[i] != (signed char)sum && wrong++ == 0) first = i;
  }
  CHECK(wrong == 0, "allreduce of 2^31 + 3 int8s: %lld wrong, the first at %lld", (long long)wrong,
        (long long)first);
  if (rank == 0) printf("allreduce of 2^31 + 3 int8s: %.2f s\n", seconds);
  free(in);
  free(out);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int p = size, me = rank, left = (me + p - 1) % p, right = (me + 1) % p;
  MPI_Comm w = MPI_COMM_WORLD, ring; /* a distributed-graph ring: one edge each way */
  MPI_Dist_graph_create_adjacent(w, 1, &left, MPI_UNWEIGHTED, 1, &right, MPI_UNWEIGHTED,
                                 MPI_INFO_NULL, 0, &ring);
  MPI_Info none = MPI_INFO_NULL;
  const MPI_Count n = kN;
  /* Every rank's blocks in rank order: counts n, displacements b n (elements; bytes for w). */
  MPI_Count* counts = malloc(sizeof(MPI_Count) * (size_t)p);
  MPI_Aint *displs = malloc(sizeof(MPI_Aint) * (size_t)p), *bytes = malloc(sizeof(MPI_Aint) * p);
  MPI_Datatype* ints = malloc(sizeof(MPI_Datatype) * (size_t)p);
  for (int b = 0; b < p; ++b) {
    counts[b] = n;
    displs[b] = (MPI_Aint)b * kN;
    bytes[b] = displs[b] * (MPI_Aint)sizeof(int);
    ints[b] = MPI_INT;
  }
  const MPI_Count one_count[1] = {n};
  const MPI_Aint zero[1] = {0};
  const MPI_Datatype one_int[1] = {MPI_INT};
  enum { kCollectives = 21 };
  static const char* const names[kCollectives] = {"bcast",
                                                  "reduce",
                                                  "allreduce",
                                                  "scan",
                                                  "exscan",
                                                  "reduce_scatter_block",
                                                  "gather",
                                                  "scatter",
                                                  "allgather",
                                                  "alltoall",
                                                  "neighbor_allgather",
                                                  "neighbor_alltoall",
                                                  "gatherv",
                                                  "scatterv",
                                                  "allgatherv",
                                                  "alltoallv",
                                                  "alltoallw",
                                                  "reduce_scatter",
                                                  "neighbor_allgatherv",
                                                  "neighbor_alltoallv",
                                                  "neighbor_alltoallw"};
  int *in[kCollectives], *out[kCollectives];
  MPI_Request requests[kCollectives];
  for (int c = 0; c < kCollectives; ++c) {
    in[c] = calloc((size_t)(kN * p), sizeof(int));
    out[c] = calloc((size_t)(kN * p), sizeof(int));
  }
  MPI_Bcast_init_c(out[0], n, MPI_INT, 0, w, none, &requests[0]);
  MPI_Reduce_init_c(in[1], out[1], n, MPI_INT, MPI_SUM, 0, w, none, &requests[1]);
  MPI_Allreduce_init_c(in[2], out[2], n, MPI_INT, MPI_SUM, w, none, &requests[2]);
  MPI_Scan_init_c(in[3], out[3], n, MPI_INT, MPI_SUM, w, none, &requests[3]);
  MPI_Exscan_init_c(in[4], out[4], n, MPI_INT, MPI_SUM, w, none, &requests[4]);
  MPI_Reduce_scatter_block_init_c(in[5], out[5], n, MPI_INT, MPI_SUM, w, none, &requests[5]);
  MPI_Gather_init_c(in[6], n, MPI_INT, out[6], n, MPI_INT, 0, w, none, &requests[6]);
  MPI_Scatter_init_c(in[7], n, MPI_INT, out[7], n, MPI_INT, 0, w, none, &requests[7]);
  MPI_Allgather_init_c(in[8], n, MPI_INT, out[8], n, MPI_INT, w, none, &requests[8]);
  MPI_Alltoall_init_c(in[9], n, MPI_INT, out[9], n, MPI_INT, w, none, &requests[9]);
  MPI_Neighbor_allgather_init_c(in[10], n, MPI_INT, out[10], n, MPI_INT, ring, none, &requests[10]);
  MPI_Neighbor_alltoall_init_c(in[11], n, MPI_INT, out[11], n, MPI_INT, ring, none, &requests[11]);
  MPI_Gatherv_init_c(in[12], n, MPI_INT, out[12], counts, displs, MPI_INT, 0, w, none,
                     &requests[12]);
  MPI_Scatterv_init_c(in[13], counts, displs, MPI_INT, out[13], n, MPI_INT, 0, w, none,
                      &requests[13]);
  MPI_Allgatherv_init_c(in[14], n, MPI_INT, out[14], counts, displs, MPI_INT, w, none,
                        &requests[14]);
  MPI_Alltoallv_init_c(in[15], counts, displs, MPI_INT, out[15], counts, displs, MPI_INT, w, none,
                       &requests[15]);
  MPI_Alltoallw_init_c(in[16], counts, bytes, ints, out[16], counts, bytes, ints, w, none,
                       &requests[16]);
  MPI_Reduce_scatter_init_c(in[17], out[17], counts, MPI_INT, MPI_SUM, w, none, &requests[17]);
  MPI_Neighbor_allgatherv_init_c(in[18], n, MPI_INT, out[18], one_count, zero, MPI_INT, ring, none,
                                 &requests[18]);
  MPI_Neighbor_alltoallv_init_c(in[19], one_count, zero, MPI_INT, out[19], one_count, zero, MPI_INT,
                                ring, none, &requests[19]);
  MPI_Neighbor_alltoallw_init_c(in[20], one_count, zero, one_int, out[20], one_count, zero, one_int,
                                ring, none, &requests[20]);
  for (int t = 0; t < kRounds; ++t) {
    for (int c = 0; c < kCollectives; ++c) {
      for (int b = 0; b < p; ++b)
        for (int i = 0; i < kN; ++i) {
          in[c][b * kN + i] = v(me, b, i, t);
          out[c][b * kN + i] = -1;
        }
      if (c == 0 && me == 0)
        for (int i = 0; i < kN; ++i) out[0][i] = v(0, 0, i, t);
    }
    for (int c = 0; c < kCollectives; ++c) run(&requests[c]);
    for (int i = 0; i < kN; ++i) {
      int all = 0, upto = 0, before = 0, mine = 0;
      for (int r = 0; r < p; ++r) {
        all += v(r, 0, i, t);
        mine += v(r, me, i, t);
        if (r <= me) upto += v(r, 0, i, t);
        if (r < me) before += v(r, 0, i, t);
      }
      CHECK(out[0][i] == v(0, 0, i, t), "round %d bcast[%d] = %d", t, i, out[0][i]);
      if (me == 0) CHECK(out[1][i] == all, "round %d reduce[%d] = %d", t, i, out[1][i]);
      CHECK(out[2][i] == all, "round %d allreduce[%d] = %d", t, i, out[2][i]);
      CHECK(out[3][i] == upto, "round %d scan[%d] = %d", t, i, out[3][i]);
      if (me > 0) CHECK(out[4][i] == before, "round %d exscan[%d] = %d", t, i, out[4][i]);
      CHECK(out[5][i] == mine, "round %d reduce_scatter_block[%d] = %d", t, i, out[5][i]);
      CHECK(out[17][i] == mine, "round %d reduce_scatter[%d] = %d", t, i, out[17][i]);
      CHECK(out[7][i] == v(0, me, i, t), "round %d scatter[%d] = %d", t, i, out[7][i]);
      CHECK(out[13][i] == v(0, me, i, t), "round %d scatterv[%d] = %d", t, i, out[13][i]);
      /* the ring: the one block from the left neighbour, its block 0 */
      for (int c = 10; c <= 20; c += (c == 11 ? 7 : 1))
        CHECK(out[c][i] == v(left, 0, i, t), "round %d %s[%d] = %d", t, names[c], i, out[c][i]);
      for (int b = 0; b < p; ++b) {
        const int k = b * kN + i;
        if (me == 0) CHECK(out[6][k] == v(b, 0, i, t), "round %d gather[%d]", t, k);
        if (me == 0) CHECK(out[12][k] == v(b, 0, i, t), "round %d gatherv[%d]", t, k);
        CHECK(out[8][k] == v(b, 0, i, t), "round %d allgather[%d]", t, k);
        CHECK(out[14][k] == v(b, 0, i, t), "round %d allgatherv[%d]", t, k);
        CHECK(out[9][k] == v(b, me, i, t), "round %d alltoall[%d]", t, k);
        CHECK(out[15][k] == v(b, me, i, t), "round %d alltoallv[%d]", t, k);
        CHECK(out[16][k] == v(b, me, i, t), "round %d alltoallw[%d]", t, k);
      }
    }
  }
  for (int c = 0; c < kCollectives; ++c) {
    MPI_Request_free(&requests[c]);
    free(in[c]);
    free(out[c]);
  }
  if (argc > 1 && strcmp(argv[1], "--large") == 0) large_bcast();
  if (argc > 1 && strcmp(argv[1], "--large-allreduce") == 0) large_allreduce();
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, w);
  if (rank == 0) printf("persistent_large: %s\n", total == 0 ? "OK" : "FAILED");
  free(counts);
  free(displs);
  free(bytes);
  free(ints);
  MPI_Comm_free(&ring);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
