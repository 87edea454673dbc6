// libchoreo_scalapack.so's p?gemr2d and p?trmr2d on random descriptors (1 to 5 ranks), called
// as a ScaLAPACK program calls them: BLACS grids of every shape on all, some, disjoint and
// overlapping sets of processes (a process outside a grid passes DESC(CTXT_) = -1 and garbage
// in the other fields), submatrices at any offset, block sizes that divide nothing and exceed
// the matrix, any first process, a leading dimension of each process's own, s, d, c, z and i,
// upper and lower trapezoids with and without the diagonal.
//
// Every result is compared element by element, untouched elements included, with two
// references: a naive redistribution written here (each element sent alone by MPI_Alltoallv
// to the owner the descriptor formulas give), and ScaLAPACK's own C routine, looked up in
// libscalapack itself. Half the configurations run twice, the second time from the plan cache.
//
// Prints "scalapack_random: N cases OK" on rank 0 and exits 0 only when every element agreed.
#include <dlfcn.h>
#include <fmt/format.h>
#include <mpi.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

extern "C" {
void Cblacs_pinfo(int* mypnum, int* nprocs);
void Cblacs_get(int context, int what, int* value);
void Cblacs_gridinit(int* context, const char* order, int nprow, int npcol);
void Cblacs_gridmap(int* context, int* usermap, int ldumap, int nprow, int npcol);
}

// The routines under test, called by name as a program calls them: the linker takes them from
// the first library that defines them, libchoreo_scalapack.so.
#define DECLARE(letter, type)                                                                \
  extern "C" void Cp##letter##gemr2d(int, int, type*, int, int, const int*, type*, int, int, \
                                     const int*, int);                                       \
  extern "C" void Cp##letter##trmr2d(const char*, const char*, int, int, type*, int, int,    \
                                     const int*, type*, int, int, const int*, int);
struct FloatComplex;
struct DoubleComplex;
DECLARE(s, float)
DECLARE(d, double)
DECLARE(c, FloatComplex)
DECLARE(z, DoubleComplex)
DECLARE(i, int)
#undef DECLARE

struct FloatComplex {
  float re, im;
  bool operator==(const FloatComplex&) const = default;
};
struct DoubleComplex {
  double re, im;
  bool operator==(const DoubleComplex&) const = default;
};

