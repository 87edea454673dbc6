#include "choreo/core/run_result.hpp"

#include <fmt/format.h>

#include <limits>
#include <nlohmann/json.hpp>

#include "choreo/core/error.hpp"
#include "choreo/core/limits.hpp"
#include "json_read.hpp"

namespace choreo {

namespace {
constexpr const char* kRunFormat = "choreo.run/1";
}

std::string run_result_to_json(const RunResult& r) {
  for (const auto& [text, what] :
       {std::pair{&r.label, "the run's label"}, std::pair{&r.schedule, "the schedule's path"},
        std::pair{&r.algorithm, "the schedule's algorithm name"},
        std::pair{&r.engine, "the engine's name"}})
    json_string(*text, what);  // throws unless UTF-8
  nlohmann::ordered_json j{
      {"format", kRunFormat},
      {"label", r.label},
      {"schedule", r.schedule},
      {"algorithm", r.algorithm},
      {"engine", r.engine},
      {"ranks", r.ranks},
      {"warmup", r.warmup},
      {"repetitions", r.repetitions},
      {"messages", r.messages},
      {"bytes_per_iteration", r.bytes_per_iteration},
      {"bytes_verified", r.bytes_verified},
      {"seconds", {{"median", r.median}, {"min", r.min}, {"max", r.max}, {"samples", r.seconds}}}};
  return j.dump(2) + "\n";
}

RunResult run_result_from_json(const std::string& text) {
  const nlohmann::json j = parse_json(text);
  if (!j.is_object() || !j.contains("format") || j["format"] != kRunFormat)
    throw Error(fmt::format(
        "not a run result: expected \"format\": \"{}\" (written by choreo-mpi run --json)",
        kRunFormat));
  const std::string top = "top level";
  check_keys(j, top,
             {"format", "label", "schedule", "algorithm", "engine", "ranks", "warmup",
              "repetitions", "messages", "bytes_per_iteration", "bytes_verified", "seconds"});
  constexpr auto kMaxCount = std::numeric_limits<std::int64_t>::max();
  constexpr auto kMaxInt = std::numeric_limits<int>::max();
  RunResult r;
  r.label = get_text(j, top, "label");
  r.schedule = get_text(j, top, "schedule");
  r.algorithm = get_text(j, top, "algorithm");
  r.engine = get_text(j, top, "engine");
  r.ranks = static_cast<int>(get_integer(j, top, "ranks", 1, limits::kMaxRanks));
  r.warmup = static_cast<int>(get_integer(j, top, "warmup", 0, kMaxInt));
  r.repetitions = static_cast<int>(get_integer(j, top, "repetitions", 1, kMaxInt));
  r.messages = get_integer(j, top, "messages", 0, kMaxCount);
  r.bytes_per_iteration = get_integer(j, top, "bytes_per_iteration", 0, kMaxCount);
  r.bytes_verified = get_integer(j, top, "bytes_verified", 0, kMaxCount);
  const auto seconds = j.find("seconds");
  if (seconds == j.end() || !seconds->is_object())
    throw Error(
        "top level: \"seconds\" must be an object {\"median\", \"min\", \"max\", \"samples\"}");
  check_keys(*seconds, "seconds", {"median", "min", "max", "samples"});
  r.median = get_finite(*seconds, "seconds", "median", 0);
  r.min = get_finite(*seconds, "seconds", "min", 0);
  r.max = get_finite(*seconds, "seconds", "max", 0);
  const auto samples = seconds->find("samples");
  if (samples == seconds->end() || !samples->is_array())
    throw Error("seconds: \"samples\" must be an array of seconds");
  for (std::size_t i = 0; i < samples->size(); ++i)
    r.seconds.push_back(as_finite((*samples)[i], fmt::format("seconds.samples[{}]", i), 0));
  return r;
}

}  // namespace choreo
