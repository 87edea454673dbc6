#pragma once
// A non-owning reference to a callable returning int, for the calls made on every intercepted
// MPI call: std::function would allocate for a lambda that captures the nine arguments of an
// MPI_Alltoallv, twice a call, which alone costs more than the rest of a cache hit.
#include <memory>
#include <type_traits>

namespace choreo::intercept {

/// Valid as long as the callable it refers to: a lambda passed to a function lives until the
/// call returns, which is all these need.
class IntFunctionRef {
 public:
  template <class Callable>
  requires(!std::is_same_v<std::remove_cvref_t<Callable>, IntFunctionRef>)
      IntFunctionRef(Callable&& callable)  // NOLINT(google-explicit-constructor): a reference type
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(callable)))),
        call_([](void* object) {
          return (*static_cast<std::remove_reference_t<Callable>*>(object))();
        }) {}
  int operator()() const { return call_(object_); }

 private:
  void* object_;
  int (*call_)(void*);
};

}  // namespace choreo::intercept
