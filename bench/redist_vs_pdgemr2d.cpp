// choreo-bench-redist: choreo's redistribution side by side with ScaLAPACK's pdgemr2d, on the
// same arrays in one run. For each case (2000x2000 doubles by default, a BLACS grid of all the
// ranks: 1xP, or 2x2 on 4) it times, interleaved repetition by repetition:
//  - pdgemr2d: ScaLAPACK's own Cpdgemr2d (looked up in libscalapack itself);
//  - choreo pdgemr2d: the same call served by libchoreo_scalapack.so (the drop-in);
//  - auto, datatype, pack: choreo's C++ RedistPlan with each data path (whole-matrix cases).
// Every result is checked element by element after every repetition (untimed), the elements a
// submatrix leaves untouched too. An iteration's time is its slowest rank's; the table gives
// medians, quartiles and the speed-up of each method over pdgemr2d (ratio of medians).
//
//   mpiexec -n 2 choreo-bench-redist --reps 30 --label bound -o redist.csv
#include <dlfcn.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <mpi.h>
#include <sched.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../src/core/stats.hpp"
#include "../src/mpi/timed_runs.hpp"
#include "choreo/core/error.hpp"
#include "choreo/redist/mpi.hpp"
#include "choreo/redist/peak_memory.hpp"
#include "choreo/redist/scalapack.hpp"

extern "C" {
void Cblacs_get(int context, int what, int* value);
void Cblacs_gridinit(int* context, const char* order, int nprow, int npcol);
void Cblacs_gridinfo(int context, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int context);
// libchoreo_scalapack.so's, linked before ScaLAPACK.
void Cpdgemr2d(int m, int n, double* a, int ia, int ja, const int* desca, double* b, int ib, int jb,
               const int* descb, int ictxt);
}

