#pragma once
// libchoreo_scalapack.so's process-wide state: the CHOREO_* settings (the same reader and
// table as libchoreo_pmpi.so, docs/intercept.md), the per-routine counters of CHOREO_REPORT,
// and the record that counts and times one call.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "../intercept/config.hpp"
#include "../intercept/report.hpp"

namespace choreo::scalapack {

struct Runtime {
  intercept::Config config;
  std::vector<std::string> problems;  ///< malformed settings: every call goes to ScaLAPACK
  std::uint64_t settings_digest = 0;
  intercept::Counters counters;
};

/// Read once, at the first call.
Runtime& runtime();

/// Why every call of `function` goes to ScaLAPACK's own routine, if a setting says so.
std::optional<intercept::Fallback> blanket_reason(intercept::Function function);

/// Prints "choreo: LINE" to standard error in one write.
void say(const std::string& line);

/// Counts and times one call of a routine.
class CallRecord {
 public:
  explicit CallRecord(intercept::Function function);
  ~CallRecord();
  CallRecord(const CallRecord&) = delete;
  CallRecord& operator=(const CallRecord&) = delete;

  void bytes(std::int64_t count);
  void took_choreo() { choreo_ = true; }
  void fell_back(intercept::Fallback reason) { reason_ = reason, choreo_ = false; }
  void cache(bool hit);
  void planned(std::int64_t ns);

 private:
  intercept::FunctionCounters& counters_;
  bool choreo_ = false;
  intercept::Fallback reason_ = intercept::Fallback::NoAlgorithm;
  std::chrono::steady_clock::time_point start_;
};

/// Nanoseconds on a steady clock.
std::int64_t now_ns();

/// Registers, once per process, what runs at MPI_Finalize (an MPI_COMM_SELF attribute whose
/// delete callback MPI runs first thing in MPI_Finalize, while MPI works): `release` (what
/// choreo made), then the CHOREO_REPORT report. `world_covered`: this call's context spans
/// MPI_COMM_WORLD, so every process of the job takes part in the report's reduction; otherwise
/// each process that called writes its own report.
void at_finalize(bool world_covered, void (*release)());

}  // namespace choreo::scalapack
