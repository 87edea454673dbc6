#pragma once
// An allocator for the simulator's big arrays (hundreds of MiB to GiB at 2^20 ranks). It asks
// the kernel for transparent huge pages (madvise), which cuts the page faults of filling
// such arrays by up to 512x; on a machine where THP is "madvise" only, that was most of the
// time spent building a 2^20-rank schedule. Small arrays use the ordinary heap.
#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>

namespace choreo {

template <typename T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;

  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) {
      if (void* p = std::malloc(bytes)) return static_cast<T*>(p);
      throw std::bad_alloc();
    }
    const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, rounded);
    if (p == nullptr) throw std::bad_alloc();
    // A hint (without THP it is simply ignored) for the whole huge pages the array fills
    // only: a huge page is faulted in whole, so a last, partly used one held up to 2 MiB the
    // array never used (a fifth of the process on a 2^14-rank schedule's dozen arrays).
    madvise(p, bytes / kHugePage * kHugePage, MADV_HUGEPAGE);
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t) noexcept { std::free(p); }

  template <typename U>
  bool operator==(const HugePageAllocator<U>&) const noexcept {
    return true;
  }
};

template <typename T>
using BigVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace choreo
