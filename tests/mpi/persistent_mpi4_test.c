/* An MPI-4 program written against the standard names only: every persistent collective
   (MPI_Barrier_init ... MPI_Neighbor_alltoallw_init, 22 functions, allreduce twice) started over
   and over together with MPI's own point-to-point requests, completed by every completion call
   (MPI_Wait, Test, Waitall, Testall, Waitany, Testany, Waitsome, Testsome, Request_get_status) and
   checked element by element against closed forms after every round; the data change every round,
   so a collective that did not run (or ran a round late) fails.

   Built unmodified against an MPI-3.1 library with -include choreo/mpi_persistent.h and
   libchoreo_pmpi.so (tests/mpi/CMakeLists.txt); run natively under MPI-4 (MPICH) too, where
   it checks itself against the library's own implementation.

   --modes waitall,wait,...: only these completion calls (MPICH 4.0.2's own persistent
   collectives break MPI_Testall, MPI_Waitany, MPI_Testany and MPI_Waitsome: docs/intercept.md).
   --misuse: also checks that starting an active request (by MPI_Start or MPI_Startall, which
   then starts none of its requests) and freeing an active request give MPI_ERR_REQUEST, and
   that a datatype freed after init leaves the request intact: what the library guarantees for
   the requests it runs itself (MPI leaves misuse undefined; Open MPI's MPIX_ requests crash on
   the freed type). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kCollectives = 23, kMaxCount = 300 };

static int rank, size, failures;

/* The completion calls, tried in turn round by round (--modes picks some). */
static const char* const kModes[] = {"waitall", "testall", "wait",     "test",
                                     "waitany", "testany", "waitsome", "testsome"};
static int modes[8], mode_count;

#define CHECK(condition, ...)                       \
  do {                                              \
    if (!(condition)) {                             \
      if (++failures <= 10) {                       \
        fprintf(stderr, "rank %d: FAILED: ", rank); \
        fprintf(stderr, __VA_ARGS__);               \
        fprintf(stderr, "\n");                      \
      }                                             \
    }                                               \
  } while (0)

/* Rank r's element i in round t: distinct for every (r, i, t) the test uses. */
static int value(int r, int i, int t) { return r * 100003 + i * 17 + t * 7919 + 1; }

/* Gatherv/allgatherv/alltoallv's irregular counts: rank r's block of n-element base size. */
static int vcount(int r, int n) { return n == 0 ? 0 : (n + 3 * r) % (n + 1); }

/* Whether choreo serves MPI_Neighbor_alltoallv_init on a ring of 2 (every setting but the
   library's own or its nonblocking form), where it is held to MPI-4.1's pairing. */
static int choreo_serves_neighbor_alltoallv(void) {
  const char* setting = getenv("CHOREO_PERSISTENT");
  return setting == NULL ||
         (strcmp(setting, "library") != 0 && strcmp(setting, "nonblocking") != 0);
}

static void* alloc(size_t elements) { return calloc(elements > 0 ? elements : 1, sizeof(int)); }

typedef struct {
  int n;         /* elements per rank block */
  int root;      /* of the rooted collectives */
  MPI_Comm ring; /* a periodic 1-D Cartesian communicator, for the neighbourhood ones */
  int left, right;
  int *bcast, *red_in, *red_out, *ar_in, *ar_out, *ar_inplace;
  int *ga_in, *ga_out, *gv_out, *sc_in, *sc_out, *sv_in, *sv_out;
  int *ag_out, *agv_out, *a2a_in, *a2a_out, *a2v_in, *a2v_out, *a2w_in, *a2w_out;
  int *rs_in, *rs_out, *rsb_in, *rsb_out, *scan_in, *scan_out, *exscan_out;
  int *nag_out, *nagv_out, *na2a_in, *na2a_out, *na2v_out, *na2w_out;
  int *vcounts, *vdispls, *rs_counts, *ones, *one_displs, *types_displs;
  int nv_counts[2], nv_displs[2];
  MPI_Aint nw_displs_send[2], nw_displs_recv[2];
  MPI_Datatype *ints, nints[2];
  MPI_Request requests[kCollectives];
} Set;

