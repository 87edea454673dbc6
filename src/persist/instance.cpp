#include "instance.hpp"

#include <thread>

namespace choreo::persist::detail {

Instance::Instance(Plan plan, UserBuffers buffers, MPI_Comm comm, MPI_Datatype type, MPI_Op op,
                   Engine engine)
    : comm_(comm),
      driver_(std::make_unique<Driver>(std::move(plan), buffers, comm, type, op)),
      engine_(engine) {
  job_.driver = driver_.get();
  // The thread starts here, at the first request that needs it, not at the first start().
  if (engine_ == Engine::Thread) ProgressThread::instance();
}

Instance::~Instance() {
  driver_.reset();  // its requests before their communicator
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Comm_free(&comm_);
}

void Instance::start() {
  active_ = true;
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
  active_ = false;
}

bool Instance::test() {
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
  active_ = false;
  return true;
}

}  // namespace choreo::persist::detail
