#include "choreo/redist/message_layout.hpp"

#include <algorithm>
#include <cstring>

#include "choreo/core/error.hpp"
#include "run_join.hpp"

namespace choreo::redist {
namespace {

LocalTriplet slice(const LocalTriplet& t, std::int64_t first, std::int64_t last) {
  return {t.start + first * t.stride, t.stride, last - first + 1};
}

/// The rows of a column list that a trapezoid keeps, per column j: row <= j + bound (upper)
/// or row >= j + bound (lower), bound from ScaLAPACK's definition (rank_plan.hpp).
struct Cut {
  bool upper = true;
  std::int64_t bound = 0;

  Cut(const RankPlan& plan) {
    const std::int64_t m = plan.extent[0], n = plan.extent[1];
    upper = plan.region.part == Part::Upper;
    bound = upper ? std::max<std::int64_t>(m - n, 0) - (plan.region.diagonal ? 0 : 1)
                  : -std::max<std::int64_t>(n - m, 0) + (plan.region.diagonal ? 0 : 1);
  }
  /// The kept rows of `rows` (global) in column j, appended to `out` in my memory.
  std::int64_t keep(const DimPart& rows, std::int64_t j, std::vector<LocalTriplet>* out) const {
    std::int64_t kept = 0;
    for (std::size_t k = 0; k < rows.global.size(); ++k) {
      const Triplet& g = rows.global[k];
      std::int64_t first = 0, last = g.count() - 1;  // indices into g's progression
      if (upper) {
        const std::int64_t top = j + bound;
        if (g.lower > top) break;
        last = std::min(last, (top - g.lower) / g.stride);
      } else {
        const std::int64_t bottom = j + bound;
        if (g.upper < bottom) continue;
        if (g.lower < bottom) first = (bottom - g.lower + g.stride - 1) / g.stride;
      }
      if (first > last) continue;
      kept += last - first + 1;
      if (out != nullptr) out->push_back(slice(rows.local[k], first, last));
    }
    return kept;
  }
};

/// How a column j of the trapezoid meets the rows [lowest, highest] of a message.
enum class Column { Empty, Partial, Whole };

Column classify(const Cut& cut, std::int64_t j, std::int64_t lowest, std::int64_t highest) {
  const std::int64_t edge = j + cut.bound;
  if (cut.upper)
    return edge >= highest ? Column::Whole : edge < lowest ? Column::Empty : Column::Partial;
  return edge <= lowest ? Column::Whole : edge > highest ? Column::Empty : Column::Partial;
}

/// Calls visit(kind, first, last) for the runs of columns of `cols`'s triplet k, ascending,
/// where the kind stays the same; first/last index the triplet's progression.
template <typename Visit>
void column_runs(const Cut& cut, const Triplet& cols, std::int64_t lowest, std::int64_t highest,
                 Visit visit) {
  // Kinds change monotonically along j; find the boundaries by stepping (at most three runs,
  // partial columns one at a time).
  std::int64_t t = 0;
  const std::int64_t count = cols.count();
  while (t < count) {
    const Column kind = classify(cut, cols.lower + t * cols.stride, lowest, highest);
    std::int64_t end = t;
    if (kind == Column::Partial) {
      end = t;
    } else {
      // The run of this kind: binary search on the monotone classification.
      std::int64_t lo = t, hi = count - 1;
      while (lo < hi) {
        const std::int64_t mid = lo + (hi - lo + 1) / 2;
        if (classify(cut, cols.lower + mid * cols.stride, lowest, highest) == kind)
          lo = mid;
        else
          hi = mid - 1;
      }
      end = lo;
    }
    visit(kind, t, end);
    t = end + 1;
  }
}

/// The trapezoid's sections of a message with rows `rows` and columns `cols`; with out ==
/// nullptr only counts the elements.
std::int64_t trapezoid(const Cut& cut, const DimPart& rows, const DimPart& cols,
                       std::vector<LocalSection>* out) {
  const std::int64_t lowest = rows.global.front().lower, highest = rows.global.back().upper;
  std::int64_t total = 0;
  for (std::size_t k = 0; k < cols.global.size(); ++k) {
    const Triplet& c = cols.global[k];
    column_runs(cut, c, lowest, highest, [&](Column kind, std::int64_t first, std::int64_t last) {
      if (kind == Column::Empty) return;
      if (kind == Column::Whole) {
        total += rows.count * (last - first + 1);
        if (out != nullptr) out->push_back({{rows.local, {slice(cols.local[k], first, last)}}});
        return;
      }
      const std::int64_t j = c.lower + first * c.stride;
      if (out == nullptr) {
        total += cut.keep(rows, j, nullptr);
        return;
      }
      LocalSection section{{{}, {slice(cols.local[k], first, first)}}};
      const std::int64_t kept = cut.keep(rows, j, &section.dims[0]);
      total += kept;
      if (kept > 0) out->push_back(std::move(section));
    });
  }
  return total;
}

}  // namespace

std::int64_t LocalSection::elements() const {
  std::int64_t n = 1;
  for (const auto& list : dims) {
    std::int64_t count = 0;
    for (const LocalTriplet& t : list) count += t.count;
    n *= count;
  }
  return n;
}

std::vector<LocalSection> message_sections(const RankPlan& plan, const RankSide& side,
                                           const PeerMessage& m) {
  std::vector<LocalSection> out;
  if (plan.region.part == Part::All) {
    LocalSection section;
    for (std::size_t d = 0; d < m.parts.size(); ++d)
      section.dims.push_back(side.dims[d][m.parts[d]].local);
    out.push_back(std::move(section));
    return out;
  }
  trapezoid(Cut(plan), side.dims[0][m.parts[0]], side.dims[1][m.parts[1]], &out);
  return out;
}

std::int64_t region_elements(const RankPlan& plan, const RankSide& side, const PeerMessage& m) {
  if (plan.region.part == Part::All) {
    std::int64_t n = 1;
    for (std::size_t d = 0; d < m.parts.size(); ++d) n *= side.dims[d][m.parts[d]].count;
    return n;
  }
  return trapezoid(Cut(plan), side.dims[0][m.parts[0]], side.dims[1][m.parts[1]], nullptr);
}

RunCursor::RunCursor(const std::vector<LocalSection>& sections) : sections_(&sections) {}

bool RunCursor::raw(Run& run) {
  const std::vector<LocalSection>& all = *sections_;
  while (section_ < all.size()) {
    const LocalSection& s = all[section_];
    const std::size_t ndims = s.dims.size();
    if (!started_) {
      triplet_.assign(ndims, 0);
      element_.assign(ndims, 0);
      inner_ = 0;
      started_ = true;
      bool empty = ndims == 0;
      for (const auto& list : s.dims) empty = empty || list.empty();
      if (empty) {
        ++section_, started_ = false;
        continue;
      }
    }
    if (inner_ < s.dims[0].size()) {
      std::int64_t outer = 0;
      for (std::size_t d = 1; d < ndims; ++d) {
        const LocalTriplet& t = s.dims[d][triplet_[d]];
        outer += t.start + static_cast<std::int64_t>(element_[d]) * t.stride;
      }
      const LocalTriplet& t = s.dims[0][inner_++];
      run = {outer + t.start, t.stride, t.count};
      return true;
    }
    // Dimension 0 done: advance the outer odometer.
    inner_ = 0;
    std::size_t d = 1;
    for (; d < ndims; ++d) {
      if (static_cast<std::int64_t>(++element_[d]) < s.dims[d][triplet_[d]].count) break;
      element_[d] = 0;
      if (++triplet_[d] < s.dims[d].size()) break;
      triplet_[d] = 0;
    }
    if (d >= ndims) ++section_, started_ = false;
  }
  return false;
}

bool RunCursor::next(Run& run) {
  Run r;
  while (raw(r)) {
    if (r.count == 0) continue;
    if (r.count == 1) r.stride = 1;
    if (!has_pending_) {
      pending_ = r, has_pending_ = true;
      continue;
    }
    if (detail::join(pending_, r)) continue;
    run = pending_;
    pending_ = r;
    return true;
  }
  if (!has_pending_) return false;
  run = pending_;
  has_pending_ = false;
  return true;
}

LayoutShape shape_of(const std::vector<LocalSection>& sections) {
  LayoutShape shape;
  RunCursor cursor(sections);
  Run run;
  bool first = true;
  while (cursor.next(run)) {
    if (first) shape.offset = run.offset, first = false;
    ++shape.runs;
    ++shape.pieces;
    shape.elements += run.count;
    // A strided run is not contiguous: count it as one run per element but the first.
    if (run.count > 1 && run.stride != 1) shape.runs += run.count - 1;
  }
  return shape;
}

}  // namespace choreo::redist
