#include "choreo/io.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "choreo/error.hpp"
#include "choreo/goal_io.hpp"
#include "choreo/json_io.hpp"

namespace choreo {

std::string read_text_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("cannot read {}: no such file or no permission", path.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_text_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    throw Error(fmt::format("cannot write {}: check that its folder exists", path.string()));
  out << text;
  if (!out.flush()) throw Error(fmt::format("writing {} failed (disk full?)", path.string()));
}

namespace {
enum class Format { Json, Goal };

Format format_of(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  if (ext == ".json") return Format::Json;
  if (ext == ".goal") return Format::Goal;
  throw Error(fmt::format("{}: unknown extension \"{}\"; use .json or .goal", path.string(), ext));
}

/// Prefixes an error with the file it came from.
template <typename F>
auto in_file(const std::filesystem::path& path, F&& body) {
  try {
    return body();
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", path.string(), e.what()));
  }
}
}  // namespace

Schedule load_schedule(const std::filesystem::path& path) {
  Format format = format_of(path);
  std::string text = read_text_file(path);
  return in_file(path, [&] {
    return format == Format::Json ? schedule_from_json(text) : schedule_from_goal(text);
  });
}

void save_schedule(const Schedule& schedule, const std::filesystem::path& path) {
  write_text_file(path, format_of(path) == Format::Json ? schedule_to_json(schedule)
                                                        : schedule_to_goal(schedule));
}

Pattern load_pattern(const std::filesystem::path& path) {
  if (path.extension() != ".json")
    throw Error(fmt::format("{}: patterns are JSON files (.json)", path.string()));
  std::string text = read_text_file(path);
  return in_file(path, [&] { return pattern_from_json(text); });
}

void save_pattern(const Pattern& pattern, const std::filesystem::path& path) {
  write_text_file(path, pattern_to_json(pattern));
}

}  // namespace choreo
