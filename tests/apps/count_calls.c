/* count_calls.c: a PMPI shim that counts, per rank, the collectives libchoreo_pmpi.so replaces
 * (and a few neighbours), and whether MPI_Alltoallv's count pattern repeats.
 *
 * Build (with Open MPI, which Debian's applications are linked with; tests/apps/build.sh):
 *   mpicc.openmpi -O2 -fPIC -shared -pthread -o count_calls.so count_calls.c -ldl
 *   mpicc.openmpi -O2 -fPIC -shared -pthread -DCOUNT_PMPI -o count_calls_pmpi.so count_calls.c -ldl
 * Use (the preload goes to the ranks, not to mpiexec):
 *   mpiexec.openmpi -n 4 -x LD_PRELOAD=$PWD/count_calls.so lmp -in in.x
 *
 * The plain build defines MPI_X only: it sees exactly what a C PMPI library such as
 * libchoreo_pmpi.so sees. The -DCOUNT_PMPI build also defines PMPI_X and forwards to the next
 * definition (dlsym RTLD_NEXT): it also sees Open MPI's Fortran bindings, which call PMPI_X
 * directly; its summary's "pmpi" column counts the calls that came through PMPI_X only.
 *
 * Environment:
 *   COUNT_CALLS_OUT=file   also append the summary to this file (rank 0)
 *   COUNT_CALLS_EXACT=1    after each MPI_Alltoallv/MPI_Neighbor_alltoallv, one extra
 *                          PMPI_Allreduce(LAND) on the same communicator decides whether the
 *                          pattern repeated on *every* rank (what a library reusing a schedule
 *                          must know); off by default because it adds communication
 *   COUNT_CALLS_VERBOSE=1  also print one line per rank
 *
 * The summary is printed by rank 0 of MPI_COMM_WORLD inside MPI_Finalize, to stderr, every line
 * starting with "[count_calls]". Counters are updated under a mutex (never held across an MPI
 * call): PT-Scotch calls collectives on different communicators from several threads at once,
 * and the summary reports how many intercepted calls overlapped one in another thread.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum fn {
  F_ALLTOALLV, F_NEIGHBOR_ALLTOALLV, F_ALLREDUCE, F_BCAST, F_ALLGATHER, F_ALLTOALL,
  /* not replaced by choreo; counted to see what else the applications rely on */
  F_ALLGATHERV, F_ALLTOALLW, F_NEIGHBOR_ALLTOALL, F_IALLTOALLV, F_INEIGHBOR_ALLTOALLV,
  F_IALLREDUCE, F_REDUCE, F_N
};
static const char *fn_name[F_N] = {
  "MPI_Alltoallv", "MPI_Neighbor_alltoallv", "MPI_Allreduce", "MPI_Bcast", "MPI_Allgather",
  "MPI_Alltoall", "MPI_Allgatherv", "MPI_Alltoallw", "MPI_Neighbor_alltoall", "MPI_Ialltoallv",
  "MPI_Ineighbor_alltoallv", "MPI_Iallreduce", "MPI_Reduce"};

enum via { VIA_C, VIA_PMPI, VIA_N };
#define NBUCKET 40 /* log2 buckets of bytes per call: 0, 1, 2-3, 4-7, ... */

/* Everything rank 0 gathers, as one flat uint64 array (so one PMPI_Gather moves it). */
struct stats {
  uint64_t calls[F_N][VIA_N];
  uint64_t coll[F_N]; /* collective invocations: counted by rank 0 of the communicator */
  uint64_t bytes[F_N];
  uint64_t min_bytes[F_N], max_bytes[F_N];
  uint64_t nsec[F_N];
  uint64_t hist[F_N][NBUCKET];
  /* pattern statistics, [0] MPI_Alltoallv, [1] MPI_Neighbor_alltoallv */
  uint64_t pat_comms[2];      /* communicators the call was used on */
  uint64_t pat_rep_prev[2];   /* this rank's counts equal the previous call's on that comm */
  uint64_t pat_seen[2];       /* equal to some earlier call's on that comm */
  uint64_t pat_distinct[2];   /* distinct patterns, summed over communicators */
  uint64_t pat_coll_rep[2];   /* COUNT_CALLS_EXACT: repeated on every rank (counted once) */
  uint64_t pat_coll_checked[2];
  uint64_t pat_comm_size[2][17]; /* calls by communicator size 1..16, [0] for larger */
  uint64_t overlapped;           /* calls entered while another thread was inside one */
  uint64_t order_fp[F_N];        /* reductions of floating-point data with SUM or PROD */
  uint64_t order_user[F_N];      /* reductions with a user-defined operation */
  uint64_t order_noncommute[F_N]; /* ... of which the operation is not commutative */
  uint64_t thread_level;
};
static struct stats S;
static int exact_mode = -1;

