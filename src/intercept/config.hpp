#pragma once
// The interposition library's settings: the CHOREO_* environment variables (docs/intercept.md
// has the table). Reading them is pure: no MPI, no printing; every malformed value becomes one
// problem line naming the variable and the fix, and the library then leaves every call to MPI.
#include <bitset>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "choreo/sched/exchange_plan.hpp"

namespace choreo::intercept {

/// The functions choreo's adoption libraries take: the MPI collectives libchoreo_pmpi.so
/// intercepts, then the ScaLAPACK redistribution routines libchoreo_scalapack.so replaces (one
/// name for the Fortran pdgemr2d_ and the C Cpdgemr2d), then MPI-4's persistent collective
/// inits as one entry ("MPI_*_init"). One list, so that CHOREO_DISABLE and
/// the report (choreo.report/1) read the same way for both libraries.
enum class Function : std::uint8_t {
  Alltoallv,
  NeighborAlltoallv,
  Allreduce,
  Bcast,
  Allgather,
  Psgemr2d,
  Pdgemr2d,
  Pcgemr2d,
  Pzgemr2d,
  Pigemr2d,
  Pstrmr2d,
  Pdtrmr2d,
  Pctrmr2d,
  Pztrmr2d,
  Pitrmr2d,
  /// MPI-4's persistent collective inits (MPI_Bcast_init, ...), one entry for all of them.
  PersistentInit,
};
inline constexpr std::size_t kFunctionCount = 16;
/// "MPI_Alltoallv", ..., "pdgemr2d", ...
std::string_view function_name(Function function);

/// CHOREO_MODE: who decides which calls choreo takes.
enum class Mode : std::uint8_t {
  Auto,    ///< choreo where its model predicts a gain, MPI's own call elsewhere
  Choreo,  ///< choreo wherever it supports the call (tests, comparisons)
  Mpi,     ///< MPI's own call everywhere; calls are still counted for CHOREO_REPORT
};

/// CHOREO_ALLREDUCE.
enum class AllreduceChoice : std::uint8_t {
  Auto,       ///< the model's choice (MPI's own where it predicts no gain)
  Mpi,        ///< always MPI's own
  Resilient,  ///< paper 004's jitter-resilient butterfly, T redundant exchanges
};

/// CHOREO_PERSISTENT: who runs the MPI-4 persistent collectives (MPI_Bcast_init, ...) that
/// the library defines even on an MPI-3.1 library (docs/intercept.md, "Persistent collectives").
enum class PersistentChoice : std::uint8_t {
  /// The library's own where it has persistent collectives that work; where it has none (an
  /// MPI-3.1 library without MPIX_) or they are wrong (MPICH 4.0.x), choreo::persist where it
  /// supports the call, which measured 0.48-0.82x the emulation's time there, else emulated.
  Auto,
  Library,      ///< the MPI library's own: MPI_X_init, else Open MPI's MPIX_X_init, else emulated
  Choreo,       ///< choreo::persist where it supports the call, the library's own elsewhere
  Nonblocking,  ///< emulated everywhere: each start posts the nonblocking collective (MPI_Ix)
};

enum class ReportTarget : std::uint8_t { None, Stderr, JsonFile };

struct Config {
  Mode mode = Mode::Auto;
  std::string profile_path;  ///< CHOREO_PROFILE: a calibrated machine (choreo-mpi calibrate)
  AllreduceChoice allreduce = AllreduceChoice::Auto;
  int resilient_t = -1;  ///< CHOREO_ALLREDUCE=resilient:T=k; -1 chooses T automatically
  /// CHOREO_EXCHANGE: the schedule of intercepted alltoallv calls (Auto: the model's pick).
  ExchangeAlgorithm exchange = ExchangeAlgorithm::Auto;
  std::bitset<kFunctionCount> disabled;                  ///< CHOREO_DISABLE
  PersistentChoice persistent = PersistentChoice::Auto;  ///< CHOREO_PERSISTENT
  ReportTarget report = ReportTarget::None;
  std::string report_path;  ///< CHOREO_REPORT=PATH.json
  /// CHOREO_RECORD=DIR: every rank records its MPI calls to DIR/rank-<r>.ctr (record.hpp).
  std::string record_dir;

  bool enabled(Function f) const {
    return mode != Mode::Mpi && !disabled[static_cast<std::size_t>(f)];
  }
};

struct ConfigReading {
  Config config;
  /// One line per problem: "CHOREO_MODE=fast: not a mode; use auto, choreo or mpi".
  std::vector<std::string> problems;
  /// A digest of the settings: every rank must read the same (checked at MPI_Init).
  std::uint64_t digest = 0;
};

/// Reads the variables through `lookup` (getenv in the library) and `names`, every
/// environment variable's name (to catch misspelt CHOREO_* names).
ConfigReading read_config(const std::function<const char*(const char*)>& lookup,
                          const std::vector<std::string>& names);

}  // namespace choreo::intercept
