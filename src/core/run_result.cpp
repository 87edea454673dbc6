#include "choreo/run_result.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "choreo/error.hpp"

namespace choreo {

namespace {
constexpr const char* kRunFormat = "choreo.run/1";
}

std::string run_result_to_json(const RunResult& r) {
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
  try {
    auto j = nlohmann::json::parse(text);
    if (j.value("format", "") != kRunFormat)
      throw Error(fmt::format(
          "not a run result: expected \"format\": \"{}\" (written by choreo-mpi run --json)",
          kRunFormat));
    RunResult r;
    r.label = j.at("label").get<std::string>();
    r.schedule = j.at("schedule").get<std::string>();
    r.algorithm = j.at("algorithm").get<std::string>();
    r.engine = j.at("engine").get<std::string>();
    r.ranks = j.at("ranks").get<int>();
    r.warmup = j.at("warmup").get<int>();
    r.repetitions = j.at("repetitions").get<int>();
    r.messages = j.at("messages").get<std::int64_t>();
    r.bytes_per_iteration = j.at("bytes_per_iteration").get<std::int64_t>();
    r.bytes_verified = j.at("bytes_verified").get<std::int64_t>();
    const auto& s = j.at("seconds");
    r.median = s.at("median").get<double>();
    r.min = s.at("min").get<double>();
    r.max = s.at("max").get<double>();
    r.seconds = s.at("samples").get<std::vector<double>>();
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("malformed run result: {}", e.what()));
  }
}

}  // namespace choreo