static void make_set(Set* s, int n, MPI_Comm ring) {
  memset(s, 0, sizeof *s);
  s->n = n;
  s->root = (n + 1) % size;
  s->ring = ring;
  MPI_Cart_shift(ring, 0, 1, &s->left, &s->right);
  const int p = size;
  s->bcast = alloc(n);
  s->red_in = alloc(n), s->red_out = alloc(n);
  s->ar_in = alloc(n), s->ar_out = alloc(n), s->ar_inplace = alloc(n);
  s->ga_in = alloc(n), s->ga_out = alloc((size_t)n * p);
  s->vcounts = alloc(p), s->vdispls = alloc(p), s->ones = alloc(p), s->one_displs = alloc(p);
  s->types_displs = alloc(p);
  s->ints = malloc(sizeof(MPI_Datatype) * (size_t)p);
  int total = 0;
  for (int r = 0; r < p; ++r) {
    s->vcounts[r] = vcount(r, n);
    s->vdispls[r] = total;
    total += vcount(r, n);
    s->ones[r] = n;
    s->one_displs[r] = r * n;
    s->types_displs[r] = (int)((size_t)r * n * sizeof(int)); /* alltoallw: bytes */
    s->ints[r] = MPI_INT;
  }
  s->gv_out = alloc(total);
  s->sc_in = alloc((size_t)n * p), s->sc_out = alloc(n);
  s->sv_in = alloc(total), s->sv_out = alloc(vcount(rank, n));
  s->ag_out = alloc((size_t)n * p), s->agv_out = alloc(total);
  s->a2a_in = alloc((size_t)n * p), s->a2a_out = alloc((size_t)n * p);
  s->a2v_in = alloc((size_t)n * p), s->a2v_out = alloc((size_t)n * p);
  s->a2w_in = alloc((size_t)n * p), s->a2w_out = alloc((size_t)n * p);
  s->rs_counts = alloc(p);
  int rs_total = 0;
  for (int r = 0; r < p; ++r) s->rs_counts[r] = vcount(r, n), rs_total += vcount(r, n);
  s->rs_in = alloc(rs_total), s->rs_out = alloc(vcount(rank, n));
  s->rsb_in = alloc((size_t)n * p), s->rsb_out = alloc(n);
  s->scan_in = alloc(n), s->scan_out = alloc(n), s->exscan_out = alloc(n);
  s->nag_out = alloc(2 * (size_t)n), s->nagv_out = alloc(2 * (size_t)n);
  s->na2a_in = alloc(2 * (size_t)n), s->na2a_out = alloc(2 * (size_t)n);
  s->na2v_out = alloc(2 * (size_t)n), s->na2w_out = alloc(2 * (size_t)n);
  s->nv_counts[0] = s->nv_counts[1] = n;
  s->nv_displs[0] = 0, s->nv_displs[1] = n;
  s->nw_displs_send[0] = 0, s->nw_displs_send[1] = (MPI_Aint)(n * sizeof(int));
  s->nw_displs_recv[0] = 0, s->nw_displs_recv[1] = (MPI_Aint)(n * sizeof(int));
  s->nints[0] = s->nints[1] = MPI_INT;

  const MPI_Comm w = MPI_COMM_WORLD;
  const MPI_Info none = MPI_INFO_NULL;
  MPI_Request* q = s->requests;
  MPI_Barrier_init(w, none, q++);
  /* The largest broadcast carries choreo's hints (docs/intercept.md): its torus-mapped trees
     where choreo takes the call; every MPI library ignores keys it does not know. */
  MPI_Info hints = MPI_INFO_NULL;
  if (n == kMaxCount) {
    char torus[32];
    snprintf(torus, sizeof torus, "%dx1x1", size);
    MPI_Info_create(&hints);
    MPI_Info_set(hints, "choreo_torus", torus);
    MPI_Info_set(hints, "choreo_algorithm", "multitree_torus");
  }
  MPI_Bcast_init(s->bcast, n, MPI_INT, s->root, w, hints, q++);
  if (hints != MPI_INFO_NULL) MPI_Info_free(&hints);
  MPI_Reduce_init(s->red_in, s->red_out, n, MPI_INT, MPI_SUM, s->root, w, none, q++);
  MPI_Allreduce_init(s->ar_in, s->ar_out, n, MPI_INT, MPI_SUM, w, none, q++);
  MPI_Allreduce_init(MPI_IN_PLACE, s->ar_inplace, n, MPI_INT, MPI_MAX, w, none, q++);
  MPI_Gather_init(s->ga_in, n, MPI_INT, s->ga_out, n, MPI_INT, s->root, w, none, q++);
  MPI_Gatherv_init(s->ga_in, vcount(rank, n), MPI_INT, s->gv_out, s->vcounts, s->vdispls, MPI_INT,
                   s->root, w, none, q++);
  MPI_Scatter_init(s->sc_in, n, MPI_INT, s->sc_out, n, MPI_INT, s->root, w, none, q++);
  MPI_Scatterv_init(s->sv_in, s->vcounts, s->vdispls, MPI_INT, s->sv_out, vcount(rank, n), MPI_INT,
                    s->root, w, none, q++);
  MPI_Allgather_init(s->ga_in, n, MPI_INT, s->ag_out, n, MPI_INT, w, none, q++);
  MPI_Allgatherv_init(s->ga_in, vcount(rank, n), MPI_INT, s->agv_out, s->vcounts, s->vdispls,
                      MPI_INT, w, none, q++);
  MPI_Alltoall_init(s->a2a_in, n, MPI_INT, s->a2a_out, n, MPI_INT, w, none, q++);
  MPI_Alltoallv_init(s->a2v_in, s->ones, s->one_displs, MPI_INT, s->a2v_out, s->ones, s->one_displs,
                     MPI_INT, w, none, q++);
  MPI_Alltoallw_init(s->a2w_in, s->ones, s->types_displs, s->ints, s->a2w_out, s->ones,
                     s->types_displs, s->ints, w, none, q++);
  MPI_Reduce_scatter_init(s->rs_in, s->rs_out, s->rs_counts, MPI_INT, MPI_SUM, w, none, q++);
  MPI_Reduce_scatter_block_init(s->rsb_in, s->rsb_out, n, MPI_INT, MPI_SUM, w, none, q++);
  MPI_Scan_init(s->scan_in, s->scan_out, n, MPI_INT, MPI_SUM, w, none, q++);
  MPI_Exscan_init(s->scan_in, s->exscan_out, n, MPI_INT, MPI_SUM, w, none, q++);
  MPI_Neighbor_allgather_init(s->ga_in, n, MPI_INT, s->nag_out, n, MPI_INT, ring, none, q++);
  MPI_Neighbor_allgatherv_init(s->ga_in, n, MPI_INT, s->nagv_out, s->nv_counts, s->nv_displs,
                               MPI_INT, ring, none, q++);
  MPI_Neighbor_alltoall_init(s->na2a_in, n, MPI_INT, s->na2a_out, n, MPI_INT, ring, none, q++);
  MPI_Neighbor_alltoallv_init(s->na2a_in, s->nv_counts, s->nv_displs, MPI_INT, s->na2v_out,
                              s->nv_counts, s->nv_displs, MPI_INT, ring, none, q++);
  MPI_Neighbor_alltoallw_init(s->na2a_in, s->nv_counts, s->nw_displs_send, s->nints, s->na2w_out,
                              s->nv_counts, s->nw_displs_recv, s->nints, ring, none, q++);
  if (q - s->requests != kCollectives) CHECK(0, "made %d requests", (int)(q - s->requests));
}