namespace {

using namespace choreo::redist;
using Gemr2d = void (*)(int, int, double*, int, int, const int*, double*, int, int, const int*,
                        int);

struct Args {
  int n = 2000;
  int reps = 20, warmup = 2;
  std::string label = "unbound";
  std::string csv;
  std::vector<std::string> only;     ///< run only these cases (all when empty)
  std::vector<std::string> methods;  ///< and only these of choreo's methods (all when empty)
  bool wants(const std::string& method) const {
    return methods.empty() || std::find(methods.begin(), methods.end(), method) != methods.end();
  }
};

/// One matrix of a case: its blocks, first process and (1-based) submatrix corner.
struct Matrix {
  int m = 0, n = 0, mb = 1, nb = 1, rsrc = 0, csrc = 0, i = 1, j = 1;
};

struct Case {
  std::string name;
  Matrix a, b;
  int m = 0, n = 0;  ///< the submatrix moved
  bool whole() const { return a.i == 1 && a.j == 1 && b.i == 1 && b.j == 1; }
};

/// The cases on an n x n matrix over a p x q grid (block = ceil(n / procs)).
std::vector<Case> cases(int n, int p, int q) {
  const auto block = [&](int procs) { return (n + procs - 1) / procs; };
  return {
      {"cyclic->block", {n, n, 1, 1}, {n, n, block(p), block(q)}, n, n},
      {"cyclic->cyclic(50)", {n, n, 1, 1}, {n, n, 50, 50}, n, n},
      {"cyclic(7)->cyclic(5)", {n, n, 7, 7}, {n, n, 5, 5}, n, n},
      // A 3/4 n submatrix at (n/10+1, n/7+1) of cyclic(16) onto (n/20+1, 1) of cyclic(50).
      {"submatrix",
       {n, n, 16, 16, 0, 0, n / 10 + 1, n / 7 + 1},
       {n, n, 50, 50, 0, 0, n / 20 + 1, 1},
       3 * n / 4,
       3 * n / 4},
  };
}

/// This process's part of a matrix: descriptor and local array (uniform LLD: the most rows).
struct Local {
  std::array<int, 9> desc{};
  int rows = 0, cols = 0, lld = 1;
  std::vector<double> data;
};

int numroc(int n, int nb, int proc, int first, int procs) {
  return static_cast<int>(choreo::redist::numroc(n, nb, proc, first, procs));
}

int global_of(int local, int nb, int proc, int first, int procs) {
  const int distance = ((proc - first) % procs + procs) % procs;
  return (local / nb * procs + distance) * nb + local % nb;
}

Local make_local(const Matrix& x, int context) {
  int nprow = 0, npcol = 0, row = 0, col = 0;
  Cblacs_gridinfo(context, &nprow, &npcol, &row, &col);
  Local l;
  l.rows = numroc(x.m, x.mb, row, x.rsrc, nprow);
  l.cols = numroc(x.n, x.nb, col, x.csrc, npcol);
  l.lld = std::max(1, numroc(x.m, x.mb, x.rsrc, x.rsrc, nprow));
  l.desc = {1, context, x.m, x.n, x.mb, x.nb, x.rsrc, x.csrc, l.lld};
  l.data.assign(static_cast<std::size_t>(l.lld) * static_cast<std::size_t>(std::max(1, l.cols)),
                -1.0);
  return l;
}

double value_at(int i, int j, int n) { return static_cast<double>(i) * n + j + 0.5; }

/// Calls visit(offset, global row, global column) for every local element.
template <typename Visit>
void for_each(const Matrix& x, const Local& l, int context, Visit visit) {
  int nprow = 0, npcol = 0, row = 0, col = 0;
  Cblacs_gridinfo(context, &nprow, &npcol, &row, &col);
  for (int c = 0; c < l.cols; ++c)
    for (int r = 0; r < l.rows; ++r)
      visit(static_cast<std::size_t>(r) + static_cast<std::size_t>(c) * l.lld,
            global_of(r, x.mb, row, x.rsrc, nprow), global_of(c, x.nb, col, x.csrc, npcol));
}

/// Wrong elements of b after the case's submatrix moved (untouched elements must hold -1).
std::int64_t wrong_elements(const Case& c, const Local& b, int context) {
  std::int64_t wrong = 0;
  for_each(c.b, b, context, [&](std::size_t offset, int gi, int gj) {
    const int si = gi - (c.b.i - 1), sj = gj - (c.b.j - 1);
    const bool moved = si >= 0 && sj >= 0 && si < c.m && sj < c.n;
    const double want = moved ? value_at(si + c.a.i - 1, sj + c.a.j - 1, c.a.n) : -1.0;
    wrong += b.data[offset] != want;
  });
  return wrong;
}

struct Method {
  std::string name;
  std::function<void(Local& a, Local& b)> run;
  std::vector<double> seconds;
  std::int64_t peak_extra = -1;
  std::string paths;
};

/// "0:{0} 1:{1}": the CPUs each rank may run on (binding, as the launcher set it).
std::string affinity(int rank, int size) {
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof set, &set);
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  const std::string mine = fmt::format("{}", fmt::join(cpus, ","));
  std::array<char, 64> text{};
  std::snprintf(text.data(), text.size(), "%s", mine.c_str());
  std::vector<char> all(static_cast<std::size_t>(size) * text.size());
  MPI_Gather(text.data(), static_cast<int>(text.size()), MPI_CHAR, all.data(),
             static_cast<int>(text.size()), MPI_CHAR, 0, MPI_COMM_WORLD);
  std::string out;
  if (rank == 0)
    for (int r = 0; r < size; ++r)
      out += fmt::format("{}{}:{{{}}}", r == 0 ? "" : " ", r, all.data() + r * text.size());
  return out;
}

ArrayDistribution distribution_of(const Matrix& x, int p, int q) {
  return from_scalapack({1, 0, x.m, x.n, x.mb, x.nb, x.rsrc, x.csrc,
                         std::max(1, numroc(x.m, x.mb, x.rsrc, x.rsrc, p))},
                        {p, q, GridOrder::RowMajor, 0, {}});
}

