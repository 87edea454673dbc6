#pragma once
// Intercepted MPI_Bcast, MPI_Allreduce and MPI_Allgather on one communicator: the decision
// (collective_choice.hpp) and each rank's command list (src/persist), cached per call shape
// (function, bytes, root, op, datatype), and the persistent point-to-point requests of the
// buffers last used, made again only when the program passes other buffers. All of it is
// local: the shape is what MPI requires to be equal on every rank, so the ranks choose, plan
// and cache alike without a word.
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "../persist/driver.hpp"
#include "collective_choice.hpp"
#include "config.hpp"

namespace choreo::intercept {

struct CollectiveShape {
  Function function = Function::Bcast;
  std::int64_t bytes = 0;  ///< bcast: the message; allreduce: the vector; allgather: a block
  std::int64_t count = 0;  ///< allreduce: elements
  int root = 0;
  MPI_Op op = MPI_OP_NULL;
  MPI_Datatype type = MPI_DATATYPE_NULL;  ///< allreduce: the (predefined) datatype
  friend bool operator==(const CollectiveShape&, const CollectiveShape&) = default;
};

struct CollectiveEntry {
  CollectiveShape shape;
  CollectiveChoice choice;
  std::uint64_t last_use = 0;
  std::unique_ptr<persist::detail::Plan> plan;  ///< made at the first call choreo takes
  std::unique_ptr<persist::detail::Driver> driver;
  persist::detail::UserBuffers bound;  ///< the buffers the driver's requests use
};

struct CollectiveSite {
  std::uint64_t calls = 0;
  std::vector<CollectiveEntry> cache;
  std::vector<std::byte> packed;  ///< non-contiguous data, packed for the command list
};

struct CommState;

/// The cached entry of `shape`, its choice made on first use; `hit` tells which.
CollectiveEntry& collective_entry(CommState& state, CollectiveShape shape, bool& hit);

/// Runs the entry's command list on `buffers` (making its requests again for new buffers).
void run_collective(CommState& state, CollectiveEntry& entry, persist::detail::UserBuffers buffers,
                    MPI_Datatype reduce_type, MPI_Op op);

}  // namespace choreo::intercept
