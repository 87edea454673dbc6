#pragma once
// Choosing T, the number of redundant exchanges, without a sweep.
#include <cstdint>

#include "choreo/jitter/params.hpp"

namespace choreo::jitter {

/// T for an allreduce on `ranks` ranks under `p`'s noise; see docs/jitter.md for how the rule
/// was derived from `choreo jitter sweep`. Throws choreo::Error on bad parameters.
int auto_redundant_exchanges(const JitterParams& p, std::int64_t ranks);

}  // namespace choreo::jitter
