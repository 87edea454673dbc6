// Persistent broadcast benchmark (paper 003's Figs. 11-15, and the overlap study it left for
// future work): for each size, every choreo algorithm x engine and, in the same run, the MPI
// library's MPI_Bcast_init (MPI >= 4 only), MPI_Ibcast and MPI_Bcast. Per implementation:
// init cost, start cost, total time (start..wait, slowest rank), bandwidth; then overlap:
// compute for the collective's own duration between start and wait, and report the share of
// communication hidden = (t_comm + t_compute - t_total) / t_comm, once with compute that spins
// on the CPU and once with compute that leaves it (a sleep: a GPU kernel, an I/O wait), because
// on a machine with no spare core a spinning rank and its progress thread share one core.
// Open MPI 4.1 has no MPI_Bcast_init; its MPIX_Bcast_init (mpi-ext.h) stands in as
// "mpix:Bcast_init".
// Run under mpiexec; rank 0 prints a table and writes CSV (bench/persist_bench.sh plots it).
#include <fmt/format.h>
#include <mpi.h>
#include <sys/prctl.h>
#include <time.h>
#if defined(OPEN_MPI) && MPI_VERSION < 4
#include <mpi-ext.h>
#endif

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "../src/core/stats.hpp"
#include "choreo/core/error.hpp"
#include "choreo/persist/collectives.hpp"

