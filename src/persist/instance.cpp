#include "instance.hpp"

#include <thread>

namespace choreo::persist::detail {

Instance::Instance(Plan plan, UserBuffers buffers, MPI_Comm comm, MPI_Datatype type, MPI_Op op,
                   Engine engine, std::unique_ptr<LibraryCollective> rival)
    : comm_(comm),
      driver_(std::make_unique<Driver>(std::move(plan), buffers, comm, type, op)),
      library_(std::move(rival)),
      library_name_(library_ ? library_->name() : std::string()),
      engine_(engine) {
  if (library_) trial_.emplace();
  job_.driver = driver_.get();
  // The thread starts here, at the first request that needs it, not at the first start().
  if (engine_ == Engine::Thread) ProgressThread::instance();
}

Instance::Instance(Plan plan, std::unique_ptr<LibraryCollective> library, MPI_Comm comm)
    : comm_(comm),
      driver_(
          std::make_unique<Driver>(std::move(plan), UserBuffers{}, comm, MPI_BYTE, MPI_OP_NULL)),
      library_(std::move(library)),
      library_name_(library_ ? library_->name() : std::string()),
      side_(LibraryTrial::Side::Library),
      engine_(Engine::Commands) {}

Instance::~Instance() {
  library_.reset();  // requests before their communicator
  driver_.reset();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Comm_free(&comm_);
}

void Instance::completed() {
  active_ = false;
  if (trial_) trial_->end();
}

void Instance::start() {
  active_ = true;
  if (trial_) {
    side_ = trial_->begin(comm_);  // once decided: the winner, without a clock
    // The loser's resources go (an idle persistent collective may still cost the MPI
    // library's progress engine a look at every poll).
    if (trial_->decided() && side_ == LibraryTrial::Side::Choreo && library_) library_.reset();
  }
  if (runs_library()) return library_->start();
  switch (engine_) {
    case Engine::Commands:
      driver_->begin();
      return;
    case Engine::Thread:
      job_.begun = false;
      job_.error = nullptr;
      job_.done.store(false, std::memory_order_relaxed);
      ProgressThread::instance().submit(job_);
      return;
    case Engine::Inline:
      return;
  }
}

void Instance::collect_thread_result() {
  active_ = false;
  if (job_.error) std::rethrow_exception(job_.error);
}

void Instance::wait() {
  if (runs_library()) {
    library_->wait();
    if (trial_ && trial_->agreeing()) trial_->finish_agreement();
    return completed();
  }
  switch (engine_) {
    case Engine::Commands:
      driver_->finish();
      break;
    case Engine::Thread:
      // Spin briefly, then yield: the thread may share this core.
      for (int spins = 0; !job_.done.load(std::memory_order_acquire); ++spins)
        if (spins > 64) std::this_thread::yield();
      collect_thread_result();
      return;
    case Engine::Inline:
      driver_->begin();
      driver_->finish();
      break;
  }
  completed();
}

bool Instance::test() {
  if (runs_library()) {
    // The instance that carries the agreement completes with it (its broadcast may finish
    // first; testing a completed persistent request again is allowed and says complete).
    if (!library_->test()) return false;
    if (trial_ && trial_->agreeing() && !trial_->try_finish_agreement()) return false;
    completed();
    return true;
  }
  switch (engine_) {
    case Engine::Commands:
      if (!driver_->poll()) return false;
      break;
    case Engine::Thread:
      if (!job_.done.load(std::memory_order_acquire)) return false;
      collect_thread_result();
      return true;
    case Engine::Inline:
      // Inline has no background progress: test() runs the whole collective, like wait().
      driver_->begin();
      driver_->finish();
      break;
  }
  completed();
  return true;
}

}  // namespace choreo::persist::detail
