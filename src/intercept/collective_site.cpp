#include "collective_site.hpp"

#include <algorithm>

#include "../persist/plans.hpp"
#include "comm_state.hpp"
#include "runtime.hpp"

namespace choreo::intercept {
namespace {

/// Call shapes kept per communicator; a rank evicts its least recently used (a decision is
/// the same whenever it is made again, so ranks need not evict alike).
constexpr std::size_t kCollectiveEntries = 16;

std::string_view collective_of(Function function) {
  switch (function) {
    case Function::Allreduce:
      return "allreduce";
    case Function::Allgather:
      return "allgather";
    default:
      break;
  }
  return "bcast";
}

persist::detail::Plan plan_of(const CollectiveEntry& entry, int ranks, int rank) {
  const CollectiveShape& shape = entry.shape;
  const std::string& algorithm = entry.choice.algorithm;
  switch (shape.function) {
    case Function::Allreduce: {
      int element_size = 0;
      PMPI_Type_size(shape.type, &element_size);
      return persist::detail::allreduce_plan(algorithm, shape.count, element_size, ranks, rank);
    }
    case Function::Allgather:
      return persist::detail::allgather_plan(shape.bytes, ranks, rank);
    default:
      break;
  }
  return persist::detail::bcast_plan(algorithm, shape.bytes, shape.root, ranks, rank,
                                     persist::Options{});
}

}  // namespace

CollectiveEntry& collective_entry(CommState& state, CollectiveShape shape, bool& hit) {
  CollectiveSite& site = state.collectives;
  ++site.calls;
  hit = true;
  for (CollectiveEntry& entry : site.cache)
    if (entry.shape == shape) {
      entry.last_use = site.calls;
      return entry;
    }
  hit = false;
  CollectiveEntry entry;
  entry.shape = shape;
  entry.last_use = site.calls;
  const Runtime& rt = runtime();
  entry.choice = choose_collective(collective_of(shape.function), shape.bytes, state.size, rt.model,
                                   library_of(rt.mpi_library), rt.config.mode == Mode::Choreo);
  if (site.cache.size() < kCollectiveEntries) return site.cache.emplace_back(std::move(entry));
  auto oldest = std::min_element(site.cache.begin(), site.cache.end(),
                                 [](auto& a, auto& b) { return a.last_use < b.last_use; });
  *oldest = std::move(entry);
  return *oldest;
}

void run_collective(CommState& state, CollectiveEntry& entry, persist::detail::UserBuffers buffers,
                    MPI_Datatype reduce_type, MPI_Op op) {
  if (!entry.plan)
    entry.plan = std::make_unique<persist::detail::Plan>(plan_of(entry, state.size, state.rank));
  if (!entry.driver || entry.bound.user != buffers.user || entry.bound.send != buffers.send) {
    entry.driver.reset();  // frees the old requests first
    entry.driver = std::make_unique<persist::detail::Driver>(
        *entry.plan, buffers, private_comm_of(state), reduce_type, op);
    entry.bound = buffers;
  }
  entry.driver->begin();
  entry.driver->finish();
}

}  // namespace choreo::intercept