namespace {
namespace stats = choreo::stats;

using Clock = std::chrono::steady_clock;

double now_us() {
  return std::chrono::duration<double, std::micro>(Clock::now().time_since_epoch()).count();
}

double max_over_ranks(double local) {
  double out = 0;
  MPI_Allreduce(&local, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

/// Work that keeps the CPU busy and makes no MPI call (what an application computes).
void compute_for(double microseconds) {
  const double end = now_us() + microseconds;
  while (now_us() < end) {
  }
}

/// Work that leaves the CPU for the duration (the process's timer slack is set to 1 ns in
/// main, so the sleep overshoots by microseconds, not Linux's default 50 us).
void sleep_for(double microseconds) {
  const auto nanoseconds = static_cast<long long>(microseconds * 1000);
  const timespec duration{static_cast<time_t>(nanoseconds / 1000000000),
                          static_cast<long>(nanoseconds % 1000000000)};
  nanosleep(&duration, nullptr);
}

/// One implementation under test, behind the same three calls.
struct Subject {
  std::string name;
  std::function<void()> init;   // may be empty (blocking MPI_Bcast)
  std::function<void()> start;  // the non-blocking part (or the whole blocking call)
  std::function<void()> wait;
  std::function<void()> release;
  std::function<std::string()> describe;  ///< choreo's choice, for the table (may be empty)
};

struct Figures {
  double init_us = 0, start_us = 0, total_us = 0;
  double total_q1_us = 0, total_q3_us = 0;  ///< the spread of the repetitions' totals
};

int repetitions_for(std::int64_t bytes) {
  if (bytes <= 64 * 1024) return 200;
  if (bytes <= 1024 * 1024) return 40;
  if (bytes <= 16 * 1024 * 1024) return 8;
  return 4;
}

/// Init (three times, the median kept), then warm-up. Returns the slowest rank's median init.
double initialise(Subject& s) {
  std::vector<double> inits;
  for (int k = 0; k < 3 && s.init; ++k) {
    if (k > 0) s.release();
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = now_us();
    s.init();
    inits.push_back(now_us() - t0);
  }
  // Warm-up, long enough for the default's measurement against the MPI library's own
  // (the first 10 starts, decided at the 11th) to be over: the timed runs show what a loop
  // of collectives gets from then on.
  for (int k = 0; k < 12; ++k) {
    s.start();
    s.wait();
  }
  return max_over_ranks(stats::median(inits));
}

/// Every subject's start and total times, the repetitions interleaved (round k runs every
/// subject once, in turn), so a slow phase of the machine hits every subject alike and the
/// ratios between them hold even when the absolute figures drift. Round k begins with
/// subject k (mod the count): the first subject of a round measured 0.03 us slower than the
/// others at small sizes (MPICH, 2 ranks), whichever it was.
/// idle_us > 0: every rank sleeps that long after the barrier before each start, so a
/// progress thread that parks after 200 us idle is asleep when start() comes (its wake cost).
std::vector<Figures> measure_interleaved(std::vector<Subject>& subjects, std::int64_t bytes,
                                         int idle_us) {
  std::vector<Figures> out(subjects.size());
  for (std::size_t i = 0; i < subjects.size(); ++i) out[i].init_us = initialise(subjects[i]);
  const int reps = repetitions_for(bytes);
  std::vector<std::vector<double>> starts(subjects.size()), totals(subjects.size());
  for (int k = 0; k < reps; ++k)
    for (std::size_t turn = 0; turn < subjects.size(); ++turn) {
      const std::size_t i = (turn + static_cast<std::size_t>(k)) % subjects.size();
      Subject& s = subjects[i];
      MPI_Barrier(MPI_COMM_WORLD);
      if (idle_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(idle_us));
      const double t0 = now_us();
      s.start();
      const double t1 = now_us();
      s.wait();
      const double t2 = now_us();
      starts[i].push_back(t1 - t0);
      totals[i].push_back(max_over_ranks(t2 - t0));
    }
  for (std::size_t i = 0; i < subjects.size(); ++i) {
    out[i].start_us = max_over_ranks(stats::median(starts[i]));
    out[i].total_us = stats::median(totals[i]);
    out[i].total_q1_us = stats::quantile(totals[i], 0.25);
    out[i].total_q3_us = stats::quantile(totals[i], 0.75);
  }
  return out;
}

/// start; compute for compute_us; wait. Returns the slowest rank's median start..wait time.
double overlapped(Subject& s, std::int64_t bytes, double compute_us, void (*compute)(double)) {
  const int reps = std::max(4, repetitions_for(bytes) / 4);
  std::vector<double> totals;
  for (int k = 0; k < reps; ++k) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = now_us();
    s.start();
    compute(compute_us);
    s.wait();
    totals.push_back(max_over_ranks(now_us() - t0));
  }
  return stats::median(totals);
}

struct Settings {
  std::int64_t min_bytes = 1024, max_bytes = 4 << 20;
  std::vector<std::string> algorithms = {"default", "binomial", "kary_pipeline", "multitree"};
  std::vector<std::string> engines = {"commands", "thread", "inline"};
  int idle_us = 0;  ///< sleep before each timed start (the thread engine's wake cost)
  int arity = 0;    ///< the named pipelines' arity (0: their defaults)
  std::string csv = "persist_bench.csv";
  bool overlap = true;
};

std::vector<Subject> subjects(std::vector<std::byte>& buf, int count, const Settings& settings) {
  std::vector<Subject> out;
  for (const auto& algorithm : settings.algorithms)
    for (const auto& engine : settings.engines) {
      choreo::persist::Options options;
      options.algorithm = algorithm == "default" ? "" : algorithm;  // "": the model's choice
      options.engine = choreo::persist::engine_from_string(engine);
      if (algorithm != "default" && algorithm != "binomial") options.arity = settings.arity;
      auto request = std::make_shared<choreo::persist::Request>();
      out.push_back({fmt::format("choreo:{}:{}", algorithm, engine),
                     [&buf, request, options, count] {
                       *request = choreo::persist::bcast_init(buf.data(), count, MPI_BYTE, 0,
                                                              MPI_COMM_WORLD, options);
                     },
                     [request] { request->start(); }, [request] { request->wait(); },
                     [request] { request->free(); },
                     [request] { return choreo::persist::describe(*request); }});
    }
  // Each MPI subject has its own request, so all can be alive at once (interleaved runs).
  auto mpi_request = [] { return std::make_shared<MPI_Request>(MPI_REQUEST_NULL); };
  // The library's persistent broadcast: MPI-4's, or Open MPI 4.1's extension of the same shape.
#if MPI_VERSION >= 4
  const auto [persistent_name, persistent_init] = std::pair{"mpi:Bcast_init", &MPI_Bcast_init};
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
  const auto [persistent_name, persistent_init] = std::pair{"mpix:Bcast_init", &MPIX_Bcast_init};
#endif
#if MPI_VERSION >= 4 || defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
  {
    auto request = mpi_request();
    out.push_back({persistent_name,
                   [&buf, request, count, init = persistent_init] {
                     init(buf.data(), count, MPI_BYTE, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                          request.get());
                   },
                   [request] { MPI_Start(request.get()); },
                   [request] { MPI_Wait(request.get(), MPI_STATUS_IGNORE); },
                   [request] { MPI_Request_free(request.get()); },
                   {}});
  }
#endif
  {
    auto request = mpi_request();
    out.push_back({"mpi:Ibcast",
                   {},
                   [&buf, request, count] {
                     MPI_Ibcast(buf.data(), count, MPI_BYTE, 0, MPI_COMM_WORLD, request.get());
                   },
                   [request] { MPI_Wait(request.get(), MPI_STATUS_IGNORE); },
                   [] {},
                   {}});
  }
  out.push_back({"mpi:Bcast",
                 {},
                 [&buf, count] { MPI_Bcast(buf.data(), count, MPI_BYTE, 0, MPI_COMM_WORLD); },
                 [] {},
                 [] {},
                 {}});
  return out;
}

/// Data check after the timed runs: a wrong broadcast must not produce a figure.
void verify(std::vector<std::byte>& buf, Subject& s, int rank) {
  for (std::size_t i = 0; i < buf.size(); ++i)
    buf[i] = rank == 0 ? std::byte(i % 253) : std::byte{0};
  s.start();
  s.wait();
  for (std::size_t i = 0; i < buf.size(); ++i)
    if (buf[i] != std::byte(i % 253))
      throw choreo::Error(fmt::format("{}: rank {} byte {} wrong after a broadcast of {} bytes",
                                      s.name, rank, i, buf.size()));
}

void run(const Settings& settings, int rank, int ranks) {
  std::FILE* csv = nullptr;
  if (rank == 0) {
    csv = std::fopen(settings.csv.c_str(), "w");
    if (!csv) throw choreo::Error(fmt::format("cannot write {}", settings.csv));
    std::fprintf(
        csv,
        "ranks,bytes,impl,init_us,start_us,total_us,bandwidth_MiBps,"
        "compute_us,overlapped_us,hidden_pct,sleep_overlapped_us,sleep_hidden_pct,total_q1_us,"
        "total_q3_us,choice\n");
    fmt::print("{:>10} {:<30} {:>10} {:>9} {:>11} {:>10} {:>8} {:>8}\n", "bytes", "implementation",
               "init us", "start us", "total us", "MiB/s", "hidden", "(sleep)");
  }
  for (std::int64_t bytes = settings.min_bytes; bytes <= settings.max_bytes; bytes *= 2) {
    std::vector<std::byte> buf(static_cast<std::size_t>(bytes));
    std::vector<Subject> all = subjects(buf, static_cast<int>(bytes), settings);
    const std::vector<Figures> figures = measure_interleaved(all, bytes, settings.idle_us);
    for (std::size_t i = 0; i < all.size(); ++i) {
      Subject& s = all[i];
      const Figures& f = figures[i];
      verify(buf, s, rank);
      double overlapped_us = 0, hidden = 0, sleep_overlapped_us = 0, sleep_hidden = 0;
      if (settings.overlap) {
        overlapped_us = overlapped(s, bytes, f.total_us, compute_for);
        hidden = 100 * (2 * f.total_us - overlapped_us) / f.total_us;
        sleep_overlapped_us = overlapped(s, bytes, f.total_us, sleep_for);
        sleep_hidden = 100 * (2 * f.total_us - sleep_overlapped_us) / f.total_us;
      }
      const std::string choice = s.describe ? s.describe() : std::string();
      if (s.release) s.release();
      if (rank != 0) continue;
      const double mibps = static_cast<double>(bytes) / (1 << 20) / (f.total_us * 1e-6);
      fmt::print("{:>10} {:<30} {:>10.2f} {:>9.3f} {:>11.2f} {:>10.1f} {:>7.1f}% {:>7.1f}%\n",
                 bytes, s.name, f.init_us, f.start_us, f.total_us, mibps, hidden, sleep_hidden);
      std::fprintf(csv,
                   "%d,%lld,%s,%.3f,%.4f,%.3f,%.2f,%.3f,%.3f,%.2f,%.3f,%.2f,%.3f,%.3f,\"%s\"\n",
                   ranks, static_cast<long long>(bytes), s.name.c_str(), f.init_us, f.start_us,
                   f.total_us, mibps, f.total_us, overlapped_us, hidden, sleep_overlapped_us,
                   sleep_hidden, f.total_q1_us, f.total_q3_us, choice.c_str());
      if (!choice.empty()) fmt::print("{:>10}   {}\n", "", choice);
      std::fflush(csv);
    }
  }
  if (csv) std::fclose(csv);
}

}  // namespace

int main(int argc, char** argv) {
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  Settings settings;
  CLI::App app{"Persistent broadcast: choreo's engines and algorithms against MPI's"};
  app.add_option("--min-bytes", settings.min_bytes, "smallest message (doubling up)");
  app.add_option("--max-bytes", settings.max_bytes,
                 "largest message (128 MiB for the paper's range)");
  app.add_option("--algorithms", settings.algorithms,
                 "default (the model's choice) binomial kary_pipeline multitree");
  app.add_option("--engines", settings.engines, "commands thread inline");
  app.add_option("--arity", settings.arity,
                 "arity of the named pipelines (kary_pipeline, multitree); 0: their defaults");
  app.add_option("--csv", settings.csv, "CSV output (rank 0)");
  app.add_option("--idle-us", settings.idle_us,
                 "sleep this long before each timed start (1000: the progress thread is parked, "
                 "so start pays its wake-up)")
      ->check(CLI::Range(0, 1000000));
  app.add_flag("!--no-overlap", settings.overlap, "skip the overlap runs");
  int status = 0;
  try {
    app.parse(argc, argv);
    if (provided != MPI_THREAD_MULTIPLE)
      throw choreo::Error("the MPI library does not provide MPI_THREAD_MULTIPLE (thread engine)");
    run(settings, rank, ranks);
  } catch (const CLI::ParseError& e) {
    status = rank == 0 ? app.exit(e) : 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "persist_bench: rank {}: {}\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return status;
}
