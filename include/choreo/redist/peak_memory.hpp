#pragma once
// The peak resident memory a stretch of code adds (Linux): what a plan or a data path really
// costs a process, allocator and all, beside what it says it holds.
#include <cstdint>

namespace choreo::redist {

class PeakMemory {
 public:
  /// Resets the kernel's high-water mark (/proc/self/clear_refs) and records the resident size.
  PeakMemory();
  /// How far the peak (VmHWM) rose above the resident size at construction; -1 when unknown.
  std::int64_t extra_bytes() const;

 private:
  std::int64_t start_ = -1;
};

}  // namespace choreo::redist
