#pragma once
// What the interposition library did, for CHOREO_REPORT: per intercepted function, the calls,
// bytes, calls choreo took and calls handed to MPI (with the reason), the time in each and the
// plan cache's hits and misses. Counting is local and lock-free; at MPI_Finalize the ranks'
// counts are summed (and the busiest rank's time kept) and rendered as JSON
// ("choreo.report/1") or a table. No MPI here.
#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "config.hpp"

namespace choreo::intercept {

/// Why a call went to MPI's own implementation.
enum class Fallback : std::uint8_t {
  ModeMpi,              ///< CHOREO_MODE=mpi
  Disabled,             ///< CHOREO_DISABLE names the function
  Configuration,        ///< a CHOREO_* setting is malformed (printed at MPI_Init)
  OtherMpi,             ///< the library was built for another MPI
  Intercommunicator,    ///< choreo runs on intracommunicators
  SingleRank,           ///< nothing to communicate
  NoTopology,           ///< a neighbourhood call on a communicator without a topology
  MultipleEdges,        ///< a topology with two edges between one pair of ranks
  UnsupportedDatatype,  ///< a reduction on a derived datatype
  UnsupportedOp,        ///< a user-defined reduction op
  NoGain,               ///< the model predicts no gain over MPI's own (below break-even)
  NoRepeat,             ///< the pattern keeps changing: planning would not pay
  CountsDisagree,       ///< ranks' counts do not match (MPI reports the error)
  NoAlgorithm,          ///< choreo has no algorithm for this call
  NoProfile,            ///< no CHOREO_PROFILE: the model does not know this machine
  OneNode,              ///< every rank on one node: MPI's shared-memory collectives
  MeasuredSlower,       ///< choreo's ways to run the pattern were timed slower than MPI's call
  LibraryPersistent,    ///< a persistent collective init served by the library's own (or MPIX_)
  EmulatedPersistent,   ///< ... emulated: the library's nonblocking collective at every start
};
inline constexpr std::size_t kFallbackCount = 19;
/// The reason's key in the JSON report, e.g. "model_predicts_no_gain".
std::string_view fallback_key(Fallback reason);

/// Counters of one function on one rank; relaxed atomics (calls on different communicators
/// may come from different threads).
struct FunctionCounters {
  std::atomic<std::int64_t> calls{0}, bytes{0}, choreo{0}, fallback{0};
  std::atomic<std::int64_t> ns{0}, choreo_ns{0}, fallback_ns{0};
  std::atomic<std::int64_t> hits{0}, misses{0}, plans{0}, plan_ns{0};
  std::array<std::atomic<std::int64_t>, kFallbackCount> reasons{};
};

using Counters = std::array<FunctionCounters, kFunctionCount>;

/// The counters as one array of numbers (for a reduction over the ranks) and back.
std::vector<std::int64_t> flatten(const Counters& counters);
inline constexpr std::size_t kWordsPerFunction = 11 + kFallbackCount;

struct FunctionTotals {
  std::int64_t calls = 0, bytes = 0, choreo = 0, fallback = 0;
  std::int64_t ns = 0, choreo_ns = 0, fallback_ns = 0;
  std::int64_t hits = 0, misses = 0, plans = 0, plan_ns = 0;
  std::int64_t busiest_rank_ns = 0;  ///< the largest time one rank spent in the function
  std::array<std::int64_t, kFallbackCount> reasons{};
};

struct Totals {
  int ranks = 0;
  std::string mpi_library;
  std::string mode;
  std::array<FunctionTotals, kFunctionCount> functions{};
};

/// `sums` and `maxima` are flatten()ed counters summed and maximised over the ranks.
Totals totals_from(const std::vector<std::int64_t>& sums, const std::vector<std::int64_t>& maxima,
                   int ranks);

/// {"format": "choreo.report/1", "ranks": P, "functions": {"MPI_Alltoallv": {...}, ...}}.
std::string report_json(const Totals& totals);
/// A table, one line per function that was called, and the fallback reasons below it.
std::string report_text(const Totals& totals);

}  // namespace choreo::intercept
