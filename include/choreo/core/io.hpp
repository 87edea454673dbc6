#pragma once
// File helpers shared by the tools: read a schedule or pattern by extension.
#include <filesystem>
#include <string>

#include "choreo/core/pattern.hpp"
#include "choreo/core/schedule.hpp"

namespace choreo {

/// The largest file read_text_file reads (docs/formats.md, Limits).
inline constexpr std::size_t kMaxFileBytes = std::size_t{1} << 35;

/// The whole file. Throws choreo::Error for a missing file, a directory, a device (which
/// could stream forever, like /dev/zero) or a file above kMaxFileBytes.
std::string read_text_file(const std::filesystem::path& path);
void write_text_file(const std::filesystem::path& path, const std::string& text);

/// Reads `.json` (choreo.schedule/1), `.goal` or `.cbs` (binary, core/binary_schedule.hpp: ids
/// become program positions); any other extension is an error.
Schedule load_schedule(const std::filesystem::path& path);
/// Writes `.json`, `.goal` or `.cbs` by extension (.cbs keeps what the simulator reads: no
/// slots, buffer regions or ids).
void save_schedule(const Schedule& schedule, const std::filesystem::path& path);

Pattern load_pattern(const std::filesystem::path& path);
void save_pattern(const Pattern& pattern, const std::filesystem::path& path);

}  // namespace choreo