/* Fills every input for round t and poisons every output. */
static void fill(Set* s, int t) {
  const int n = s->n, p = size;
  for (int i = 0; i < n; ++i) {
    s->bcast[i] = rank == s->root ? value(s->root, i, t) : -1;
    s->red_in[i] = s->ar_in[i] = s->ga_in[i] = s->scan_in[i] = value(rank, i, t);
    s->ar_inplace[i] = value(rank, i, t);
    s->red_out[i] = s->ar_out[i] = s->sc_out[i] = s->rsb_out[i] = -1;
    s->scan_out[i] = s->exscan_out[i] = -1;
  }
  for (int i = 0; i < n * p; ++i) {
    /* block d of the personalised inputs goes to rank d: value(rank, i, t) tagged by d */
    s->a2a_in[i] = s->a2v_in[i] = s->a2w_in[i] = value(rank, i, t);
    s->sc_in[i] = value(s->root, i, t);
    s->rsb_in[i] = value(rank, i, t);
    s->ga_out[i] = s->ag_out[i] = s->a2a_out[i] = s->a2v_out[i] = s->a2w_out[i] = -1;
  }
  int total = s->vdispls[p - 1] + s->vcounts[p - 1];
  for (int i = 0; i < total; ++i) {
    s->gv_out[i] = s->agv_out[i] = -1;
    s->sv_in[i] = value(s->root, i, t);
    s->rs_in[i] = value(rank, i, t);
  }
  for (int i = 0; i < vcount(rank, n); ++i) s->sv_out[i] = s->rs_out[i] = -1;
  for (int i = 0; i < 2 * n; ++i) {
    s->na2a_in[i] = value(rank, i, t);
    s->nag_out[i] = s->nagv_out[i] = s->na2a_out[i] = s->na2v_out[i] = s->na2w_out[i] = -1;
  }
}