void run_case(const Case& c, const Args& args, int context, int p, int q, Gemr2d scalapack,
              std::FILE* csv, const std::string& mpi) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Local a = make_local(c.a, context), b = make_local(c.b, context);
  for_each(c.a, a, context,
           [&](std::size_t offset, int gi, int gj) { a.data[offset] = value_at(gi, gj, c.a.n); });
  std::vector<Method> methods;
  const auto add = [&](std::string name, std::function<void(Local&, Local&)> run) {
    if (!methods.empty() && !args.wants(name)) return;  // pdgemr2d, the baseline, always runs
    Method m;
    m.name = std::move(name);
    m.run = std::move(run);
    methods.push_back(std::move(m));
  };
  add("pdgemr2d", [&](Local& x, Local& y) {
    scalapack(c.m, c.n, x.data.data(), c.a.i, c.a.j, x.desc.data(), y.data.data(), c.b.i, c.b.j,
              y.desc.data(), context);
  });
  add("choreo pdgemr2d", [&](Local& x, Local& y) {
    Cpdgemr2d(c.m, c.n, x.data.data(), c.a.i, c.a.j, x.desc.data(), y.data.data(), c.b.i, c.b.j,
              y.desc.data(), context);
  });
  std::vector<std::unique_ptr<RedistPlan>> plans;
  if (c.whole()) {
    for (const choreo::redist::Method m :
         {choreo::redist::Method::Auto, choreo::redist::Method::Datatype,
          choreo::redist::Method::Pack, choreo::redist::Method::Shared}) {
      if (!args.wants(to_string(m))) continue;
      const std::size_t slot = plans.size();
      plans.push_back(nullptr);
      add(to_string(m), [&, m, slot](Local& x, Local& y) {
        if (!plans[slot]) {
          RedistOptions options;
          options.method = m;
          plans[slot] =
              std::make_unique<RedistPlan>(MPI_COMM_WORLD, distribution_of(c.a, p, q),
                                           distribution_of(c.b, p, q), MPI_DOUBLE, options);
        }
        plans[slot]->execute(x.data.data(), y.data.data());
      });
    }
  }
  // Warm-up, one method at a time, with the peak memory each adds (its plan and buffers).
  std::int64_t wrong = 0;
  for (Method& m : methods) {
    const PeakMemory memory;
    for (int k = 0; k < args.warmup; ++k) {
      std::fill(b.data.begin(), b.data.end(), -1.0);
      m.run(a, b);
      wrong += wrong_elements(c, b, context);
    }
    std::int64_t extra = memory.extra_bytes(), largest = 0;
    MPI_Allreduce(&extra, &largest, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    m.peak_extra = largest;
  }
  for (std::size_t k = 0; k < plans.size(); ++k) {
    const RedistStats& s = plans[k]->stats();
    int paths[4] = {s.direct_sides, s.datatype_sides, s.pack_sides, s.shared_sides};
    MPI_Allreduce(MPI_IN_PLACE, paths, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    methods[methods.size() - plans.size() + k].paths =
        fmt::format("{}/{}/{}/{}", paths[0], paths[1], paths[2], paths[3]);
  }
  // Timed, interleaved: every method once per repetition, in rotating order.
  for (int rep = 0; rep < args.reps; ++rep)
    for (std::size_t k = 0; k < methods.size(); ++k) {
      Method& m = methods[(k + static_cast<std::size_t>(rep)) % methods.size()];
      std::fill(b.data.begin(), b.data.end(), -1.0);
      MPI_Barrier(MPI_COMM_WORLD);
      const double start = MPI_Wtime();
      m.run(a, b);
      double elapsed = MPI_Wtime() - start, slowest = 0;
      MPI_Allreduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      m.seconds.push_back(slowest);
      wrong += wrong_elements(c, b, context);
    }
  std::int64_t all_wrong = 0;
  MPI_Allreduce(&wrong, &all_wrong, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (all_wrong > 0) throw choreo::Error(fmt::format("{}: {} wrong elements", c.name, all_wrong));
  if (rank != 0) return;
  const double base = choreo::stats::median(methods[0].seconds);
  for (const Method& m : methods) {
    const double med = choreo::stats::median(m.seconds);
    fmt::print("{:<22} {:<16} {:>9.2f} ms  [{:>7.2f} {:>7.2f}]  {:>6.2f}x  {:>8.2f} MiB  {}\n",
               c.name, m.name, med * 1e3, choreo::stats::quantile(m.seconds, 0.25) * 1e3,
               choreo::stats::quantile(m.seconds, 0.75) * 1e3, base / med,
               static_cast<double>(m.peak_extra) / 1048576.0, m.paths);
    if (csv != nullptr)
      fmt::print(
          csv,
          "\"{}\",{},{}x{},{},{},\"{}\",\"{}\",{:.6e},{:.6e},{:.6e},{:.6e},{:.6e},{:.4f},{},{}\n",
          mpi, p * q, p, q, args.label, args.n, c.name, m.name, med,
          *std::min_element(m.seconds.begin(), m.seconds.end()),
          choreo::stats::quantile(m.seconds, 0.25), choreo::stats::quantile(m.seconds, 0.75),
          *std::max_element(m.seconds.begin(), m.seconds.end()), base / med, m.peak_extra, m.paths);
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0, code = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CLI::App app{"choreo's redistribution side by side with ScaLAPACK's pdgemr2d"};
  Args args;
  app.add_option("--n", args.n, "Matrix extent (n x n doubles, default 2000)")
      ->check(CLI::Range(100, 100000));
  app.add_option("--reps", args.reps, "Timed repetitions per method (default 20)")
      ->check(CLI::PositiveNumber);
  app.add_option("--warmup", args.warmup, "Untimed repetitions first (default 2)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--label", args.label, "How the ranks are bound, for the CSV (default unbound)");
  app.add_option("-o,--csv", args.csv, "Append the rows to this CSV file (header when new)");
  app.add_option("--case", args.only, "Run only this case (repeatable; default: all four)")
      ->check(CLI::IsMember(
          {"cyclic->block", "cyclic->cyclic(50)", "cyclic(7)->cyclic(5)", "submatrix"}));
  app.add_option("--method", args.methods,
                 "Run only this of choreo's methods beside pdgemr2d (repeatable; default: all)")
      ->check(CLI::IsMember({"choreo pdgemr2d", "auto", "datatype", "pack", "shared"}));
  try {
    app.parse(argc, argv);
    // ScaLAPACK's own routine, in the library that defines BLACS.
    Dl_info info{};
    void* library = nullptr;
    if (dladdr(reinterpret_cast<void*>(&Cblacs_gridinfo), &info) != 0)
      library = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    auto* scalapack =
        reinterpret_cast<Gemr2d>(library != nullptr ? dlsym(library, "Cpdgemr2d") : nullptr);
    if (scalapack == nullptr) throw choreo::Error("cannot find ScaLAPACK's own Cpdgemr2d");
    const int p = size == 4 ? 2 : 1, q = size / p;
    int context = -1;
    Cblacs_get(0, 0, &context);
    Cblacs_gridinit(&context, "Row", p, q);
    const std::string mpi = choreo::mpi::detail::library_version();
    const std::string bound = affinity(rank, size);
    std::FILE* csv = nullptr;
    if (rank == 0) {
      fmt::print("{}x{} doubles on a {}x{} grid, {}, {} (cpus {}), {} repetitions\n", args.n,
                 args.n, p, q, mpi, args.label, bound, args.reps);
      fmt::print("{:<22} {:<16} {:>12}  {:>17}  {:>7}  {:>12}  {}\n", "case", "method", "median",
                 "[q1 q3] ms", "vs pdg", "peak extra", "paths d/t/p/s");
      if (!args.csv.empty()) {
        const bool fresh = !std::filesystem::exists(args.csv);
        csv = std::fopen(args.csv.c_str(), "a");
        if (csv == nullptr) throw choreo::Error(fmt::format("cannot write {}", args.csv));
        if (fresh)
          fmt::print(csv,
                     "mpi,ranks,grid,binding,n,case,method,median_s,min_s,q1_s,q3_s,max_s,"
                     "speedup_vs_pdgemr2d,peak_extra_bytes,paths\n");
      }
    }
    for (const Case& c : cases(args.n, p, q))
      if (args.only.empty() ||
          std::find(args.only.begin(), args.only.end(), c.name) != args.only.end())
        run_case(c, args, context, p, q, scalapack, csv, mpi);
    if (csv != nullptr) std::fclose(csv);
    Cblacs_gridexit(context);
  } catch (const CLI::ParseError& e) {
    code = rank == 0 ? app.exit(e) : e.get_exit_code();
  } catch (const choreo::Error& e) {
    if (rank == 0) fmt::print(stderr, "choreo-bench-redist: error: {}\n", e.what());
    code = 1;
  }
  MPI_Finalize();
  return code;
}
