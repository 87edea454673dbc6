#pragma once
// The interposition library's process-wide state: its settings, counters and the attribute key
// under which each communicator carries choreo's state; the guard that sends choreo's own MPI
// calls straight to MPI; and the per-call record that counts and times an intercepted call.
#include <mpi.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "choreo/sched/exchange_plan.hpp"
#include "config.hpp"
#include "function_ref.hpp"
#include "report.hpp"

namespace choreo::intercept {

struct Runtime {
  /// Set once the library is initialised and may take calls; false before MPI_Init, after
  /// MPI_Finalize, and for good when it was built for another MPI (every call passes through).
  std::atomic<bool> serving{false};
  Config config;
  /// When set, every call goes to MPI for this reason (a malformed setting, another MPI).
  std::optional<Fallback> blanket;
  ExchangeModel model;  ///< from CHOREO_PROFILE, or the defaults
  std::string mpi_library;
  int world_rank = 0;
  /// Every rank of the job on one node (found at MPI_Init): MPI's shared-memory collectives
  /// beat point-to-point schedules made for networks, so auto mode leaves the calls to MPI.
  bool one_node = false;
  std::uint64_t settings_digest = 0;  ///< of the CHOREO_* settings; every rank must have the same
  int comm_keyval = MPI_KEYVAL_INVALID;
  Counters counters;
};

Runtime& runtime();

/// Depth of choreo's own code on this rank's thread: choreo's collectives make MPI calls, which
/// the library must not intercept again. Under SMPI, ranks share threads but not globals
/// (each rank has its own copy of the program, and the SMPI build compiles with
/// -fno-gnu-unique so that this inline variable is not made one for all copies: cmake/smpi.cmake).
#ifdef CHOREO_SMPI
inline int choreo_depth = 0;
#else
inline thread_local int choreo_depth = 0;
#endif

class ChoreoScope {
 public:
  ChoreoScope() { ++choreo_depth; }
  ~ChoreoScope() { --choreo_depth; }
  ChoreoScope(const ChoreoScope&) = delete;
  ChoreoScope& operator=(const ChoreoScope&) = delete;
};

/// Initialises the library once MPI is (from the MPI_Init wrappers, or lazily at the first
/// intercepted call when the program initialised MPI without them). Local, no communication.
void initialise_once();

/// Whether an intercepted call should be looked at at all: false for choreo's own calls and
/// when MPI is not initialised by a program choreo serves. The cheap test every wrapper starts
/// with; a false answer means: call PMPI and nothing else.
inline bool intercepting() {
  if (choreo_depth > 0) return false;
  if (runtime().serving.load(std::memory_order_acquire)) return true;
  initialise_once();
  return runtime().serving.load(std::memory_order_acquire);
}

/// Counts and times one intercepted call for CHOREO_REPORT; without a report it does nothing
/// (no atomic increments on a call that is handed straight to MPI).
class CallRecord {
 public:
  explicit CallRecord(Function function);
  ~CallRecord();
  CallRecord(const CallRecord&) = delete;
  CallRecord& operator=(const CallRecord&) = delete;

  void bytes(std::int64_t count) {
    if (timing_) counters_.bytes.fetch_add(count, std::memory_order_relaxed);
  }
  void took_choreo() { choreo_ = true; }
  void fell_back(Fallback reason) {
    reason_ = reason;
    choreo_ = false;
  }
  /// fell_back(reason), then MPI's own call.
  int hand_over(Fallback reason, IntFunctionRef mpi) {
    fell_back(reason);
    return mpi();
  }
  void cache(bool hit) {
    if (timing_) (hit ? counters_.hits : counters_.misses).fetch_add(1, std::memory_order_relaxed);
  }
  void planned(std::int64_t ns) {
    if (!timing_) return;
    counters_.plans.fetch_add(1, std::memory_order_relaxed);
    counters_.plan_ns.fetch_add(ns, std::memory_order_relaxed);
  }
  bool timing() const { return timing_; }

 private:
  FunctionCounters& counters_;
  bool timing_;
  bool choreo_ = false;
  Fallback reason_ = Fallback::NoAlgorithm;
  std::chrono::steady_clock::time_point start_;
};

/// Prints "choreo: LINE" to standard error in one write.
void say(const std::string& line);

/// Nanoseconds on a steady clock.
std::int64_t now_ns();

}  // namespace choreo::intercept
