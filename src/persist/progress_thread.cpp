#include "progress_thread.hpp"

#include <chrono>

namespace choreo::persist::detail {

namespace {
// How long an idle thread keeps polling for new work before it sleeps: a start() that
// follows a wait() closely (a loop of collectives) then finds the thread awake.
constexpr auto kIdleSpin = std::chrono::microseconds(200);
}  // namespace

ProgressThread& ProgressThread::instance() {
  static ProgressThread thread;
  return thread;
}

ProgressThread::ProgressThread() : thread_([this] { loop(); }) {}

ProgressThread::~ProgressThread() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
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
    const auto until = std::chrono::steady_clock::now() + kIdleSpin;
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
