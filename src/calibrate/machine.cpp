// What the calibration needs to know of the machine (detail.hpp): its last-level cache, its
// memory, its load, and where the ranks run.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include "detail.hpp"

namespace choreo::calibration::detail {

namespace {

std::int64_t parse_cache_size(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  if (text.empty()) return 0;
  std::int64_t unit = 1;
  switch (text.back()) {
    case 'K':
      unit = KiB;
      break;
    case 'M':
      unit = MiB;
      break;
    case 'G':
      unit = GiB;
      break;
    default:
      break;
  }
  try {
    return std::stoll(text) * unit;
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace

std::int64_t detect_last_level_cache() {
  namespace fs = std::filesystem;
  std::error_code ec;
  int best_level = 0;
  std::int64_t best = 0;
  for (const auto& entry : fs::directory_iterator("/sys/devices/system/cpu/cpu0/cache", ec)) {
    if (entry.path().filename().string().rfind("index", 0) != 0) continue;
    const auto read = [&](const char* name) {
      std::ifstream in(entry.path() / name);
      std::string value;
      std::getline(in, value);
      return value;
    };
    if (read("type") == "Instruction") continue;
    const int level = std::atoi(read("level").c_str());
    const std::int64_t size = parse_cache_size(read("size"));
    if (size > 0 && (level > best_level || (level == best_level && size > best))) {
      best_level = level;
      best = size;
    }
  }
  if (best > 0) return best;
#ifdef _SC_LEVEL3_CACHE_SIZE
  for (int name : {_SC_LEVEL4_CACHE_SIZE, _SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE})
    if (const long size = sysconf(name); size > 0) return size;
#endif
  return 32 * MiB;
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
  m.cpus = static_cast<int>(std::max(0L, sysconf(_SC_NPROCESSORS_ONLN)));
  return m;
}

}  // namespace choreo::calibration::detail
