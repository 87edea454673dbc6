#include "calls.hpp"

#include <fmt/format.h>

#include <atomic>
#include <exception>

namespace choreo::intercept {

int guarded(CallRecord& record, IntFunctionRef mpi, IntFunctionRef body) {
  try {
    return body();
  } catch (const std::exception& e) {
    static std::atomic<bool> said{false};
    if (!said.exchange(true))
      say(fmt::format("{}; this call and others like it go to MPI's own collective", e.what()));
    record.fell_back(Fallback::NoAlgorithm);
    return mpi();
  }
}

}  // namespace choreo::intercept
