#pragma once
// Human-readable quantities for tables and messages.
#include <string>

namespace choreo {

/// "64 B", "63.0 KiB", "1.5 MiB".
std::string human_bytes(double bytes);
/// "812 ns", "3.40 us", "12.000 ms", "1.200 s".
std::string human_seconds(double seconds);

}  // namespace choreo
