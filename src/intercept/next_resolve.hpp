#pragma once
// How a wrapper reaches the MPI library's own function (next.hpp says why Open MPI needs
// dlsym): CHOREO_NEXT(Name, args...) returns PMPI_Name(args...), the library's own.
#include <dlfcn.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace choreo::intercept::next::detail {

#ifdef CHOREO_EXPORT_PMPI
/// MPI's own `name`: the next definition after this library's in the lookup order.
template <class Function>
Function resolve(Function, const char* name) {
  void* found = dlsym(RTLD_NEXT, name);
  if (found == nullptr) {
    // Without MPI's own function no call can be made; say which and stop, as MPI would.
    const std::string line =
        std::string("choreo: cannot find MPI's own ") + name + " (dlsym: " + dlerror() + ")\n";
    [[maybe_unused]] const auto written = ::write(2, line.data(), line.size());
    std::abort();
  }
  return reinterpret_cast<Function>(found);
}
#define CHOREO_NEXT(name, ...)                                                                     \
  static const auto own = ::choreo::intercept::next::detail::resolve(&PMPI_##name, "PMPI_" #name); \
  return own(__VA_ARGS__)
#else
#define CHOREO_NEXT(name, ...) return PMPI_##name(__VA_ARGS__)
#endif

}  // namespace choreo::intercept::next::detail