static void check(const Set* s, int t) {
  const int n = s->n, p = size, root = s->root;
  for (int i = 0; i < n; ++i) {
    int sum = 0, prefix = 0, maximum = value(0, i, t);
    for (int r = 0; r < p; ++r) {
      sum += value(r, i, t);
      if (r < rank) prefix += value(r, i, t);
      if (value(r, i, t) > maximum) maximum = value(r, i, t);
    }
    CHECK(s->bcast[i] == value(root, i, t), "n %d round %d bcast[%d] %d", n, t, i, s->bcast[i]);
    if (rank == root) CHECK(s->red_out[i] == sum, "n %d round %d reduce[%d]", n, t, i);
    CHECK(s->ar_out[i] == sum, "n %d round %d allreduce[%d] %d, not %d", n, t, i, s->ar_out[i],
          sum);
    CHECK(s->ar_inplace[i] == maximum, "n %d round %d allreduce in place max[%d]", n, t, i);
    CHECK(s->sc_out[i] == value(root, rank * n + i, t), "n %d round %d scatter[%d]", n, t, i);
    CHECK(s->scan_out[i] == prefix + value(rank, i, t), "n %d round %d scan[%d]", n, t, i);
    if (rank > 0) CHECK(s->exscan_out[i] == prefix, "n %d round %d exscan[%d]", n, t, i);
    int block = 0; /* reduce_scatter_block: element rank*n+i summed over ranks */
    for (int r = 0; r < p; ++r) block += value(r, rank * n + i, t);
    CHECK(s->rsb_out[i] == block, "n %d round %d reduce_scatter_block[%d]", n, t, i);
  }
  for (int r = 0; r < p; ++r) {
    for (int i = 0; i < n; ++i) {
      if (rank == root)
        CHECK(s->ga_out[r * n + i] == value(r, i, t), "n %d round %d gather %d/%d", n, t, r, i);
      CHECK(s->ag_out[r * n + i] == value(r, i, t), "n %d round %d allgather %d/%d", n, t, r, i);
      /* rank r's block `rank` of its personalised input */
      const int sent = value(r, rank * n + i, t);
      CHECK(s->a2a_out[r * n + i] == sent, "n %d round %d alltoall %d/%d", n, t, r, i);
      CHECK(s->a2v_out[r * n + i] == sent, "n %d round %d alltoallv %d/%d", n, t, r, i);
      CHECK(s->a2w_out[r * n + i] == sent, "n %d round %d alltoallw %d/%d", n, t, r, i);
    }
    for (int i = 0; i < s->vcounts[r]; ++i) {
      if (rank == root)
        CHECK(s->gv_out[s->vdispls[r] + i] == value(r, i, t), "n %d round %d gatherv", n, t);
      CHECK(s->agv_out[s->vdispls[r] + i] == value(r, i, t), "n %d round %d allgatherv", n, t);
    }
  }
  for (int i = 0; i < vcount(rank, n); ++i) {
    CHECK(s->sv_out[i] == value(root, s->vdispls[rank] + i, t), "n %d round %d scatterv", n, t);
    int sum = 0;
    for (int r = 0; r < p; ++r) sum += value(r, s->vdispls[rank] + i, t);
    CHECK(s->rs_out[i] == sum, "n %d round %d reduce_scatter[%d]", n, t, i);
  }
  /* the ring: block 0 from the left neighbour, block 1 from the right one */
  const int from[2] = {s->left, s->right};
  for (int k = 0; k < 2; ++k) {
    for (int i = 0; i < n; ++i) {
      CHECK(s->nag_out[k * n + i] == value(from[k], i, t), "n %d round %d neighbor_allgather", n,
            t);
      CHECK(s->nagv_out[k * n + i] == value(from[k], i, t), "n %d round %d neighbor_allgatherv", n,
            t);
      /* the left neighbour sent me its block 1 (to its right), the right one its block 0, also
         on 2 ranks where both neighbours are one process (MPI-4.1 section 8.6). There the
         libraries' nonblocking and persistent forms pair them wrongly; choreo serves
         neighbor_alltoallv right unless told to take the library's or its nonblocking form. */
      const int sent = value(from[k], (1 - k) * n + i, t);
      if (s->left != s->right || choreo_serves_neighbor_alltoallv())
        CHECK(s->na2v_out[k * n + i] == sent, "n %d round %d neighbor_alltoallv", n, t);
      if (s->left == s->right) continue;
      CHECK(s->na2a_out[k * n + i] == sent, "n %d round %d neighbor_alltoall", n, t);
      CHECK(s->na2w_out[k * n + i] == sent, "n %d round %d neighbor_alltoallw", n, t);
    }
  }
}

