#include "config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <functional>
#include <optional>

#include "choreo/core/error.hpp"

namespace choreo::intercept {
namespace {

constexpr std::array<std::string_view, kFunctionCount> kFunctionNames = {
    "MPI_Alltoallv", "MPI_Neighbor_alltoallv",
    "MPI_Allreduce", "MPI_Bcast",
    "MPI_Allgather", "psgemr2d",
    "pdgemr2d",      "pcgemr2d",
    "pzgemr2d",      "pigemr2d",
    "pstrmr2d",      "pdtrmr2d",
    "pctrmr2d",      "pztrmr2d",
    "pitrmr2d",      "MPI_*_init"};

/// Every variable the library reads; any other CHOREO_* name is a misspelling.
/// CHOREO_REDIST_NODE_RANKS is read by the redistribution itself (src/redist/node_exchange.cpp).
constexpr std::array<std::string_view, 9> kVariables = {
    "CHOREO_MODE",     "CHOREO_PROFILE",           "CHOREO_ALLREDUCE",
    "CHOREO_EXCHANGE", "CHOREO_DISABLE",           "CHOREO_REPORT",
    "CHOREO_RECORD",   "CHOREO_REDIST_NODE_RANKS", "CHOREO_PERSISTENT"};

std::string_view trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

std::string lowercase(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

class Reader {
 public:
  Reader(const std::function<const char*(const char*)>& lookup, ConfigReading& reading)
      : lookup_(lookup), reading_(reading) {}

  /// The variable's value, or nullopt when unset. Set-but-empty counts as unset.
  std::optional<std::string_view> value(const char* name) {
    const char* text = lookup_(name);
    if (text == nullptr) return std::nullopt;
    const std::string_view value = trimmed(text);
    if (value.empty()) return std::nullopt;
    // The digest covers every setting, so ranks that read different values are found.
    for (char c : fmt::format("{}={};", name, value))
      reading_.digest = (reading_.digest ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
    return value;
  }
  void problem(const char* name, std::string_view value, const std::string& what) {
    reading_.problems.push_back(fmt::format("{}={}: {}", name, value, what));
  }

 private:
  const std::function<const char*(const char*)>& lookup_;
  ConfigReading& reading_;
};

void read_mode(Reader& reader, Config& config) {
  auto value = reader.value("CHOREO_MODE");
  if (!value) return;
  const std::string mode = lowercase(*value);
  if (mode == "auto")
    config.mode = Mode::Auto;
  else if (mode == "choreo")
    config.mode = Mode::Choreo;
  else if (mode == "mpi")
    config.mode = Mode::Mpi;
  else
    reader.problem("CHOREO_MODE", *value, "not a mode; use auto, choreo or mpi");
}

void read_allreduce(Reader& reader, Config& config) {
  auto value = reader.value("CHOREO_ALLREDUCE");
  if (!value) return;
  const std::string choice = lowercase(*value);
  const char* kFix = "use auto, mpi, resilient or resilient:T=k with k >= 0";
  if (choice == "auto") {
    config.allreduce = AllreduceChoice::Auto;
  } else if (choice == "mpi") {
    config.allreduce = AllreduceChoice::Mpi;
  } else if (choice == "resilient") {
    config.allreduce = AllreduceChoice::Resilient;
  } else if (choice.starts_with("resilient:t=")) {
    const std::string_view digits = std::string_view(choice).substr(12);
    int t = -1;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), t);
    if (digits.empty() || error != std::errc{} || end != digits.data() + digits.size() || t < 0 ||
        t > 30) {
      reader.problem("CHOREO_ALLREDUCE", *value,
                     "T must be a whole number from 0 to 30 (at most log2 of the ranks); " +
                         std::string(kFix));
      return;
    }
    config.allreduce = AllreduceChoice::Resilient;
    config.resilient_t = t;
  } else {
    reader.problem("CHOREO_ALLREDUCE", *value, fmt::format("not a choice; {}", kFix));
  }
}

void read_exchange(Reader& reader, Config& config) {
  auto value = reader.value("CHOREO_EXCHANGE");
  if (!value) return;
  try {
    config.exchange = exchange_algorithm_from_string(lowercase(*value));
  } catch (const Error&) {
    reader.problem("CHOREO_EXCHANGE", *value,
                   "not a schedule; use auto, direct, ring, delay, optimal or optimal-paced");
  }
}

void read_disable(Reader& reader, Config& config) {
  auto value = reader.value("CHOREO_DISABLE");
  if (!value) return;
  std::string_view rest = *value;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view item = trimmed(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    if (item.empty()) continue;
    if (lowercase(item) == "all") {
      config.disabled.set();
      continue;
    }
    const auto known =
        std::find_if(kFunctionNames.begin(), kFunctionNames.end(),
                     [&](std::string_view name) { return lowercase(name) == lowercase(item); });
    if (known == kFunctionNames.end()) {
      reader.problem("CHOREO_DISABLE", *value,
                     fmt::format("{} is not taken by choreo; list some of {} (comma-separated), "
                                 "or all",
                                 item, fmt::join(kFunctionNames, ", ")));
      return;
    }
    config.disabled.set(static_cast<std::size_t>(known - kFunctionNames.begin()));
  }
}

void read_persistent(Reader& reader, Config& config) {
  auto value = reader.value("CHOREO_PERSISTENT");
  if (!value) return;
  const std::string choice = lowercase(*value);
  if (choice == "auto")
    config.persistent = PersistentChoice::Auto;
  else if (choice == "library")
    config.persistent = PersistentChoice::Library;
  else if (choice == "choreo")
    config.persistent = PersistentChoice::Choreo;
  else if (choice == "nonblocking")
    config.persistent = PersistentChoice::Nonblocking;
  else
    reader.problem("CHOREO_PERSISTENT", *value,
                   "not a choice; use auto, library, choreo or nonblocking");
}

void read_report(Reader& reader, Config& config) {
  auto value = reader.value("CHOREO_REPORT");
  if (!value) return;
  if (lowercase(*value) == "stderr") {
    config.report = ReportTarget::Stderr;
  } else if (value->size() > 5 && lowercase(value->substr(value->size() - 5)) == ".json") {
    config.report = ReportTarget::JsonFile;
    config.report_path = std::string(*value);
  } else {
    reader.problem("CHOREO_REPORT", *value,
                   "say where the report goes: stderr, or a file name ending in .json");
  }
}

}  // namespace

std::string_view function_name(Function function) {
  return kFunctionNames[static_cast<std::size_t>(function)];
}

ConfigReading read_config(const std::function<const char*(const char*)>& lookup,
                          const std::vector<std::string>& names) {
  ConfigReading reading;
  Reader reader(lookup, reading);
  Config& config = reading.config;
  read_mode(reader, config);
  if (auto value = reader.value("CHOREO_PROFILE")) config.profile_path = std::string(*value);
  read_allreduce(reader, config);
  read_exchange(reader, config);
  read_disable(reader, config);
  read_report(reader, config);
  read_persistent(reader, config);
  if (auto value = reader.value("CHOREO_RECORD")) config.record_dir = std::string(*value);
  for (const std::string& name : names) {
    if (!name.starts_with("CHOREO_")) continue;
    if (std::find(kVariables.begin(), kVariables.end(), name) != kVariables.end()) continue;
    reading.problems.push_back(fmt::format("{} is not a choreo setting; the settings are {}", name,
                                           fmt::join(kVariables, ", ")));
  }
  return reading;
}

}  // namespace choreo::intercept
