// choreo-mpi calibrate: paper 001's micro-benchmarks (§IV-A) and Hoefler et al.'s LogGP
// round trips, measured into a machine profile (docs/calibration.md):
//   1. ping-pong between each pair (0, k): one-way time = round trip / 2, for sizes 1 B to
//      --max-bytes by factors of 2, plus points 1/8 below and above the sizes where MPI
//      libraries switch protocol;
//   2. bursts PRTT(n, 0, s) (LogGP's g and G), and 3. the time inside MPI_Send of isolated
//      1-byte messages (o_s) and inside MPI_Recv of 1-byte messages already arrived (o_r),
//      on the same pairs;
//   4. beyond the paper, both again as a collective call meets them, on every rank at once:
//      an exchange (each rank sends to rank + 1 and receives from rank - 1) and a memcpy of
//      data just written, one operation per sample, timed as choreo-mpi times a collective
//      call (buffers written, barrier, slowest rank), every byte checked;
//   5. memcpy on rank 0, its source and destination rotating through a buffer several
//      times the last-level cache so that no copy finds its data cached.
// Each size: a warm-up, then barrier-separated samples, each the mean of a batch of
// operations lasting ~100 us (found by doubling), until the 95% confidence interval of the
// median is within --rel-ci of it (or --max-reps, or its share of --time-limit is spent).
#include "calibrate.hpp"

#include <fmt/core.h>
#include <fmt/ranges.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "../src/mpi/timed_runs.hpp"  // agree_on_failure, library_version
#include "choreo/error.hpp"
#include "choreo/human.hpp"
#include "choreo/profile.hpp"
#include "choreo/profile_quality.hpp"

namespace choreo::tools {
namespace {

constexpr std::int64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;

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

struct Rule {
  int min_reps = 10, max_reps = 200;
  double rel_ci = 0.02;
  double sample_seconds = 100e-6;  ///< a sample times a batch lasting about this long
  double size_budget = 1.0;        ///< seconds for this size and pair, min_reps aside
};

/// The run's time limit, shared out evenly over the (pair, size) units still to measure, so
/// that what quick sizes leave over goes to the slow ones.
class Budget {
 public:
  Budget(double seconds, std::int64_t units) : deadline_(MPI_Wtime() + seconds), units_(units) {}
  double next() {
    const double left = std::max(0.0, deadline_ - MPI_Wtime());
    return left / static_cast<double>(std::max<std::int64_t>(1, units_--));
  }

 private:
  double deadline_;
  std::int64_t units_;
};

bool enough(const std::vector<double>& samples, double elapsed, const Rule& rule) {
  const auto n = static_cast<int>(samples.size());
  if (n >= rule.max_reps) return true;
  if (n < rule.min_reps) return false;
  return relative_ci_half_width(samples) <= rule.rel_ci || elapsed >= rule.size_budget;
}

constexpr std::int64_t kMaxBatch = 1 << 20;

/// Operations per sample: `count` operations took `seconds`; scale to the target length.
std::int64_t batch_for(std::int64_t count, double seconds, const Rule& rule) {
  const double ops =
      std::ceil(static_cast<double>(count) * rule.sample_seconds / std::max(seconds, 1e-9));
  return static_cast<std::int64_t>(std::clamp(ops, 1.0, static_cast<double>(kMaxBatch)));
}

/// Rank 0's progress on stderr: one updating line on a terminal, one line per phase else.
class Progress {
 public:
  explicit Progress(bool on) : on_(on), tty_(on && isatty(fileno(stderr))), start_(MPI_Wtime()) {}
  void step(const char* phase, std::size_t i, std::size_t n, std::int64_t bytes) const {
    if (tty_)
      fmt::print(stderr, "\rcalibrate: {:<10} {:>3}/{:<3} {:>10}   ", phase, i + 1, n,
                 human_bytes(static_cast<double>(bytes)));
  }
  void done(const char* phase, const std::vector<SizeSamples>& series) const {
    if (!on_) return;
    std::size_t samples = 0;
    for (const auto& s : series) samples += s.seconds.size();
    fmt::print(stderr, "{}calibrate: {:<10} {} sizes, {} samples, {:.1f} s elapsed\n",
               tty_ ? "\r" : "", phase, series.size(), samples, MPI_Wtime() - start_);
  }

