#include "choreo/redist/distribution.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <set>

#include "choreo/core/error.hpp"
#include "choreo/core/limits.hpp"

namespace choreo::redist {
namespace {

bool is_distributed(const DimDistribution& d) { return d.kind != DimKind::Collapsed; }

std::size_t distributed_count(const ArrayDistribution& dist) {
  return static_cast<std::size_t>(
      std::count_if(dist.dims.begin(), dist.dims.end(), is_distributed));
}

// The grid dimension array dimension `dim` is distributed over (dims before it that are
// distributed take the grid dimensions before it).
std::size_t grid_dim_of(const ArrayDistribution& dist, std::size_t dim) {
  return static_cast<std::size_t>(std::count_if(
      dist.dims.begin(), dist.dims.begin() + static_cast<std::ptrdiff_t>(dim), is_distributed));
}

std::string grid_text(const std::vector<int>& grid) {
  return grid.empty() ? std::string("(none)") : fmt::format("{}", fmt::join(grid, "x"));
}

void check_dims(const ArrayDistribution& dist) {
  if (dist.shape.empty()) throw Error("the array has no dimensions; give a shape such as 100x100");
  if (dist.dims.size() != dist.shape.size())
    throw Error(fmt::format(
        "{} distributions for an array of {} dimensions (shape {}); give one distribution "
        "(block, cyclic, cyclic(n) or *) per dimension",
        dist.dims.size(), dist.shape.size(), fmt::join(dist.shape, "x")));
  for (std::size_t d = 0; d < dist.shape.size(); ++d) {
    if (dist.shape[d] < 0)
      throw Error(
          fmt::format("dimension {} has extent {}; extents must be 0 or more", d, dist.shape[d]));
    const DimDistribution& dd = dist.dims[d];
    if (dd.kind == DimKind::Cyclic && dd.block_size < 1)
      throw Error(fmt::format(
          "cyclic({}) in dimension {}: the block size must be at least 1; write cyclic(n) with "
          "n >= 1, or cyclic for cyclic(1)",
          dd.block_size, d));
  }
  limits::check_elements(dist.shape, fmt::format("the array {}", fmt::join(dist.shape, "x")));
}

void check_grid(const ArrayDistribution& dist) {
  const std::size_t distributed = distributed_count(dist);
  if (dist.grid.size() != distributed)
    throw Error(fmt::format(
        "{} distributed dimension(s) but a {}-dimensional processor grid ({}); give one grid "
        "extent per distributed (non-*) dimension, e.g. @2x2 for two",
        distributed, dist.grid.size(), grid_text(dist.grid)));
  std::int64_t size = 1;
  for (std::size_t g = 0; g < dist.grid.size(); ++g) {
    if (dist.grid[g] < 1)
      throw Error(
          fmt::format("grid extent {} in grid dimension {}; grid extents must be at "
                      "least 1",
                      dist.grid[g], g));
    size *= dist.grid[g];
    if (size > INT_MAX)
      throw Error(fmt::format("grid {} has more than {} processes; use a smaller grid",
                              grid_text(dist.grid), INT_MAX));
  }
  for (std::size_t d = 0; d < dist.dims.size(); ++d) {
    if (!is_distributed(dist.dims[d])) continue;
    const int extent = dist.grid[grid_dim_of(dist, d)];
    const int first = dist.dims[d].first_proc;
    if (first < 0 || first >= extent)
      throw Error(
          fmt::format("dimension {} starts at grid coordinate {} but its grid dimension "
                      "has {} processes; use 0 to {}",
                      d, first, extent, extent - 1));
  }
}

void check_ranks(const ArrayDistribution& dist, std::optional<int> comm_size) {
  const int size = grid_size(dist);
  if (dist.ranks.empty()) {
    if (dist.first_rank < 0)
      throw Error(fmt::format("first rank {} is negative; ranks start at 0", dist.first_rank));
    if (dist.first_rank > INT_MAX - size)
      throw Error(fmt::format("first rank {} plus {} grid positions passes the largest rank",
                              dist.first_rank, size));
  } else {
    if (dist.ranks.size() != static_cast<std::size_t>(size))
      throw Error(
          fmt::format("the rank list has {} ranks but grid {} has {} positions; list "
                      "one rank per position",
                      dist.ranks.size(), grid_text(dist.grid), size));
    std::set<int> seen;
    for (int r : dist.ranks) {
      if (r < 0) throw Error(fmt::format("rank {} in the rank list is negative", r));
      if (!seen.insert(r).second)
        throw Error(
            fmt::format("rank {} appears twice in the rank list; each grid position "
                        "needs a rank of its own",
                        r));
    }
  }
  if (!comm_size) return;
  int highest = dist.first_rank + size - 1;
  if (!dist.ranks.empty()) highest = *std::max_element(dist.ranks.begin(), dist.ranks.end());
  if (highest >= *comm_size)
    throw Error(
        fmt::format("grid {} needs rank {} but the communicator has {} ranks (0 to {}); "
                    "use a smaller grid, a lower first rank, or more ranks",
                    grid_text(dist.grid), highest, *comm_size, *comm_size - 1));
}

void check_layout(const ArrayDistribution& dist) {
  const std::int64_t ld = dist.layout.leading_dim;
  if (ld < 0)
    throw Error(
        fmt::format("leading dimension {} is negative; use 0 for each process's own "
                    "local extent, or a padded extent",
                    ld));
  if (ld == 0) return;
  const BlockCyclicDim first = resolve_dim(dist, 0);
  for (int proc = 0; proc < first.procs; ++proc) {
    const std::int64_t rows = first.local_extent(proc);
    if (ld < rows)
      throw Error(
          fmt::format("leading dimension {} is smaller than the {} local elements of "
                      "dimension 0 on processor {} of that dimension; use at least {} "
                      "(or 0 for each process's own extent)",
                      ld, rows, proc, rows));
  }
}

}  // namespace

int BlockCyclicDim::owner(std::int64_t global) const {
  return static_cast<int>((global / block + first_proc) % procs);
}

std::int64_t BlockCyclicDim::local_index(std::int64_t global) const {
  return global / (block * procs) * block + global % block;
}

std::int64_t BlockCyclicDim::global_index(int proc, std::int64_t local) const {
  const int distance = ((proc - first_proc) % procs + procs) % procs;
  return (local / block * procs + distance) * block + local % block;
}

std::int64_t BlockCyclicDim::local_extent(int proc) const {
  // ScaLAPACK's NUMROC: whole cycles, plus a whole block for processors before the one that
  // gets the last (possibly partial) block, plus that partial block.
  const int distance = ((proc - first_proc) % procs + procs) % procs;
  const std::int64_t blocks = extent / block;
  std::int64_t n = blocks / procs * block;
  const std::int64_t extra = blocks % procs;
  if (distance < extra) n += block;
  if (distance == extra) n += extent % block;
  return n;
}

void validate(const ArrayDistribution& dist, std::optional<int> comm_size) {
  check_dims(dist);
  check_grid(dist);
  check_ranks(dist, comm_size);
  check_layout(dist);
}

int grid_size(const ArrayDistribution& dist) {
  int size = 1;
  for (int g : dist.grid) size *= g;
  return size;
}

int rank_at(const ArrayDistribution& dist, int position) {
  return dist.ranks.empty() ? dist.first_rank + position
                            : dist.ranks[static_cast<std::size_t>(position)];
}

std::vector<int> proc_coords(const ArrayDistribution& dist, int position) {
  const std::size_t n = dist.grid.size();
  std::vector<int> grid_coords(n);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t g = dist.order == GridOrder::ColumnMajor ? k : n - 1 - k;
    grid_coords[g] = position % dist.grid[g];
    position /= dist.grid[g];
  }
  std::vector<int> coords(dist.dims.size(), 0);
  for (std::size_t d = 0, g = 0; d < dist.dims.size(); ++d)
    if (is_distributed(dist.dims[d])) coords[d] = grid_coords[g++];
  return coords;
}

