#include "choreo/redist/dim_sets.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "choreo/core/error.hpp"

namespace choreo::redist {
namespace {

std::int64_t floor_mod(std::int64_t a, std::int64_t m) { return ((a % m) + m) % m; }

/// A side whose processors each hold one progression of the window: one processor holds all
/// of it, or blocks of 1 deal it round-robin.
bool one_triplet_per_proc(const BlockCyclicDim& d) { return d.procs == 1 || d.block == 1; }

/// Processor `proc`'s indices of [0, extent) when one_triplet_per_proc.
Triplet triplet_of(const WindowDim& w, int proc, std::int64_t extent) {
  if (w.dist.procs == 1) return make_triplet(0, extent - 1, 1);
  const std::int64_t p = w.dist.procs;
  return make_triplet(floor_mod(proc - w.dist.first_proc - w.start, p), extent - 1, p);
}

/// Calls visit(lower, upper) for every block of processor `proc` that meets [0, extent), in
/// window indices, clipped, ascending.
template <typename Visit>
void for_each_block(const WindowDim& w, int proc, std::int64_t extent, Visit visit) {
  const std::int64_t b = w.dist.block, p = w.dist.procs;
  const std::int64_t first = w.start / b, last = (w.start + extent - 1) / b;
  for (std::int64_t k = first + floor_mod(proc - w.dist.first_proc - first, p); k <= last; k += p)
    visit(std::max<std::int64_t>(k * b - w.start, 0),
          std::min<std::int64_t>((k + 1) * b - 1 - w.start, extent - 1));
}

struct Piece {
  int proc;
  Triplet indices;
};

/// Cuts pieces of my indices along the other side's processors.
class Cutter {
 public:
  Cutter(const WindowDim& other, std::int64_t extent) : other_(other), extent_(extent) {}

  /// My contiguous indices [lo, hi].
  void interval(std::int64_t lo, std::int64_t hi) {
    const BlockCyclicDim& o = other_.dist;
    if (o.procs == 1) return add(0, make_triplet(lo, hi, 1));
    if (o.block == 1) {
      // Round-robin: each of the first `procs` indices starts one processor's progression.
      const std::int64_t firsts = std::min<std::int64_t>(hi - lo + 1, o.procs);
      for (std::int64_t i = lo; i < lo + firsts; ++i)
        add(other_.owner(i), make_triplet(i, hi, o.procs));
      return;
    }
    for (std::int64_t k = (other_.start + lo) / o.block; k <= (other_.start + hi) / o.block; ++k)
      add(other_.dist.owner(k * o.block),
          make_triplet(std::max(lo, k * o.block - other_.start),
                       std::min(hi, (k + 1) * o.block - 1 - other_.start), 1));
  }

  /// My indices as one progression with a stride above 1.
  void progression(const Triplet& mine) {
    const BlockCyclicDim& o = other_.dist;
    if (o.procs == 1) return add(0, mine);
    if (o.block == 1) {
      for (int q = 0; q < o.procs; ++q) add(q, intersect(mine, triplet_of(other_, q, extent_)));
    } else if (mine.stride <= o.block) {
      // Dense against the other side's blocks: visit those blocks.
      for (std::int64_t k = (other_.start + mine.lower) / o.block;
           k <= (other_.start + mine.upper) / o.block; ++k)
        add(other_.dist.owner(k * o.block),
            intersect(mine, make_triplet(k * o.block - other_.start,
                                         (k + 1) * o.block - 1 - other_.start, 1)));
    } else {
      // Sparse: fewer of my indices than blocks in their range.
      for (std::int64_t i = mine.lower; i <= mine.upper; i += mine.stride)
        add(other_.owner(i), make_triplet(i, i, 1));
    }
  }

  std::vector<Piece>& pieces() { return pieces_; }

 private:
  void add(int proc, const Triplet& t) {
    if (!t.empty()) pieces_.push_back({proc, t});
  }

  const WindowDim& other_;
  std::int64_t extent_;
  std::vector<Piece> pieces_;
};

}  // namespace

std::vector<ProcSet> shared_sets(const WindowDim& mine, int me, const WindowDim& other,
                                 std::int64_t extent, std::int64_t* pieces) {
  if (me < 0 || me >= mine.dist.procs)
    throw Error(fmt::format("shared_sets: processor {} of a dimension of {} processors", me,
                            mine.dist.procs));
  if (extent < 0) throw Error(fmt::format("shared_sets: extent {} is negative", extent));
  Cutter cut(other, extent);
  if (extent > 0) {
    if (one_triplet_per_proc(mine.dist)) {
      const Triplet t = triplet_of(mine, me, extent);
      if (t.stride == 1)
        cut.interval(t.lower, t.upper);
      else if (!t.empty())
        cut.progression(t);
    } else {
      for_each_block(mine, me, extent,
                     [&](std::int64_t lo, std::int64_t hi) { cut.interval(lo, hi); });
    }
  }
  std::vector<Piece>& found = cut.pieces();
  if (pieces != nullptr) *pieces = static_cast<std::int64_t>(found.size());
  // Pieces arrive ascending for each processor; a stable sort by processor keeps that order.
  std::stable_sort(found.begin(), found.end(),
                   [](const Piece& x, const Piece& y) { return x.proc < y.proc; });
  std::vector<ProcSet> out;
  for (const Piece& p : found) {
    if (out.empty() || out.back().proc != p.proc) out.push_back({p.proc, {}});
    out.back().indices.push_back(p.indices);
  }
  for (ProcSet& set : out) normalize_ascending(set.indices);
  return out;
}

}  // namespace choreo::redist
