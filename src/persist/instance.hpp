#pragma once
// What a Request owns (private): the driver of its command list, its own communicator (so
// its tags never meet the caller's messages or another request's), and the engine's state.
#include <mpi.h>

#include <memory>

#include "choreo/persist/options.hpp"
#include "driver.hpp"
#include "progress_thread.hpp"

namespace choreo::persist::detail {

class Instance {
 public:
  /// Takes ownership of comm (freed on destruction).
  Instance(Plan plan, UserBuffers buffers, MPI_Comm comm, MPI_Datatype type, MPI_Op op,
           Engine engine);
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;
  ~Instance();

  void start();
  void wait();
  bool test();
  bool active() const { return active_; }
  Engine engine() const { return engine_; }
  const Driver& driver() const { return *driver_; }

 private:
  /// After the thread finished: rethrows its error, if any.
  void collect_thread_result();

  MPI_Comm comm_;
  std::unique_ptr<Driver> driver_;
  Engine engine_;
  bool active_ = false;
  ThreadJob job_;
};

}  // namespace choreo::persist::detail
