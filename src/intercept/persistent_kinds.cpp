#include "persistent_kinds.hpp"

#include <exception>
#include <string>

#include "next.hpp"
#include "runtime.hpp"

namespace choreo::intercept::persistent {
namespace {

/// Runs one call into choreo::persist: its MPI calls go straight to MPI (ChoreoScope), and an
/// exception becomes one line and MPI_ERR_OTHER, since it must not cross the C interface.
template <class Body>
int guarded(const char* call, Body body) {
  try {
    ChoreoScope scope;
    body();
    return MPI_SUCCESS;
  } catch (const std::exception& error) {
    say(std::string(call) + ": " + error.what());
    return MPI_ERR_OTHER;
  }
}

}  // namespace

int Emulated::progress(bool& finished) {
  int flag = 0;
  const int code = next::Test(&inner_, &flag, MPI_STATUS_IGNORE);
  finished = flag != 0;
  return code;
}

int ChoreoCollective::start() {
  return guarded(call(), [&] { request_.start(); });
}

int ChoreoCollective::progress(bool& finished) {
  return guarded(call(), [&] { finished = request_.test(); });
}

int ChoreoCollective::release() {
  return guarded(call(), [&] { request_.free(); });
}

}  // namespace choreo::intercept::persistent
