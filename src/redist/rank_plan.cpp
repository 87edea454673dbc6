#include "choreo/redist/rank_plan.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "choreo/core/error.hpp"
#include "choreo/redist/local_array.hpp"
#include "choreo/redist/message_layout.hpp"

namespace choreo::redist {
namespace {

template <typename T>
std::int64_t capacity_bytes(const std::vector<T>& v) {
  return static_cast<std::int64_t>(v.capacity() * sizeof(T));
}

/// Global triplet g of the section, all of it held by this rank, in its memory. One held index
/// to the next moves the local index by the same amount (see plan.cpp's to_local).
LocalTriplet to_local(const WindowDim& w, const Triplet& g, std::int64_t element_stride) {
  const std::int64_t first = w.local_index(g.lower);
  const std::int64_t step = g.count() > 1 ? w.local_index(g.lower + g.stride) - first : 1;
  return {first * element_stride, step * element_stride, g.count()};
}

void check_window(const SideView& side, const char* name, std::size_t d, std::int64_t extent) {
  const WindowDim& w = side.dims[d];
  if (w.start < 0 || w.start > w.dist.extent - extent)
    throw Error(fmt::format(
        "the {} section's dimension {} spans indices {} to {} but the array has {} (0 to {}); "
        "start the section at 0 to {}",
        name, d, w.start, w.start + extent - 1, w.dist.extent, w.dist.extent - 1,
        std::max<std::int64_t>(0, w.dist.extent - extent)));
}

/// My sends (mine = the source side) or receives (mine = the target side).
RankSide plan_side(const SideView& mine, const SideView& other, const RankPlan& plan,
                   std::int64_t& pieces) {
  RankSide side;
  if (!mine.holds()) return side;
  const std::size_t ndims = plan.extent.size();
  for (std::size_t d = 0; d < ndims; ++d) {
    std::int64_t found = 0;
    std::vector<ProcSet> sets =
        shared_sets(mine.dims[d], mine.my_coords[d], other.dims[d], plan.extent[d], &found);
    pieces += found;
    std::vector<DimPart> parts;
    parts.reserve(sets.size());
    for (ProcSet& set : sets) {
      DimPart part{set.proc, std::move(set.indices), {}, 0};
      part.local.reserve(part.global.size());
      for (const Triplet& g : part.global) {
        part.local.push_back(to_local(mine.dims[d], g, mine.my_strides[d]));
        part.count += g.count();
      }
      parts.push_back(std::move(part));
    }
    if (parts.empty()) return RankSide{};  // nothing to move along this dimension
    side.dims.push_back(std::move(parts));
  }
  // Every combination of one part per dimension is one message (a mixed-radix counter).
  std::vector<std::uint32_t> pick(ndims, 0);
  std::vector<int> coords(ndims);
  for (;;) {
    PeerMessage m{0, pick, 1};
    for (std::size_t d = 0; d < ndims; ++d) {
      const DimPart& part = side.dims[d][pick[d]];
      coords[d] = part.proc;
      m.elements *= part.count;
    }
    m.peer = other.grid.rank_at(coords);
    if (plan.region.part != Part::All) m.elements = region_elements(plan, side, m);
    if (m.elements > 0) side.messages.push_back(std::move(m));
    std::size_t d = 0;
    while (d < ndims && ++pick[d] == side.dims[d].size()) pick[d++] = 0;
    if (d == ndims) break;
  }
  std::sort(side.messages.begin(), side.messages.end(),
            [](const PeerMessage& x, const PeerMessage& y) { return x.peer < y.peer; });
  return side;
}

std::int64_t side_bytes(const RankSide& side) {
  std::int64_t n = capacity_bytes(side.dims) + capacity_bytes(side.messages);
  for (const auto& parts : side.dims) {
    n += capacity_bytes(parts);
    for (const DimPart& p : parts) n += capacity_bytes(p.global) + capacity_bytes(p.local);
  }
  for (const PeerMessage& m : side.messages) n += capacity_bytes(m.parts);
  return n;
}

const PeerMessage* find_peer(const RankSide& side, int rank) {
  const auto it = std::lower_bound(side.messages.begin(), side.messages.end(), rank,
                                   [](const PeerMessage& m, int r) { return m.peer < r; });
  return it != side.messages.end() && it->peer == rank ? &*it : nullptr;
}

}  // namespace

GridMap::GridMap(std::vector<int> procs, std::vector<int> ranks)
    : procs_(std::move(procs)), ranks_(std::move(ranks)) {
  std::size_t size = 1;
  for (int p : procs_) {
    if (p < 1) throw Error(fmt::format("grid map: {} processors along a dimension", p));
    size *= static_cast<std::size_t>(p);
  }
  if (size != ranks_.size())
    throw Error(fmt::format("grid map: {} ranks for a grid of {} processors", ranks_.size(), size));
}

int GridMap::rank_at(std::span<const int> coords) const {
  std::size_t linear = 0, weight = 1;
  for (std::size_t d = 0; d < procs_.size(); ++d) {
    linear += static_cast<std::size_t>(coords[d]) * weight;
    weight *= static_cast<std::size_t>(procs_[d]);
  }
  return ranks_[linear];
}

std::int64_t RankSide::elements() const {
  std::int64_t n = 0;
  for (const PeerMessage& m : messages) n += m.elements;
  return n;
}

std::int64_t RankPlan::bytes() const {
  return static_cast<std::int64_t>(sizeof(RankPlan)) + capacity_bytes(extent) + side_bytes(sends) +
         side_bytes(receives);
}

const PeerMessage* RankPlan::local_send() const { return find_peer(sends, rank); }
const PeerMessage* RankPlan::local_receive() const { return find_peer(receives, rank); }

RankPlan plan_rank(const SideView& from, const SideView& to, std::vector<std::int64_t> extent,
                   Region region, int rank) {
  const std::size_t ndims = extent.size();
  if (ndims == 0) throw Error("a redistribution needs at least one dimension");
  for (const auto* side : {&from, &to}) {
    const char* name = side == &from ? "source" : "target";
    if (side->dims.size() != ndims || side->grid.procs().size() != ndims ||
        (side->holds() && (side->my_coords.size() != ndims || side->my_strides.size() != ndims)))
      throw Error(fmt::format("the {} side describes other than {} dimensions", name, ndims));
    for (std::size_t d = 0; d < ndims; ++d) {
      if (extent[d] < 0)
        throw Error(
            fmt::format("the section's extent {} in dimension {} is negative", extent[d], d));
      check_window(*side, name, d, extent[d]);
    }
  }
  if (region.part != Part::All && ndims != 2)
    throw Error(
        fmt::format("an upper or lower trapezoid needs a 2-D section, not {} dimensions", ndims));
  RankPlan plan;
  plan.rank = rank;
  plan.extent = std::move(extent);
  plan.region = region;
  for (std::int64_t e : plan.extent)
    if (e == 0) return plan;  // nothing moves
  plan.sends = plan_side(from, to, plan, plan.pieces);
  plan.receives = plan_side(to, from, plan, plan.pieces);
  return plan;
}

SideView side_view(const ArrayDistribution& dist, int rank) {
  SideView side;
  std::vector<int> procs;
  for (std::size_t d = 0; d < dist.shape.size(); ++d) {
    side.dims.push_back({resolve_dim(dist, d), 0});
    procs.push_back(side.dims.back().dist.procs);
  }
  const int size = grid_size(dist);
  std::vector<int> ranks(static_cast<std::size_t>(size), -1);
  int mine = -1;
  for (int position = 0; position < size; ++position) {
    const std::vector<int> coords = proc_coords(dist, position);
    std::size_t linear = 0, weight = 1;
    for (std::size_t d = 0; d < coords.size(); ++d) {
      linear += static_cast<std::size_t>(coords[d]) * weight;
      weight *= static_cast<std::size_t>(procs[d]);
    }
    ranks[linear] = rank_at(dist, position);
    if (ranks[linear] == rank) mine = position;
  }
  side.grid = GridMap(std::move(procs), std::move(ranks));
  if (mine >= 0) {
    side.my_coords = proc_coords(dist, mine);
    side.my_strides = local_strides(dist, mine);
  }
  return side;
}

RankPlan plan_rank(const ArrayDistribution& from, const ArrayDistribution& to, int rank) {
  validate(from);
  validate(to);
  if (from.shape != to.shape)
    throw Error(fmt::format(
        "the source array has shape {} and the target {}; redistribution keeps the shape, so "
        "give both the same",
        fmt::join(from.shape, "x"), fmt::join(to.shape, "x")));
  return plan_rank(side_view(from, rank), side_view(to, rank), from.shape, {}, rank);
}

std::string to_text(const RankPlan& plan, std::int64_t element_bytes, int show) {
  std::string out;
  const auto triplets = [&](const std::vector<Triplet>& list) {
    std::vector<std::string> parts;
    for (const Triplet& t : list) {
      if (static_cast<int>(parts.size()) == show) {
        parts.push_back(fmt::format("... ({} more)", list.size() - parts.size()));
        break;
      }
      parts.push_back(to_string(t));
    }
    return fmt::format("{}", fmt::join(parts, " "));
  };
  for (const auto* side : {&plan.sends, &plan.receives}) {
    const bool sends = side == &plan.sends;
    out += fmt::format("{} ({} messages, {} elements)\n", sends ? "sends" : "receives",
                       side->messages.size(), side->elements());
    for (const PeerMessage& m : side->messages) {
      out += fmt::format("  {} {:>6} {:>12} elements {:>14} B{}\n", sends ? "to  " : "from", m.peer,
                         m.elements, m.elements * element_bytes,
                         m.peer == plan.rank ? "  (local copy)" : "");
      for (std::size_t d = 0; d < m.parts.size(); ++d)
        out += fmt::format("      dim {}: {}\n", d, triplets(side->dims[d][m.parts[d]].global));
    }
  }
  return out;
}

}  // namespace choreo::redist
