#pragma once
// Joining runs of a message's layout (message_layout.hpp): shared by RunCursor, which counts
// runs for shape_of, and the copy loops of section_copy.cpp.
#include <cstdint>

#include "choreo/redist/message_layout.hpp"

namespace choreo::redist::detail {

/// Joins run r onto p where r continues p's progression: the step from p's last element to
/// r's first is p's stride (any step after a single element), and r keeps it. False if not.
inline bool join(Run& p, const Run& r) {
  const std::int64_t step = p.count == 1 ? r.offset - p.offset : p.stride;
  if (step <= 0 || r.offset != p.offset + (p.count - 1) * p.stride + step ||
      (r.count != 1 && r.stride != step))
    return false;
  if (p.count == 1) p.stride = step;
  p.count += r.count;
  return true;
}

}  // namespace choreo::redist::detail
