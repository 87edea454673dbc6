#include "choreo/redist/local_array.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace choreo::redist {

int position_of(const ArrayDistribution& dist, int rank) {
  const int size = grid_size(dist);
  for (int position = 0; position < size; ++position)
    if (rank_at(dist, position) == rank) return position;
  return -1;
}

std::int64_t local_storage(const ArrayDistribution& dist, int rank) {
  const int position = position_of(dist, rank);
  if (position < 0) return 0;
  const std::vector<std::int64_t> extents = local_extents(dist, position);
  if (extents.empty()) return 1;
  for (std::int64_t e : extents)
    if (e == 0) return 0;
  return local_strides(dist, position).back() * extents.back();
}

std::int64_t linear_index(const std::vector<std::int64_t>& shape,
                          const std::vector<std::int64_t>& index) {
  std::int64_t linear = 0, weight = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    linear += index[d] * weight;
    weight *= shape[d];
  }
  return linear;
}

void fill_local(const ArrayDistribution& dist, int rank, double* data) {
  for_each_local_element(dist, rank, [&](std::int64_t offset, std::int64_t global) {
    data[offset] = value_at(global);
  });
}

std::string check_local(const ArrayDistribution& dist, int rank, const double* data,
                        std::int64_t& checked) {
  std::int64_t wrong = 0, first_offset = -1, first_global = -1;
  for_each_local_element(dist, rank, [&](std::int64_t offset, std::int64_t global) {
    ++checked;
    if (data[offset] == value_at(global)) return;
    if (wrong++ == 0) first_offset = offset, first_global = global;
  });
  if (wrong == 0) return "";
  std::vector<std::int64_t> index;
  for (std::int64_t extent : dist.shape) {
    index.push_back(first_global % extent);
    first_global /= extent;
  }
  return fmt::format(
      "rank {}: {} elements of the redistributed array are wrong; the first, global index "
      "({}) at local offset {}, holds {} instead of {}",
      rank, wrong, fmt::join(index, ", "), first_offset, data[first_offset],
      value_at(linear_index(dist.shape, index)));
}

}  // namespace choreo::redist
