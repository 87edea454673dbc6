#pragma once
// One rank's program of the pairwise-exchange alltoall (private), written into any
// ProgramBuilder after the own block's copy: alltoall_pairwise calls it for every rank, a
// persistent alltoall (src/persist) for its own rank only. Documented with the generator in
// choreo/coll/generators.hpp.
#include <cstdint>

#include "program_builder.hpp"
#include "steps.hpp"

namespace choreo::coll::detail {

/// Rank r's P-1 sendrecv steps after the frontier (the own block's copy): at distance d, tag
/// d-1, send to r+d and receive from r-d, each step after the one before.
template <ProgramBuilder Builder>
void alltoall_pairwise_rank(Builder& b, Frontier& order, int ranks, int r,
                            std::int64_t bytes_per_rank) {
  for (int distance = 1; distance < ranks; ++distance)
    sendrecv_step(b, order, mod_add(r, distance, ranks), bytes_per_rank,
                  mod_sub(r, distance, ranks), bytes_per_rank, distance - 1);
}

}  // namespace choreo::coll::detail