 private:
  bool on_, tty_;
  double start_;
};

/// A ping-pong pair as a 2-rank communicator: the client (rank 0 of it, world rank 0) times,
/// the server (world rank k) answers.
struct Pair {
  MPI_Comm comm = MPI_COMM_NULL;
  bool client = false;
};

/// This rank's side of `count` operations; returns the seconds the client attributes to
/// them (the server's return value is ignored).
using PairBody = std::function<double(std::int64_t count)>;

/// Runs `body` in barrier-separated samples until the client's rule is met; returns the
/// client's samples, seconds per operation times `scale` (the server's list is empty).
/// `batch` is 0 the first time: after a warm-up, the pair doubles the count from 1 until it lasts
/// half a sample (the faster of two tries) and scales it up; the client decides, and later pairs
/// reuse its batch.
std::vector<double> sample_pair(const Pair& pair, std::int64_t& batch, double scale,
                                const Rule& rule, const PairBody& body) {
  MPI_Bcast(&batch, 1, MPI_INT64_T, 0, pair.comm);
  if (batch == 0) {
    // Warm-up: one operation, and 15 more when it was cheap (Open MPI's vader BTL, for one,
    // takes a slower path for the first 16 sends to a peer, which must not set the batch).
    int cheap = body(1) < 1e-3;
    MPI_Bcast(&cheap, 1, MPI_INT, 0, pair.comm);
    if (cheap) body(15);
    std::int64_t count = 1;
    for (int more = 1; more; count *= 2) {
      MPI_Barrier(pair.comm);
      double t = body(count);
      MPI_Barrier(pair.comm);
      t = std::min(t, body(count));  // the faster of two: an interruption must not decide
      if (pair.client) {
        more = t < rule.sample_seconds / 2 && count < kMaxBatch;
        if (!more) batch = batch_for(count, t, rule);
      }
      MPI_Bcast(&more, 1, MPI_INT, 0, pair.comm);
    }
    MPI_Bcast(&batch, 1, MPI_INT64_T, 0, pair.comm);
  } else {
    body(batch);  // warm-up
  }
  std::vector<double> samples;
  const double start = MPI_Wtime();
  for (int more = 1; more;) {
    MPI_Barrier(pair.comm);
    const double t = body(batch);
    if (pair.client) {
      samples.push_back(t / static_cast<double>(batch) * scale);
      more = !enough(samples, MPI_Wtime() - start, rule);
    }
    MPI_Bcast(&more, 1, MPI_INT, 0, pair.comm);
  }
  return samples;
}

void spin(double seconds) {
  const double until = MPI_Wtime() + seconds;
  while (MPI_Wtime() < until) {
  }
}

/// memcpy whose every copy starts on a new page (plus one cache line, to break prefetch
/// strides and set aliasing) of a buffer several times the last-level cache: a copy finds
/// its data cached only after the whole buffer has been swept.
class RotatingCopy {
 public:
  explicit RotatingCopy(std::int64_t bytes)
      : buffer_(static_cast<std::size_t>(bytes), 1), half_(bytes / 2) {}
  /// One untimed pass, right before the timed ones: the first pass over the buffer after
  /// other work is up to 4x slower for small copies (page tables no longer cached); later
  /// passes find the data cold, as wanted, but the machine warm.
  void sweep() {
    std::memcpy(buffer_.data() + half_, buffer_.data(), static_cast<std::size_t>(half_));
  }
  void copy(std::int64_t bytes, std::int64_t count) {
    const std::int64_t stride = (bytes + 4095) / 4096 * 4096 + 64;
    char* src = buffer_.data();
    char* dst = buffer_.data() + half_ + 2048;  // never 4 KiB-aliased with the source
    for (std::int64_t k = 0; k < count; ++k) {
      if (position_ + bytes + 2048 > half_) position_ = 0;
      std::memcpy(dst + position_, src + position_, static_cast<std::size_t>(bytes));
      sink_ = sink_ + dst[position_];
      position_ += stride;
    }
  }

