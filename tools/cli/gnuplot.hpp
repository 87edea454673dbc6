#pragma once
// Figures through gnuplot, shared by the commands that draw (`select --plot`, `jitter sweep`).
#include <cstdint>
#include <string>

namespace choreo::cli {

/// Runs gnuplot on `script`, which must `set output` to `output`. The output file is created
/// first, so a path that cannot be written fails with one line instead of gnuplot falling
/// back to the terminal (PNG bytes on stdout); gnuplot's own chatter is discarded. Throws
/// choreo::Error when gnuplot is missing or fails.
void run_gnuplot(const std::string& script, const std::string& output);

/// `path` quoted for a gnuplot script; throws choreo::Error for a path gnuplot cannot take
/// (a quote or a line break in it).
std::string gnuplot_quoted(const std::string& path);

/// Tick labels a person reads at a glance, for `set xtics (...)` / `set ytics (...)`:
/// sizes at powers of 4 from `low` to `high` ("16 B", "1 KiB", "64 MiB"; every 16th or 64th
/// power over a wide range, so about eight ticks), times at the decades around [low, high]
/// seconds ("1 us", "10 ms"), powers of two of a count ("2^10").
std::string size_tics(std::int64_t low, std::int64_t high);
std::string time_tics(double low, double high);
std::string power_of_two_tics(int low_exponent, int high_exponent);

}  // namespace choreo::cli