namespace {

/// A grid of the pool: its shape and the rank at each position (row + col * nprow).
struct Grid {
  int nprow = 1, npcol = 1;
  std::vector<int> ranks;
  int context = -1;  ///< on this process; -1 when it is not in the grid
  int my_row = -1, my_col = -1;
};

/// Shared by every rank: the same seed gives the same configurations everywhere.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}
  int in(int lo, int hi) {
    return lo + static_cast<int>(engine_() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  bool chance(int percent) { return in(0, 99) < percent; }

 private:
  std::mt19937_64 engine_;
};

Grid make_grid(int nprow, int npcol, std::vector<int> ranks, int me) {
  Grid g{nprow, npcol, std::move(ranks)};
  std::vector<int> usermap = g.ranks;  // usermap[row + col * ldumap]
  Cblacs_get(0, 0, &g.context);
  Cblacs_gridmap(&g.context, usermap.data(), nprow, nprow, npcol);
  for (int p = 0; p < nprow * npcol; ++p)
    if (g.ranks[static_cast<std::size_t>(p)] == me) g.my_row = p % nprow, g.my_col = p / nprow;
  if (g.my_row < 0) g.context = -1;
  return g;
}

/// Grids of every kind the ranks allow: whole 1xP and Px1, square, subsets, disjoint halves,
/// reversed orders.
std::vector<Grid> grid_pool(int size, int me) {
  std::vector<Grid> pool;
  std::vector<int> all(static_cast<std::size_t>(size)), reversed;
  for (int r = 0; r < size; ++r) all[static_cast<std::size_t>(r)] = r;
  reversed.assign(all.rbegin(), all.rend());
  pool.push_back(make_grid(1, size, all, me));
  pool.push_back(make_grid(size, 1, reversed, me));
  pool.push_back(make_grid(1, 1, {size - 1}, me));
  if (size >= 2) {
    std::vector<int> rest(all.begin() + 1, all.end());
    pool.push_back(make_grid(static_cast<int>(rest.size()), 1, rest, me));
    pool.push_back(make_grid(1, 1, {0}, me));
    pool.push_back(make_grid(1, 2, {size - 1, 0}, me));
  }
  if (size >= 4) {
    pool.push_back(make_grid(2, 2, {0, 1, 2, 3}, me));
    pool.push_back(make_grid(2, 2, {3, 1, 0, 2}, me));
    pool.push_back(make_grid(1, 2, {0, 1}, me));  // disjoint from the next
    pool.push_back(make_grid(2, 1, {2, 3}, me));
  }
  if (size >= 5) pool.push_back(make_grid(2, 2, {4, 3, 2, 1}, me));
  return pool;
}

/// One side of a configuration: its grid, descriptor fields and every process's LLD.
struct SideSpec {
  const Grid* grid = nullptr;
  int m = 0, n = 0, mb = 1, nb = 1, rsrc = 0, csrc = 0;
  int i = 1, j = 1;      ///< the submatrix's corner, 1-based
  std::vector<int> lld;  ///< by grid position
};

struct Config {
  char type = 'd';
  bool trapezoid = false;
  char uplo = 'U', diag = 'N';
  int m = 0, n = 0;
  SideSpec a, b;
  bool large = false;  ///< random_config's large configurations
};

int numroc(int n, int nb, int proc, int first, int procs) {
  const int distance = ((proc - first) % procs + procs) % procs;
  const int blocks = n / nb;
  int count = blocks / procs * nb;
  const int extra = blocks % procs;
  if (distance < extra) count += nb;
  if (distance == extra) count += n % nb;
  return count;
}

SideSpec random_side(Rng& rng, const std::vector<Grid>& pool, int m, int n, bool large) {
  SideSpec s;
  s.grid = &pool[static_cast<std::size_t>(rng.in(0, static_cast<int>(pool.size()) - 1))];
  s.m = m + rng.in(0, 9);
  s.n = n + rng.in(0, 9);
  s.i = rng.in(1, s.m - m + 1);
  s.j = rng.in(1, s.n - n + 1);
  const int largest_block = large ? 64 : 7;
  s.mb = rng.chance(10) ? std::max(1, s.m + rng.in(0, 3)) : rng.in(1, largest_block);
  s.nb = rng.chance(10) ? std::max(1, s.n + rng.in(0, 3)) : rng.in(1, largest_block);
  s.rsrc = rng.in(0, s.grid->nprow - 1);
  s.csrc = rng.in(0, s.grid->npcol - 1);
  for (int p = 0; p < s.grid->nprow * s.grid->npcol; ++p) {
    const int rows = numroc(s.m, s.mb, p % s.grid->nprow, s.rsrc, s.grid->nprow);
    s.lld.push_back(std::max(1, rows) + (rng.chance(40) ? rng.in(1, 4) : 0));
  }
  return s;
}

/// `large`: 150-600 rows and columns in blocks of up to 64, so that messages between
/// processes of a node fill several rings of the shared-memory path (src/redist/
/// node_exchange.hpp: chunks of 64 KiB, 8 to a ring) and the rings wrap within a call.
Config random_config(Rng& rng, const std::vector<Grid>& pool, bool large) {
  static const char kTypes[] = {'s', 'd', 'c', 'z', 'i'};
  Config c;
  c.type = kTypes[rng.in(0, 4)];
  c.m = large ? rng.in(150, 600) : rng.chance(3) ? 0 : rng.in(1, 24);
  c.n = large ? rng.in(150, 600) : rng.chance(3) ? 0 : rng.in(1, 24);
  c.trapezoid = rng.chance(35);
  c.uplo = rng.chance(50) ? 'U' : 'l';
  c.diag = rng.chance(50) ? 'N' : 'u';
  c.large = large;
  c.a = random_side(rng, pool, c.m, c.n, large);
  c.b = random_side(rng, pool, c.m, c.n, large);
  return c;
}

/// This process's local array of a side, and its descriptor (garbage beyond CTXT_ = -1 when
/// the process is not in the grid, which the routines must not read).
struct Local {
  std::array<int, 9> desc{};
  int rows = 0, cols = 0, lld = 1;
};

Local local_of(const SideSpec& s) {
  Local l;
  const Grid& g = *s.grid;
  if (g.context < 0) {
    l.desc = {1, -1, -7, -7, -7, -7, -7, -7, -7};
    return l;
  }
  l.rows = numroc(s.m, s.mb, g.my_row, s.rsrc, g.nprow);
  l.cols = numroc(s.n, s.nb, g.my_col, s.csrc, g.npcol);
  l.lld = s.lld[static_cast<std::size_t>(g.my_row + g.my_col * g.nprow)];
  l.desc = {1, g.context, s.m, s.n, s.mb, s.nb, s.rsrc, s.csrc, l.lld};
  return l;
}

/// The global (0-based) row or column at local index `local` of process `proc`.
int global_of(int local, int nb, int proc, int first, int procs) {
  const int distance = ((proc - first) % procs + procs) % procs;
  return (local / nb * procs + distance) * nb + local % nb;
}

template <typename T>
T value(double x, bool source) {
  if constexpr (std::is_same_v<T, FloatComplex>)
    return {static_cast<float>(x), static_cast<float>(source ? x + 0.25 : x - 0.25)};
  else if constexpr (std::is_same_v<T, DoubleComplex>)
    return {x, source ? x + 0.25 : x - 0.25};
  else
    return static_cast<T>(x);
}

/// Every local element of a side, visited with its global (row, col).
template <typename Visit>
void for_each_local(const SideSpec& s, const Local& l, Visit visit) {
  const Grid& g = *s.grid;
  for (int c = 0; c < l.cols; ++c)
    for (int r = 0; r < l.rows; ++r)
      visit(r + c * l.lld, global_of(r, s.mb, g.my_row, s.rsrc, g.nprow),
            global_of(c, s.nb, g.my_col, s.csrc, g.npcol));
}

/// Whether element (i, j) of the m x n submatrix moves (p?trmr2d's trapezoid, read from its
/// documentation: upper keeps rows 0 .. j + max(m-n, 0), lower rows j - max(n-m, 0) ..).
bool moves(const Config& c, int i, int j) {
  if (!c.trapezoid) return true;
  const bool diagonal = c.diag == 'N' || c.diag == 'n';
  if (c.uplo == 'U' || c.uplo == 'u') return i <= j + std::max(c.m - c.n, 0) - (diagonal ? 0 : 1);
  return i >= j - std::max(c.n - c.m, 0) + (diagonal ? 0 : 1);
}

/// The naive redistribution: every element alone, to the owner and offset the formulas give.
template <typename T>
void naive(const Config& c, const Local& la, const T* a, const Local& lb, T* b, MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  struct Item {
    std::int64_t offset;
    T value;
  };
  std::vector<std::vector<Item>> out(static_cast<std::size_t>(size));
  if (c.a.grid->context >= 0)
    for_each_local(c.a, la, [&](int offset, int gi, int gj) {
      const int i = gi - (c.a.i - 1), j = gj - (c.a.j - 1);
      if (i < 0 || j < 0 || i >= c.m || j >= c.n || !moves(c, i, j)) return;
      const int bi = c.b.i - 1 + i, bj = c.b.j - 1 + j;
      const Grid& g = *c.b.grid;
      const int prow = (bi / c.b.mb + c.b.rsrc) % g.nprow,
                pcol = (bj / c.b.nb + c.b.csrc) % g.npcol;
      const int position = prow + pcol * g.nprow;
      const int row = bi / (c.b.mb * g.nprow) * c.b.mb + bi % c.b.mb;
      const int col = bj / (c.b.nb * g.npcol) * c.b.nb + bj % c.b.nb;
      out[static_cast<std::size_t>(g.ranks[static_cast<std::size_t>(position)])].push_back(
          {row + static_cast<std::int64_t>(col) * c.b.lld[static_cast<std::size_t>(position)],
           a[offset]});
    });
  std::vector<int> send_counts(static_cast<std::size_t>(size)), recv_counts(send_counts.size()),
      send_displs(send_counts.size()), recv_displs(send_counts.size());
  std::vector<Item> flat;
  for (int r = 0; r < size; ++r) {
    send_displs[static_cast<std::size_t>(r)] = static_cast<int>(flat.size() * sizeof(Item));
    send_counts[static_cast<std::size_t>(r)] =
        static_cast<int>(out[static_cast<std::size_t>(r)].size() * sizeof(Item));
    flat.insert(flat.end(), out[static_cast<std::size_t>(r)].begin(),
                out[static_cast<std::size_t>(r)].end());
  }
  MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, comm);
  int total = 0;
  for (int r = 0; r < size; ++r)
    recv_displs[static_cast<std::size_t>(r)] = total,
    total += recv_counts[static_cast<std::size_t>(r)];
  std::vector<Item> in(static_cast<std::size_t>(total) / sizeof(Item));
  MPI_Alltoallv(flat.data(), send_counts.data(), send_displs.data(), MPI_BYTE, in.data(),
                recv_counts.data(), recv_displs.data(), MPI_BYTE, comm);
  (void)lb;
  for (const Item& item : in) b[item.offset] = item.value;
}

template <typename T>
using Gemr2d = void (*)(int, int, T*, int, int, const int*, T*, int, int, const int*, int);
template <typename T>
using Trmr2d = void (*)(const char*, const char*, int, int, T*, int, int, const int*, T*, int, int,
                        const int*, int);

template <typename T>
std::pair<Gemr2d<T>, Trmr2d<T>> ours() {
  if constexpr (std::is_same_v<T, float>)
    return {Cpsgemr2d, Cpstrmr2d};
  else if constexpr (std::is_same_v<T, double>)
    return {Cpdgemr2d, Cpdtrmr2d};
  else if constexpr (std::is_same_v<T, FloatComplex>)
    return {Cpcgemr2d, Cpctrmr2d};
  else if constexpr (std::is_same_v<T, DoubleComplex>)
    return {Cpzgemr2d, Cpztrmr2d};
  else
    return {Cpigemr2d, Cpitrmr2d};
}

void* symbol(void* library, const std::string& name) {
  void* found = library != nullptr ? dlsym(library, name.c_str()) : nullptr;
  if (found == nullptr) {
    fmt::print(stderr, "scalapack_random: cannot find {}\n", name);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return found;
}

class Checker {
 public:
  explicit Checker(int rank) : rank_(rank) {}
  void fail(const std::string& what) {
    if (++failures_ <= 5)
      fmt::print(stderr, "scalapack_random: rank {}: FAILED: {}\n", rank_, what);
  }
  int failures() const { return failures_; }

  void compared(std::int64_t elements) { compared_ += elements; }
  std::int64_t elements() const { return compared_; }

 private:
  int rank_;
  int failures_ = 0;
  std::int64_t compared_ = 0;
};

std::string describe(const Config& c) {
  const auto side = [](const SideSpec& s) {
    return fmt::format("{}x{} grid, {}x{} MB {} NB {} src ({},{}) at ({},{})", s.grid->nprow,
                       s.grid->npcol, s.m, s.n, s.mb, s.nb, s.rsrc, s.csrc, s.i, s.j);
  };
  return fmt::format("p{}{}2d {}x{}{}: A {} -> B {}", c.type, c.trapezoid ? "trmr" : "gemr", c.m,
                     c.n, c.trapezoid ? fmt::format(" {}{}", c.uplo, c.diag) : "", side(c.a),
                     side(c.b));
}

template <typename T>
void run(const Config& c, int context, void* scalapack, bool twice, bool measured, Checker& check) {
  const Local la = local_of(c.a), lb = local_of(c.b);
  std::vector<T> a(static_cast<std::size_t>(std::max(1, la.lld * la.cols)), value<T>(-1e6, true));
  std::vector<T> b0(static_cast<std::size_t>(std::max(1, lb.lld * lb.cols)), value<T>(-2e6, false));
  if (c.a.grid->context >= 0)
    for_each_local(c.a, la, [&](int offset, int gi, int gj) {
      a[static_cast<std::size_t>(offset)] = value<T>(gi * 1000.0 + gj + 1, true);
    });
  if (c.b.grid->context >= 0)
    for_each_local(c.b, lb, [&](int offset, int gi, int gj) {
      b0[static_cast<std::size_t>(offset)] = value<T>(-(gi * 1000.0 + gj + 1) - 0.5, false);
    });
  std::vector<T> expected = b0, choreo = b0, own = b0;
  naive(c, la, a.data(), lb, expected.data(), MPI_COMM_WORLD);
  const std::string letter(1, c.type);
  const char uplo[2] = {c.uplo, 0}, diag[2] = {c.diag, 0};
  const auto call = [&](bool ours, std::vector<T>& b) {
    if (!c.trapezoid) {
      const auto f = ours
                         ? ::ours<T>().first
                         : reinterpret_cast<Gemr2d<T>>(symbol(scalapack, "Cp" + letter + "gemr2d"));
      f(c.m, c.n, a.data(), c.a.i, c.a.j, la.desc.data(), b.data(), c.b.i, c.b.j, lb.desc.data(),
        context);
    } else {
      const auto f = ours
                         ? ::ours<T>().second
                         : reinterpret_cast<Trmr2d<T>>(symbol(scalapack, "Cp" + letter + "trmr2d"));
      f(uplo, diag, c.m, c.n, a.data(), c.a.i, c.a.j, la.desc.data(), b.data(), c.b.i, c.b.j,
        lb.desc.data(), context);
    }
  };
  call(true, choreo);
  if (twice) {
    choreo = b0;
    call(true, choreo);  // from the plan cache
  }
  if (measured) {
    // Through the library's measurement window (executes 0-7 alternate two engines, the 8th
    // agrees between processes), rank 0 alone changing its leading dimensions on calls 2, 5
    // and 6: its plan is rebuilt where the others' is reused (keeping its shared-memory
    // links), and every process must still meet the others at the agreement (a hang here is
    // the failure).
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int k = 0; k < 9; ++k) {
      const bool shifted = rank == 0 && (k == 2 || k == 5 || k == 6);
      Local la2 = la, lb2 = lb;
      if (shifted && la2.desc[1] >= 0) la2.lld += 3, la2.desc[8] = la2.lld;
      if (shifted && lb2.desc[1] >= 0) lb2.lld += 3, lb2.desc[8] = lb2.lld;
      std::vector<T> a2(static_cast<std::size_t>(std::max(1, la2.lld * la2.cols)));
      std::vector<T> b2(static_cast<std::size_t>(std::max(1, lb2.lld * lb2.cols)));
      std::vector<int> at_a, at_a2, at_b, at_b2;
      if (c.a.grid->context >= 0) {
        for_each_local(c.a, la, [&](int o, int, int) { at_a.push_back(o); });
        for_each_local(c.a, la2, [&](int o, int, int) { at_a2.push_back(o); });
      }
      if (c.b.grid->context >= 0) {
        for_each_local(c.b, lb, [&](int o, int, int) { at_b.push_back(o); });
        for_each_local(c.b, lb2, [&](int o, int, int) { at_b2.push_back(o); });
      }
      for (std::size_t e = 0; e < at_a.size(); ++e)
        a2[static_cast<std::size_t>(at_a2[e])] = a[static_cast<std::size_t>(at_a[e])];
      for (std::size_t e = 0; e < at_b.size(); ++e)
        b2[static_cast<std::size_t>(at_b2[e])] = b0[static_cast<std::size_t>(at_b[e])];
      const auto f = ::ours<T>();
      if (!c.trapezoid)
        f.first(c.m, c.n, a2.data(), c.a.i, c.a.j, la2.desc.data(), b2.data(), c.b.i, c.b.j,
                lb2.desc.data(), context);
      else
        f.second(uplo, diag, c.m, c.n, a2.data(), c.a.i, c.a.j, la2.desc.data(), b2.data(), c.b.i,
                 c.b.j, lb2.desc.data(), context);
      std::int64_t differ = 0;
      for (std::size_t e = 0; e < at_b.size(); ++e)
        differ += !(b2[static_cast<std::size_t>(at_b2[e])] ==
                    expected[static_cast<std::size_t>(at_b[e])]);
      if (differ > 0)
        check.fail(
            fmt::format("{}: call {} of the measured window: {} elements differ from "
                        "the naive redistribution",
                        describe(c), k, differ));
    }
  }
  call(false, own);
  check.compared(static_cast<std::int64_t>(b0.size()));
  std::int64_t differ_naive = 0, differ_own = 0;
  for (std::size_t k = 0; k < b0.size(); ++k) {
    differ_naive += !(choreo[k] == expected[k]);
    differ_own += !(own[k] == expected[k]);
  }
  if (differ_naive > 0)
    check.fail(fmt::format("{}: {} elements differ from the naive redistribution", describe(c),
                           differ_naive));
  if (differ_own > 0)
    check.fail(
        fmt::format("{}: ScaLAPACK's own routine differs from the naive one in {} "
                    "elements (the reference disagrees with itself)",
                    describe(c), differ_own));
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int configurations = argc > 1 ? std::atoi(argv[1]) : 1000;
  // ScaLAPACK's own routines, in the library that defines Cblacs_gridmap.
  Dl_info info{};
  void* scalapack = nullptr;
  if (dladdr(reinterpret_cast<void*>(&Cblacs_gridmap), &info) != 0)
    scalapack = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  // The routines this program finds first must be libchoreo_scalapack.so's.
  if (dladdr(reinterpret_cast<void*>(&Cpdgemr2d), &info) == 0 ||
      std::strstr(info.dli_fname, "choreo_scalapack") == nullptr) {
    fmt::print(stderr,
               "scalapack_random: Cpdgemr2d is not libchoreo_scalapack.so's; link it "
               "before ScaLAPACK\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int blacs_rank = 0, blacs_size = 0;
  Cblacs_pinfo(&blacs_rank, &blacs_size);
  const std::vector<Grid> pool = grid_pool(size, rank);
  int context = -1;
  Cblacs_get(0, 0, &context);
  Cblacs_gridinit(&context, "Row", 1, size);
  Checker check(rank);
  const auto run_config = [&](const Config& c, bool twice, bool measured) {
    switch (c.type) {
      case 's':
        return run<float>(c, context, scalapack, twice, measured, check);
      case 'd':
        return run<double>(c, context, scalapack, twice, measured, check);
      case 'c':
        return run<FloatComplex>(c, context, scalapack, twice, measured, check);
      case 'z':
        return run<DoubleComplex>(c, context, scalapack, twice, measured, check);
      default:
        return run<int>(c, context, scalapack, twice, measured, check);
    }
  };
  Rng rng(20261124), large_rng(20261127);
  int cases = 0, large_cases = 0;
  for (int k = 0; k < configurations; ++k, ++cases) {
    run_config(random_config(rng, pool, false), k % 2 == 0, k % 25 == 0);
    // After every 40th, a large one (every 5th of those through the measurement window): its
    // own random stream, so that the small ones stay those of a run without them. ScaLAPACK's
    // own routine must still be right after choreo served large calls: under MPICH 4.0.2 it was
    // not while choreo built derived datatypes for them (src/redist/mpi_quirks.hpp).
    if (k % 40 == 39) {
      run_config(random_config(large_rng, pool, true), large_cases % 2 == 0, large_cases % 5 == 0);
      ++large_cases;
    }
  }
  int failures = check.failures(), total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  std::int64_t elements = check.elements(), all_elements = 0;
  MPI_Reduce(&elements, &all_elements, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0 && total == 0)
    fmt::print("scalapack_random: {} cases OK and {} large ones ({} target elements compared)\n",
               cases, large_cases, all_elements);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