 private:
  std::vector<char> buffer_;
  std::int64_t half_, position_ = 0;
  volatile char sink_ = 0;  // the copies are observable
};

/// Whether MPI_Wtime sees computation. SMPI with smpi/simulate-computation:no runs copies in
/// zero simulated time (each MPI_Wtime call adds a few ns): batching copies up until a
/// sample lasts long enough would then never end. Compared on one sweep of the buffer
/// (milliseconds of real time).
bool clock_sees_computation(RotatingCopy& copier) {
  const auto wall0 = std::chrono::steady_clock::now();
  const double t0 = MPI_Wtime();
  copier.sweep();
  const double mpi_seconds = MPI_Wtime() - t0;
  const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - wall0;
  return mpi_seconds >= 0.01 * wall.count();
}

SizeSamples sample_memcpy(RotatingCopy& copier, std::int64_t bytes, const Rule& rule) {
  SizeSamples s{bytes, 1, {}};
  copier.copy(bytes, 1);  // warm-up
  for (std::int64_t count = 1;; count *= 2) {
    double t = std::numeric_limits<double>::infinity();
    for (int twice = 0; twice < 2; ++twice) {  // the faster: an interruption must not decide
      const double t0 = MPI_Wtime();
      copier.copy(bytes, count);
      t = std::min(t, MPI_Wtime() - t0);
    }
    if (t >= rule.sample_seconds / 2 || count >= kMaxBatch) {
      s.batch = batch_for(count, t, rule);
      break;
    }
  }
  const double start = MPI_Wtime();
  do {
    const double t0 = MPI_Wtime();
    copier.copy(bytes, s.batch);
    s.seconds.push_back((MPI_Wtime() - t0) / static_cast<double>(s.batch));
  } while (!enough(s.seconds, MPI_Wtime() - start, rule));
  return s;
}

std::int64_t parse_cache_size(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  if (text.empty()) return 0;
  std::int64_t unit = 1;
  switch (text.back()) {
    case 'K':
      unit = KiB;
      break;
    case 'M':
      unit = MiB;
      break;
    case 'G':
      unit = GiB;
      break;
    default:
      break;
  }
  try {
    return std::stoll(text) * unit;
  } catch (const std::exception&) {
    return 0;
  }
}

/// The largest data or unified cache of the highest level: sysfs, else sysconf, else 32 MiB.
std::int64_t detect_last_level_cache() {
  namespace fs = std::filesystem;
  std::error_code ec;
  int best_level = 0;
  std::int64_t best = 0;
  for (const auto& entry : fs::directory_iterator("/sys/devices/system/cpu/cpu0/cache", ec)) {
    if (entry.path().filename().string().rfind("index", 0) != 0) continue;
    const auto read = [&](const char* name) {
      std::ifstream in(entry.path() / name);
      std::string value;
      std::getline(in, value);
      return value;
    };
    if (read("type") == "Instruction") continue;
    const int level = std::atoi(read("level").c_str());
    const std::int64_t size = parse_cache_size(read("size"));
    if (size > 0 && (level > best_level || (level == best_level && size > best))) {
      best_level = level;
      best = size;
    }
  }
  if (best > 0) return best;
#ifdef _SC_LEVEL3_CACHE_SIZE
  for (int name : {_SC_LEVEL4_CACHE_SIZE, _SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE})
    if (const long size = sysconf(name); size > 0) return size;
#endif
  return 32 * MiB;
}

std::int64_t physical_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::int64_t>(pages) * page : 4 * GiB;
}

/// The 1-minute load average (0 when unknown).
double load_average() {
  std::ifstream in("/proc/loadavg");
  double load = 0;
  in >> load;
  return in ? load : 0;
}

/// Every rank's node (processor name) on rank 0, with its load and CPUs; the others get
/// an empty layout.
MeasuredOn layout(int rank, int ranks) {
  std::array<char, MPI_MAX_PROCESSOR_NAME> name{};
  int length = 0;
  MPI_Get_processor_name(name.data(), &length);
  std::vector<char> all(rank == 0 ? static_cast<std::size_t>(ranks) * name.size() : 0);
  MPI_Gather(name.data(), static_cast<int>(name.size()), MPI_CHAR, all.data(),
             static_cast<int>(name.size()), MPI_CHAR, 0, MPI_COMM_WORLD);
  MeasuredOn m;
  if (rank != 0) return m;
  for (int r = 0; r < ranks; ++r) {
    const char* host = all.data() + static_cast<std::size_t>(r) * name.size();
    m.hosts.emplace_back(host, strnlen(host, name.size()));
  }
  m.load_start = load_average();
  m.cpus = static_cast<int>(std::max(0L, sysconf(_SC_NPROCESSORS_ONLN)));
  return m;
}

/// Where a refused calibration keeps its samples: machine.json -> machine.rejected.json.
std::string rejected_path(const std::string& output) {
  std::filesystem::path path(output);
  const std::string extension = path.extension().string();
  path.replace_extension(".rejected" + (extension.empty() ? std::string(".json") : extension));
  return path.string();
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

void check_args(const CalibrateArgs& a, int ranks) {
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

/// Fails on every rank unless rank 0 can write the output's folder (before a long run).
void check_output(const std::string& path, int rank) {
  std::string problem;
  if (rank == 0) {
    namespace fs = std::filesystem;
    const fs::path parent = fs::absolute(path).parent_path();
    std::error_code ec;
    if (!fs::is_directory(parent, ec))
      problem = fmt::format("cannot write {}: its folder {} does not exist", path, parent.string());
    else if (access(parent.c_str(), W_OK) != 0)
      problem = fmt::format("cannot write {}: no permission to write in {}", path, parent.string());
  }
  mpi::detail::agree_on_failure(problem, MPI_COMM_WORLD);
}

/// The byte rank `rank` sends in sample `sample` (not 0, so a missing byte shows).
char exchange_byte(int rank, int sample) {
  return static_cast<char>(1 + (rank * 31 + sample) % 251);
}

/// One operation timed the way choreo-mpi times a collective call, on every rank at once:
/// `prepare` writes the buffers (untimed), a barrier, the operation on each rank, `check`
/// (untimed, returns a problem or ""); a sample is the slowest rank's time. After 3 warm-ups,
/// until the rule is met; rank 0 decides and gets the samples.
SizeSamples sample_all_ranks(std::int64_t bytes, const Rule& rule,
                             const std::function<void(int sample)>& prepare,
                             const std::function<void()>& operation,
                             const std::function<std::string(int sample)>& check,
                             std::string& problem) {
  constexpr int kWarmup = 3;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  SizeSamples samples{bytes, 1, {}};
  const double start = MPI_Wtime();
  for (int sample = 0, more = 1; more; ++sample) {
    prepare(sample);
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    operation();
    const double local = MPI_Wtime() - t0;
    if (problem.empty()) problem = check(sample);
    double slowest = 0;
    MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (sample >= kWarmup && rank == 0) {
      samples.seconds.push_back(slowest);
      more = !enough(samples.seconds, MPI_Wtime() - start, rule);
    }
    MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD);
  }
  return samples;
}

/// Phase 4, for every size: (a) every rank sends `bytes` to rank + 1 and receives from
/// rank - 1 at once, the send posted first as choreo's generators and executor do (MPICH's
/// ch4:ucx is much slower from 128 B to 8 KiB with the receive first), every byte checked;
/// (b) every rank copies `bytes` it has just written. Both with fresh buffers: the send
/// buffer and the copy's source written, the receive buffer and the copy's target cleared.
/// `copies_timed` false: the clock does not see computation (SMPI), copies are recorded as 0.
CollectiveSamples sample_collective(const std::vector<std::int64_t>& sizes, Rule rule,
                                    Budget& budget, const Progress& progress, bool copies_timed,
                                    std::vector<char>& out, std::vector<char>& in) {
  int rank = 0, ranks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const int right = (rank + 1) % ranks, left = (rank + ranks - 1) % ranks;
  constexpr int kTag = 7;
  CollectiveSamples collective{ranks, {}, {}};
  std::string problem;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::int64_t bytes = sizes[i];
    const auto n = static_cast<std::size_t>(bytes);
    const auto fresh = [&](int sample) {
      std::memset(out.data(), exchange_byte(rank, sample), n);
      std::memset(in.data(), 0, n);
    };
    const auto received = [&](char expected) {
      const auto wrong = std::find_if(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(n),
                                      [&](char c) { return c != expected; });
      return wrong - in.begin();
    };
    if (rank == 0) {
      progress.step("collective", i, sizes.size(), bytes);
      rule.size_budget = budget.next();
    }
    auto exchange = sample_all_ranks(
        bytes, rule, fresh,
        [&] {
          MPI_Request requests[2];
          MPI_Isend(out.data(), static_cast<int>(bytes), MPI_BYTE, right, kTag, MPI_COMM_WORLD,
                    &requests[0]);
          MPI_Irecv(in.data(), static_cast<int>(bytes), MPI_BYTE, left, kTag, MPI_COMM_WORLD,
                    &requests[1]);
          MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
        },
        [&](int sample) {
          const auto at = received(exchange_byte(left, sample));
          return at == bytes ? std::string()
                             : fmt::format(
                                   "exchange of {} B: rank {} received a wrong byte at offset {} "
                                   "from rank {}; the MPI library lost or corrupted data",
                                   bytes, rank, at, left);
        },
        problem);
    SizeSamples copy{bytes, 1, std::vector<double>(static_cast<std::size_t>(rule.min_reps), 0.0)};
    if (copies_timed)
      copy = sample_all_ranks(
          bytes, rule, fresh, [&] { std::memcpy(in.data(), out.data(), n); },
          [&](int sample) {
            const auto at = received(exchange_byte(rank, sample));
            return at == bytes ? std::string()
                               : fmt::format("memcpy of {} B on rank {}: wrong byte at offset {}",
                                             bytes, rank, at);
          },
          problem);
    if (rank == 0) {
      collective.exchange.push_back(std::move(exchange));
      collective.memcpy.push_back(std::move(copy));
    }
  }
  mpi::detail::agree_on_failure(problem, MPI_COMM_WORLD);
  progress.done("collective", collective.exchange);
  return collective;
}

double fastest(const SizeSamples& s) {
  return s.seconds.empty() ? 0 : *std::min_element(s.seconds.begin(), s.seconds.end());
}

nlohmann::ordered_json summary_json(const MachineProfile& p, const std::string& output,
                                    double seconds, double rel_ci) {
  using ordered_json = nlohmann::ordered_json;
  const auto series = [&](const std::vector<SizeSamples>& list) {
    ordered_json rows = ordered_json::array();
    for (const auto& s : list)
      rows.push_back({{"bytes", s.bytes},
                      {"median", s.median()},
                      {"samples", s.seconds.size()},
                      {"rel_ci", std::min(relative_ci_half_width(s.seconds), 1e300)}});
    return rows;
  };
  ordered_json pairs = ordered_json::array();
  for (const auto& [a, b] : p.pairs) pairs.push_back({a, b});
  return {{"format", "choreo.calibration/1"},
          {"output", output},
          {"host", p.host},
          {"mpi_library", p.mpi_library},
          {"created", p.created},
          {"ranks", p.ranks},
          {"pairs", pairs},
          {"seconds", seconds},
          {"load_average", p.measured_on.load_start},
          {"load_average_end", p.measured_on.load_end},
          {"cpus", p.measured_on.cpus},
          {"nodes", p.measured_on.nodes()},
          {"hosts", p.measured_on.hosts},
          {"rel_ci_target", rel_ci},
          {"cache_bytes", p.cache_bytes},
          {"memcpy_buffer_bytes", p.memcpy_buffer_bytes},
          {"loggp", {{"L", p.loggp.L}, {"o", p.loggp.o}, {"g", p.loggp.g}, {"G", p.loggp.G}}},
          // The profile's own spelling of the intervals.
          {"ci95", nlohmann::ordered_json::parse(profile_to_json(p))["ci95"]},
          {"hockney", {{"alpha", p.hockney.alpha}, {"beta", p.hockney.beta}}},
          {"memcpy_hockney", {{"alpha", p.memcpy_hockney.alpha}, {"beta", p.memcpy_hockney.beta}}},
          {"send_overhead", p.overhead.send.median()},
          {"recv_overhead", p.overhead.recv.median()},
          {"pingpong", series(p.pingpong)},
          {"collective",
           {{"ranks", p.collective.ranks},
            {"exchange", series(p.collective.exchange)},
            {"memcpy", series(p.collective.memcpy)}}},
          {"memcpy", series(p.memcpy)}};
}

std::string per_byte(double seconds_per_byte) {
  if (seconds_per_byte <= 0) return "0 s/B";
  return fmt::format("{:.4g} ns/B ({:.2f} GB/s)", seconds_per_byte * 1e9, 1e-9 / seconds_per_byte);
}

void print_summary(const MachineProfile& p, const std::string& output, double seconds,
                   double rel_ci) {
  fmt::print("{:>10} {:>12} {:>12} {:>8} {:>8}   {:>12} {:>8}   {:>12} {:>12}\n", "bytes",
             "one-way", "bandwidth", "samples", "CI", "exchange", "CI", "memcpy", "bandwidth");
  const auto bandwidth = [](std::int64_t bytes, double t) {
    return t > 0 ? fmt::format("{:.2f} GB/s", static_cast<double>(bytes) / t * 1e-9)
                 : std::string("-");
  };
  const auto ci = [](const std::vector<double>& samples) {
    const double r = relative_ci_half_width(samples);
    return std::isfinite(r) ? fmt::format("{:.1f}%", 100 * r) : std::string("-");
  };
  std::size_t loose = 0;
  for (const auto& s : p.pingpong) {
    if (relative_ci_half_width(s.seconds) > rel_ci) ++loose;
    std::string exchange = fmt::format("{:>12} {:>8}", "-", "-"), copy;
    for (const auto& x : p.collective.exchange)
      if (x.bytes == s.bytes)
        exchange = fmt::format("{:>12} {:>8}", human_seconds(x.median()), ci(x.seconds));
    for (const auto& m : p.memcpy)
      if (m.bytes == s.bytes)
        copy =
            fmt::format("{:>12} {:>12}", human_seconds(m.median()), bandwidth(m.bytes, m.median()));
    fmt::print("{:>10} {:>12} {:>12} {:>8} {:>8}   {}   {}\n", s.bytes, human_seconds(s.median()),
               bandwidth(s.bytes, s.median()), s.seconds.size(), ci(s.seconds), exchange, copy);
  }
  std::string pairs;
  for (const auto& [a, b] : p.pairs)
    pairs += fmt::format("{}{}-{}", pairs.empty() ? "" : ", ", a, b);
  fmt::print("\nprofile         {} ({}, {} ranks, pairs {})\n", output, p.mpi_library, p.ranks,
             pairs);
  fmt::print(
      "ping-pong       {} sizes, one-way = round trip / 2; {} outside +-{:.1f}% (95% CI "
      "of the median)\n",
      p.pingpong.size(), loose, 100 * rel_ci);
  fmt::print(
      "exchange        {} sizes, all {} ranks at once (to rank + 1, from rank - 1), the slowest "
      "rank's time after a barrier; also a memcpy of fresh data on every rank (profile only)\n",
      p.collective.exchange.size(), p.collective.ranks);
  fmt::print("memcpy          {} sizes, rotating through {} ({:.1f}x the {} last-level cache)\n",
             p.memcpy.size(), human_bytes(static_cast<double>(p.memcpy_buffer_bytes)),
             p.cache_bytes > 0
                 ? static_cast<double>(p.memcpy_buffer_bytes) / static_cast<double>(p.cache_bytes)
                 : 0.0,
             human_bytes(static_cast<double>(p.cache_bytes)));
  const FitIntervals& fit_ci = *p.ci95;
  const auto time_ci = [](const Interval& i) {
    return fmt::format("[{}, {}]", human_seconds(i.low), human_seconds(i.high));
  };
  const auto per_byte_ci = [](const Interval& i) {
    return fmt::format("[{:.4g}, {:.4g}] ns/B", i.low * 1e9, i.high * 1e9);
  };
  fmt::print("LogGP           L {} {}   o {} {} (send {}, receive {})\n", human_seconds(p.loggp.L),
             time_ci(fit_ci.L), human_seconds(p.loggp.o), time_ci(fit_ci.o),
             human_seconds(p.overhead.send.median()), human_seconds(p.overhead.recv.median()));
  fmt::print("                g {} {}   G {} {}   (95% intervals, {} bootstrap resamples)\n",
             human_seconds(p.loggp.g), time_ci(fit_ci.g), per_byte(p.loggp.G),
             per_byte_ci(fit_ci.G), fit_ci.resamples);
  fmt::print("Hockney         alpha {} {}   beta {} {}\n", human_seconds(p.hockney.alpha),
             time_ci(fit_ci.alpha), per_byte(p.hockney.beta), per_byte_ci(fit_ci.beta));
  fmt::print("memcpy Hockney  alpha {}   beta {}\n", human_seconds(p.memcpy_hockney.alpha),
             per_byte(p.memcpy_hockney.beta));
  const MeasuredOn& m = p.measured_on;
  fmt::print(
      "measured on     {} node(s), {} ranks; ping-pong pair {}; load average {:.2f} -> {:.2f} on "
      "{} CPUs\n",
      m.nodes(), p.ranks,
      m.same_node(p.pairs.front().first, p.pairs.front().second)
          ? "on one node (shared memory, not a network)"
          : "on two nodes (the network)",
      m.load_start, m.load_end, m.cpus);
  fmt::print("took            {:.1f} s\n", seconds);
}

}  // namespace

