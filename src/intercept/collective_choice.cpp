#include "collective_choice.hpp"

#include <fmt/format.h>

#include <limits>
#include <vector>

#include "choreo/coll.hpp"
#include "choreo/error.hpp"
#include "choreo/sim/engine.hpp"

namespace choreo::intercept {
namespace {

bool power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

/// What choreo can run as a command list for each collective (src/persist/plans.hpp).
std::vector<std::string_view> choreo_algorithms(std::string_view collective) {
  if (collective == "bcast") return {"binomial", "kary_pipeline", "multitree"};
  if (collective == "allreduce") return {"recdbl", "ring"};
  return {"ring"};  // allgather
}

/// The simulated time of one generator on the model, or infinity when it cannot run there.
double simulated_seconds(std::string_view collective, std::string_view algorithm,
                         std::int64_t bytes, int ranks, const ExchangeModel& model) {
  try {
    const sim::CompactSchedule schedule =
        coll::generate(fmt::format("{}:{}:ranks={}:bytes={}", collective, algorithm, ranks, bytes));
    sim::SimOptions options;
    options.params = model.params;
    options.network = model.network;
    options.dma_receive = model.dma_receive;
    return static_cast<double>(sim::simulate(schedule, options).makespan) * 1e-9;
  } catch (const Error&) {
    return std::numeric_limits<double>::infinity();
  }
}

}  // namespace

MpiLibrary library_of(std::string_view version) {
  if (version.find("Open MPI") != std::string_view::npos) return MpiLibrary::OpenMpi;
  if (version.find("MPICH") != std::string_view::npos) return MpiLibrary::Mpich;
  return MpiLibrary::Other;
}

std::string mpi_default_algorithm(MpiLibrary library, std::string_view collective,
                                  std::int64_t bytes, int ranks) {
  const std::int64_t total = bytes * ranks;
  if (library == MpiLibrary::OpenMpi) {
    // coll/tuned's fixed decisions (Open MPI 4.1), to the nearest generator choreo has.
    if (collective == "bcast") return bytes < 2048 ? "binomial" : "kary_pipeline";
    if (collective == "allreduce") return bytes < 10000 ? "recdbl" : "ring";
    if (total < 50000) return power_of_two(ranks) ? "recdbl" : "bruck";
    return ranks % 2 == 0 ? "neighbor" : "ring";
  }
  // MPICH's defaults (MPIR_CVAR_BCAST_SHORT_MSG_SIZE 12288, _BCAST_MIN_PROCS 8,
  // _ALLREDUCE_SHORT_MSG_SIZE 2048, _ALLGATHER_SHORT_MSG_SIZE 81920, _LONG_MSG_SIZE 524288).
  if (collective == "bcast") return bytes < 12288 || ranks < 8 ? "binomial" : "scatter_allgather";
  if (collective == "allreduce") return bytes <= 2048 ? "recdbl" : "rabenseifner";
  if (total < 524288 && power_of_two(ranks)) return "recdbl";
  return total < 81920 ? "bruck" : "ring";
}

CollectiveChoice choose_collective(std::string_view collective, std::int64_t bytes, int ranks,
                                   const ExchangeModel& model, MpiLibrary library, bool forced) {
  CollectiveChoice choice;
  choice.mpi_algorithm = mpi_default_algorithm(library, collective, bytes, ranks);
  choice.mpi_seconds = simulated_seconds(collective, choice.mpi_algorithm, bytes, ranks, model);
  choice.choreo_seconds = std::numeric_limits<double>::infinity();
  for (std::string_view algorithm : choreo_algorithms(collective)) {
    const double seconds = simulated_seconds(collective, algorithm, bytes, ranks, model);
    if (seconds < choice.choreo_seconds) {
      choice.choreo_seconds = seconds;
      choice.algorithm = algorithm;
    }
  }
  if (choice.algorithm.empty()) return choice;  // nothing of choreo's runs here
  choice.choreo = forced || (choice.algorithm != choice.mpi_algorithm &&
                             choice.choreo_seconds * kRequiredGain < choice.mpi_seconds);
  return choice;
}

}  // namespace choreo::intercept