/* Completes the round's requests (the collectives and two point-to-point ones) by one of the
   completion calls, chosen by the round. Checks the point-to-point statuses. */
static void complete(MPI_Request* all, int count, int t, int p2p_first) {
  MPI_Status statuses[kCollectives + 4];
  int done[kCollectives + 4] = {0};
  int remaining = count;
  const int mode = modes[t % mode_count];
  if (mode == 0) {
    MPI_Waitall(count, all, statuses);
    remaining = 0;
  } else if (mode == 1) {
    for (int flag = 0; !flag;) MPI_Testall(count, all, &flag, statuses);
    remaining = 0;
  } else if (mode == 2) {
    for (int k = 0; k < count; ++k) MPI_Wait(&all[k], &statuses[k]);
    remaining = 0;
  } else if (mode == 3) {
    for (int k = 0; k < count; ++k)
      for (int flag = 0; !flag;) MPI_Test(&all[k], &flag, &statuses[k]);
    remaining = 0;
  } else if (mode == 4 || mode == 5) {
    while (remaining > 0) {
      int index = MPI_UNDEFINED, flag = 0;
      MPI_Status status;
      if (mode == 4)
        MPI_Waitany(count, all, &index, &status), flag = 1;
      else
        MPI_Testany(count, all, &index, &flag, &status);
      if (!flag) continue;
      CHECK(index != MPI_UNDEFINED, "round %d: any returned undefined with %d left", t, remaining);
      if (index == MPI_UNDEFINED) break;
      CHECK(!done[index], "round %d: request %d completed twice", t, index);
      done[index] = 1, statuses[index] = status, --remaining;
    }
  } else if (mode == 6 || mode == 7) {
    int indices[kCollectives + 4];
    MPI_Status some[kCollectives + 4];
    while (remaining > 0) {
      int out = 0;
      if (mode == 6)
        MPI_Waitsome(count, all, &out, indices, some);
      else
        MPI_Testsome(count, all, &out, indices, some);
      CHECK(out != MPI_UNDEFINED, "round %d: some returned undefined with %d left", t, remaining);
      if (out == MPI_UNDEFINED) break;
      for (int k = 0; k < out; ++k) {
        CHECK(!done[indices[k]], "round %d: request %d completed twice", t, indices[k]);
        done[indices[k]] = 1, statuses[indices[k]] = some[k], --remaining;
      }
    }
  }
  /* The receive from the left neighbour in the world ring: its source and tag. */
  CHECK(statuses[p2p_first].MPI_SOURCE == (rank + size - 1) % size &&
            statuses[p2p_first].MPI_TAG == t,
        "round %d (mode %d): receive status source %d tag %d", t, mode,
        statuses[p2p_first].MPI_SOURCE, statuses[p2p_first].MPI_TAG);
}

