#include "progress_thread.hpp"

#include <fmt/format.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string_view>

#include "choreo/core/error.hpp"

namespace choreo::persist::detail {

namespace {
// How long an idle thread keeps polling for new work before it sleeps, unless set
// (CHOREO_PROGRESS_SPIN_US, set_progress_spin): a start() that follows a wait() closely (a loop
// of collectives) then finds the thread awake. Pinned, the thread has a core of its own to
// poll on, and polls longer: a start() after up to 10 ms idle then costs 1-2 us, not the
// 17-20 us of waking it on another core (docs/persistent.md, "Engines").
constexpr std::int64_t kDefaultIdleSpinUs = 200;
constexpr std::int64_t kPinnedIdleSpinUs = 10000;

/// The environment variable `name` as a whole number, or nothing where it is unset or empty;
/// throws choreo::Error naming it otherwise (`what`: what it should hold).
std::optional<std::int64_t> env_number(const char* name, std::string_view what) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return std::nullopt;
  std::int64_t value = 0;
  const char* end = text + std::strlen(text);
  const auto [stop, status] = std::from_chars(text, end, value);
  if (status != std::errc() || stop != end)
    throw Error(fmt::format("{}='{}' is not {}; set it to {} or unset it", name, text,
                            what.substr(0, what.find(" (")), what));
  return value;
}

std::vector<int> allowed(const cpu_set_t& set) {
  std::vector<int> out;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) out.push_back(cpu);
  return out;
}
}  // namespace

ProgressThread& ProgressThread::instance() {
  static ProgressThread thread;
  return thread;
}

ProgressThread::ProgressThread() : idle_spin_us_(kDefaultIdleSpinUs), thread_([this] { loop(); }) {
  // CHOREO_PROGRESS_CPU and CHOREO_PROGRESS_SPIN_US: the pin and the spin of an unmodified
  // program (docs/persistent.md).
  try {
    if (const auto cpu = env_number("CHOREO_PROGRESS_CPU", "a CPU number (e.g. 1)"))
      pin(static_cast<int>(std::clamp<std::int64_t>(*cpu, -1, CPU_SETSIZE)));
    if (const auto spin =
            env_number("CHOREO_PROGRESS_SPIN_US", "a number of microseconds (e.g. 2000)"))
      set_idle_spin(std::chrono::microseconds(*spin));
  } catch (...) {
    stop_thread();
    throw;
  }
}

void ProgressThread::stop_thread() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void ProgressThread::pin(int cpu) {
  // Any CPU the system lets a thread run on, not only the caller's: the point is a core that
  // the ranks are not bound to (mpiexec binds each rank's process, and so its caller threads).
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  const auto refuse = [&](std::string_view why) {
    return Error(
        fmt::format("cannot pin the progress thread to CPU {}: {}; choose one of CPUs "
                    "0 to {}",
                    cpu, why, online - 1));
  };
  if (cpu < 0 || cpu >= CPU_SETSIZE || cpu >= online) throw refuse("no such CPU");
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  if (const int error = pthread_setaffinity_np(thread_.native_handle(), sizeof one, &one))
    throw refuse(std::strerror(error));
  if (!idle_spin_set_.load(std::memory_order_relaxed))
    idle_spin_us_.store(kPinnedIdleSpinUs, std::memory_order_relaxed);
}

void ProgressThread::set_idle_spin(std::chrono::microseconds spin) {
  if (spin.count() < 0)
    throw Error(fmt::format(
        "the progress thread's idle spin must be 0 or more microseconds, not {}", spin.count()));
  idle_spin_us_.store(spin.count(), std::memory_order_relaxed);
  idle_spin_set_.store(true, std::memory_order_relaxed);
}

std::chrono::microseconds ProgressThread::idle_spin() const {
  return std::chrono::microseconds(idle_spin_us_.load(std::memory_order_relaxed));
}

std::vector<int> ProgressThread::cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  pthread_getaffinity_np(thread_.native_handle(), sizeof set, &set);
  return allowed(set);
}

ProgressThread::~ProgressThread() {
  if (thread_.joinable()) stop_thread();
}

void ProgressThread::submit(ThreadJob& job) {
  bool wake = false;
  {
    std::lock_guard lock(mutex_);
    submitted_.push_back(&job);
    pending_.fetch_add(1, std::memory_order_release);
    wake = sleeping_;
  }
  if (wake) wake_.notify_one();
}

bool ProgressThread::collect(std::vector<ThreadJob*>& running) {
  if (running.empty()) {
    const auto until = std::chrono::steady_clock::now() + idle_spin();
    while (pending_.load(std::memory_order_acquire) == 0 &&
           std::chrono::steady_clock::now() < until)
      std::this_thread::yield();
  } else if (pending_.load(std::memory_order_acquire) == 0) {
    return true;  // busy, nothing new: skip the lock
  }
  std::unique_lock lock(mutex_);
  if (running.empty()) {
    sleeping_ = true;
    wake_.wait(lock, [&] { return !submitted_.empty() || stop_; });
    sleeping_ = false;
  }
  if (stop_ && submitted_.empty() && running.empty()) return false;
  for (ThreadJob* job : submitted_) running.push_back(job);
  pending_.fetch_sub(static_cast<int>(submitted_.size()), std::memory_order_relaxed);
  submitted_.clear();
  return true;
}

void ProgressThread::loop() {
  std::vector<ThreadJob*> running;
  while (collect(running)) {
    const std::size_t before = running.size();
    for (std::size_t k = 0; k < running.size();) {
      ThreadJob* job = running[k];
      bool done = true;
      try {
        if (!job->begun) {
          job->begun = true;
          job->driver->begin();  // the first wave: start() itself stays a flag and a push
        }
        done = job->driver->poll();
      } catch (...) {
        job->error = std::current_exception();
      }
      if (!done) {
        ++k;
        continue;
      }
      running[k] = running.back();
      running.pop_back();
      job->done.store(true, std::memory_order_release);
    }
    // A pass that completed nothing gives the core away: where ranks outnumber cores, the
    // caller (computing, or in start()) runs now instead of after the thread's time slice.
    if (!running.empty() && running.size() == before) std::this_thread::yield();
  }
}

}  // namespace choreo::persist::detail
