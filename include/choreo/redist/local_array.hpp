#pragma once
// One rank's piece of a distributed array in memory: where the rank sits in the grid, how
// many elements its local array holds, and every local element with its global index. Used to
// fill a source array with a function of the global index and to check a target array
// element by element (choreo-mpi redist run, the MPI tests, the ScaLAPACK benchmark).
#include <cstdint>
#include <string>
#include <vector>

#include "choreo/redist/distribution.hpp"

namespace choreo::redist {

/// The grid position of `rank` in dist, or -1 when dist does not use that rank.
int position_of(const ArrayDistribution& dist, int rank);

/// How many elements rank's local array must hold, the leading-dimension padding included
/// (0 when dist does not use the rank).
std::int64_t local_storage(const ArrayDistribution& dist, int rank);

/// The column-major index (first dimension fastest) of a global multi-index.
std::int64_t linear_index(const std::vector<std::int64_t>& shape,
                          const std::vector<std::int64_t>& index);

/// Calls visit(local_offset, global_linear_index) for every element `rank` holds, in local
/// memory order; padding is skipped. Nothing when dist does not use the rank.
template <typename Visit>
void for_each_local_element(const ArrayDistribution& dist, int rank, Visit visit) {
  const int position = position_of(dist, rank);
  if (position < 0) return;
  const std::size_t n = dist.shape.size();
  const std::vector<std::int64_t> extents = local_extents(dist, position);
  const std::vector<std::int64_t> strides = local_strides(dist, position);
  const std::vector<int> coords = proc_coords(dist, position);
  std::vector<BlockCyclicDim> dims;
  for (std::size_t d = 0; d < n; ++d) {
    if (extents[d] == 0) return;
    dims.push_back(resolve_dim(dist, d));
  }
  // Global weights of the dimensions in the column-major linear index.
  std::vector<std::int64_t> weight(n, 1);
  for (std::size_t d = 1; d < n; ++d) weight[d] = weight[d - 1] * dist.shape[d - 1];
  std::vector<std::int64_t> local(n, 0);
  for (;;) {
    std::int64_t offset = 0, outer = 0;
    for (std::size_t d = 1; d < n; ++d) {
      offset += local[d] * strides[d];
      outer += dims[d].global_index(coords[d], local[d]) * weight[d];
    }
    if (n == 0) return visit(std::int64_t{0}, std::int64_t{0});
    for (std::int64_t i = 0; i < extents[0]; ++i)
      visit(offset + i, outer + dims[0].global_index(coords[0], i));
    std::size_t d = 1;
    while (d < n && ++local[d] == extents[d]) local[d++] = 0;
    if (d >= n) return;
  }
}

/// The test value of the element at global linear index `global`: exact in a double up to
/// 2^52 elements, different for every element.
inline double value_at(std::int64_t global) { return static_cast<double>(global) + 0.5; }

/// Writes value_at(global index) into every element `rank` holds of dist (padding untouched).
void fill_local(const ArrayDistribution& dist, int rank, double* data);

/// Checks every element `rank` holds of dist against value_at, adding how many it checked to
/// `checked`. Returns "" or the number of wrong elements and the first, with its global
/// multi-index, what it holds and what it should hold.
std::string check_local(const ArrayDistribution& dist, int rank, const double* data,
                        std::int64_t& checked);

}  // namespace choreo::redist
