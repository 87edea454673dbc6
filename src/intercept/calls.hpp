#pragma once
// What every intercepted function does before its own logic, and the safety net around it.
#include <functional>
#include <optional>

#include "runtime.hpp"

namespace choreo::intercept {

/// The reason every call of `function` goes to MPI (a setting says so), if any.
inline std::optional<Fallback> blanket_reason(Function function) {
  const Runtime& rt = runtime();
  if (rt.blanket) return rt.blanket;
  if (rt.config.disabled[static_cast<std::size_t>(function)]) return Fallback::Disabled;
  return std::nullopt;
}

/// Runs `body`; should choreo's code throw (it reports problems as exceptions, agreed on by
/// every rank of the communicator where they could differ), the call is handed to MPI and the
/// message printed once, never passed into the program as an exception or a crash.
int guarded(CallRecord& record, const std::function<int()>& mpi, const std::function<int()>& body);

}  // namespace choreo::intercept
