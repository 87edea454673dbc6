#pragma once
// One call of a ScaLAPACK redistribution routine, served by choreo: the descriptors read and
// checked, agreed on where some process is outside a grid, the plan found in the context's
// cache (or made: this process's own messages only) and its data moved.
#include "call.hpp"

namespace choreo::scalapack {

/// Serves the call, or returns false when it must go to ScaLAPACK's own routine (a setting
/// says so; the reason is counted). Throws choreo::Error, on the processes that see the
/// problem, for anything ScaLAPACK would reject or a clearer error would help with.
bool serve(const Call& call);

}  // namespace choreo::scalapack
