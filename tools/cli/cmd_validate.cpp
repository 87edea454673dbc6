// choreo validate FILE: is this schedule (or pattern) well formed and free of deadlock?
#include <fmt/core.h>

#include "choreo/core/io.hpp"
#include "choreo/core/json_io.hpp"
#include "choreo/core/validate.hpp"
#include "cli/common.hpp"

namespace choreo::cli {
namespace {

bool is_pattern_file(const std::string& path) {
  if (!path.ends_with(".json")) return false;
  auto doc = nlohmann::json::parse(read_text_file(path), nullptr, /*allow_exceptions=*/false);
  return doc.is_object() && doc.value("format", "") == "choreo.pattern/1";
}

void validate_file(const std::string& path, const Global& global) {
  nlohmann::json out{{"file", path}, {"valid", true}};
  if (is_pattern_file(path)) {
    Pattern p = load_pattern(path);  // the reader validates
    const std::int64_t bytes = total_bytes(p);
    out.update({{"kind", "pattern"},
                {"ranks", p.ranks},
                {"messages", p.messages.size()},
                {"bytes", bytes}});
  } else {
    Schedule s = load_schedule(path);
    validate(s);
    std::size_t ops = 0;
    for (const auto& program : s.programs) ops += program.ops.size();
    out.update({{"kind", "schedule"},
                {"ranks", s.ranks},
                {"ops", ops},
                {"messages", s.message_count()},
                {"bytes", s.message_bytes()},
                {"algorithm", s.algorithm}});
  }
  if (global.json) return print_json(out);
  if (out["kind"] == "pattern")
    fmt::print("{}: valid pattern: {} ranks, {} messages, {}\n", path, out["ranks"].get<int>(),
               out["messages"].get<std::size_t>(), human_bytes(out["bytes"].get<double>()));
  else
    fmt::print("{}: valid schedule: {} ranks, {} ops, {} messages ({}), algorithm \"{}\"\n", path,
               out["ranks"].get<int>(), out["ops"].get<std::size_t>(),
               out["messages"].get<std::int64_t>(), human_bytes(out["bytes"].get<double>()),
               out["algorithm"].get<std::string>());
}

}  // namespace

void add_validate_command(CLI::App& app, const Global& global) {
  auto* cmd = app.add_subcommand(
      "validate",
      "Check a schedule (.json or .goal) or a pattern: fields, ids, dependencies, "
      "message matching, sizes and deadlock. One clear line on failure.");
  auto path = std::make_shared<std::string>();
  cmd->add_option("FILE", *path, "Schedule (.json, .goal) or pattern (.json)")->required();
  cmd->callback([path, &global] { validate_file(*path, global); });
}

}  // namespace choreo::cli
