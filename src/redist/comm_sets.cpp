#include "choreo/redist/comm_sets.hpp"

#include <fmt/format.h>

#include <numeric>

#include "choreo/core/error.hpp"

namespace choreo::redist {
namespace {

__extension__ typedef __int128 Wide;

// Paper sec. 2.3: intersect source triplets with target triplets; the result of a pair goes
// to (source proc, target proc).
void intersect_index_sets(const BlockCyclicDim& from, const BlockCyclicDim& to, bool all_pairs,
                          DimCommSets& out) {
  const std::vector<OwnedTriplet> sources = index_sets(from);
  const std::vector<OwnedTriplet> targets = index_sets(to);
  // When the target's triplets are its blocks, targets[k] is block k, so the blocks that can
  // overlap [lower, upper] are found by division instead of by trying them all.
  const bool targets_are_blocks = to.procs > 1 && to.block > 1;
  for (const OwnedTriplet& source : sources) {
    std::size_t first = 0, end = targets.size();
    if (targets_are_blocks && !all_pairs) {
      first = static_cast<std::size_t>(source.indices.lower / to.block);
      end = static_cast<std::size_t>(source.indices.upper / to.block) + 1;
    }
    for (std::size_t k = first; k < end; ++k) {
      const Triplet common = intersect(source.indices, targets[k].indices);
      ++out.intersections;
      if (!common.empty()) out.sets[out.index(source.proc, targets[k].proc)].push_back(common);
    }
  }
}

// Reduction (2) undone: a result on [0, period) repeats every period up to `extent`. A
// triplet whose copies continue its own progression (a single index, or one whose next step
// lands on its first index one period on) becomes one triplet at once, rather than N / L
// copies for compact() to merge again; others become one per copy.
void repeat_periods(std::vector<Triplet>& triplets, std::int64_t period, std::int64_t extent) {
  const std::int64_t copies = (extent + period - 1) / period;
  const std::int64_t last = extent - 1;
  std::vector<Triplet> out;
  for (const Triplet& t : triplets) {
    const std::int64_t shift = (copies - 1) * period;
    if (t.count() == 1) {
      out.push_back(clip(make_triplet(t.lower, t.lower + shift, period), 0, last));
    } else if (t.upper + t.stride == t.lower + period) {
      out.push_back(clip(make_triplet(t.lower, t.upper + shift, t.stride), 0, last));
    } else {
      for (std::int64_t k = 0; k < copies; ++k) {
        const Triplet copy =
            clip(make_triplet(t.lower + k * period, t.upper + k * period, t.stride), 0, last);
        if (!copy.empty()) out.push_back(copy);
      }
    }
  }
  triplets = std::move(out);
}

// Reduction (1) undone (paper sec. 2.4): unit k is indices [k r, k r + r - 1]. A strided set of
// units becomes either one triplet per unit or one triplet per offset within a unit
// (stride s r), whichever is fewer.
void expand_units(std::vector<Triplet>& triplets, std::int64_t unit, std::int64_t extent) {
  const std::int64_t last = extent - 1;
  std::vector<Triplet> out;
  for (const Triplet& t : triplets) {
    if (t.stride == 1) {
      out.push_back(clip(make_triplet(t.lower * unit, (t.upper + 1) * unit - 1, 1), 0, last));
    } else if (t.count() <= unit) {
      for (std::int64_t k = t.lower; k <= t.upper; k += t.stride)
        out.push_back(clip(make_triplet(k * unit, k * unit + unit - 1, 1), 0, last));
    } else {
      for (std::int64_t j = 0; j < unit; ++j) {
        const Triplet offset =
            clip(make_triplet(t.lower * unit + j, t.upper * unit + j, t.stride * unit), 0, last);
        if (!offset.empty()) out.push_back(offset);
      }
    }
  }
  triplets = std::move(out);
}

// lcm(x, y) when it is below `limit`, else 0 (including when it would overflow).
std::int64_t lcm_below(Wide x, Wide y, std::int64_t limit) {
  if (x >= limit || y >= limit) return 0;
  const auto x64 = static_cast<std::int64_t>(x), y64 = static_cast<std::int64_t>(y);
  const Wide lcm = Wide{x64 / std::gcd(x64, y64)} * y64;
  return lcm < limit ? static_cast<std::int64_t>(lcm) : 0;
}

}  // namespace

std::vector<OwnedTriplet> index_sets(const BlockCyclicDim& dim) {
  std::vector<OwnedTriplet> sets;
  const std::int64_t n = dim.extent;
  if (n <= 0) return sets;
  if (dim.procs == 1) {
    sets.push_back({make_triplet(0, n - 1, 1), 0});
  } else if (dim.block == 1) {
    for (std::int64_t q = 0; q < std::min<std::int64_t>(dim.procs, n); ++q)
      sets.push_back({make_triplet(q, n - 1, dim.procs), dim.owner(q)});
  } else {
    for (std::int64_t start = 0; start < n; start += dim.block)
      sets.push_back(
          {make_triplet(start, std::min(start + dim.block, n) - 1, 1), dim.owner(start)});
  }
  return sets;
}

std::size_t DimCommSets::index(int from, int to) const {
  return static_cast<std::size_t>(from) * static_cast<std::size_t>(target_procs) +
         static_cast<std::size_t>(to);
}

const std::vector<Triplet>& DimCommSets::between(int from, int to) const {
  return sets[index(from, to)];
}

DimCommSets comm_sets(const BlockCyclicDim& from, const BlockCyclicDim& to,
                      const CommSetOptions& options) {
  if (from.extent != to.extent)
    throw Error(
        fmt::format("comm sets: the source dimension has {} indices and the target {}; "
                    "redistribution keeps the array's shape",
                    from.extent, to.extent));
  DimCommSets out;
  out.source_procs = from.procs;
  out.target_procs = to.procs;
  out.sets.resize(static_cast<std::size_t>(from.procs) * static_cast<std::size_t>(to.procs));
  BlockCyclicDim a = from, b = to;

  const std::int64_t r = std::gcd(a.block, b.block);
  if (options.reduce_by_gcd && r > 1 && (a.block == r || b.block == r)) {
    out.gcd_unit = r;
    a.block /= r;
    b.block /= r;
    a.extent = b.extent = (from.extent + r - 1) / r;
  }
  const std::int64_t units = a.extent;
  if (options.reduce_to_period) {
    out.period = lcm_below(Wide{a.block} * a.procs, Wide{b.block} * b.procs, units);
    if (out.period > 0) a.extent = b.extent = out.period;
  }

  intersect_index_sets(a, b, options.all_pairs, out);

  for (std::vector<Triplet>& triplets : out.sets) {
    if (out.period > 0) repeat_periods(triplets, out.period, units);
    if (out.gcd_unit > 1) expand_units(triplets, out.gcd_unit, from.extent);
    compact(triplets);
  }
  return out;
}

std::vector<OwnedTriplet> send_set(const DimCommSets& sets, int from) {
  std::vector<OwnedTriplet> out;
  for (int to = 0; to < sets.target_procs; ++to)
    for (const Triplet& t : sets.between(from, to)) out.push_back({t, to});
  return out;
}

std::vector<OwnedTriplet> receive_set(const DimCommSets& sets, int to) {
  std::vector<OwnedTriplet> out;
  for (int from = 0; from < sets.source_procs; ++from)
    for (const Triplet& t : sets.between(from, to)) out.push_back({t, from});
  return out;
}

}  // namespace choreo::redist
