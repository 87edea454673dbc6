#pragma once
// Where an irregular collective's blocks sit (private): one block per rank (gatherv, scatterv,
// allgatherv, alltoallv) or per neighbour (neighbor_alltoallv), block k being counts[k]
// elements of a datatype at displs[k] of its extents, as MPI counts them.
#include <mpi.h>

#include <cstdint>

#include "driver.hpp"
#include "plans.hpp"

namespace choreo::persist::detail {

/// A datatype an init makes, freed when the init returns (the driver holds a duplicate).
struct OwnedType {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  OwnedType() = default;
  OwnedType(const OwnedType&) = delete;
  OwnedType& operator=(const OwnedType&) = delete;
  ~OwnedType();
};

/// The blocks of a buffer and how the driver moves it: a contiguous type in place, block k at
/// displs[k] x its size; any other type whose packed form is its data back to back
/// (element_size) as one element of an indexed type of the blocks (made into `indexed`), packed
/// whole at start where `input` and unpacked at completion where `output`, in which image the
/// blocks sit back to back in order. Throws on a negative count or displacement (`whose`
/// names what a block belongs to: "rank", "neighbour").
struct AllBlocks {
  VectorBlocks blocks;
  Layout layout;
};
AllBlocks all_blocks(const char* call, const char* whose, const int counts[], const int displs[],
                     int blocks, MPI_Datatype type, bool input, bool output, OwnedType& indexed);

}  // namespace choreo::persist::detail
