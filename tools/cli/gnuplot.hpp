#pragma once
// Figures through gnuplot, shared by the commands that draw (`select --plot`, `jitter sweep`).
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

}  // namespace choreo::cli