static void misuse(Set* s) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Request* bcast = &s->requests[1];
  MPI_Start(bcast);
  int code = MPI_Start(bcast), error_class = MPI_SUCCESS;
  MPI_Error_class(code, &error_class);
  CHECK(error_class == MPI_ERR_REQUEST, "start while active gave error class %d", error_class);
  /* A refused MPI_Startall starts none of its requests. */
  int token = 0;
  MPI_Request pair[2];
  MPI_Recv_init(&token, 1, MPI_INT, MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &pair[0]);
  pair[1] = *bcast;
  code = MPI_Startall(2, pair);
  MPI_Error_class(code, &error_class);
  CHECK(error_class == MPI_ERR_REQUEST, "Startall with an active request gave class %d",
        error_class);
  int inactive = 0;
  MPI_Request_get_status(pair[0], &inactive, MPI_STATUS_IGNORE);
  CHECK(inactive, "a refused MPI_Startall started the other request");
  MPI_Request_free(&pair[0]);
  code = MPI_Request_free(bcast);
  MPI_Error_class(code, &error_class);
  CHECK(error_class == MPI_ERR_REQUEST, "free while active gave error class %d", error_class);
  CHECK(*bcast != MPI_REQUEST_NULL, "a refused free must leave the request");
  MPI_Wait(bcast, MPI_STATUS_IGNORE);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

  /* A derived datatype freed after init, its handle then reused by another type: the request
     still moves the first type's elements (MPI lets a program free its types once init returned).
   */
  MPI_Datatype pair_of_ints, strided;
  MPI_Type_contiguous(2, MPI_INT, &pair_of_ints);
  MPI_Type_commit(&pair_of_ints);
  int data[8];
  MPI_Request typed;
  MPI_Bcast_init(data, 4, pair_of_ints, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &typed);
  MPI_Type_free(&pair_of_ints);
  MPI_Type_vector(2, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  for (int t = 0; t < 3; ++t) {
    for (int i = 0; i < 8; ++i) data[i] = rank == 0 ? value(0, i, t) : -1;
    MPI_Start(&typed);
    MPI_Wait(&typed, MPI_STATUS_IGNORE);
    for (int i = 0; i < 8; ++i)
      CHECK(data[i] == value(0, i, t), "freed type: round %d element %d is %d", t, i, data[i]);
  }
  MPI_Request_free(&typed);
  MPI_Type_free(&strided);
}

