#include "choreo/redist/peak_memory.hpp"

#include <malloc.h>

#include <algorithm>
#include <fstream>
#include <string>

namespace choreo::redist {
namespace {

/// A "VmRSS:" or "VmHWM:" line of /proc/self/status in bytes, or -1.
std::int64_t status_bytes(const std::string& key) {
  std::ifstream in("/proc/self/status");
  std::string word;
  while (in >> word) {
    if (word != key) continue;
    std::int64_t kib = -1;
    in >> kib;
    return kib < 0 ? -1 : kib * 1024;
  }
  return -1;
}

}  // namespace

PeakMemory::PeakMemory() {
  // Hand memory that earlier code freed back to the kernel first: glibc keeps it (its mmap
  // threshold grows after large frees), and code that reuses it would add nothing to the
  // resident peak however large its buffers are.
  malloc_trim(0);
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5" << std::flush;
  if (clear) start_ = status_bytes("VmRSS:");
}

std::int64_t PeakMemory::extra_bytes() const {
  const std::int64_t peak = status_bytes("VmHWM:");
  if (start_ < 0 || peak < 0) return -1;
  return std::max<std::int64_t>(0, peak - start_);
}

}  // namespace choreo::redist
