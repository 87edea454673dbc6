#include "reduction_unit.hpp"

#include <fmt/format.h>

#include "../mpi/datatype_layout.hpp"
#include "choreo/core/error.hpp"
#include "init_common.hpp"

namespace choreo::persist::detail {

int reduction_unit(const char* call, MPI_Datatype type) {
  const int size = element_size(call, type);  // refuses NULL and empty types
  if (mpi::detail::is_contiguous(type)) return size;
  int ints = 0, addresses = 0, types = 0, combiner = 0;
  MPI_Type_get_envelope(type, &ints, &addresses, &types, &combiner);
  MPI_Aint lower = 0, extent = 0, true_lower = 0, true_extent = 0;
  MPI_Type_get_extent(type, &lower, &extent);
  MPI_Type_get_true_extent(type, &true_lower, &true_extent);
  if (combiner == MPI_COMBINER_NAMED && lower == 0 && true_lower == 0)
    return static_cast<int>(extent);  // a pair type and its padding
  throw Error(
      fmt::format("{}: the datatype is derived and not contiguous (size {}, extent {}); MPI "
                  "defines its reductions on predefined types, which choreo takes, pair types "
                  "(MPI_DOUBLE_INT, ...) included; for a user-defined op on a derived type use "
                  "MPI's own collective",
                  call, size, extent));
}

}  // namespace choreo::persist::detail