#define MAX_DISTINCT 256
struct pattern_state {
  uint64_t last;
  int has_last;
  int ndistinct;
  uint64_t distinct[MAX_DISTINCT];
};
struct comm_state {
  struct pattern_state p[2];
};
static int keyval = MPI_KEYVAL_INVALID;
/* set while the shim itself calls MPI: those calls are not counted (per thread: another
 * thread's application calls meanwhile are) */
static __thread int in_shim;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int active; /* intercepted calls in progress, all threads */

/* Every wrapper brackets the real call with enter()/leave(); enter() notes an overlap. */
static int enter(void) { return __atomic_add_fetch(&active, 1, __ATOMIC_SEQ_CST) > 1; }
static void leave(void) { __atomic_sub_fetch(&active, 1, __ATOMIC_SEQ_CST); }

/* ---- forwarding: the plain build calls PMPI_X; the PMPI build looks up the next PMPI_X. ---- */
#ifdef COUNT_PMPI
static void *next_symbol(const char *name) {
  void *p = dlsym(RTLD_NEXT, name);
  if (!p) {
    fprintf(stderr, "[count_calls] error: %s not found after the shim (%s)\n", name, dlerror());
    abort();
  }
  return p;
}
#define REAL(name)                                                                       \
  (*({                                                                                   \
    static __typeof__(&PMPI_##name) real_;                                               \
    if (!real_) real_ = (__typeof__(&PMPI_##name))next_symbol("PMPI_" #name);            \
    real_;                                                                               \
  }))
#else
#define REAL(name) PMPI_##name
#endif

static uint64_t now_ns(void) { return (uint64_t)(REAL(Wtime)() * 1e9); }

static int bucket(uint64_t b) {
  int k = 0;
  while (b && k < NBUCKET - 1) { b >>= 1; ++k; }
  return k;
}

static int type_size(MPI_Datatype t) {
  int s = 0;
  if (t != MPI_DATATYPE_NULL) REAL(Type_size)(t, &s);
  return s;
}

static int comm_rank(MPI_Comm c) {
  int r = 0;
  REAL(Comm_rank)(c, &r);
  return r;
}

static void record(enum fn f, enum via v, MPI_Comm comm, uint64_t bytes, uint64_t t0,
                   int overlapped) {
  uint64_t dt = now_ns() - t0;
  int root = comm != MPI_COMM_NULL && comm_rank(comm) == 0;
  pthread_mutex_lock(&lock);
  S.overlapped += overlapped;
  S.nsec[f] += dt;
  S.calls[f][v]++;
  S.bytes[f] += bytes;
  if (S.calls[f][VIA_C] + S.calls[f][VIA_PMPI] == 1 || bytes < S.min_bytes[f]) S.min_bytes[f] = bytes;
  if (bytes > S.max_bytes[f]) S.max_bytes[f] = bytes;
  S.hist[f][bucket(bytes)]++;
  S.coll[f] += root;
  pthread_mutex_unlock(&lock);
}

/* FNV-1a over the count arrays and element sizes: the "pattern" of an exchange. Displacements
 * are left out on purpose: a schedule depends on who sends how much to whom, not where the
 * bytes sit in the buffers. */
static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *c = p;
  for (size_t i = 0; i < n; ++i) { h ^= c[i]; h *= 1099511628211ull; }
  return h;
}

static int delete_state(MPI_Comm c, int k, void *attr, void *extra) {
  (void)c; (void)k; (void)extra;
  free(attr);
  return MPI_SUCCESS;
}

static struct comm_state *state_of(MPI_Comm comm) {
  if (keyval == MPI_KEYVAL_INVALID)
    REAL(Comm_create_keyval)(MPI_COMM_NULL_COPY_FN, delete_state, &keyval, NULL);
  struct comm_state *s = NULL;
  int found = 0;
  REAL(Comm_get_attr)(comm, keyval, &s, &found);
  if (!found) {
    s = calloc(1, sizeof *s);
    REAL(Comm_set_attr)(comm, keyval, s);
  }
  return s;
}

static void record_pattern(int which, MPI_Comm comm, uint64_t h) {
  int size = 0;
  REAL(Comm_size)(comm, &size);
  int root = comm_rank(comm) == 0;
  pthread_mutex_lock(&lock); /* also serialises creating the keyval and the attribute */
  struct comm_state *cs = state_of(comm);
  struct pattern_state *p = &cs->p[which];
  if (!p->has_last && !p->ndistinct) S.pat_comms[which]++;
  S.pat_comm_size[which][size <= 16 ? size : 0]++;
  int rep_prev = p->has_last && p->last == h;
  int seen = 0;
  for (int i = 0; i < p->ndistinct; ++i) seen |= p->distinct[i] == h;
  if (!seen) {
    S.pat_distinct[which]++;
    if (p->ndistinct < MAX_DISTINCT) p->distinct[p->ndistinct++] = h;
  }
  S.pat_rep_prev[which] += rep_prev;
  S.pat_seen[which] += seen;
  p->last = h;
  p->has_last = 1;
  if (exact_mode < 0) {
    const char *e = getenv("COUNT_CALLS_EXACT");
    exact_mode = e && *e && strcmp(e, "0") != 0;
  }
  int exact = exact_mode;
  pthread_mutex_unlock(&lock);
  if (exact) { /* outside the lock: it waits for the other ranks */
    int all = 0;
    in_shim = 1;
    REAL(Allreduce)(&rep_prev, &all, 1, MPI_INT, MPI_LAND, comm);
    in_shim = 0;
    if (root) {
      pthread_mutex_lock(&lock);
      S.pat_coll_checked[which]++;
      S.pat_coll_rep[which] += all;
      pthread_mutex_unlock(&lock);
    }
  }
}

/* ---- the wrappers ---- */

static int w_Alltoallv(enum via v, const void *sb, const int sc[], const int sd[], MPI_Datatype st,
                       void *rb, const int rc[], const int rd[], MPI_Datatype rt, MPI_Comm comm) {
  if (in_shim) return REAL(Alltoallv)(sb, sc, sd, st, rb, rc, rd, rt, comm);
  int ov = enter();
  uint64_t t0 = now_ns();
  int rc_ = REAL(Alltoallv)(sb, sc, sd, st, rb, rc, rd, rt, comm);
  leave();
  int n = 0;
  REAL(Comm_size)(comm, &n); /* an intercommunicator's remote group is not handled: not used here */
  int in_place = sb == MPI_IN_PLACE;
  int ss = in_place ? type_size(rt) : type_size(st), rs = type_size(rt);
  const int *cnt = in_place ? rc : sc;
  uint64_t bytes = 0;
  for (int i = 0; i < n; ++i) bytes += (uint64_t)cnt[i] * ss;
  uint64_t h = 14695981039346656037ull;
  h = fnv(h, &n, sizeof n);
  h = fnv(h, &ss, sizeof ss);
  h = fnv(h, &rs, sizeof rs);
  h = fnv(h, cnt, sizeof(int) * n);
  h = fnv(h, rc, sizeof(int) * n);
  record(F_ALLTOALLV, v, comm, bytes, t0, ov);
  record_pattern(0, comm, h);
  return rc_;
}

/* Whether a reduction's result may depend on the order in which the ranks' data are combined:
 * 1 for SUM/PROD on floating-point (or derived) data, 2 for a user-defined operation, 0 for
 * integers, MIN/MAX/MINLOC/MAXLOC and the logical and bitwise operations (exact in any order),
 * 3 for a user-defined operation declared not commutative (MPI fixes its order: rank order). */
static int order_dependence(MPI_Datatype t, MPI_Op op) {
  if (op == MPI_MAX || op == MPI_MIN || op == MPI_MAXLOC || op == MPI_MINLOC || op == MPI_LAND ||
      op == MPI_LOR || op == MPI_LXOR || op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR ||
      op == MPI_REPLACE || op == MPI_NO_OP)
    return 0;
  if (op != MPI_SUM && op != MPI_PROD) {
    int commute = 1;
    REAL(Op_commutative)(op, &commute);
    return commute ? 2 : 3;
  }
  int ni, na, nd, comb = MPI_COMBINER_NAMED;
  REAL(Type_get_envelope)(t, &ni, &na, &nd, &comb);
  if (comb != MPI_COMBINER_NAMED) return 1; /* derived: cannot tell cheaply, assume floating */
  const MPI_Datatype fp[] = { /* handles are not constants in every MPI: a plain local array */
    MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX,
    MPI_C_LONG_DOUBLE_COMPLEX, MPI_REAL, MPI_DOUBLE_PRECISION, MPI_COMPLEX, MPI_DOUBLE_COMPLEX,
    MPI_REAL4, MPI_REAL8, MPI_REAL16, MPI_COMPLEX8, MPI_COMPLEX16, MPI_COMPLEX32,
    MPI_CXX_FLOAT_COMPLEX, MPI_CXX_DOUBLE_COMPLEX};
  for (size_t i = 0; i < sizeof fp / sizeof fp[0]; ++i)
    if (t == fp[i]) return 1;
  return 0;
}

static void record_order(enum fn f, MPI_Datatype t, MPI_Op op) {
  int d = order_dependence(t, op);
  if (!d) return;
  pthread_mutex_lock(&lock);
  if (d == 1) S.order_fp[f]++;
  else S.order_user[f]++;
  if (d == 3) S.order_noncommute[f]++;
  pthread_mutex_unlock(&lock);
}

static void neighbor_counts(MPI_Comm comm, int *indeg, int *outdeg) {
  int topo = MPI_UNDEFINED;
  *indeg = *outdeg = 0;
  REAL(Topo_test)(comm, &topo);
  if (topo == MPI_CART) {
    int nd = 0;
    REAL(Cartdim_get)(comm, &nd);
    *indeg = *outdeg = 2 * nd;
  } else if (topo == MPI_GRAPH) {
    int n = 0;
    REAL(Graph_neighbors_count)(comm, comm_rank(comm), &n);
    *indeg = *outdeg = n;
  } else if (topo == MPI_DIST_GRAPH) {
    int w = 0;
    REAL(Dist_graph_neighbors_count)(comm, indeg, outdeg, &w);
  }
}

static int w_Neighbor_alltoallv(enum via v, const void *sb, const int sc[], const int sd[],
                                MPI_Datatype st, void *rb, const int rc[], const int rd[],
                                MPI_Datatype rt, MPI_Comm comm) {
  if (in_shim) return REAL(Neighbor_alltoallv)(sb, sc, sd, st, rb, rc, rd, rt, comm);
  int ov = enter();
  uint64_t t0 = now_ns();
  int rc_ = REAL(Neighbor_alltoallv)(sb, sc, sd, st, rb, rc, rd, rt, comm);
  leave();
  int in = 0, out = 0;
  neighbor_counts(comm, &in, &out);
  int ss = type_size(st), rs = type_size(rt);
  uint64_t bytes = 0;
  for (int i = 0; i < out; ++i) bytes += (uint64_t)sc[i] * ss;
  uint64_t h = 14695981039346656037ull;
  h = fnv(h, &in, sizeof in);
  h = fnv(h, &out, sizeof out);
  h = fnv(h, &ss, sizeof ss);
  h = fnv(h, &rs, sizeof rs);
  h = fnv(h, sc, sizeof(int) * out);
  h = fnv(h, rc, sizeof(int) * in);
  record(F_NEIGHBOR_ALLTOALLV, v, comm, bytes, t0, ov);
  record_pattern(1, comm, h);
  return rc_;
}

static int w_Ineighbor_alltoallv(enum via v, const void *sb, const int sc[], const int sd[],
                                 MPI_Datatype st, void *rb, const int rc[], const int rd[],
                                 MPI_Datatype rt, MPI_Comm comm, MPI_Request *req) {
  if (in_shim) return REAL(Ineighbor_alltoallv)(sb, sc, sd, st, rb, rc, rd, rt, comm, req);
  int ov = enter();
  uint64_t t0 = now_ns();
  int rc_ = REAL(Ineighbor_alltoallv)(sb, sc, sd, st, rb, rc, rd, rt, comm, req);
  leave();
  int in = 0, out = 0;
  neighbor_counts(comm, &in, &out);
  int ss = type_size(st);
  uint64_t bytes = 0;
  for (int i = 0; i < out; ++i) bytes += (uint64_t)sc[i] * ss;
  record(F_INEIGHBOR_ALLTOALLV, v, comm, bytes, t0, ov); /* time = posting only */
  return rc_;
}

static int w_Neighbor_alltoall(enum via v, const void *sb, int sc, MPI_Datatype st, void *rb,
                               int rc, MPI_Datatype rt, MPI_Comm comm) {
  if (in_shim) return REAL(Neighbor_alltoall)(sb, sc, st, rb, rc, rt, comm);
  int ov = enter();
  uint64_t t0 = now_ns();
  int rc_ = REAL(Neighbor_alltoall)(sb, sc, st, rb, rc, rt, comm);
  leave();
  int in = 0, out = 0;
  neighbor_counts(comm, &in, &out);
  record(F_NEIGHBOR_ALLTOALL, v, comm, (uint64_t)sc * type_size(st) * out, t0, ov);
  return rc_;
}

static int w_Allreduce(enum via v, const void *sb, void *rb, int count, MPI_Datatype t, MPI_Op op,
                       MPI_Comm comm) {
  if (in_shim) return REAL(Allreduce)(sb, rb, count, t, op, comm);
  int ov = enter();
  uint64_t t0 = now_ns();
  int rc_ = REAL(Allreduce)(sb, rb, count, t, op, comm);
  leave();
  record(F_ALLREDUCE, v, comm, (uint64_t)count * type_size(t), t0, ov);
  record_order(F_ALLREDUCE, t, op);
  return rc_;
}

static int w_Iallreduce(enum via v, const void *sb, void *rb, int count, MPI_Datatype t,
                        MPI_Op op, MPI_Comm comm, MPI_Request *req) {
  if (in_shim) return REAL(Iallreduce)(sb, rb, count, t, op, comm, req);
  int ov = enter();
  uint64_t t0 = now_ns();
  int rc_ = REAL(Iallreduce)(sb, rb, count, t, op, comm, req);
  leave();
  record(F_IALLREDUCE, v, comm, (uint64_t)count * type_size(t), t0, ov);
  record_order(F_IALLREDUCE, t, op);
  return rc_;
}

static int w_Reduce(enum via v, const void *sb, void *rb, int count, MPI_Datatype t, MPI_Op op,
                    int root, MPI_Comm comm) {
  if (in_shim) return REAL(Reduce)(sb, rb, count, t, op, root, comm);
  int ov = enter();
  uint64_t t0 = now_ns();
  int rc_ = REAL(Reduce)(sb, rb, count, t, op, root, comm);
  leave();
  record(F_REDUCE, v, comm, (uint64_t)count * type_size(t), t0, ov);
  record_order(F_REDUCE, t, op);
  return rc_;
}

static int w_Bcast(enum via v, void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm) {
  if (in_shim) return REAL(Bcast)(buf, count, t, root, comm);
  int ov = enter();
  uint64_t t0 = now_ns();
  int rc_ = REAL(Bcast)(buf, count, t, root, comm);
  leave();
  record(F_BCAST, v, comm, (uint64_t)count * type_size(t), t0, ov);
  return rc_;
}

static int w_Allgather(enum via v, const void *sb, int sc, MPI_Datatype st, void *rb, int rc,
                       MPI_Datatype rt, MPI_Comm comm) {
  if (in_shim) return REAL(Allgather)(sb, sc, st, rb, rc, rt, comm);
  int ov = enter();
  uint64_t t0 = now_ns();
  int rc_ = REAL(Allgather)(sb, sc, st, rb, rc, rt, comm);
  leave();
  uint64_t b = sb == MPI_IN_PLACE ? (uint64_t)rc * type_size(rt) : (uint64_t)sc * type_size(st);
  record(F_ALLGATHER, v, comm, b, t0, ov);
  return rc_;
}

static int w_Allgatherv(enum via v, const void *sb, int sc, MPI_Datatype st, void *rb,
                        const int rc[], const int rd[], MPI_Datatype rt, MPI_Comm comm) {
  if (in_shim) return REAL(Allgatherv)(sb, sc, st, rb, rc, rd, rt, comm);
  int ov = enter();
  uint64_t t0 = now_ns();
  int rc_ = REAL(Allgatherv)(sb, sc, st, rb, rc, rd, rt, comm);
  leave();
  uint64_t b = sb == MPI_IN_PLACE ? (uint64_t)rc[comm_rank(comm)] * type_size(rt)
                                  : (uint64_t)sc * type_size(st);
  record(F_ALLGATHERV, v, comm, b, t0, ov);
  return rc_;
}

static int w_Alltoall(enum via v, const void *sb, int sc, MPI_Datatype st, void *rb, int rc,
                      MPI_Datatype rt, MPI_Comm comm) {
  if (in_shim) return REAL(Alltoall)(sb, sc, st, rb, rc, rt, comm);
  int ov = enter();
  uint64_t t0 = now_ns();
  int rc_ = REAL(Alltoall)(sb, sc, st, rb, rc, rt, comm);
  leave();
  int n = 0;
  REAL(Comm_size)(comm, &n);
  uint64_t b = sb == MPI_IN_PLACE ? (uint64_t)rc * type_size(rt) : (uint64_t)sc * type_size(st);
  record(F_ALLTOALL, v, comm, b * n, t0, ov);
  return rc_;
}

static int w_Alltoallw(enum via v, const void *sb, const int sc[], const int sd[],
                       const MPI_Datatype st[], void *rb, const int rc[], const int rd[],
                       const MPI_Datatype rt[], MPI_Comm comm) {
  if (in_shim) return REAL(Alltoallw)(sb, sc, sd, st, rb, rc, rd, rt, comm);
  int ov = enter();
  uint64_t t0 = now_ns();
  int rc_ = REAL(Alltoallw)(sb, sc, sd, st, rb, rc, rd, rt, comm);
  leave();
  int n = 0;
  REAL(Comm_size)(comm, &n);
  uint64_t b = 0;
  if (sb != MPI_IN_PLACE)
    for (int i = 0; i < n; ++i) b += (uint64_t)sc[i] * type_size(st[i]);
  record(F_ALLTOALLW, v, comm, b, t0, ov);
  return rc_;
}

static int w_Ialltoallv(enum via v, const void *sb, const int sc[], const int sd[],
                        MPI_Datatype st, void *rb, const int rc[], const int rd[],
                        MPI_Datatype rt, MPI_Comm comm, MPI_Request *req) {
  if (in_shim) return REAL(Ialltoallv)(sb, sc, sd, st, rb, rc, rd, rt, comm, req);
  int ov = enter();
  uint64_t t0 = now_ns();
  int rc_ = REAL(Ialltoallv)(sb, sc, sd, st, rb, rc, rd, rt, comm, req);
  leave();
  int n = 0;
  REAL(Comm_size)(comm, &n);
  uint64_t b = 0;
  int ss = type_size(sb == MPI_IN_PLACE ? rt : st);
  const int *cnt = sb == MPI_IN_PLACE ? rc : sc;
  for (int i = 0; i < n; ++i) b += (uint64_t)cnt[i] * ss;
  record(F_IALLTOALLV, v, comm, b, t0, ov);
  return rc_;
}

/* ---- the summary ---- */

static FILE *out_file;
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
  va_list a;
  va_start(a, fmt);
  fputs("[count_calls] ", stderr);
  vfprintf(stderr, fmt, a);
  va_end(a);
  if (out_file) {
    va_start(a, fmt);
    fputs("[count_calls] ", out_file);
    vfprintf(out_file, fmt, a);
    va_end(a);
  }
}

#define NWORDS (sizeof(struct stats) / sizeof(uint64_t))

/* Prints the table for np ranks' statistics (np == 1 and partial != NULL: one rank's only). */
static void print_table(const struct stats *all, int np, const char *partial) {
  const char *verbose = getenv("COUNT_CALLS_VERBOSE");
  const char *path = getenv("COUNT_CALLS_OUT");
  if (path && *path) out_file = fopen(path, "a");
#ifdef COUNT_PMPI
  const char *build = "MPI_X and PMPI_X (count_calls_pmpi)";
  const int pmpi_col = 1;
#else
  const char *build = "MPI_X (what a C PMPI library sees)";
  const int pmpi_col = 0;
#endif
  if (partial)
    say("%s\n", partial);
  else
    say("%d ranks; intercepting %s; per rank: min..max over ranks\n", np, build);
  say("  coll = collective invocations (once per call, by the communicator's rank 0);"
      " bytes = sent by one rank in one call%s\n",
      pmpi_col ? "; pmpi = calls (max over ranks) that came through PMPI_X only" : "");
  say("%-24s %9s %9s %7s %12s %12s %9s %9s%s\n", "function", "calls_min", "calls_max", "coll",
      "bytes_min", "bytes_max", "MB_rank", "s_rank", pmpi_col ? "      pmpi" : "");
  for (int f = 0; f < F_N; ++f) {
    uint64_t cmin = UINT64_MAX, cmax = 0, coll = 0, pm = 0, bmin = UINT64_MAX, bmax = 0, mb = 0,
             ns = 0;
    for (int r = 0; r < np; ++r) {
      uint64_t c = all[r].calls[f][VIA_C] + all[r].calls[f][VIA_PMPI];
      cmin = c < cmin ? c : cmin;
      cmax = c > cmax ? c : cmax;
      coll += all[r].coll[f];
      if (all[r].calls[f][VIA_PMPI] > pm) pm = all[r].calls[f][VIA_PMPI];
      if (c && all[r].min_bytes[f] < bmin) bmin = all[r].min_bytes[f];
      if (all[r].max_bytes[f] > bmax) bmax = all[r].max_bytes[f];
      if (all[r].bytes[f] > mb) mb = all[r].bytes[f];
      if (all[r].nsec[f] > ns) ns = all[r].nsec[f];
    }
    if (!cmax && f > F_ALLTOALL) continue; /* the extras only when used */
    if (!cmax) bmin = 0;
    char pmc[16] = "";
    if (pmpi_col) snprintf(pmc, sizeof pmc, " %9llu", (unsigned long long)pm);
    say("%-24s %9llu %9llu %7llu %12llu %12llu %9.2f %9.3f%s\n", fn_name[f],
        (unsigned long long)cmin, (unsigned long long)cmax, (unsigned long long)coll,
        (unsigned long long)bmin, (unsigned long long)bmax, mb / 1e6, ns / 1e9, pmc);
  }
  for (int f = 0; f < F_N; ++f) {
    uint64_t h[NBUCKET] = {0}, any = 0;
    for (int r = 0; r < np; ++r)
      for (int k = 0; k < NBUCKET; ++k) { h[k] += all[r].hist[f][k]; any += all[r].hist[f][k]; }
    if (!any) continue;
    char line[1024];
    int len = snprintf(line, sizeof line, "%s bytes per call (calls summed over ranks):",
                       fn_name[f]);
    for (int k = 0; k < NBUCKET && len < (int)sizeof line - 40; ++k)
      if (h[k])
        len += snprintf(line + len, sizeof line - len, " %s%llu:%llu", k ? "<" : "",
                        k ? 1ull << k : 0ull, (unsigned long long)h[k]);
    say("  %s\n", line);
  }
  for (int w = 0; w < 2; ++w) {
    enum fn f = w ? F_NEIGHBOR_ALLTOALLV : F_ALLTOALLV;
    uint64_t mn[4] = {UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX}, mx[4] = {0}, chk = 0,
             rep = 0;
    for (int r = 0; r < np; ++r) {
      uint64_t v[4] = {all[r].pat_comms[w], all[r].pat_rep_prev[w], all[r].pat_seen[w],
                       all[r].pat_distinct[w]};
      for (int k = 0; k < 4; ++k) {
        mn[k] = v[k] < mn[k] ? v[k] : mn[k];
        mx[k] = v[k] > mx[k] ? v[k] : mx[k];
      }
      chk += all[r].pat_coll_checked[w];
      rep += all[r].pat_coll_rep[w];
    }
    if (!mx[0]) continue;
    say("%s pattern per rank: comms %llu..%llu, repeats previous call on its comm %llu..%llu, "
        "seen before %llu..%llu, distinct %llu..%llu\n",
        fn_name[f], (unsigned long long)mn[0], (unsigned long long)mx[0],
        (unsigned long long)mn[1], (unsigned long long)mx[1], (unsigned long long)mn[2],
        (unsigned long long)mx[2], (unsigned long long)mn[3], (unsigned long long)mx[3]);
    char line[512];
    int len = snprintf(line, sizeof line, "%s calls by communicator size (summed over ranks):",
                       fn_name[f]);
    for (int k = 1; k <= 17; ++k) {
      uint64_t c = 0;
      for (int r = 0; r < np; ++r) c += all[r].pat_comm_size[w][k % 17];
      if (c) len += snprintf(line + len, sizeof line - len, " %s%d:%llu", k == 17 ? ">" : "",
                             k == 17 ? 16 : k, (unsigned long long)c);
    }
    say("  %s\n", line);
    if (chk)
      say("%s pattern on every rank (COUNT_CALLS_EXACT): %llu of %llu collective calls repeat "
          "the previous one on their comm\n",
          fn_name[f], (unsigned long long)rep, (unsigned long long)chk);
  }
  for (int f = 0; f < F_N; ++f) {
    uint64_t fpn = 0, un = 0, nc = 0;
    for (int r = 0; r < np; ++r) {
      fpn += all[r].order_fp[f];
      un += all[r].order_user[f];
      nc += all[r].order_noncommute[f];
    }
    if (fpn || un)
      say("%s calls whose result may depend on the reduction order (summed over ranks): "
          "floating-point SUM/PROD %llu, user-defined operation %llu (not commutative: %llu)\n",
          fn_name[f], (unsigned long long)fpn, (unsigned long long)un, (unsigned long long)nc);
  }
  uint64_t ov = 0;
  for (int r = 0; r < np; ++r) ov += all[r].overlapped;
  const char *lv = all[0].thread_level == MPI_THREAD_MULTIPLE     ? "MPI_THREAD_MULTIPLE"
                   : all[0].thread_level == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED"
                   : all[0].thread_level == MPI_THREAD_FUNNELED   ? "MPI_THREAD_FUNNELED"
                                                                  : "MPI_THREAD_SINGLE";
  if (!partial)
    say("thread level %s; calls entered while another thread of the rank was in one: %llu\n",
        lv, (unsigned long long)ov);
  if (verbose && *verbose && strcmp(verbose, "0") != 0)
    for (int r = 0; r < np; ++r)
      for (int f = 0; f < F_N; ++f)
        if (all[r].calls[f][VIA_C] + all[r].calls[f][VIA_PMPI])
          say("rank %d %s calls %llu bytes %llu\n", r, fn_name[f],
              (unsigned long long)(all[r].calls[f][VIA_C] + all[r].calls[f][VIA_PMPI]),
              (unsigned long long)all[r].bytes[f]);
  if (out_file) fclose(out_file);
  out_file = NULL;
}

static int summary_done;

static void summary(void) {
  if (summary_done) return;
  summary_done = 1;
  in_shim = 1;
  int me = 0, np = 1, level = 0;
  REAL(Query_thread)(&level);
  S.thread_level = (uint64_t)level;
  REAL(Comm_rank)(MPI_COMM_WORLD, &me);
  REAL(Comm_size)(MPI_COMM_WORLD, &np);
  struct stats *all = NULL;
  if (me == 0) all = calloc((size_t)np, sizeof *all);
  REAL(Gather)(&S, (int)NWORDS, MPI_UINT64_T, all, (int)NWORDS, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (me == 0) print_table(all, np, NULL);
  free(all);
  in_shim = 0;
}

/* A program whose MPI_Finalize does not come through the C symbol (a Fortran program under
 * Open MPI calls PMPI_Finalize) never reaches summary(): at exit, MPI is gone, so rank 0 prints
 * its own counts only, saying so. The rank comes from the launcher's environment. */
__attribute__((destructor)) static void summary_at_exit(void) {
  if (summary_done) return;
  const char *r = getenv("OMPI_COMM_WORLD_RANK");
  if (!r) r = getenv("PMI_RANK");
  if (r && atoi(r) != 0) return;
  uint64_t any = 0;
  for (int f = 0; f < F_N; ++f) any += S.calls[f][VIA_C] + S.calls[f][VIA_PMPI];
  print_table(&S, 1,
              any ? "MPI_Finalize never came through MPI_Finalize (a Fortran program under Open"
                    " MPI calls PMPI_Finalize): counts of rank 0 alone"
                  : "MPI_Finalize never came through MPI_Finalize, and no call was intercepted"
                    " on rank 0 (a Fortran program under Open MPI calls PMPI_X directly)");
}

/* ---- the exported symbols ---- */

#define UNPAREN(...) __VA_ARGS__
#ifdef COUNT_PMPI
#define ENTRY(name, params, args)                                                  \
  int MPI_##name params { return w_##name(VIA_C, UNPAREN args); }                  \
  int PMPI_##name params { return w_##name(VIA_PMPI, UNPAREN args); }
#else
#define ENTRY(name, params, args) \
  int MPI_##name params { return w_##name(VIA_C, UNPAREN args); }
#endif

ENTRY(Alltoallv,
      (const void *sb, const int sc[], const int sd[], MPI_Datatype st, void *rb, const int rc[],
       const int rd[], MPI_Datatype rt, MPI_Comm comm),
      (sb, sc, sd, st, rb, rc, rd, rt, comm))
ENTRY(Neighbor_alltoallv,
      (const void *sb, const int sc[], const int sd[], MPI_Datatype st, void *rb, const int rc[],
       const int rd[], MPI_Datatype rt, MPI_Comm comm),
      (sb, sc, sd, st, rb, rc, rd, rt, comm))
ENTRY(Ineighbor_alltoallv,
      (const void *sb, const int sc[], const int sd[], MPI_Datatype st, void *rb, const int rc[],
       const int rd[], MPI_Datatype rt, MPI_Comm comm, MPI_Request *req),
      (sb, sc, sd, st, rb, rc, rd, rt, comm, req))
ENTRY(Neighbor_alltoall,
      (const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt, MPI_Comm comm),
      (sb, sc, st, rb, rc, rt, comm))
ENTRY(Allreduce,
      (const void *sb, void *rb, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm),
      (sb, rb, count, t, op, comm))
ENTRY(Iallreduce,
      (const void *sb, void *rb, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm,
       MPI_Request *req),
      (sb, rb, count, t, op, comm, req))
ENTRY(Reduce,
      (const void *sb, void *rb, int count, MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm),
      (sb, rb, count, t, op, root, comm))
ENTRY(Bcast, (void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm),
      (buf, count, t, root, comm))
ENTRY(Allgather,
      (const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt, MPI_Comm comm),
      (sb, sc, st, rb, rc, rt, comm))
ENTRY(Allgatherv,
      (const void *sb, int sc, MPI_Datatype st, void *rb, const int rc[], const int rd[],
       MPI_Datatype rt, MPI_Comm comm),
      (sb, sc, st, rb, rc, rd, rt, comm))
ENTRY(Alltoall,
      (const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt, MPI_Comm comm),
      (sb, sc, st, rb, rc, rt, comm))
ENTRY(Alltoallw,
      (const void *sb, const int sc[], const int sd[], const MPI_Datatype st[], void *rb,
       const int rc[], const int rd[], const MPI_Datatype rt[], MPI_Comm comm),
      (sb, sc, sd, st, rb, rc, rd, rt, comm))
ENTRY(Ialltoallv,
      (const void *sb, const int sc[], const int sd[], MPI_Datatype st, void *rb, const int rc[],
       const int rd[], MPI_Datatype rt, MPI_Comm comm, MPI_Request *req),
      (sb, sc, sd, st, rb, rc, rd, rt, comm, req))

/* MPI_Finalize: the summary needs MPI, so it runs before the real finalize. */
int MPI_Finalize(void) {
  summary();
  return REAL(Finalize)();
}
#ifdef COUNT_PMPI
int PMPI_Finalize(void) { /* Fortran's MPI_FINALIZE under Open MPI */
  summary();
  return REAL(Finalize)();
}
#endif
