// The exported ScaLAPACK redistribution routines, Fortran (p?gemr2d_, p?trmr2d_) and C
// (Cp?gemr2d, Cp?trmr2d), for s, d, c, z and i, with ScaLAPACK's signatures (REDIST/SRC): the
// C routines take M, N, IA, JA, IB, JB and the context by value and the descriptors as
// pointers to 9 ints; the Fortran ones take everything by reference (a Fortran caller's hidden
// string lengths after UPLO and DIAG are not read). Each call is served by choreo (serve.hpp)
// or handed to ScaLAPACK's own C routine, found in the next library (dlsym RTLD_NEXT): the C
// one, because ScaLAPACK's Fortran routine calls Cp?gemr2d, which is this library's.
// A problem ScaLAPACK would reject, or one a clearer message helps with, is printed on one
// line and the job stops (MPI_Abort), as ScaLAPACK's exit(1) does: never a crash, a hang or a
// wrong result.
#include <dlfcn.h>
#include <fmt/format.h>
#include <mpi.h>

#include <chrono>
#include <exception>
#include <thread>

#include "runtime.hpp"
#include "serve.hpp"

namespace choreo::scalapack {
namespace {

[[noreturn]] void stop(const std::string& message) {
  int rank = 0, initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized != 0) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  say(fmt::format("{} (rank {}); stopping the job, as ScaLAPACK does", message, rank));
  // MPICH's launcher forwards a process's standard error through a pipe and may tear the job
  // down before it drained it: one abort right after the write lost the line in about 1 run
  // of 20 (tests mpi.scalapack_bad_*). A tenth of a second lets it through.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  if (initialized != 0) MPI_Abort(MPI_COMM_WORLD, 1);
  std::exit(1);
}

/// ScaLAPACK's own C routine `name`.
void* original(const char* name) {
  void* found = dlsym(RTLD_NEXT, name);
  if (found == nullptr)
    stop(
        fmt::format("ScaLAPACK's own {} is not loaded after libchoreo_scalapack.so; link "
                    "-lchoreo_scalapack before -lscalapack (or preload it)",
                    name));
  return found;
}

template <typename T>
using Gemr2d = void (*)(int, int, T*, int, int, const int*, T*, int, int, const int*, int);
template <typename T>
using Trmr2d = void (*)(const char*, const char*, int, int, T*, int, int, const int*, T*, int, int,
                        const int*, int);

/// Serves the call; false: ScaLAPACK's own routine must.
bool served(const Call& call) {
  try {
    return serve(call);
  } catch (const std::exception& e) {
    stop(e.what());
  }
}

template <typename T>
void gemr2d(intercept::Function function, Element element, const char* own, int m, int n, T* a,
            int ia, int ja, const int* desca, T* b, int ib, int jb, const int* descb, int ictxt) {
  Call call{function, element, false, nullptr, nullptr, m,  n,     a,
            ia,       ja,      desca, b,       ib,      jb, descb, ictxt};
  if (!served(call))
    reinterpret_cast<Gemr2d<T>>(original(own))(m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);
}

template <typename T>
void trmr2d(intercept::Function function, Element element, const char* own, const char* uplo,
            const char* diag, int m, int n, T* a, int ia, int ja, const int* desca, T* b, int ib,
            int jb, const int* descb, int ictxt) {
  Call call{function, element, true, uplo, diag, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt};
  if (!served(call))
    reinterpret_cast<Trmr2d<T>>(original(own))(uplo, diag, m, n, a, ia, ja, desca, b, ib, jb, descb,
                                               ictxt);
}

}  // namespace
}  // namespace choreo::scalapack

using choreo::intercept::Function;
using choreo::scalapack::Element;

// One family per element type: the C and the Fortran p?gemr2d and p?trmr2d.
#define CHOREO_REDIST_ROUTINES(letter, type, element)                                             \
  extern "C" void Cp##letter##gemr2d(int m, int n, type* a, int ia, int ja, const int* desca,     \
                                     type* b, int ib, int jb, const int* descb, int ictxt) {      \
    choreo::scalapack::gemr2d<type>(Function::P##letter##gemr2d, element, "Cp" #letter "gemr2d",  \
                                    m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);             \
  }                                                                                               \
  extern "C" void p##letter##gemr2d_(const int* m, const int* n, type* a, const int* ia,          \
                                     const int* ja, const int* desca, type* b, const int* ib,     \
                                     const int* jb, const int* descb, const int* ictxt) {         \
    Cp##letter##gemr2d(*m, *n, a, *ia, *ja, desca, b, *ib, *jb, descb, *ictxt);                   \
  }                                                                                               \
  extern "C" void Cp##letter##trmr2d(const char* uplo, const char* diag, int m, int n, type* a,   \
                                     int ia, int ja, const int* desca, type* b, int ib, int jb,   \
                                     const int* descb, int ictxt) {                               \
    choreo::scalapack::trmr2d<type>(Function::P##letter##trmr2d, element, "Cp" #letter "trmr2d",  \
                                    uplo, diag, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt); \
  }                                                                                               \
  extern "C" void p##letter##trmr2d_(const char* uplo, const char* diag, const int* m,            \
                                     const int* n, type* a, const int* ia, const int* ja,         \
                                     const int* desca, type* b, const int* ib, const int* jb,     \
                                     const int* descb, const int* ictxt) {                        \
    Cp##letter##trmr2d(uplo, diag, *m, *n, a, *ia, *ja, desca, b, *ib, *jb, descb, *ictxt);       \
  }

namespace {
struct FloatComplex {
  float re, im;
};
struct DoubleComplex {
  double re, im;
};
}  // namespace

CHOREO_REDIST_ROUTINES(s, float, Element::Float)
CHOREO_REDIST_ROUTINES(d, double, Element::Double)
CHOREO_REDIST_ROUTINES(c, FloatComplex, Element::ComplexFloat)
CHOREO_REDIST_ROUTINES(z, DoubleComplex, Element::ComplexDouble)
CHOREO_REDIST_ROUTINES(i, int, Element::Int)
