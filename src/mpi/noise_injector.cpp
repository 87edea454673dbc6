// NoiseInjector: a POSIX timer whose signal handler busy-waits (see the header for why a
// handler and not a spinning thread).
#include "choreo/mpi/noise_injector.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <random>
#include <string>

#include "choreo/core/error.hpp"
#include "choreo/jitter/noise.hpp"

namespace choreo {

namespace {

// Process-wide because a signal handler has no other state. Lock-free atomics are the only
// shared objects a handler may touch.
std::atomic<std::int64_t> g_duration_ns{0};
std::atomic<std::int64_t> g_windows{0};
std::atomic<std::int64_t> g_stolen_ns{0};
std::atomic<bool> g_alive{false};
static_assert(std::atomic<std::int64_t>::is_always_lock_free);
static_assert(std::atomic<bool>::is_always_lock_free);

std::int64_t monotonic_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return std::int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

/// The window: spin from entry for the duration. From entry rather than from the timer's
/// expiry, so a late delivery still takes the whole duration, like a daemon that runs late.
void steal_cpu(int) {
  const int saved_errno = errno;  // clock_gettime may not, but a handler must not change it
  const std::int64_t start = monotonic_ns();
  const std::int64_t duration = g_duration_ns.load(std::memory_order_relaxed);
  std::int64_t now = start;
  while (now - start < duration) now = monotonic_ns();
  g_windows.fetch_add(1, std::memory_order_relaxed);
  g_stolen_ns.fetch_add(now - start, std::memory_order_relaxed);
  errno = saved_errno;
}

timespec to_timespec(std::int64_t ns) {
  timespec t{};
  t.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
  t.tv_nsec = static_cast<long>(ns % 1'000'000'000);
  return t;
}

std::string system_error(const char* call) {
  return fmt::format("{} failed: {}", call, std::strerror(errno));
}

}  // namespace

NoiseInjector::NoiseInjector(const NoiseOptions& options) : options_(options) {
  if (options_.signal == 0) options_.signal = SIGRTMIN + 4;
  if (options_.duration_ns < 0 || options_.period_ns <= options_.duration_ns)
    throw Error(fmt::format(
        "NoiseInjector: duration {} ns and period {} ns: need 0 <= duration < period (a window "
        "that lasts a whole period would never give the CPU back)",
        options_.duration_ns, options_.period_ns));
  if (options_.signal < SIGRTMIN || options_.signal > SIGRTMAX)
    throw Error(fmt::format(
        "NoiseInjector: signal {} is not a real-time signal ({}..{}); pass 0 for SIGRTMIN + 4 "
        "or a real-time signal the program and the MPI library do not use",
        options_.signal, SIGRTMIN, SIGRTMAX));
  std::mt19937_64 rng(options_.seed);
  phase_ns_ =
      static_cast<std::int64_t>(jitter::uniform01(rng) * static_cast<double>(options_.period_ns));
  if (options_.duration_ns == 0) return;  // noise off: nothing to install
  if (g_alive.exchange(true))
    throw Error(
        "NoiseInjector: another NoiseInjector is alive in this process; destroy it first "
        "(the signal handler and its settings are process-wide)");
  g_duration_ns.store(options_.duration_ns);
  g_windows.store(0);
  g_stolen_ns.store(0);

  struct sigaction action {};
  action.sa_handler = steal_cpu;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // a system call the window interrupts resumes afterwards
  if (sigaction(options_.signal, &action, &previous_) != 0) {
    g_alive.store(false);
    throw Error("NoiseInjector: " + system_error("sigaction"));
  }

  sigevent event{};
#ifdef SIGEV_THREAD_ID
  // This thread, not the process: a process-directed signal may land on an MPI library's
  // helper thread and steal nothing from the rank.
  event.sigev_notify = SIGEV_THREAD_ID;
#ifdef sigev_notify_thread_id
  event.sigev_notify_thread_id = static_cast<pid_t>(gettid());
#else
  event._sigev_un._tid = static_cast<pid_t>(gettid());  // glibc < 2.37 names no accessor
#endif
#else
  event.sigev_notify = SIGEV_SIGNAL;
#endif
  event.sigev_signo = options_.signal;
  if (timer_create(CLOCK_MONOTONIC, &event, &timer_) != 0) {
    const std::string why = system_error("timer_create");
    sigaction(options_.signal, &previous_, nullptr);
    g_alive.store(false);
    throw Error("NoiseInjector: " + why);
  }
  itimerspec schedule{};
  // it_value 0 would disarm the timer: a phase of 0 ns starts the first window after 1 ns.
  schedule.it_value = to_timespec(phase_ns_ > 0 ? phase_ns_ : 1);
  schedule.it_interval = to_timespec(options_.period_ns);
  if (timer_settime(timer_, 0, &schedule, nullptr) != 0) {
    const std::string why = system_error("timer_settime");
    timer_delete(timer_);
    sigaction(options_.signal, &previous_, nullptr);
    g_alive.store(false);
    throw Error("NoiseInjector: " + why);
  }
  armed_ = true;
}

NoiseInjector::~NoiseInjector() {
  if (!armed_) return;
  timer_delete(timer_);
  // A signal raised before timer_delete may still be pending. Setting SIG_IGN discards it
  // (POSIX), so it cannot reach the restored disposition, which may be the default action
  // (terminate, for real-time signals).
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(options_.signal, &ignore, nullptr);
  sigaction(options_.signal, &previous_, nullptr);
  g_alive.store(false);
}

std::int64_t NoiseInjector::windows() const { return armed_ ? g_windows.load() : 0; }

std::int64_t NoiseInjector::stolen_ns() const { return armed_ ? g_stolen_ns.load() : 0; }

}  // namespace choreo
