#include "collective_choice.hpp"

#include <fmt/format.h>

#include <limits>
#include <vector>

#include "choreo/coll/generators.hpp"
#include "choreo/core/error.hpp"
#include "choreo/sim/engine.hpp"

namespace choreo::intercept {
namespace {

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
    const CompactSchedule schedule =
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
