// A program outside choreo's tree: builds a schedule with the installed library.
#include <choreo/mpi/executor.hpp>
#include <choreo/sched.hpp>
#include <choreo/validate.hpp>
#include <iostream>

int main() {
  choreo::Schedule s = choreo::schedule_direct(choreo::patterns::alltoall(3, 8));
  choreo::validate(s);
  choreo::mpi::RunOptions options;  // the executor's header compiles here...
  auto* run = &choreo::mpi::run;    // ...and its library links
  if (run == nullptr) return 1;
  std::cout << "consumer: " << s.message_count() << " messages, warm-up " << options.warmup << "\n";
  return s.message_count() == 6 ? 0 : 1;
}
