// The calibration's phases, in order, into a machine profile (calibrate.hpp).
#include <fmt/core.h>
#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <functional>
#include <memory>
#include <new>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "../core/human.hpp"
#include "../mpi/timed_runs.hpp"  // agree_on_failure, library_version
#include "calibrate.hpp"
#include "choreo/core/error.hpp"
#include "choreo/model/profile.hpp"
#include "choreo/select/profile_quality.hpp"
#include "detail.hpp"

namespace choreo::calibration {
namespace {

using detail::GiB;
using detail::KiB;
using detail::MiB;

// Where MPI libraries switch protocol between two ranks of one node, each bracketed by
// points 1/8 below and above (a limit may count its header, so the step can fall just
// below the power of two): Open MPI 4.1's vader BTL sends eagerly up to 4 KiB, sends 32 KiB
// first fragments and copies through the BTL up to 512 KiB (btl_vader_memcpy_limit) before
// single copy (CMA); MPICH 4 ch4's POSIX shared memory has 64 KiB cells
// (MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE), its OFI and UCX netmods switch at 8-16 KiB
// (Debian's ch4:ucx steps at 8 KiB on one node), and ch3 at 128 KiB
// (MPIR_CVAR_CH3_EAGER_MAX_MSG_SIZE). docs/calibration.md has the table.
constexpr std::int64_t kSwitchPoints[] = {4 * KiB,  8 * KiB,   16 * KiB, 32 * KiB,
                                          64 * KiB, 128 * KiB, 512 * KiB};
constexpr int kBurstMessages = 16;               // n of PRTT(n, 0, s) and of overhead rounds
constexpr std::int64_t kLargestBurst = 4 * MiB;  // bursts at 1, 4, 16, ... up to this

/// The options --quick stands for, applied.
CalibrationOptions quick_applied(CalibrationOptions a) {
  if (a.quick) {
    a.max_bytes = std::min(a.max_bytes, MiB);
    a.min_reps = std::min(a.min_reps, 6);
    a.max_reps = std::min(a.max_reps, 20);
    a.time_limit = std::min(a.time_limit, 15.0);
  }
  return a;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32] = {};
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::vector<std::int64_t> pingpong_sizes(std::int64_t max_bytes) {
  std::set<std::int64_t> sizes{max_bytes};
  for (std::int64_t b = 1; b <= max_bytes; b *= 2) sizes.insert(b);
  for (std::int64_t s : kSwitchPoints)
    for (std::int64_t b : {s - s / 8, s + s / 8})
      if (b <= max_bytes) sizes.insert(b);
  return {sizes.begin(), sizes.end()};
}

std::vector<std::int64_t> burst_sizes(std::int64_t max_bytes) {
  std::vector<std::int64_t> sizes;
  for (std::int64_t b = 1; b <= std::min(max_bytes, kLargestBurst); b *= 4) sizes.push_back(b);
  return sizes;
}

double fastest(const SizeSamples& s) {
  return s.seconds.empty() ? 0 : *std::min_element(s.seconds.begin(), s.seconds.end());
}

}  // namespace

void check_options(const CalibrationOptions& options, int ranks) {
  const CalibrationOptions a = quick_applied(options);
  if (ranks < 2)
    throw Error(fmt::format(
        "calibrate needs at least 2 ranks (it ping-pongs between rank 0 and rank 1), not {}; "
        "run it as `mpiexec -n 2 choreo-mpi calibrate -o machine.json`",
        ranks));
  if (a.max_bytes < KiB || a.max_bytes > GiB)
    throw Error(fmt::format("--max-bytes is {}; it must lie in 1024..1073741824 (1 KiB..1 GiB)",
                            a.max_bytes));
  if (!(a.rel_ci > 0 && a.rel_ci < 1))
    throw Error(
        fmt::format("--rel-ci is {}; it must lie strictly between 0 and 1 (0.02: +-2%)", a.rel_ci));
  if (a.min_reps < 1 || a.max_reps < a.min_reps)
    throw Error(
        fmt::format("need 1 <= --min-reps <= --max-reps, not {} and {}", a.min_reps, a.max_reps));
  if (a.cache_bytes < 0) throw Error("--cache-bytes must be >= 0 (0: detect)");
  if (!(a.time_limit > 0))
    throw Error(
        fmt::format("--time-limit is {}; it must be a positive number of seconds", a.time_limit));
}

Calibration measure_machine(MPI_Comm comm, const CalibrationOptions& options,
                            const ProgressCallback& callback) {
  using namespace detail;
  int rank = 0, ranks = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  check_options(options, ranks);
  const CalibrationOptions a = quick_applied(options);
  Rule rule;
  if (a.quick) rule.sample_seconds = 20e-6;
  rule.min_reps = a.min_reps;
  rule.max_reps = a.max_reps;
  rule.rel_ci = a.rel_ci;

  MachineProfile p;
  p.ranks = ranks;
  p.created = utc_now();
  p.mpi_library = mpi::detail::library_version();
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int host_length = 0;
  MPI_Get_processor_name(host, &host_length);
  p.host.assign(host, static_cast<std::size_t>(std::max(0, host_length)));
  for (int k = 1; k < (a.all_pairs ? ranks : 2); ++k) p.pairs.emplace_back(0, k);

  // The memcpy buffer first: if it cannot be had, every rank learns it now.
  p.cache_bytes = a.cache_bytes > 0 ? a.cache_bytes : detect_last_level_cache();
  const std::int64_t cap = a.quick ? 256 * MiB : std::max(physical_memory() / 4, GiB);
  p.memcpy_buffer_bytes =
      (std::max(std::min(4 * p.cache_bytes, cap), 4 * a.max_bytes + 64 * KiB) + 8191) / 8192 * 8192;
  std::unique_ptr<RotatingCopy> copier;
  std::string problem;
  if (rank == 0) try {
      copier = std::make_unique<RotatingCopy>(p.memcpy_buffer_bytes);
    } catch (const std::bad_alloc&) {
      problem = fmt::format("cannot allocate the {} memcpy buffer; give a smaller --cache-bytes",
                            human_bytes(static_cast<double>(p.memcpy_buffer_bytes)));
    }
  mpi::detail::agree_on_failure(problem, comm);

  const Reporter progress(callback, rank == 0);
  p.measured_on = layout(comm, rank, ranks);
  if (rank == 0 && p.measured_on.cpus > 0 &&
      p.measured_on.load_start >= static_cast<double>(p.measured_on.cpus)) {
    CalibrationEvent busy;
    busy.kind = CalibrationEvent::Kind::Busy;
    busy.load = p.measured_on.load_start;
    busy.cpus = p.measured_on.cpus;
    progress.report(busy);
  }
  // A fit no machine can produce (a loaded machine's: L below zero, g far above the one-way
  // time, G zero, tables that fall with size) is measured again, up to `attempts` times.
  std::vector<std::string> problems;
  for (int attempt = 1;; ++attempt) {
    p.pingpong.clear();
    p.burst.sizes.clear();
    p.memcpy.clear();
    p.collective = {};
    std::vector<Pair> pairs;
    for (const auto& [client, server] : p.pairs) {
      Pair pair;
      const bool member = rank == client || rank == server;
      MPI_Comm_split(comm, member ? 0 : MPI_UNDEFINED, rank == client ? 0 : 1, &pair.comm);
      pair.client = rank == client;
      pairs.push_back(pair);
    }
    const auto sizes = pingpong_sizes(a.max_bytes);
    const auto bursts = burst_sizes(a.max_bytes);
    const auto units = static_cast<std::int64_t>(
        p.pairs.size() * (sizes.size() + bursts.size() + 2) + 3 * sizes.size());
    Budget budget(a.time_limit, units);
    std::vector<char> out, in;
    if (rank <= static_cast<int>(p.pairs.size())) {
      out.assign(static_cast<std::size_t>(a.max_bytes), 2);
      in.assign(static_cast<std::size_t>(a.max_bytes), 0);
    }

    // One phase: for every pair, every size, samples appended to `series` (client only).
    const auto phase =
        [&](const char* name, std::vector<SizeSamples>& series, double scale,
            const std::function<double(const Pair&, std::int64_t, std::int64_t)>& op) {
          for (const Pair& pair : pairs) {
            if (pair.comm != MPI_COMM_NULL)
              for (std::size_t i = 0; i < series.size(); ++i) {
                if (pair.client) {
                  progress.step(name, i, series.size(), series[i].bytes);
                  rule.size_budget = budget.next();
                }
                const std::int64_t bytes = series[i].bytes;
                auto samples =
                    sample_pair(pair, series[i].batch, scale, rule,
                                [&](std::int64_t count) { return op(pair, bytes, count); });
                series[i].seconds.insert(series[i].seconds.end(), samples.begin(), samples.end());
              }
            MPI_Barrier(comm);
          }
          progress.done(name, series);
        };
    const auto send = [&](const Pair& pair, std::int64_t bytes) {
      MPI_Send(out.data(), static_cast<int>(bytes), MPI_BYTE, pair.client ? 1 : 0, 0, pair.comm);
    };
    const auto recv = [&](const Pair& pair, std::int64_t bytes) {
      MPI_Recv(in.data(), static_cast<int>(bytes), MPI_BYTE, pair.client ? 1 : 0, 0, pair.comm,
               MPI_STATUS_IGNORE);
    };

    // 1. Ping-pong: one-way = round trip / 2.
    for (std::int64_t b : sizes) p.pingpong.push_back({b, 0, {}});
    phase("ping-pong", p.pingpong, 0.5, [&](const Pair& pair, std::int64_t bytes, std::int64_t n) {
      const double start = MPI_Wtime();
      for (std::int64_t k = 0; k < n; ++k)
        if (pair.client) {
          send(pair, bytes);
          recv(pair, bytes);
        } else {
          recv(pair, bytes);
          send(pair, bytes);
        }
      return MPI_Wtime() - start;
    });

    // The server's side of every PRTT round: n receives, one reply.
    const auto serve = [&](const Pair& pair, std::int64_t bytes, int messages) {
      for (int m = 0; m < messages; ++m) recv(pair, bytes);
      send(pair, bytes);
    };

    // 2. Bursts PRTT(n, 0, s).
    p.burst.messages = kBurstMessages;
    for (std::int64_t b : bursts) p.burst.sizes.push_back({b, 0, {}});
    phase("burst", p.burst.sizes, 1, [&](const Pair& pair, std::int64_t bytes, std::int64_t n) {
      const double start = MPI_Wtime();
      for (std::int64_t k = 0; k < n; ++k)
        if (pair.client) {
          for (int m = 0; m < kBurstMessages; ++m) send(pair, bytes);
          recv(pair, bytes);
        } else {
          serve(pair, bytes, kBurstMessages);
        }
      return MPI_Wtime() - start;
    });

    // 3. Overheads. The delay after each send is twice the larger of the 1-byte round trip and
    // burst gap, so every send finds the channel idle; the wait before the receives is n + 1
    // delays, so all n messages have arrived. Both from the fastest samples (on a busy
    // machine the medians can be scheduler time slices), and at most 1 ms. A sample is one
    // round: the mean of n calls each timed alone, so no batching is needed.
    p.overhead.messages = kBurstMessages;
    if (rank == 0) {
      const double round_trip = 2 * fastest(p.pingpong.front());
      const double gap = (fastest(p.burst.sizes.front()) - round_trip) / (kBurstMessages - 1);
      p.overhead.delay = std::min(2 * std::max(round_trip, gap), 1e-3);
      p.overhead.wait = (kBurstMessages + 1) * p.overhead.delay;
    }
    MPI_Bcast(&p.overhead.delay, 1, MPI_DOUBLE, 0, comm);
    MPI_Bcast(&p.overhead.wait, 1, MPI_DOUBLE, 0, comm);
    std::vector<SizeSamples> overhead{{1, 1, {}}};
    // o_s: the client times its sends; one round is n sends and a reply.
    phase("send-o", overhead, 1.0 / kBurstMessages,
          [&](const Pair& pair, std::int64_t bytes, std::int64_t n) {
            double inside = 0;
            for (std::int64_t k = 0; k < n; ++k)
              if (pair.client) {
                for (int m = 0; m < kBurstMessages; ++m) {
                  const double t0 = MPI_Wtime();
                  send(pair, bytes);
                  inside += MPI_Wtime() - t0;
                  spin(p.overhead.delay);
                }
                recv(pair, bytes);
              } else {
                serve(pair, bytes, kBurstMessages);
              }
            return inside;
          });
    p.overhead.send = overhead.front();
    // o_r: the server sends n messages; the client waits, times its receives, and replies.
    overhead = {{1, 1, {}}};
    phase("recv-o", overhead, 1.0 / kBurstMessages,
          [&](const Pair& pair, std::int64_t bytes, std::int64_t n) {
            double inside = 0;
            for (std::int64_t k = 0; k < n; ++k)
              if (pair.client) {
                spin(p.overhead.wait);
                const double t0 = MPI_Wtime();
                for (int m = 0; m < kBurstMessages; ++m) recv(pair, bytes);
                inside += MPI_Wtime() - t0;
                send(pair, bytes);
              } else {
                for (int m = 0; m < kBurstMessages; ++m) send(pair, bytes);
                recv(pair, bytes);
              }
            return inside;
          });
    p.overhead.recv = overhead.front();

    // 4. The exchange and the memcpy of fresh data, on every rank at once.
    int timed = rank == 0 ? clock_sees_computation(*copier) : 0;  // also the untimed first sweep
    MPI_Bcast(&timed, 1, MPI_INT, 0, comm);
    out.assign(static_cast<std::size_t>(a.max_bytes), 0);
    in.assign(static_cast<std::size_t>(a.max_bytes), 0);
    p.collective = sample_collective(comm, sizes, rule, budget, progress, timed != 0, out, in);

    // 5. memcpy, on rank 0 alone (the others wait).
    if (rank == 0) {
      copier->sweep();  // the untimed pass right before the timed ones
      std::size_t i = 0;
      for (std::int64_t b : sizes) {
        progress.step("memcpy", i++, sizes.size(), b);
        rule.size_budget = budget.next();
        if (timed)
          p.memcpy.push_back(sample_memcpy(*copier, b, rule));
        else  // copies cost nothing on this clock: record that instead of batching forever
          p.memcpy.push_back(
              {b, 1, std::vector<double>(static_cast<std::size_t>(rule.min_reps), 0.0)});
      }
      progress.done("memcpy", p.memcpy);
    }
    for (Pair& pair : pairs)
      if (pair.comm != MPI_COMM_NULL) MPI_Comm_free(&pair.comm);
    MPI_Barrier(comm);
    int again = 0;
    if (rank == 0) {
      fit_profile(p);
      problems = fit_problems(p);
      again = !problems.empty() && attempt < a.attempts;
      if (again) {
        CalibrationEvent retry;
        retry.kind = CalibrationEvent::Kind::Retry;
        retry.attempt = attempt;
        retry.attempts = a.attempts;
        retry.problems = problems;
        progress.report(retry);
      }
    }
    MPI_Bcast(&again, 1, MPI_INT, 0, comm);
    if (!again) break;
  }
  copier.reset();

  if (rank == 0) {
    p.measured_on.load_end = load_average();
    p.ci95 = fit_intervals(p);
  }
  return {std::move(p), std::move(problems)};
}

}  // namespace choreo::calibration
