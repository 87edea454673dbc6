// MPI_Init, MPI_Init_thread and MPI_Finalize, intercepted: the library starts serving once MPI
// is up, checks that every rank read the same settings, and at the end writes the report and
// releases everything it made before MPI goes.
#include <fmt/format.h>
#include <mpi.h>

#include <array>
#include <cstdio>
#include <fstream>

#include "comm_state.hpp"
#include "next.hpp"
#include "record.hpp"
#include "runtime.hpp"

namespace choreo::intercept {
namespace {

void agree_on_settings() {
  Runtime& rt = runtime();
  if (!rt.serving.load()) return;
  ChoreoScope scope;
  // The digest and its complement, maximised: equal everywhere iff max == -max(-x).
  std::array<std::uint64_t, 2> mine{rt.settings_digest, ~rt.settings_digest}, largest{};
  next::Allreduce(mine.data(), largest.data(), 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  if (largest[0] == ~largest[1]) return;
  if (!rt.blanket) rt.blanket = Fallback::Configuration;
  if (rt.world_rank == 0)
    say("the ranks have different CHOREO_* settings; give every rank the same (mpiexec -genv, or "
        "-x with Open MPI). Running with MPI's own collectives.");
}

std::string_view mode_name(Mode mode) {
  switch (mode) {
    case Mode::Choreo:
      return "choreo";
    case Mode::Mpi:
      return "mpi";
    case Mode::Auto:
      break;
  }
  return "auto";
}

void write_report() {
  Runtime& rt = runtime();
  if (rt.config.report == ReportTarget::None) return;
  ChoreoScope scope;
  const std::vector<std::int64_t> mine = flatten(rt.counters);
  std::vector<std::int64_t> sums(mine.size()), maxima(mine.size());
  PMPI_Reduce(mine.data(), sums.data(), static_cast<int>(mine.size()), MPI_INT64_T, MPI_SUM, 0,
              MPI_COMM_WORLD);
  PMPI_Reduce(mine.data(), maxima.data(), static_cast<int>(mine.size()), MPI_INT64_T, MPI_MAX, 0,
              MPI_COMM_WORLD);
  if (rt.world_rank != 0) return;
  int ranks = 0;
  PMPI_Comm_size(MPI_COMM_WORLD, &ranks);
  Totals totals = totals_from(sums, maxima, ranks);
  totals.mpi_library = rt.mpi_library;
  totals.mode = rt.blanket == Fallback::Configuration ? "mpi (settings problem)"
                                                      : std::string(mode_name(rt.config.mode));
  if (rt.config.report == ReportTarget::Stderr) {
    const std::string text = report_text(totals);
    std::fwrite(text.data(), 1, text.size(), stderr);
    return;
  }
  std::ofstream out(rt.config.report_path);
  out << report_json(totals);
  out.close();
  if (!out)
    say(fmt::format("cannot write the report to {}; check that its folder exists and is writable",
                    rt.config.report_path));
}

/// Whether MPI_COMM_WORLD lives on one node (one shared-memory domain).
void find_out_if_one_node() {
  Runtime& rt = runtime();
  if (!rt.serving.load()) return;
  ChoreoScope scope;
  MPI_Comm node = MPI_COMM_NULL;
  PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_ranks = 0, ranks = 0;
  PMPI_Comm_size(node, &node_ranks);
  PMPI_Comm_size(MPI_COMM_WORLD, &ranks);
  PMPI_Comm_free(&node);
  rt.one_node = node_ranks == ranks;
}

void after_init() {
  initialise_once();
  agree_on_settings();
  find_out_if_one_node();
  record::initialised();
}

}  // namespace
}  // namespace choreo::intercept

using namespace choreo::intercept;

extern "C" int MPI_Init(int* argc, char*** argv) {
  const int result = next::Init(argc, argv);
  if (result == MPI_SUCCESS) after_init();
  return result;
}

extern "C" int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int result = next::Init_thread(argc, argv, required, provided);
  if (result == MPI_SUCCESS) after_init();
  return result;
}

extern "C" int MPI_Finalize() {
  if (choreo_depth == 0) record::close();
  Runtime& rt = runtime();
  if (rt.serving.load() && choreo_depth == 0) {
    write_report();
    {
      ChoreoScope scope;
      delete_all_comm_states();
    }
    rt.serving.store(false);
  }
  return next::Finalize();
}
