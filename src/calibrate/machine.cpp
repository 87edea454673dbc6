// What the calibration needs to know of the machine (detail.hpp): its last-level cache (hwloc),
// its processing units (hwloc), its memory, its load, and where the ranks run.
#include <hwloc.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <vector>

#include "detail.hpp"

namespace choreo::calibration::detail {

namespace {
/// The machine as hwloc sees it, loaded for one question and destroyed (about 20 ms: hwloc loads
/// its plugins). Null when hwloc cannot load a topology.
class Topology {
 public:
  Topology() {
    if (hwloc_topology_init(&topology_) != 0) {
      topology_ = nullptr;
    } else if (hwloc_topology_load(topology_) != 0) {
      hwloc_topology_destroy(topology_);
      topology_ = nullptr;
    }
  }
  ~Topology() {
    if (topology_ != nullptr) hwloc_topology_destroy(topology_);
  }
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;
  hwloc_topology_t get() const { return topology_; }

 private:
  hwloc_topology_t topology_ = nullptr;
};
}  // namespace

std::int64_t detect_last_level_cache() {
  const Topology topology;
  std::int64_t largest = 0;
  if (topology.get() != nullptr) {
    // hwloc's L<n>CACHE objects are the data and unified caches (instruction caches are
    // L<n>ICACHE): the largest of the highest level that has one.
    for (const hwloc_obj_type_t level : {HWLOC_OBJ_L5CACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L3CACHE,
                                         HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L1CACHE}) {
      for (hwloc_obj_t cache = hwloc_get_next_obj_by_type(topology.get(), level, nullptr);
           cache != nullptr; cache = hwloc_get_next_obj_by_type(topology.get(), level, cache))
        largest = std::max(largest, static_cast<std::int64_t>(cache->attr->cache.size));
      if (largest > 0) break;
    }
  }
  return largest > 0 ? largest : 32 * MiB;
}

/// The processing units (hardware threads) this process may run on, by hwloc; the online
/// CPUs by sysconf when hwloc has no topology.
int processing_units() {
  const Topology topology;
  const int pus =
      topology.get() != nullptr ? hwloc_get_nbobjs_by_type(topology.get(), HWLOC_OBJ_PU) : 0;
  return pus > 0 ? pus : static_cast<int>(std::max(0L, sysconf(_SC_NPROCESSORS_ONLN)));
}

std::int64_t physical_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::int64_t>(pages) * page : 4 * GiB;
}

double load_average() {
  std::ifstream in("/proc/loadavg");
  double load = 0;
  in >> load;
  return in ? load : 0;
}

MeasuredOn layout(MPI_Comm comm, int rank, int ranks) {
  std::array<char, MPI_MAX_PROCESSOR_NAME> name{};
  int length = 0;
  MPI_Get_processor_name(name.data(), &length);
  std::vector<char> all(rank == 0 ? static_cast<std::size_t>(ranks) * name.size() : 0);
  MPI_Gather(name.data(), static_cast<int>(name.size()), MPI_CHAR, all.data(),
             static_cast<int>(name.size()), MPI_CHAR, 0, comm);
  MeasuredOn m;
  if (rank != 0) return m;
  for (int r = 0; r < ranks; ++r) {
    const char* host = all.data() + static_cast<std::size_t>(r) * name.size();
    m.hosts.emplace_back(host, strnlen(host, name.size()));
  }
  m.load_start = load_average();
  m.cpus = processing_units();
  return m;
}

}  // namespace choreo::calibration::detail
