#pragma once
// choreo::NoiseInjector: OS-like jitter for real-MPI benchmarks (paper 004's noise model on a
// real machine). While alive it takes the CPU away from the thread that created it for
// `duration` every `period`, the first window at a random phase in [0, period) drawn from
// `seed`: one window per period, a common period and a per-rank phase, as in the
// simulation (docs/jitter.md).
//
//   choreo::NoiseInjector noise({.duration_ns = 100'000, .period_ns = 10'000'000,
//                                .seed = 42 + rank});
//   ... MPI calls now meet a 100 us detour every 10 ms ...
//
// How: a POSIX timer (CLOCK_MONOTONIC) signals the creating thread (SIGEV_THREAD_ID on
// Linux, else the process) and the handler busy-waits on clock_gettime until `duration` has
// passed. A handler preempts the thread wherever it is, inside an MPI wait loop as much as in
// computation, exactly as an OS daemon or interrupt steals a core; a second thread that
// spins instead would only compete for a core and, with a spare core, steal nothing. The
// handler only reads an atomic and calls clock_gettime (async-signal-safe). One injector per
// process at a time: the handler and its settings are process-wide.
#include <csignal>
#include <cstdint>
#include <ctime>

namespace choreo {

struct NoiseOptions {
  std::int64_t duration_ns = 100'000;   ///< CPU taken per window (0: inject nothing)
  std::int64_t period_ns = 10'000'000;  ///< time between window starts; > duration_ns
  std::uint64_t seed = 1;               ///< the phase's seed; give every rank its own
  int signal = 0;                       ///< the signal to use; 0 means SIGRTMIN + 4
};

class NoiseInjector {
 public:
  /// Installs the handler and arms the timer. Throws choreo::Error when duration_ns < 0,
  /// period_ns <= duration_ns, the signal is not a valid one, another NoiseInjector is alive
  /// in this process, or the timer cannot be created (naming the system error).
  explicit NoiseInjector(const NoiseOptions& options);
  /// Disarms and deletes the timer, discards a signal still pending, and restores the signal
  /// disposition found at construction.
  ~NoiseInjector();
  NoiseInjector(const NoiseInjector&) = delete;
  NoiseInjector& operator=(const NoiseInjector&) = delete;

  /// Windows that have run so far (handler entries).
  std::int64_t windows() const;
  /// CPU time the windows took, in nanoseconds.
  std::int64_t stolen_ns() const;
  /// The first window's offset from construction, in [0, period_ns).
  std::int64_t phase_ns() const { return phase_ns_; }

 private:
  NoiseOptions options_;
  std::int64_t phase_ns_ = 0;
  bool armed_ = false;
  timer_t timer_{};
  struct sigaction previous_ {};
};

}  // namespace choreo
