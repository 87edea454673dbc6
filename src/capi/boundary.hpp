#pragma once
// The C API's boundary (private to src/capi): every choreo_* function runs its body through
// guarded(), which turns whatever the C++ library throws into a return code and this thread's
// message, so no exception ever reaches C.
#include <mpi.h>

#include <exception>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <utility>

#include "choreo/choreo.h"
#include "choreo/core/error.hpp"

namespace choreo::capi {

/// A failure that carries its own return code. A plain choreo::Error carries none: the call
/// that catches it decides (guarded's error_code).
class Failure : public Error {
 public:
  Failure(int code, const std::string& message) : Error(message), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

/// Keeps "function: message" as this thread's last error and returns code.
int fail(const char* function, int code, const char* message) noexcept;

/// Runs body(): CHOREO_SUCCESS, or the code of what it threw (a Failure's own, `error_code`
/// for any other choreo::Error: CHOREO_ERR_ARG for calls that make or use arguments,
/// CHOREO_ERR_STATE for start, wait and test), its message kept for choreo_last_error.
template <typename Body>
int guarded(const char* function, int error_code, Body&& body) noexcept {
  try {
    std::forward<Body>(body)();
    return CHOREO_SUCCESS;
  } catch (const Failure& e) {
    return fail(function, e.code(), e.what());
  } catch (const Error& e) {
    return fail(function, error_code, e.what());
  } catch (const std::bad_alloc&) {
    return fail(function, CHOREO_ERR_NO_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    return fail(function, CHOREO_ERR_INTERNAL, e.what());
  } catch (...) {
    return fail(function, CHOREO_ERR_INTERNAL, "an exception that is not a std::exception");
  }
}

/// Throws Failure(CHOREO_ERR_ARG) naming `what` when pointer is NULL.
void require(const void* pointer, const char* what);

/// What this rank checks alone, before any communication (nobody could be told otherwise):
/// MPI initialised and not finalised (CHOREO_ERR_MPI), comm not MPI_COMM_NULL
/// (CHOREO_ERR_ARG).
void require_communicator(MPI_Comm comm);

/// Runs `check` on every rank of comm; if it throws choreo::Error on any, every rank throws
/// the lowest failing rank's message, so none is left waiting in the collective set-up that
/// follows.
void on_every_rank(MPI_Comm comm, const std::function<void()>& check);

/// The body of every call on a handle: CHOREO_ERR_ARG naming `name` if it is NULL, else
/// call(*handle) through guarded() with `error_code` for a choreo::Error.
template <typename Handle, typename Call>
int on_handle(const char* function, int error_code, Handle* handle, const char* name,
              Call&& call) noexcept {
  return guarded(function, error_code, [&] {
    require(handle, name);
    call(*handle);
  });
}

/// The body of every *_free: takes the handle out of *handle (NULL afterwards), runs
/// release(handle) (which may throw) and deletes it whatever happens. NULL is a no-op.
template <typename Handle, typename Release>
int free_handle(const char* function, Handle** handle, Release&& release) noexcept {
  return guarded(function, CHOREO_ERR_STATE, [&] {
    if (handle == nullptr || *handle == nullptr) return;
    const std::unique_ptr<Handle> owned(std::exchange(*handle, nullptr));
    release(*owned);
  });
}

}  // namespace choreo::capi
