#include "choreo/core/io.hpp"

#include <fmt/format.h>

#include <array>
#include <fstream>

#include "choreo/core/binary_schedule.hpp"
#include "choreo/core/error.hpp"
#include "choreo/core/goal_io.hpp"
#include "choreo/core/json_io.hpp"
#include "in_file.hpp"

namespace choreo {

std::string read_text_file(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (error || !fs::exists(status))
    throw Error(fmt::format("cannot read {}: no such file or no permission", path.string()));
  if (fs::is_directory(status))
    throw Error(fmt::format("cannot read {}: it is a directory; give a file", path.string()));
  // A device such as /dev/zero never ends: only regular files and pipes are read.
  if (!fs::is_regular_file(status) && !fs::is_fifo(status))
    throw Error(fmt::format("cannot read {}: it is a device or socket, not a file", path.string()));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("cannot read {}: no such file or no permission", path.string()));
  std::string text;
  std::array<char, 1 << 16> chunk;
  while (in.read(chunk.data(), chunk.size()) || in.gcount() > 0) {
    if (text.size() + static_cast<std::size_t>(in.gcount()) > kMaxFileBytes)
      throw Error(
          fmt::format("cannot read {}: it is larger than 2^35 bytes (32 GiB), the most "
                      "choreo reads (docs/formats.md, Limits)",
                      path.string()));
    text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) throw Error(fmt::format("reading {} failed", path.string()));
  return text;
}

void write_text_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    throw Error(fmt::format("cannot write {}: check that its folder exists", path.string()));
  out << text;
  if (!out.flush()) throw Error(fmt::format("writing {} failed (disk full?)", path.string()));
}

namespace {
enum class Format { Json, Goal, Binary };

Format format_of(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  if (ext == ".json") return Format::Json;
  if (ext == ".goal") return Format::Goal;
  if (ext == ".cbs") return Format::Binary;
  throw Error(
      fmt::format("{}: unknown extension \"{}\"; use .json, .goal or .cbs", path.string(), ext));
}

}  // namespace

Schedule load_schedule(const std::filesystem::path& path) {
  Format format = format_of(path);
  if (format == Format::Binary) {
    BinaryScheduleInfo info;
    const CompactSchedule compact = load_binary(path, &info);
    return choreo::expand(compact, info.algorithm);
  }
  std::string text = read_text_file(path);
  return detail::in_file(path, [&] {
    return format == Format::Json ? schedule_from_json(text) : schedule_from_goal(text);
  });
}

void save_schedule(const Schedule& schedule, const std::filesystem::path& path) {
  if (format_of(path) == Format::Binary)
    return save_binary(detail::in_file(path, [&] { return choreo::compact(schedule); }),
                       schedule.algorithm, path);
  write_text_file(path, format_of(path) == Format::Json ? schedule_to_json(schedule)
                                                        : schedule_to_goal(schedule));
}

Pattern load_pattern(const std::filesystem::path& path) {
  if (path.extension() != ".json")
    throw Error(fmt::format("{}: patterns are JSON files (.json)", path.string()));
  std::string text = read_text_file(path);
  return detail::in_file(path, [&] { return pattern_from_json(text); });
}

void save_pattern(const Pattern& pattern, const std::filesystem::path& path) {
  write_text_file(path, pattern_to_json(pattern));
}

}  // namespace choreo
