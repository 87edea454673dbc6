// A program outside choreo's tree: builds a schedule with the installed C++ libraries, and
// calls the C API from C++ in the same program (choreo.h compiles as C++; the shared library's
// internal copy of choreo does not clash with the static one linked here).
#include <choreo/choreo.h>

#include <choreo/core/validate.hpp>
#include <choreo/mpi/executor.hpp>
#include <choreo/sched/schedulers.hpp>
#include <cstring>
#include <iostream>

int main() {
  choreo::Schedule s = choreo::schedule_direct(choreo::patterns::alltoall(3, 8));
  choreo::validate(s);
  choreo::mpi::RunOptions options;  // the executor's header compiles here...
  auto* run = &choreo::mpi::run;    // ...and its library links
  if (run == nullptr) return 1;
  // A C API call that fails without MPI: the code and the message come back, nothing throws.
  const int code = choreo_exchange_start(nullptr);
  std::cout << "consumer: " << s.message_count() << " messages, warm-up " << options.warmup
            << ", C API " << choreo_version() << " says " << choreo_error_name(code) << ": "
            << choreo_last_error() << "\n";
  return s.message_count() == 6 && code == CHOREO_ERR_ARG &&
                 std::strstr(choreo_last_error(), "exchange is NULL") != nullptr
             ? 0
             : 1;
}
