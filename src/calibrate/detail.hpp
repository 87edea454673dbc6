#pragma once
// Private to the calibration (calibrate.hpp): how a size is sampled (sampling.cpp), the
// collective tables (collective.cpp), the memcpy with rotating addresses (memcpy.cpp) and what
// the machine is (machine.cpp); measure.cpp runs the phases with them.
#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "calibrate.hpp"
#include "choreo/model/profile.hpp"

namespace choreo::calibration::detail {

inline constexpr std::int64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;

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

/// Whether `samples` meet the rule after `elapsed` seconds on this size.
bool enough(const std::vector<double>& samples, double elapsed, const Rule& rule);

inline constexpr std::int64_t kMaxBatch = 1 << 20;

/// Operations per sample: `count` operations took `seconds`; scale to the target length.
std::int64_t batch_for(std::int64_t count, double seconds, const Rule& rule);

/// Rank 0's progress, to the tool's callback; the phases' elapsed time counts from the
/// reporter's construction.
class Reporter {
 public:
  /// `on`: this rank reports (rank 0); the others' calls do nothing.
  Reporter(const ProgressCallback& callback, bool on)
      : callback_(on && callback ? &callback : nullptr), start_(MPI_Wtime()) {}
  void step(std::string_view phase, std::size_t i, std::size_t n, std::int64_t bytes) const;
  void done(std::string_view phase, const std::vector<SizeSamples>& series) const;
  void report(const CalibrationEvent& event) const {
    if (callback_) (*callback_)(event);
  }

 private:
  const ProgressCallback* callback_;
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
                                const Rule& rule, const PairBody& body);

/// Busy-waits `seconds` on MPI_Wtime.
void spin(double seconds);

/// One operation timed the way choreo-mpi times a collective call, on every rank of `comm` at
/// once: `prepare` writes the buffers (untimed), a barrier, the operation on each rank, `check`
/// (untimed, returns a problem or ""); a sample is the slowest rank's time. After 3 warm-ups,
/// until the rule is met; rank 0 decides and gets the samples.
SizeSamples sample_all_ranks(MPI_Comm comm, std::int64_t bytes, const Rule& rule,
                             const std::function<void(int sample)>& prepare,
                             const std::function<void()>& operation,
                             const std::function<std::string(int sample)>& check,
                             std::string& problem);

/// Phase 4, for every size: (a) every rank sends `bytes` to rank + 1 and receives from
/// rank - 1 at once, the send posted first as choreo's generators and executor do (MPICH's
/// ch4:ucx is much slower from 128 B to 8 KiB with the receive first), every byte checked;
/// (b) every rank copies `bytes` it has just written. Both with fresh buffers: the send
/// buffer and the copy's source written, the receive buffer and the copy's target cleared.
/// `copies_timed` false: the clock does not see computation (SMPI), copies are recorded as 0.
CollectiveSamples sample_collective(MPI_Comm comm, const std::vector<std::int64_t>& sizes,
                                    Rule rule, Budget& budget, const Reporter& progress,
                                    bool copies_timed, std::vector<char>& out,
                                    std::vector<char>& in);

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
bool clock_sees_computation(RotatingCopy& copier);

/// Phase 5: copies of `bytes` through `copier`, batched, until the rule is met.
SizeSamples sample_memcpy(RotatingCopy& copier, std::int64_t bytes, const Rule& rule);

/// The largest data or unified cache of the highest level (hwloc), else 32 MiB.
std::int64_t detect_last_level_cache();

/// This node's physical memory (4 GiB when unknown).
std::int64_t physical_memory();

/// The 1-minute load average (0 when unknown).
double load_average();

/// Every rank's node (processor name) on rank 0, with its load and CPUs; the others get
/// an empty layout.
MeasuredOn layout(MPI_Comm comm, int rank, int ranks);

}  // namespace choreo::calibration::detail
