#include "choreo/redist/plan.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "choreo/core/error.hpp"

namespace choreo::redist {
namespace {

// What the plan needs of one grid position: its rank, its processor index along every array
// dimension and its local element strides.
struct Position {
  int rank = 0;
  std::vector<int> coords;
  std::vector<std::int64_t> strides;
};

std::vector<Position> positions(const ArrayDistribution& dist) {
  std::vector<Position> out(static_cast<std::size_t>(grid_size(dist)));
  for (std::size_t k = 0; k < out.size(); ++k) {
    const int position = static_cast<int>(k);
    out[k] = {rank_at(dist, position), proc_coords(dist, position), local_strides(dist, position)};
  }
  return out;
}

// Global triplet t, all of it held by one processor of `dim`, in that processor's memory.
// Its local indices are a progression too: from one held index to the next, the position
// within a cycle of m p moves by the same amount each time (less than m either way, and m is
// at most half a cycle when p > 1), so the local index does as well.
LocalTriplet to_local(const BlockCyclicDim& dim, const Triplet& t, std::int64_t element_stride) {
  const std::int64_t first = dim.local_index(t.lower);
  const std::int64_t step = t.count() > 1 ? dim.local_index(t.lower + t.stride) - first : 1;
  return {first * element_stride, step * element_stride, t.count()};
}

}  // namespace

std::int64_t Transfer::section_count() const {
  std::int64_t n = 1;
  for (const DimTransfer& d : dims) n *= static_cast<std::int64_t>(d.global.size());
  return n;
}

Plan make_plan(const ArrayDistribution& from, const ArrayDistribution& to,
               const CommSetOptions& options) {
  validate(from);
  validate(to);
  if (from.shape != to.shape)
    throw Error(
        fmt::format("the source array has shape {} and the target {}; redistribution "
                    "keeps the shape, so give both the same",
                    fmt::join(from.shape, "x"), fmt::join(to.shape, "x")));
  Plan plan{from, to, {}, {}};
  const std::size_t ndims = from.shape.size();
  std::vector<BlockCyclicDim> source_dims, target_dims;
  for (std::size_t d = 0; d < ndims; ++d) {
    source_dims.push_back(resolve_dim(from, d));
    target_dims.push_back(resolve_dim(to, d));
    plan.dims.push_back(comm_sets(source_dims[d], target_dims[d], options));
  }
  const std::vector<Position> sources = positions(from), targets = positions(to);
  for (const Position& s : sources) {
    for (const Position& t : targets) {
      Transfer transfer{s.rank, t.rank, {}, 1};
      for (std::size_t d = 0; d < ndims && transfer.elements > 0; ++d) {
        DimTransfer dim{plan.dims[d].between(s.coords[d], t.coords[d]), {}, {}};
        std::int64_t count = 0;
        for (const Triplet& g : dim.global) {
          dim.source_local.push_back(to_local(source_dims[d], g, s.strides[d]));
          dim.target_local.push_back(to_local(target_dims[d], g, t.strides[d]));
          count += g.count();
        }
        transfer.elements *= count;
        transfer.dims.push_back(std::move(dim));
      }
      if (transfer.elements > 0) plan.transfers.push_back(std::move(transfer));
    }
  }
  std::sort(plan.transfers.begin(), plan.transfers.end(), [](const auto& x, const auto& y) {
    return std::pair(x.source_rank, x.target_rank) < std::pair(y.source_rank, y.target_rank);
  });
  return plan;
}

PlanTotals Plan::totals() const {
  PlanTotals sum;
  for (const Transfer& t : transfers) {
    (t.local_copy() ? sum.local_copies : sum.messages) += 1;
    (t.local_copy() ? sum.copy_elements : sum.message_elements) += t.elements;
    sum.sections += t.section_count();
  }
  return sum;
}

std::vector<const Transfer*> Plan::sends_of(int rank) const {
  std::vector<const Transfer*> out;
  for (const Transfer& t : transfers)
    if (t.source_rank == rank) out.push_back(&t);
  return out;
}

std::vector<const Transfer*> Plan::receives_of(int rank) const {
  std::vector<const Transfer*> out;
  for (const Transfer& t : transfers)
    if (t.target_rank == rank) out.push_back(&t);
  return out;
}

std::vector<Section> sections(const Transfer& transfer) {
  std::vector<Section> out;
  const std::size_t ndims = transfer.dims.size();
  if (transfer.section_count() == 0) return out;
  std::vector<std::size_t> pick(ndims, 0);  // a mixed-radix counter, dimension 0 fastest
  for (;;) {
    Section section;
    for (std::size_t d = 0; d < ndims; ++d) {
      section.global.push_back(transfer.dims[d].global[pick[d]]);
      section.source_local.push_back(transfer.dims[d].source_local[pick[d]]);
      section.target_local.push_back(transfer.dims[d].target_local[pick[d]]);
    }
    out.push_back(std::move(section));
    std::size_t d = 0;
    while (d < ndims && ++pick[d] == transfer.dims[d].global.size()) pick[d++] = 0;
    if (d == ndims) return out;
  }
}

}  // namespace choreo::redist
