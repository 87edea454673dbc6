// Request: the MPI-4-shaped handle, and the misuse checks MPI leaves undefined.
#include "choreo/persist/request.hpp"

#include <fmt/format.h>

#include "choreo/core/error.hpp"
#include "instance.hpp"

namespace choreo::persist {

Request::Request() = default;
Request::Request(std::unique_ptr<detail::Instance> instance) : instance_(std::move(instance)) {}
Request::Request(Request&&) noexcept = default;

Request& Request::operator=(Request&& other) noexcept {
  if (this != &other) {
    free_quietly();
    instance_ = std::move(other.instance_);
  }
  return *this;
}

Request::~Request() { free_quietly(); }

void Request::free_quietly() noexcept {
  if (instance_ && instance_->active()) {
    try {
      instance_->wait();
    } catch (...) {  // a destructor cannot report it; the collective's error is lost
    }
  }
  instance_.reset();
}

detail::Instance& Request::checked(const char* call) const {
  if (!instance_)
    throw Error(
        fmt::format("{} on a persistent request that was freed, moved from or never "
                    "initialised; make it with bcast_init, allreduce_init or "
                    "allgather_init and do not use it after free() or a move",
                    call));
  return *instance_;
}

void Request::start() {
  detail::Instance& instance = checked("start()");
  if (instance.active())
    throw Error(
        fmt::format("start() on an active {} request: the last start() was not "
                    "completed; call wait() (or test() until it returns true) first",
                    algorithm()));
  instance.start();
}

detail::Instance& Request::started(const char* call) const {
  detail::Instance& instance = checked(call);
  if (!instance.active())
    throw Error(
        fmt::format("{} on an inactive {} request: nothing was started (or it completed "
                    "already); call start() first",
                    call, algorithm()));
  return instance;
}

void Request::wait() { started("wait()").wait(); }

bool Request::test() { return started("test()").test(); }

void Request::free() {
  if (instance_ && instance_->active()) instance_->wait();
  instance_.reset();
}

bool Request::active() const { return checked("active()").active(); }
Engine Request::engine() const { return checked("engine()").engine(); }
std::string_view Request::algorithm() const {
  return checked("algorithm()").driver().plan().algorithm;
}
std::string Request::describe() const {
  const detail::Instance& instance = checked("describe()");
  const detail::Plan& plan = instance.driver().plan();
  const std::string trial = instance.trial_note();
  if (!trial.empty())  // the plan and the library's own compete (LibraryTrial)
    return fmt::format("{} ({}), engine {}, against the MPI library's own {}: {}; running {}",
                       plan.algorithm, plan.choice, to_string(instance.engine()),
                       instance.library_name(), trial,
                       instance.runs_library() ? "the library's" : "choreo's");
  if (instance.runs_library()) return fmt::format("{} ({})", plan.algorithm, plan.choice);
  return fmt::format("{} ({}), engine {}", plan.algorithm, plan.choice,
                     to_string(instance.engine()));
}
void pin_progress_thread(int cpu) { detail::ProgressThread::instance().pin(cpu); }

std::vector<int> progress_thread_cpus() { return detail::ProgressThread::instance().cpus(); }

void set_progress_spin(std::chrono::microseconds spin) {
  detail::ProgressThread::instance().set_idle_spin(spin);
}

std::chrono::microseconds progress_spin() { return detail::ProgressThread::instance().idle_spin(); }

std::size_t Request::command_count() const {
  return checked("command_count()").driver().request_count();
}

}  // namespace choreo::persist
