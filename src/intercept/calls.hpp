#pragma once
// What every intercepted function does before its own logic, and the safety net around it.
#include <functional>
#include <optional>

#include "function_ref.hpp"
#include "runtime.hpp"

namespace choreo::intercept {

/// Why auto mode leaves a call the model would decide to MPI, if it does: every rank on one
/// node (MPI's shared-memory collectives), or no calibrated machine. `asked` says whether a
/// setting names choreo's algorithm for this call (CHOREO_EXCHANGE, CHOREO_ALLREDUCE), which
/// is then taken.
inline std::optional<Fallback> auto_mode_declines(bool asked) {
  const Runtime& rt = runtime();
  if (rt.config.mode == Mode::Choreo || asked) return std::nullopt;
  if (rt.one_node) return Fallback::OneNode;
  if (rt.config.profile_path.empty()) return Fallback::NoProfile;
  return std::nullopt;
}

/// Whether a setting names choreo's algorithm for `function`.
inline bool asked_for(Function function) {
  const Config& config = runtime().config;
  switch (function) {
    case Function::Alltoallv:
    case Function::NeighborAlltoallv:
      return config.exchange != ExchangeAlgorithm::Auto;
    case Function::Allreduce:
      return config.allreduce == AllreduceChoice::Resilient;
    default:
      return false;
  }
}

/// The reason every call of `function` goes to MPI (a setting says so), if any. Without a
/// report nothing is counted, so a call auto mode declines on this machine goes to MPI here,
/// before its communicator is looked up (the reason is then only for the report's sake).
inline std::optional<Fallback> blanket_reason(Function function, const CallRecord& record) {
  const Runtime& rt = runtime();
  if (rt.blanket) return rt.blanket;
  if (rt.config.disabled[static_cast<std::size_t>(function)]) return Fallback::Disabled;
  if (!record.timing()) return auto_mode_declines(asked_for(function));
  return std::nullopt;
}

/// Runs `body`; should choreo's code throw (it reports problems as exceptions, agreed on by
/// every rank of the communicator where they could differ), the call is handed to MPI and the
/// message printed once, never passed into the program as an exception or a crash.
int guarded(CallRecord& record, IntFunctionRef mpi, IntFunctionRef body);

}  // namespace choreo::intercept
