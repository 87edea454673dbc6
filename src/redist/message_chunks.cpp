#include "message_chunks.hpp"

#include <algorithm>

#include "choreo/core/error.hpp"

namespace choreo::redist {
namespace {

std::int64_t count(const std::vector<LocalTriplet>& list) {
  std::int64_t n = 0;
  for (const LocalTriplet& t : list) n += t.count;
  return n;
}

}  // namespace

std::int64_t outer_extent(const std::vector<LocalSection>& sections) {
  std::int64_t n = 0;
  for (const LocalSection& s : sections)
    if (!s.dims.empty()) n += count(s.dims.back());
  return n;
}

std::int64_t outer_elements(const std::vector<LocalSection>& sections) {
  std::int64_t most = 0;
  for (const LocalSection& s : sections) {
    if (s.dims.empty()) continue;
    std::int64_t n = 1;
    for (std::size_t d = 0; d + 1 < s.dims.size(); ++d) n *= count(s.dims[d]);
    most = std::max(most, n);
  }
  return most;
}

std::vector<std::vector<LocalSection>> split_outer(const std::vector<LocalSection>& sections,
                                                   std::int64_t per_chunk) {
  if (per_chunk <= 0) throw Error("internal error: a message cut into chunks of no outer index");
  std::vector<std::vector<LocalSection>> chunks(1);
  std::int64_t in_chunk = 0;  // outer indices in the last chunk
  for (std::size_t k = 0; k < sections.size(); ++k) {
    const LocalSection& s = sections[k];
    if (s.dims.empty()) continue;
    bool open = false;  // the last chunk ends with a piece of this section
    for (const LocalTriplet& t : s.dims.back()) {
      std::int64_t start = t.start, left = t.count;
      while (left > 0) {
        if (in_chunk == per_chunk) chunks.emplace_back(), in_chunk = 0, open = false;
        const std::int64_t take = std::min(left, per_chunk - in_chunk);
        if (!open) {
          LocalSection piece;
          piece.dims.assign(s.dims.begin(), s.dims.end() - 1);
          piece.dims.emplace_back();
          chunks.back().push_back(std::move(piece));
          open = true;
        }
        chunks.back().back().dims.back().push_back({start, t.stride, take});
        start += take * t.stride, left -= take, in_chunk += take;
      }
    }
  }
  if (in_chunk == 0) chunks.pop_back();
  return chunks;
}

}  // namespace choreo::redist
