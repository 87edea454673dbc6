#include "block_layout.hpp"

#include <fmt/format.h>

#include "../mpi/datatype_layout.hpp"
#include "choreo/core/error.hpp"
#include "init_common.hpp"

namespace choreo::persist::detail {

OwnedType::~OwnedType() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (type != MPI_DATATYPE_NULL && !finalized) MPI_Type_free(&type);
}

AllBlocks all_blocks(const char* call, const char* whose, const int counts[], const int displs[],
                     int blocks, MPI_Datatype type, bool input, bool output, OwnedType& indexed) {
  AllBlocks all;
  const int size = element_size(call, type);
  for (int k = 0; k < blocks; ++k) {
    if (counts[k] < 0 || displs[k] < 0)
      throw Error(fmt::format("{}: {} {}'s count {} and displacement {} must be 0 or more", call,
                              whose, k, counts[k], displs[k]));
    all.blocks.bytes.push_back(std::int64_t{counts[k]} * size);
    all.blocks.offsets.push_back(std::int64_t{displs[k]} * size);
  }
  if (blocks == 0 || mpi::detail::is_contiguous(type)) return all;
  MPI_Type_indexed(blocks, counts, displs, type, &indexed.type);
  MPI_Type_commit(&indexed.type);
  all.layout = {indexed.type, 1, input, output};
  std::int64_t packed = 0;
  for (std::size_t k = 0; k < all.blocks.bytes.size(); ++k) {
    all.blocks.offsets[k] = packed;
    packed += all.blocks.bytes[k];
  }
  return all;
}

}  // namespace choreo::persist::detail
