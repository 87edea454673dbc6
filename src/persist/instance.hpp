#pragma once
// What a Request owns (private): the driver of its command list, its own communicator (so
// its tags never meet the caller's messages or another request's), and the engine's state.
#include <mpi.h>

#include <memory>
#include <optional>
#include <string>

#include "choreo/persist/options.hpp"
#include "driver.hpp"
#include "library_collective.hpp"
#include "library_trial.hpp"
#include "progress_thread.hpp"

namespace choreo::persist::detail {

class Instance {
 public:
  /// Takes ownership of comm (freed on destruction).
  /// With `rival` (the MPI library's own collective on comm, commands engine only), the first
  /// starts measure the plan against it and the faster runs from then on (LibraryTrial).
  Instance(Plan plan, UserBuffers buffers, MPI_Comm comm, MPI_Datatype type, MPI_Op op,
           Engine engine, std::unique_ptr<LibraryCollective> rival = nullptr);
  /// Only the MPI library's own collective on comm (taken over as above); `plan` only names
  /// it (no commands).
  Instance(Plan plan, std::unique_ptr<LibraryCollective> library, MPI_Comm comm);
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;
  ~Instance();

  void start();
  void wait();
  bool test();
  bool active() const { return active_; }
  Engine engine() const { return engine_; }
  const Driver& driver() const { return *driver_; }
  /// Whether the MPI library's own collective runs now (then engine() means nothing).
  bool runs_library() const { return library_ != nullptr && side_ == LibraryTrial::Side::Library; }
  /// The MPI library's collective this request runs or measures against ("" without one).
  const std::string& library_name() const { return library_name_; }
  /// The measurement's state, "" without one.
  std::string trial_note() const { return trial_ ? trial_->note() : std::string(); }

 private:
  /// After the thread finished: rethrows its error, if any.
  void collect_thread_result();
  /// The started instance completed: inactive again, and timed while measuring.
  void completed();

  MPI_Comm comm_;
  std::unique_ptr<Driver> driver_;
  std::unique_ptr<LibraryCollective> library_;
  std::string library_name_;           ///< kept after library_ is dropped
  std::optional<LibraryTrial> trial_;  ///< set while choreo's plan and library_ compete
  LibraryTrial::Side side_ = LibraryTrial::Side::Choreo;
  Engine engine_;
  bool active_ = false;
  ThreadJob job_;
};

}  // namespace choreo::persist::detail
