#pragma once
// The MPI library's own implementation of a function, whatever a preloaded library defines:
// libchoreo_pmpi.so built for Open MPI also defines the PMPI_ names of the functions it
// intercepts (src/intercept/next.hpp), so a test that wants MPI's own result as its reference
// looks the function up in the MPI library itself.
#include <dlfcn.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

namespace choreo::test {

template <class Function>
Function own_mpi(Function, const char* name) {
  // PMPI_Comm_rank is defined by the MPI library only: where it lives is the MPI library.
  Dl_info info{};
  void* handle = nullptr;
  if (dladdr(reinterpret_cast<void*>(&PMPI_Comm_rank), &info) != 0)
    handle = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  void* found = handle != nullptr ? dlsym(handle, name) : nullptr;
  if (found == nullptr) {
    std::fprintf(stderr, "own_mpi: cannot find the MPI library's %s\n", name);
    std::abort();
  }
  return reinterpret_cast<Function>(found);
}

}  // namespace choreo::test