BlockCyclicDim resolve_dim(const ArrayDistribution& dist, std::size_t dim) {
  const std::int64_t n = dist.shape[dim];
  const DimDistribution& dd = dist.dims[dim];
  if (!is_distributed(dd)) return BlockCyclicDim{n, std::max<std::int64_t>(1, n), 1, 0};
  const int procs = dist.grid[grid_dim_of(dist, dim)];
  std::int64_t block = dd.kind == DimKind::Block ? (n + procs - 1) / procs : dd.block_size;
  // A block larger than the extent deals everything to one processor, as a block of exactly
  // the extent does; clamping keeps block * procs far from overflow.
  block = std::clamp<std::int64_t>(block, 1, std::max<std::int64_t>(1, n));
  return BlockCyclicDim{n, block, procs, dd.first_proc};
}

std::vector<std::int64_t> local_extents(const ArrayDistribution& dist, int position) {
  const std::vector<int> coords = proc_coords(dist, position);
  std::vector<std::int64_t> extents(dist.dims.size());
  for (std::size_t d = 0; d < dist.dims.size(); ++d)
    extents[d] = resolve_dim(dist, d).local_extent(coords[d]);
  return extents;
}

std::vector<std::int64_t> local_strides(const ArrayDistribution& dist, int position) {
  const std::vector<std::int64_t> extents = local_extents(dist, position);
  std::vector<std::int64_t> strides(extents.size(), 1);
  for (std::size_t d = 1; d < extents.size(); ++d) {
    const std::int64_t below = std::max<std::int64_t>(1, extents[d - 1]);
    strides[d] =
        d == 1 && dist.layout.leading_dim > 0 ? dist.layout.leading_dim : strides[d - 1] * below;
  }
  return strides;
}

}  // namespace choreo::redist
