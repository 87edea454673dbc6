// choreo-bench-redist: paper 002's Tables 1-3 on this machine, side by side with ScaLAPACK.
// For each case (an array of doubles, a source and a target distribution) it runs, in one
// run on the same arrays and grids: ScaLAPACK's pdgemr2d, choreo with derived datatypes and
// choreo with MPI_Pack/MPI_Unpack; every element of every result is checked against the
// function of the global index after every iteration. It prints the median time of each (the
// slowest rank per iteration), choreo's speed-up over pdgemr2d, the comm-set time with and
// without the reductions (median of 5 make_plan calls; "full" also intersects all pairs, as
// the paper's loop does) and its share of the redistribution,
// and the peak memory each adds on top of the arrays.
//
//   mpiexec -n 2 choreo-bench-redist --shapes 2000x2000,4000x4000 --reps 10 -o redist.csv
#include <fmt/core.h>
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "choreo/error.hpp"
#include "choreo/redist/local_array.hpp"
#include "choreo/redist/measure.hpp"
#include "choreo/redist/mpi.hpp"
#include "choreo/text.hpp"
#include "scalapack/pdgemr2d.hpp"

namespace {

using namespace choreo::redist;

struct Args {
  std::string shapes = "2000x2000,4000x4000";
  int reps = 10, warmup = 2;
  std::string csv;
};

struct Measured {
  std::string method;
  double median = 0, min = 0;
  std::int64_t peak_extra = -1, buffers = 0;
  double plan_seconds = 0;
};

/// The issue's four redistributions on grids of `size` ranks: 1x2 or 2x2 for (cyclic,cyclic),
/// a 1-D grid for (*,cyclic).
std::vector<std::pair<std::string, std::string>> cases(int size) {
  const std::string grid = size == 4 ? "2x2" : fmt::format("1x{}", size);
  return {{"cyclic,cyclic@" + grid, "block,block@" + grid},
          {"cyclic,cyclic@" + grid, "cyclic(50),cyclic(50)@" + grid},
          {fmt::format("*,cyclic@{}", size), fmt::format("*,block@{}", size)},
          {fmt::format("*,cyclic@{}", size), fmt::format("*,cyclic(50)@{}", size)}};
}

/// Median seconds of 5 make_plan calls on this rank: with both reductions (choreo's default),
/// or as the paper's "full computation": no reductions, every source triplet intersected with
/// every target triplet.
double plan_time(const ArrayDistribution& from, const ArrayDistribution& to, bool reduce) {
  CommSetOptions options;
  options.reduce_by_gcd = options.reduce_to_period = reduce;
  options.all_pairs = !reduce;
  std::vector<double> seconds;
  for (int k = 0; k < 5; ++k) {
    const double start = MPI_Wtime();
    const Plan plan = make_plan(from, to, options);
    seconds.push_back(MPI_Wtime() - start);
  }
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

Measured measure(const std::string& method, const ArrayDistribution& to, LocalArrays& arrays,
                 const Args& args, const std::function<std::function<void()>()>& build,
                 const std::function<void(Measured&)>& after = {}) {
  Measured m{method};
  const PeakMemory memory;
  const std::function<void()> execute = build();
  const choreo::RunResult r =
      time_verified(MPI_COMM_WORLD, to, arrays, {args.warmup, args.reps}, execute);
  m.median = r.median;
  m.min = r.min;
  m.peak_extra = max_over(MPI_COMM_WORLD, memory.extra_bytes());
  if (after) after(m);
  return m;
}

void run(const Args& args, int rank, int size, std::FILE* csv) {
  const std::string mpi = [] {
    char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int length = 0;
    MPI_Get_library_version(text, &length);
    const std::string v(text, static_cast<std::size_t>(length));
    return v.substr(0, v.find_first_of("\n,"));
  }();
  warm_up_transport(MPI_COMM_WORLD, std::int64_t{8} << 20);
  if (rank == 0)
    fmt::print(
        "{:<11} {:<18} {:<26} {:>10} {:>10} {:>10} {:>7} {:>7} {:>10} {:>10} {:>7} {:>10} {:>10} "
        "{:>10}\n",
        "shape", "from", "to", "pdgemr2d", "datatype", "pack", "x dt", "x pack", "cs full",
        "cs reduced", "cs %", "extra pdg", "extra dt", "extra pack");
  for (const std::string_view shape_view : choreo::split(args.shapes, ',')) {
    const std::string shape_text(shape_view);
    const std::vector<std::int64_t> shape = parse_shape(shape_text);
    for (const auto& [from_text, to_text] : cases(size)) {
      const ArrayDistribution from = parse_distribution(from_text, shape, size);
      const ArrayDistribution to = parse_distribution(to_text, shape, size);
      LocalArrays arrays = make_arrays(from, to, rank);
      std::vector<Measured> results;
      results.push_back(measure("pdgemr2d", to, arrays, args, [&] {
        auto baseline = std::make_shared<choreo::bench::Pdgemr2d>(from, to);
        return
            [baseline, &arrays] { baseline->execute(arrays.source.data(), arrays.target.data()); };
      }));
      for (Method method : {Method::Datatype, Method::Pack}) {
        std::shared_ptr<RedistPlan> plan;
        results.push_back(measure(
            to_string(method), to, arrays, args,
            [&] {
              RedistOptions options;
              options.method = method;
              plan = std::make_shared<RedistPlan>(MPI_COMM_WORLD, from, to, MPI_DOUBLE, options);
              return [plan, &arrays] { plan->execute(arrays.source.data(), arrays.target.data()); };
            },
            [&](Measured& m) {
              m.buffers = max_over(MPI_COMM_WORLD, plan->stats().buffer_bytes);
              m.plan_seconds = max_over(MPI_COMM_WORLD, plan->stats().plan_seconds);
            }));
      }
      const double full = max_over(MPI_COMM_WORLD, plan_time(from, to, false));
      const double reduced = max_over(MPI_COMM_WORLD, plan_time(from, to, true));
      const std::int64_t array_bytes = max_over(
          MPI_COMM_WORLD, static_cast<std::int64_t>((arrays.source.size() + arrays.target.size()) *
                                                    sizeof(double)));
      if (rank != 0) continue;
      const Measured &pdg = results[0], &dt = results[1], &pack = results[2];
      const auto mib = [](std::int64_t b) {
        return b < 0 ? std::string("?") : fmt::format("{:.2f}", static_cast<double>(b) / 1048576.0);
      };
      fmt::print(
          "{:<11} {:<18} {:<26} {:>8.2f}ms {:>8.2f}ms {:>8.2f}ms {:>7.2f} {:>7.2f} {:>8.3f}ms "
          "{:>8.3f}ms {:>6.1f}% {:>7}MiB {:>7}MiB {:>7}MiB\n",
          shape_text, from_text, to_text, pdg.median * 1e3, dt.median * 1e3, pack.median * 1e3,
          pdg.median / dt.median, pdg.median / pack.median, full * 1e3, reduced * 1e3,
          100 * reduced / dt.median, mib(pdg.peak_extra), mib(dt.peak_extra), mib(pack.peak_extra));
      if (csv != nullptr)
        for (const Measured& m : results)
          fmt::print(csv,
                     "\"{}\",{},{},\"{}\",\"{}\",{},{:.6e},{:.6e},{:.4f},{:.6e},{:.6e},{},{},{}\n",
                     mpi, size, shape_text, from_text, to_text, m.method, m.median, m.min,
                     pdg.median / m.median, full, reduced, m.buffers, m.peak_extra, array_bytes);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0, code = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CLI::App app{"choreo redistribution against ScaLAPACK pdgemr2d (paper 002, Tables 1-3)"};
  Args args;
  app.add_option("--shapes", args.shapes, "Comma-separated shapes (default 2000x2000,4000x4000)");
  app.add_option("--reps", args.reps, "Timed iterations per method (default 10)")
      ->check(CLI::PositiveNumber);
  app.add_option("--warmup", args.warmup, "Untimed iterations first (default 2)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("-o,--csv", args.csv, "Append the rows to this CSV file (header when new)");
  try {
    app.parse(argc, argv);
    if (size != 2 && size != 4) throw choreo::Error("run with 2 or 4 ranks (mpiexec -n 2 or -n 4)");
    std::FILE* csv = nullptr;
    if (rank == 0 && !args.csv.empty()) {
      const bool fresh = !std::filesystem::exists(args.csv);
      csv = std::fopen(args.csv.c_str(), "a");
      if (csv == nullptr) throw choreo::Error(fmt::format("cannot write {}", args.csv));
      if (fresh)
        fmt::print(csv,
                   "mpi,ranks,shape,from,to,method,median_s,min_s,speedup_vs_pdgemr2d,"
                   "commsets_full_s,commsets_reduced_s,buffer_bytes,peak_extra_bytes,"
                   "array_bytes_per_rank\n");
    }
    run(args, rank, size, csv);
    if (csv != nullptr) std::fclose(csv);
  } catch (const CLI::ParseError& e) {
    code = rank == 0 ? app.exit(e) : e.get_exit_code();
  } catch (const choreo::Error& e) {
    if (rank == 0) fmt::print(stderr, "choreo-bench-redist: error: {}\n", e.what());
    code = 1;
  }
  MPI_Finalize();
  return code;
}