void calibrate(const CalibrateArgs& args, int rank) {
  const double started = MPI_Wtime();
  int ranks = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  CalibrateArgs a = args;
  Rule rule;
  if (a.quick) {
    a.max_bytes = std::min(a.max_bytes, MiB);
    a.min_reps = std::min(a.min_reps, 6);
    a.max_reps = std::min(a.max_reps, 20);
    a.time_limit = std::min(a.time_limit, 15.0);
    rule.sample_seconds = 20e-6;
  }
  check_args(a, ranks);
  check_output(a.output, rank);
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
  for (int k = 1; k < (a.pairs == "all" ? ranks : 2); ++k) p.pairs.emplace_back(0, k);

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
  mpi::detail::agree_on_failure(problem, MPI_COMM_WORLD);

  const Progress progress(rank == 0);
  p.measured_on = layout(rank, ranks);
  if (rank == 0 && p.measured_on.cpus > 0 &&
      p.measured_on.load_start >= static_cast<double>(p.measured_on.cpus))
    fmt::print(stderr,
               "calibrate: note: load average {:.1f} on {} CPUs; other processes will disturb "
               "the timings (the fit is checked, and measured again if it is not physical)\n",
               p.measured_on.load_start, p.measured_on.cpus);
  // A fit no machine can produce (a loaded machine's: L below zero, g far above the one-way
  // time, G zero, tables that fall with size) is measured again, up to --attempts times.
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
      MPI_Comm_split(MPI_COMM_WORLD, member ? 0 : MPI_UNDEFINED, rank == client ? 0 : 1,
                     &pair.comm);
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
            MPI_Barrier(MPI_COMM_WORLD);
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
    MPI_Bcast(&p.overhead.delay, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Bcast(&p.overhead.wait, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
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
    MPI_Bcast(&timed, 1, MPI_INT, 0, MPI_COMM_WORLD);
    out.assign(static_cast<std::size_t>(a.max_bytes), 0);
    in.assign(static_cast<std::size_t>(a.max_bytes), 0);
    p.collective = sample_collective(sizes, rule, budget, progress, timed != 0, out, in);

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
    MPI_Barrier(MPI_COMM_WORLD);
    int again = 0;
    if (rank == 0) {
      fit_profile(p);
      problems = fit_problems(p);
      again = !problems.empty() && attempt < a.attempts;
      if (again)
        fmt::print(stderr, "calibrate: attempt {} of {}: {}; measuring again\n", attempt,
                   a.attempts, fmt::join(problems, "; "));
    }
    MPI_Bcast(&again, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!again) break;
  }
  copier.reset();

  std::string refusal;
  if (rank == 0) {
    p.measured_on.load_end = load_average();
    p.ci95 = fit_intervals(p);
    if (!problems.empty()) {
      const std::string kept = rejected_path(a.output);
      write_profile(p, kept);
      refusal = fmt::format(
          "the calibration is not physical after {} attempt(s): {}. Nothing was written to {}; "
          "the samples are in {}. Calibrate on an idle machine (load average {:.1f} -> {:.1f} on "
          "{} CPUs), one rank per core",
          a.attempts, fmt::join(problems, "; "), a.output, kept, p.measured_on.load_start,
          p.measured_on.load_end, p.measured_on.cpus);
    }
  }
  mpi::detail::agree_on_failure(refusal, MPI_COMM_WORLD);
  if (rank != 0) return;

  write_profile(p, a.output);
  const double seconds = MPI_Wtime() - started;
  if (a.json)
    fmt::print("{}\n", summary_json(p, a.output, seconds, a.rel_ci).dump(2));
  else
    print_summary(p, a.output, seconds, a.rel_ci);
}

}  // namespace choreo::tools
