// Latency of choreo::resilient_allreduce (paper 004 on real MPI): the plain butterfly (T = 0),
// the resilient one with T = 1..K, and MPI_Allreduce for reference, without and with injected
// OS-like noise (choreo::NoiseInjector: `duration` of CPU taken every `period`, a random phase
// per rank). Each configuration runs in its own block: warm-up, then --calls calls, each after
// a barrier; a call's latency is its slowest rank's. The messages a resilient call leaves in
// flight are completed by the calls after it, inside their timed region, as in an
// application. Rank 0 prints p50/p99 and the ratio to the plain butterfly under the same
// noise, and writes CSV (bench/resilient_bench.sh).
#include <fmt/format.h>
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "../src/core/stats.hpp"
#include "choreo/core/error.hpp"
#include "choreo/jitter/allreduce.hpp"
#include "choreo/mpi/noise_injector.hpp"
#include "choreo/mpi/resilient_allreduce.hpp"

namespace {

struct Settings {
  int count = 64;  // doubles
  int calls = 1000;
  int warmup = 20;
  int max_t = -1;  // -1: K
  std::string noise = "both";
  double duration_us = 100;
  double period_us = 10000;
  std::uint64_t seed = 1;
  std::string csv;
};

struct Figures {
  double p50 = 0, p99 = 0, mean = 0, max = 0;
  std::int64_t copies = 0;  // summed over ranks
  double hit_pct = 0;       // calls during which a noise window ran on some rank
};

std::string library() {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(version, &length);
  const std::string text(version, static_cast<std::size_t>(length));
  if (text.find("Open MPI") != std::string::npos) return "openmpi";
  if (text.find("MPICH") != std::string::npos) return "mpich";
  return "mpi";
}

/// T < 0 means MPI_Allreduce.
void call(int redundant, const std::vector<double>& in, std::vector<double>& out) {
  const int n = static_cast<int>(in.size());
  if (redundant < 0)
    MPI_Allreduce(in.data(), out.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  else
    choreo::resilient_allreduce(in.data(), out.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD,
                                redundant);
}

/// A wrong allreduce must not produce a figure: one checked call (exact sums of halves).
void verify(int redundant, int count, int rank) {
  std::vector<double> in(static_cast<std::size_t>(count)), out(in.size()), reference(in.size());
  for (std::size_t i = 0; i < in.size(); ++i)
    in[i] = static_cast<double>((static_cast<int>(i) * 7 + rank * 13) % 1001) * 0.5;
  call(redundant, in, out);
  MPI_Allreduce(in.data(), reference.data(), count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (out != reference)
    throw choreo::Error(fmt::format("T = {}: the result differs from MPI_Allreduce's", redundant));
}

/// `noise` (may be null) tells which calls a window interrupted: its window count moved.
Figures measure(int redundant, const Settings& s, int rank, const choreo::NoiseInjector* noise) {
  verify(redundant, s.count, rank);
  std::vector<double> in(static_cast<std::size_t>(s.count), 1.0 + rank), out(in.size());
  const std::int64_t copies_before = choreo::resilient_allreduce_stats(MPI_COMM_WORLD).copies_taken;
  for (int k = 0; k < s.warmup; ++k) call(redundant, in, out);
  std::vector<double> local(static_cast<std::size_t>(s.calls));
  std::vector<int> hit(local.size(), 0);
  for (std::size_t k = 0; k < local.size(); ++k) {
    MPI_Barrier(MPI_COMM_WORLD);
    const std::int64_t windows = noise ? noise->windows() : 0;
    const auto t0 = std::chrono::steady_clock::now();
    call(redundant, in, out);
    const auto t1 = std::chrono::steady_clock::now();
    local[k] = std::chrono::duration<double, std::micro>(t1 - t0).count();
    hit[k] = noise && noise->windows() != windows ? 1 : 0;
  }
  MPI_Allreduce(MPI_IN_PLACE, hit.data(), s.calls, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  choreo::resilient_allreduce_complete(MPI_COMM_WORLD);  // untimed: the last call's leftovers
  std::vector<double> slowest(local.size());
  MPI_Allreduce(local.data(), slowest.data(), s.calls, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  Figures f;
  f.p50 = choreo::stats::median(slowest);
  f.p99 = choreo::stats::quantile(slowest, 0.99);
  f.max = *std::max_element(slowest.begin(), slowest.end());
  for (double t : slowest) f.mean += t / static_cast<double>(slowest.size());
  for (int h : hit) f.hit_pct += 100.0 * h / static_cast<double>(hit.size());
  std::int64_t copies =
      choreo::resilient_allreduce_stats(MPI_COMM_WORLD).copies_taken - copies_before;
  MPI_Allreduce(&copies, &f.copies, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  return f;
}

void run(const Settings& s, int rank, int ranks) {
  const int stages = choreo::jitter::butterfly_stages(ranks);
  const int max_t = s.max_t < 0 ? stages : std::min(s.max_t, stages);
  std::vector<bool> noise_levels;
  if (s.noise == "off" || s.noise == "both") noise_levels.push_back(false);
  if (s.noise == "on" || s.noise == "both") noise_levels.push_back(true);
  if (noise_levels.empty())
    throw choreo::Error(fmt::format("--noise {}: choose off, on or both", s.noise));
  const std::string lib = library();
  std::FILE* csv = nullptr;
  if (rank == 0) {
    if (!s.csv.empty()) {
      csv = std::fopen(s.csv.c_str(), "w");
      if (!csv) throw choreo::Error(fmt::format("cannot write {}", s.csv));
      std::fprintf(csv,
                   "library,ranks,count,noise,duration_us,period_us,impl,T,calls,p50_us,p99_us,"
                   "mean_us,max_us,p50_ratio,p99_ratio,copies_taken,hit_pct\n");
    }
    fmt::print("{} ranks ({}), {} doubles, {} calls per row; noise {} us every {} us\n", ranks, lib,
               s.count, s.calls, s.duration_us, s.period_us);
    fmt::print("{:<6} {:<16} {:>10} {:>10} {:>10} {:>10} {:>10} {:>8} {:>6}\n", "noise", "impl",
               "p50 us", "p99 us", "mean us", "p50/plain", "p99/plain", "copies", "hit %");
  }
  for (bool noisy : noise_levels) {
    std::unique_ptr<choreo::NoiseInjector> noise;
    if (noisy)
      noise = std::make_unique<choreo::NoiseInjector>(
          choreo::NoiseOptions{.duration_ns = static_cast<std::int64_t>(s.duration_us * 1000),
                               .period_ns = static_cast<std::int64_t>(s.period_us * 1000),
                               .seed = s.seed * 1000003 + static_cast<std::uint64_t>(rank)});
    Figures plain;
    for (int redundant = 0; redundant <= max_t + 1; ++redundant) {
      // T = 0 first (the plain butterfly, the ratios' base), then 1..max_t, then MPI.
      const int t = redundant <= max_t ? redundant : -1;
      const Figures f = measure(t, s, rank, noise.get());
      if (t == 0) plain = f;
      if (rank != 0) continue;
      const std::string impl = t < 0 ? "MPI_Allreduce" : t == 0 ? "butterfly" : "resilient";
      const std::string label = t > 0 ? fmt::format("resilient T={}", t) : impl;
      const double r50 = f.p50 / plain.p50, r99 = f.p99 / plain.p99;
      fmt::print("{:<6} {:<16} {:>10.2f} {:>10.2f} {:>10.2f} {:>10.3f} {:>10.3f} {:>8} {:>6.2f}\n",
                 noisy ? "on" : "off", label, f.p50, f.p99, f.mean, r50, r99, f.copies, f.hit_pct);
      if (csv)
        std::fprintf(csv,
                     "%s,%d,%d,%s,%.3f,%.3f,%s,%d,%d,%.3f,%.3f,%.3f,%.3f,%.4f,%.4f,%lld,%.3f\n",
                     lib.c_str(), ranks, s.count, noisy ? "on" : "off", s.duration_us, s.period_us,
                     impl.c_str(), t, s.calls, f.p50, f.p99, f.mean, f.max, r50, r99,
                     static_cast<long long>(f.copies), f.hit_pct);
    }
    if (noise && rank == 0)
      fmt::print("noise on rank 0: {} windows, {:.1f} ms in the handler\n", noise->windows(),
                 static_cast<double>(noise->stolen_ns()) * 1e-6);
  }
  if (csv) std::fclose(csv);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  Settings s;
  CLI::App app{"resilient_allreduce against the plain butterfly and MPI_Allreduce, with noise"};
  app.add_option("--count", s.count, "doubles per allreduce")->check(CLI::PositiveNumber);
  app.add_option("--calls", s.calls, "timed calls per configuration")->check(CLI::PositiveNumber);
  app.add_option("--warmup", s.warmup, "untimed calls first")->check(CLI::NonNegativeNumber);
  app.add_option("--max-t", s.max_t, "largest T (default K = floor(log2 ranks))");
  app.add_option("--noise", s.noise, "off, on or both");
  app.add_option("--duration-us", s.duration_us, "noise: CPU taken per window");
  app.add_option("--period-us", s.period_us, "noise: time between windows");
  app.add_option("--seed", s.seed, "noise phases (each rank its own)");
  app.add_option("--csv", s.csv, "CSV output (rank 0)");
  int status = 0;
  try {
    app.parse(argc, argv);
    run(s, rank, ranks);
  } catch (const CLI::ParseError& e) {
    status = rank == 0 ? app.exit(e) : 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "resilient_bench: rank {}: {}\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return status;
}
