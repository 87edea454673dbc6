#pragma once
// The process's progress thread (private): created by the first thread-engine request,
// then reused by every later one, so init never pays for thread creation (the paper's
// 800 us). It drives every handed-over instance until done, then sleeps until the next.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "driver.hpp"

namespace choreo::persist::detail {

/// One started instance as the thread sees it. The thread writes `error` and then sets
/// `done` (release); the owner reads `error` after seeing `done` (acquire).
struct ThreadJob {
  Driver* driver = nullptr;
  bool begun = false;  ///< the thread's own: whether it posted the first wave yet
  std::atomic<bool> done{false};
  std::exception_ptr error;
};

class ProgressThread {
 public:
  /// The process's thread, started on first use.
  static ProgressThread& instance();
  ~ProgressThread();

  /// Hands job over; cheap (a lock-protected push and, if the thread sleeps, a wake-up).
  void submit(ThreadJob& job);
  /// Restricts the thread to CPU `cpu`; throws choreo::Error if the process may not use it.
  void pin(int cpu);
  /// The CPUs the thread may run on.
  std::vector<int> cpus();
  /// How long the thread, out of work, keeps polling before it sleeps (and a start() must wake
  /// it with a system call): 200 us, 10 ms once pinned, unless set; throws choreo::Error for a
  /// negative time.
  void set_idle_spin(std::chrono::microseconds spin);
  std::chrono::microseconds idle_spin() const;

 private:
  ProgressThread();
  /// Stops and joins the thread (the destructor's, and a failed constructor's).
  void stop_thread();
  void loop();
  /// Moves submitted jobs into `running`; sleeps first when there is nothing to do.
  bool collect(std::vector<ThreadJob*>& running);

  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<ThreadJob*> submitted_;  // guarded by mutex_
  bool sleeping_ = false;              // guarded by mutex_
  bool stop_ = false;                  // guarded by mutex_
  std::atomic<int> pending_{0};        // submitted_.size(), read without the lock
  std::atomic<std::int64_t> idle_spin_us_;
  std::atomic<bool> idle_spin_set_{false};  // set_idle_spin called: pin() keeps the spin
  std::thread thread_;
};

}  // namespace choreo::persist::detail
