#include "runtime.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>
#include <string_view>
#include <vector>

#include "../mpi/timed_runs.hpp"
#include "choreo/core/error.hpp"
#include "choreo/model/profile.hpp"
#include "comm_state.hpp"
#include "record.hpp"

extern char** environ;

namespace choreo::intercept {
namespace {

/// The MPI this library was compiled against, as MPI_Get_library_version names it.
constexpr std::string_view kBuiltFor =
#if defined(OPEN_MPI)
    "Open MPI";
#elif defined(MPICH)
    "MPICH";
#else
    "";  // SimGrid SMPI: linked into the program, it cannot meet another MPI
#endif

std::vector<std::string> environment_names() {
  std::vector<std::string> names;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    names.emplace_back(text.substr(0, text.find('=')));
  }
  return names;
}

/// Rank 0 of the job as the launcher tells it, for messages printed before MPI can be asked
/// (a library built for another MPI must not touch that MPI's handles).
bool launcher_says_rank_zero() {
  for (const char* name : {"PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK"})
    if (const char* value = std::getenv(name)) return std::string_view(value) == "0";
  return true;
}

void initialise() {
  Runtime& rt = runtime();
  int initialised = 0, finalised = 0;
  PMPI_Initialized(&initialised);
  PMPI_Finalized(&finalised);
  if (!initialised || finalised) return;

  rt.mpi_library = mpi::detail::library_version();
  if (!kBuiltFor.empty() && rt.mpi_library.find(kBuiltFor) == std::string::npos) {
    // Every call passes through untouched: this MPI's handles mean nothing to this build.
    if (launcher_says_rank_zero())
      say(fmt::format(
          "libchoreo_pmpi.so was built for {} but the program runs {}; use the library built "
          "for that MPI (configure choreo with its mpicxx). Running with MPI's own collectives.",
          kBuiltFor, rt.mpi_library));
    return;
  }

  ChoreoScope scope;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rt.world_rank);
  ConfigReading reading =
      read_config([](const char* name) { return std::getenv(name); }, environment_names());
  rt.config = reading.config;
  rt.model = ExchangeModel::defaults();
  if (!rt.config.profile_path.empty()) {
    try {
      rt.model = ExchangeModel::from_profile(read_profile(rt.config.profile_path));
    } catch (const Error& e) {
      reading.problems.push_back(
          fmt::format("CHOREO_PROFILE={}: {}", rt.config.profile_path, e.what()));
    }
  }
  if (!reading.problems.empty()) {
    rt.blanket = Fallback::Configuration;
    if (rt.world_rank == 0)
      for (const std::string& problem : reading.problems)
        say(problem + ". Running with MPI's own collectives.");
  } else if (rt.config.mode == Mode::Mpi) {
    rt.blanket = Fallback::ModeMpi;
  }
  rt.settings_digest = reading.digest;
  if (!rt.config.record_dir.empty())
    record::open(rt.config.record_dir, rt.world_rank, rt.mpi_library);
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_comm_state, &rt.comm_keyval, nullptr);
  rt.serving.store(true, std::memory_order_release);
}

}  // namespace

Runtime& runtime() {
  static Runtime instance;
  return instance;
}

void initialise_once() {
  static std::once_flag once;
  std::call_once(once, initialise);
}

void say(const std::string& line) {
  const std::string text = "choreo: " + line + "\n";
  // One write, so that lines of different ranks do not interleave mid-line.
  [[maybe_unused]] const auto written = ::write(2, text.data(), text.size());
}

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

CallRecord::CallRecord(Function function)
    : counters_(runtime().counters[static_cast<std::size_t>(function)]),
      timing_(runtime().config.report != ReportTarget::None) {
  if (timing_) start_ = std::chrono::steady_clock::now();
}

CallRecord::~CallRecord() {
  if (!timing_) return;
  counters_.calls.fetch_add(1, std::memory_order_relaxed);
  if (choreo_)
    counters_.choreo.fetch_add(1, std::memory_order_relaxed);
  else {
    counters_.fallback.fetch_add(1, std::memory_order_relaxed);
    counters_.reasons[static_cast<std::size_t>(reason_)].fetch_add(1, std::memory_order_relaxed);
  }
  const std::int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::steady_clock::now() - start_)
                              .count();
  counters_.ns.fetch_add(ns, std::memory_order_relaxed);
  (choreo_ ? counters_.choreo_ns : counters_.fallback_ns).fetch_add(ns, std::memory_order_relaxed);
}

}  // namespace choreo::intercept
