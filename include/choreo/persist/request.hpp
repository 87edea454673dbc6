#pragma once
// A persistent collective request in the shape of MPI-4's: made once by an *_init call
// (collectives.hpp), then start() / wait() (or test()) any number of times, released by
// free() or destruction. Move-only; a moved-from or freed request throws choreo::Error on use.
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "choreo/persist/options.hpp"

namespace choreo::persist {

namespace detail {
class Instance;
}

class Request {
 public:
  Request();  ///< an empty request: every call but free() throws (defined where Instance is)
  explicit Request(std::unique_ptr<detail::Instance> instance);
  Request(Request&&) noexcept;
  Request& operator=(Request&&) noexcept;
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;
  /// Waits for an active request first (as MPI lets an active request complete before its
  /// resources go), then frees it. Must run on every rank alike, like MPI_Request_free.
  ~Request();

  /// Starts one instance of the collective. Throws if the previous one was not completed by
  /// wait() or a test() that returned true.
  void start();
  /// Blocks until the started instance completed; the buffers then hold the result.
  void wait();
  /// True once the started instance completed (then the request is inactive again).
  bool test();
  /// Releases everything now (waiting first if active); later use throws.
  void free();

  bool active() const;
  bool valid() const { return instance_ != nullptr; }
  Engine engine() const;
  /// The generator's name, e.g. "bcast:multitree".
  std::string_view algorithm() const;
  /// How many persistent point-to-point requests this rank's instance holds.
  std::size_t command_count() const;
  /// What runs and why: "bcast:kary_pipeline (chain, 64 KiB segments: predicted 1.2 ms;
  /// binomial 3.4 ms, ...), engine commands". The same line on every rank.
  std::string describe() const;

 private:
  detail::Instance& checked(const char* call) const;
  /// checked(), and throws unless the request is active (for wait and test).
  detail::Instance& started(const char* call) const;
  void free_quietly() noexcept;
  std::unique_ptr<detail::Instance> instance_;
};

/// request.describe(), as a free function (the name issue 18 promised).
inline std::string describe(const Request& request) { return request.describe(); }

/// Pins the process's progress thread (the thread engine's; started here if it is not yet) to
/// CPU `cpu`, so that it never runs on the caller's core: give it a core the ranks do not use.
/// Without a call, CHOREO_PROGRESS_CPU=N in the environment pins it when it starts; without
/// either it runs where the OS puts it and yields after every pass that completed nothing
/// (docs/persistent.md, "Engines"). Throws choreo::Error for a CPU the system does not have or
/// will not let the thread run on.
void pin_progress_thread(int cpu);
/// The CPUs the progress thread may run on now (all of the process's when not pinned).
std::vector<int> progress_thread_cpus();

/// How long the progress thread, out of work, keeps polling (and yielding) before it sleeps:
/// 200 us, or 10 ms once pinned (a core of its own to poll on), unless set here or by
/// CHOREO_PROGRESS_SPIN_US. A start() that finds it asleep pays the wake-up, a system call and,
/// on another core, an interrupt (17-20 us here, docs/persistent.md, "Engines"); one within the
/// spin costs what the commands engine's start does (1-2 us after a long idle, when the
/// caller's own core has gone cold). On a core a rank computes on, the spin takes that rank's
/// time. Throws choreo::Error for a negative time.
void set_progress_spin(std::chrono::microseconds spin);
std::chrono::microseconds progress_spin();

}  // namespace choreo::persist
