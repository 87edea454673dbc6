#include "report.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace choreo::intercept {
namespace {

constexpr std::array<std::string_view, kFallbackCount> kFallbackKeys = {
    "choreo_mode_mpi",
    "disabled",
    "configuration_problem",
    "library_built_for_another_mpi",
    "intercommunicator",
    "single_rank",
    "no_topology",
    "multiple_edges_between_ranks",
    "derived_datatype",
    "user_defined_op",
    "model_predicts_no_gain",
    "pattern_does_not_repeat",
    "counts_disagree",
    "no_choreo_algorithm",
    "no_machine_profile",
    "one_node",
    "choreo_measured_slower",
    "mpi_library_persistent_collective",
    "emulated_by_nonblocking_collective"};

double seconds(std::int64_t ns) { return static_cast<double>(ns) * 1e-9; }

}  // namespace

std::string_view fallback_key(Fallback reason) {
  return kFallbackKeys[static_cast<std::size_t>(reason)];
}

std::vector<std::int64_t> flatten(const Counters& counters) {
  std::vector<std::int64_t> words;
  words.reserve(kFunctionCount * kWordsPerFunction);
  for (const FunctionCounters& f : counters) {
    for (const auto* counter : {&f.calls, &f.bytes, &f.choreo, &f.fallback, &f.ns, &f.choreo_ns,
                                &f.fallback_ns, &f.hits, &f.misses, &f.plans, &f.plan_ns})
      words.push_back(counter->load(std::memory_order_relaxed));
    for (const auto& reason : f.reasons) words.push_back(reason.load(std::memory_order_relaxed));
  }
  return words;
}

Totals totals_from(const std::vector<std::int64_t>& sums, const std::vector<std::int64_t>& maxima,
                   int ranks) {
  Totals totals;
  totals.ranks = ranks;
  for (std::size_t k = 0; k < kFunctionCount; ++k) {
    const std::int64_t* w = sums.data() + k * kWordsPerFunction;
    FunctionTotals& f = totals.functions[k];
    for (std::int64_t* field : {&f.calls, &f.bytes, &f.choreo, &f.fallback, &f.ns, &f.choreo_ns,
                                &f.fallback_ns, &f.hits, &f.misses, &f.plans, &f.plan_ns})
      *field = *w++;
    for (std::int64_t& reason : f.reasons) reason = *w++;
    f.busiest_rank_ns = maxima[k * kWordsPerFunction + 4];  // the ns word
  }
  return totals;
}

std::string report_json(const Totals& totals) {
  nlohmann::ordered_json functions = nlohmann::ordered_json::object();
  for (std::size_t k = 0; k < kFunctionCount; ++k) {
    const FunctionTotals& f = totals.functions[k];
    if (f.calls == 0) continue;
    nlohmann::ordered_json reasons = nlohmann::ordered_json::object();
    for (std::size_t r = 0; r < kFallbackCount; ++r)
      if (f.reasons[r] > 0) reasons[std::string(kFallbackKeys[r])] = f.reasons[r];
    functions[std::string(function_name(static_cast<Function>(k)))] = {
        {"calls", f.calls},
        {"bytes", f.bytes},
        {"choreo", f.choreo},
        {"fallback", f.fallback},
        {"fallback_reasons", reasons},
        {"seconds", seconds(f.ns)},
        {"choreo_seconds", seconds(f.choreo_ns)},
        {"fallback_seconds", seconds(f.fallback_ns)},
        {"busiest_rank_seconds", seconds(f.busiest_rank_ns)},
        {"cache", {{"hits", f.hits}, {"misses", f.misses}}},
        {"plans", f.plans},
        {"plan_seconds", seconds(f.plan_ns)},
    };
  }
  nlohmann::ordered_json report = {{"format", "choreo.report/1"},
                                   {"ranks", totals.ranks},
                                   {"mpi_library", totals.mpi_library},
                                   {"mode", totals.mode},
                                   {"functions", functions}};
  return report.dump(2) + "\n";
}

std::string report_text(const Totals& totals) {
  std::string out = fmt::format(
      "choreo report: {} ranks, {}, CHOREO_MODE={} (counts and seconds summed over the ranks)\n",
      totals.ranks, totals.mpi_library, totals.mode);
  out += fmt::format("{:<24}{:>10}{:>10}{:>10}{:>10}{:>10}{:>8}{:>12}{:>14}\n", "function", "calls",
                     "choreo", "fallback", "hits", "misses", "plans", "seconds", "busiest rank");
  std::string reasons;
  for (std::size_t k = 0; k < kFunctionCount; ++k) {
    const FunctionTotals& f = totals.functions[k];
    if (f.calls == 0) continue;
    const std::string_view name = function_name(static_cast<Function>(k));
    out += fmt::format("{:<24}{:>10}{:>10}{:>10}{:>10}{:>10}{:>8}{:>12.6f}{:>14.6f}\n", name,
                       f.calls, f.choreo, f.fallback, f.hits, f.misses, f.plans, seconds(f.ns),
                       seconds(f.busiest_rank_ns));
    for (std::size_t r = 0; r < kFallbackCount; ++r)
      if (f.reasons[r] > 0)
        reasons +=
            fmt::format("  {} handed to MPI: {} x {}\n", name, f.reasons[r], kFallbackKeys[r]);
  }
  return out + reasons;
}

}  // namespace choreo::intercept
