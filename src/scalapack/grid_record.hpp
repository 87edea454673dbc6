#pragma once
// Who a BLACS grid is, independent of any other context: its processes' MPI_COMM_WORLD ranks in
// grid order and a 128-bit identity hashed from them. Made once per grid, at the first
// redistribution that uses it, and kept on the grid's communicator as an attribute, so it goes
// when the program calls Cblacs_gridexit (and a new grid that reuses the context's number is
// never mistaken for the old one).
#include <mpi.h>

#include <array>
#include <cstdint>
#include <vector>

#include "blacs.hpp"

namespace choreo::scalapack {

struct GridRecord {
  int nprow = 0, npcol = 0;
  std::vector<int> world_ranks;            ///< by grid position, row-major
  std::array<std::int64_t, 2> identity{};  ///< two independent 63-bit hashes of the above
};

/// The record of `context`'s grid; this process must be in it (info.mine()). Local: no
/// communication.
const GridRecord& grid_record(int context, const GridInfo& info);

}  // namespace choreo::scalapack
