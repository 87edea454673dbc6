#pragma once
// Each rank's command list of a persistent collective, made locally from the collective's
// sizes (private): no MPI call, no check that the ranks agree. The *_init calls check and
// agree first; the interposition library calls these with what MPI already requires to be
// the same on every rank.
#include <cstdint>
#include <string>

#include "choreo/persist/options.hpp"
#include "plan.hpp"

namespace choreo::persist::detail {

/// A broadcast of `bytes` from `root`: "binomial", "kary_pipeline" or "multitree" (options:
/// arity, parts, segment size, Hockney's alpha and beta).
Plan bcast_plan(const std::string& algorithm, std::int64_t bytes, int root, int ranks, int rank,
                const Options& options);
/// An allreduce of `count` elements of `element_size` bytes: "recdbl" or "ring". Reductions
/// combine the receive's bytes in scratch into the vector in the user buffer.
Plan allreduce_plan(const std::string& algorithm, std::int64_t count, int element_size, int ranks,
                    int rank);
/// The ring allgather of blocks of `block_bytes`, in place in the user buffer.
Plan allgather_plan(std::int64_t block_bytes, int ranks, int rank);

}  // namespace choreo::persist::detail
