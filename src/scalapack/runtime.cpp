#include "runtime.hpp"

#include <fmt/format.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "../mpi/timed_runs.hpp"

extern char** environ;

namespace choreo::scalapack {
namespace {

bool g_world_covered = false;
void (*g_release)() = nullptr;

std::string mode_name(intercept::Mode mode) {
  return mode == intercept::Mode::Mpi ? "mpi" : mode == intercept::Mode::Choreo ? "choreo" : "auto";
}

void write(const intercept::Totals& totals, const std::string& path) {
  const Runtime& rt = runtime();
  if (rt.config.report == intercept::ReportTarget::Stderr) {
    const std::string text = intercept::report_text(totals);
    std::fwrite(text.data(), 1, text.size(), stderr);
    return;
  }
  std::ofstream out(path);
  out << intercept::report_json(totals);
  out.close();
  if (!out)
    say(fmt::format("cannot write the report to {}; check that its folder exists and is writable",
                    path));
}

void write_report() {
  Runtime& rt = runtime();
  const std::vector<std::int64_t> mine = intercept::flatten(rt.counters);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::string path = rt.config.report_path;
  std::vector<std::int64_t> sums = mine, maxima = mine;
  if (g_world_covered) {
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    MPI_Reduce(mine.data(), sums.data(), static_cast<int>(mine.size()), MPI_INT64_T, MPI_SUM, 0,
               MPI_COMM_WORLD);
    MPI_Reduce(mine.data(), maxima.data(), static_cast<int>(mine.size()), MPI_INT64_T, MPI_MAX, 0,
               MPI_COMM_WORLD);
    if (rank != 0) return;
  } else if (path.size() > 5) {
    // No context spanned the job: the processes that called cannot count on the others to
    // join a reduction, so each writes its own (FILE.json -> FILE.rankR.json).
    path = fmt::format("{}.rank{}.json", path.substr(0, path.size() - 5), rank);
  }
  intercept::Totals totals = intercept::totals_from(sums, maxima, ranks);
  totals.mpi_library = mpi::detail::library_version();
  totals.mode = rt.problems.empty() ? mode_name(rt.config.mode) : "mpi (settings problem)";
  if (!g_world_covered) totals.mode += fmt::format(", rank {} alone", rank);
  write(totals, path);
}

/// MPI_COMM_SELF's delete callback: MPI runs it at the start of MPI_Finalize, MPI still usable.
int finalize(MPI_Comm, int, void*, void*) {
  if (g_release != nullptr) g_release();
  if (runtime().config.report != intercept::ReportTarget::None) write_report();
  return MPI_SUCCESS;
}

}  // namespace

Runtime& runtime() {
  static Runtime rt;
  static const bool read = [] {
    std::vector<std::string> names;
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
      const std::string entry(*e);
      names.push_back(entry.substr(0, entry.find('=')));
    }
    intercept::ConfigReading reading =
        intercept::read_config([](const char* name) { return std::getenv(name); }, names);
    rt.config = reading.config;
    rt.problems = reading.problems;
    rt.settings_digest = reading.digest;
    return true;
  }();
  (void)read;
  return rt;
}

std::optional<intercept::Fallback> blanket_reason(intercept::Function function) {
  const Runtime& rt = runtime();
  if (!rt.problems.empty()) return intercept::Fallback::Configuration;
  if (rt.config.mode == intercept::Mode::Mpi) return intercept::Fallback::ModeMpi;
  if (rt.config.disabled[static_cast<std::size_t>(function)]) return intercept::Fallback::Disabled;
  return std::nullopt;
}

void say(const std::string& line) {
  const std::string text = "choreo: " + line + "\n";
  std::fwrite(text.data(), 1, text.size(), stderr);
}

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

CallRecord::CallRecord(intercept::Function function)
    : counters_(runtime().counters[static_cast<std::size_t>(function)]),
      start_(std::chrono::steady_clock::now()) {
  counters_.calls.fetch_add(1, std::memory_order_relaxed);
}

CallRecord::~CallRecord() {
  const std::int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::steady_clock::now() - start_)
                              .count();
  counters_.ns.fetch_add(ns, std::memory_order_relaxed);
  if (choreo_) {
    counters_.choreo.fetch_add(1, std::memory_order_relaxed);
    counters_.choreo_ns.fetch_add(ns, std::memory_order_relaxed);
  } else {
    counters_.fallback.fetch_add(1, std::memory_order_relaxed);
    counters_.fallback_ns.fetch_add(ns, std::memory_order_relaxed);
    counters_.reasons[static_cast<std::size_t>(reason_)].fetch_add(1, std::memory_order_relaxed);
  }
}

void CallRecord::bytes(std::int64_t count) {
  counters_.bytes.fetch_add(count, std::memory_order_relaxed);
}

void CallRecord::cache(bool hit) {
  (hit ? counters_.hits : counters_.misses).fetch_add(1, std::memory_order_relaxed);
}

void CallRecord::planned(std::int64_t ns) {
  counters_.plans.fetch_add(1, std::memory_order_relaxed);
  counters_.plan_ns.fetch_add(ns, std::memory_order_relaxed);
}

void at_finalize(bool world_covered, void (*release)()) {
  // Every process of a context that spans the job makes this call at the same time, so the
  // flag is the same on every process at MPI_Finalize.
  g_world_covered = g_world_covered || world_covered;
  g_release = release;
  static bool hooked = false;
  if (hooked) return;
  hooked = true;
  int keyval = MPI_KEYVAL_INVALID;
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize, &keyval, nullptr);
  MPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr);
}

}  // namespace choreo::scalapack