int main(int argc, char** argv) {
  int rounds = 80;
  int check_misuse = 0;
  for (int m = 0; m < 8; ++m) modes[mode_count++] = m;
  for (int a = 1; a < argc; ++a) {
    if (strcmp(argv[a], "--misuse") == 0) {
      check_misuse = 1;
    } else if (strcmp(argv[a], "--modes") == 0 && a + 1 < argc) {
      /* a comma-separated list of kModes' names */
      mode_count = 0;
      for (char* name = strtok(argv[++a], ","); name != NULL; name = strtok(NULL, ",")) {
        int found = -1;
        for (int m = 0; m < 8; ++m)
          if (strcmp(name, kModes[m]) == 0) found = m;
        if (found < 0) {
          fprintf(stderr,
                  "persistent_mpi4: --modes: '%s' is not one of waitall, testall, "
                  "wait, test, waitany, testany, waitsome, testsome\n",
                  name);
          return 1;
        }
        modes[mode_count++] = found;
      }
    } else if (strcmp(argv[a], "--rounds") == 0 && a + 1 < argc) {
      rounds = atoi(argv[++a]);
    }
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm ring;
  const int periodic = 1;
  MPI_Cart_create(MPI_COMM_WORLD, 1, &size, &periodic, 0, &ring);

  const int counts[] = {0, 1, 7, kMaxCount};
  long starts = 0;
  for (int c = 0; c < 4; ++c) {
    Set set;
    make_set(&set, counts[c], ring);
    if (check_misuse && c == 1) misuse(&set);
    for (int t = 0; t < rounds; ++t) {
      fill(&set, t);
      /* The collectives and a persistent and a nonblocking point-to-point pair, started by
         MPI_Startall (odd rounds) or one MPI_Start each (even rounds). */
      MPI_Request all[kCollectives + 4];
      memcpy(all, set.requests, sizeof set.requests);
      int token = -1, sent = rank * 10 + t, token2 = -1;
      MPI_Irecv(&token, 1, MPI_INT, (rank + size - 1) % size, t, MPI_COMM_WORLD,
                &all[kCollectives]);
      MPI_Isend(&sent, 1, MPI_INT, (rank + 1) % size, t, MPI_COMM_WORLD, &all[kCollectives + 1]);
      MPI_Request p2p[2];
      MPI_Recv_init(&token2, 1, MPI_INT, (rank + 1) % size, 1000 + t, MPI_COMM_WORLD, &p2p[0]);
      MPI_Send_init(&sent, 1, MPI_INT, (rank + size - 1) % size, 1000 + t, MPI_COMM_WORLD, &p2p[1]);
      all[kCollectives + 2] = p2p[0], all[kCollectives + 3] = p2p[1];
      if (t % 2) {
        MPI_Request startable[kCollectives + 2];
        memcpy(startable, set.requests, sizeof set.requests);
        startable[kCollectives] = p2p[0], startable[kCollectives + 1] = p2p[1];
        MPI_Startall(kCollectives + 2, startable);
      } else {
        for (int k = 0; k < kCollectives; ++k) MPI_Start(&set.requests[k]);
        MPI_Start(&p2p[0]);
        MPI_Start(&p2p[1]);
      }
      if (t % 5 == 0) { /* the state without completing: MPI_Request_get_status until done */
        for (int flag = 0; !flag;)
          MPI_Request_get_status(set.requests[3], &flag, MPI_STATUS_IGNORE);
      }
      starts += kCollectives;
      complete(all, kCollectives + 4, t, kCollectives);
      CHECK(token == ((rank + size - 1) % size) * 10 + t, "round %d: token %d", t, token);
      CHECK(token2 == ((rank + 1) % size) * 10 + t, "round %d: persistent token %d", t, token2);
      for (int k = 0; k < kCollectives; ++k)
        CHECK(all[k] == set.requests[k], "round %d: persistent request %d changed handle", t, k);
      CHECK(all[kCollectives] == MPI_REQUEST_NULL, "round %d: the receive was not freed", t);
      MPI_Request_free(&p2p[0]);
      MPI_Request_free(&p2p[1]);
      check(&set, t);
    }
    for (int k = 0; k < kCollectives; ++k) {
      MPI_Request_free(&set.requests[k]);
      CHECK(set.requests[k] == MPI_REQUEST_NULL, "free left request %d", k);
    }
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    if (total == 0)
      printf("persistent_mpi4: OK, %ld starts of %d persistent collectives on %d ranks\n", starts,
             kCollectives, size);
    else
      printf("persistent_mpi4: FAILED, %d wrong checks\n", total);
  }
  MPI_Comm_free(&ring);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
