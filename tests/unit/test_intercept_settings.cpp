// The interposition library's settings (CHOREO_* variables) and report, without MPI: every
// documented value reads as documented, every malformed one gives one line naming the
// variable and the fix, and the report's numbers are the counters' (compared with the JSON
// parsed back, not with the code that wrote it).
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../../src/intercept/config.hpp"
#include "../../src/intercept/report.hpp"

namespace choreo::intercept {
namespace {

ConfigReading read(const std::map<std::string, std::string>& variables) {
  std::vector<std::string> names;
  for (const auto& [name, value] : variables) names.push_back(name);
  names.push_back("PATH");
  return read_config(
      [&](const char* name) -> const char* {
        auto found = variables.find(name);
        return found == variables.end() ? nullptr : found->second.c_str();
      },
      names);
}

TEST(InterceptSettings, DefaultsWhenNothingIsSet) {
  const ConfigReading reading = read({});
  EXPECT_TRUE(reading.problems.empty());
  EXPECT_EQ(reading.config.mode, Mode::Auto);
  EXPECT_EQ(reading.config.allreduce, AllreduceChoice::Auto);
  EXPECT_EQ(reading.config.exchange, ExchangeAlgorithm::Auto);
  EXPECT_EQ(reading.config.report, ReportTarget::None);
  EXPECT_TRUE(reading.config.disabled.none());
  EXPECT_TRUE(reading.config.enabled(Function::Bcast));
  EXPECT_EQ(reading.config.persistent, PersistentChoice::Auto);
}

TEST(InterceptSettings, EveryDocumentedValue) {
  const ConfigReading reading = read({{"CHOREO_MODE", " Choreo "},
                                      {"CHOREO_PROFILE", "/tmp/machine.json"},
                                      {"CHOREO_ALLREDUCE", "resilient:T=3"},
                                      {"CHOREO_EXCHANGE", "optimal-paced"},
                                      {"CHOREO_DISABLE", "MPI_Bcast, mpi_allgather"},
                                      {"CHOREO_REPORT", "out/report.JSON"}});
  ASSERT_TRUE(reading.problems.empty()) << reading.problems.front();
  const Config& c = reading.config;
  EXPECT_EQ(c.mode, Mode::Choreo);
  EXPECT_EQ(c.profile_path, "/tmp/machine.json");
  EXPECT_EQ(c.allreduce, AllreduceChoice::Resilient);
  EXPECT_EQ(c.resilient_t, 3);
  EXPECT_EQ(c.exchange, ExchangeAlgorithm::OptimalPaced);
  EXPECT_TRUE(c.disabled[static_cast<std::size_t>(Function::Bcast)]);
  EXPECT_TRUE(c.disabled[static_cast<std::size_t>(Function::Allgather)]);
  EXPECT_FALSE(c.enabled(Function::Bcast));
  EXPECT_TRUE(c.enabled(Function::Alltoallv));
  EXPECT_EQ(c.report, ReportTarget::JsonFile);
  EXPECT_EQ(c.report_path, "out/report.JSON");

  EXPECT_EQ(read({{"CHOREO_ALLREDUCE", "resilient"}}).config.resilient_t, -1);
  EXPECT_EQ(read({{"CHOREO_REPORT", "stderr"}}).config.report, ReportTarget::Stderr);
  EXPECT_TRUE(read({{"CHOREO_DISABLE", "all"}}).config.disabled.all());
  EXPECT_FALSE(read({{"CHOREO_MODE", "mpi"}}).config.enabled(Function::Alltoallv));
  EXPECT_EQ(read({{"CHOREO_PERSISTENT", "Choreo"}}).config.persistent, PersistentChoice::Choreo);
  EXPECT_EQ(read({{"CHOREO_PERSISTENT", "nonblocking"}}).config.persistent,
            PersistentChoice::Nonblocking);
  EXPECT_EQ(read({{"CHOREO_PERSISTENT", "library"}}).config.persistent, PersistentChoice::Library);
  EXPECT_EQ(read({{"CHOREO_PERSISTENT", "AUTO"}}).config.persistent, PersistentChoice::Auto);
  EXPECT_FALSE(read({{"CHOREO_DISABLE", "MPI_*_init"}}).config.enabled(Function::PersistentInit));
}

TEST(InterceptSettings, MalformedValuesNameTheVariableAndTheFix) {
  const std::vector<std::pair<std::map<std::string, std::string>, std::string>> cases = {
      {{{"CHOREO_MODE", "fast"}}, "CHOREO_MODE=fast: not a mode; use auto, choreo or mpi"},
      {{{"CHOREO_ALLREDUCE", "resilient:T=x"}}, "CHOREO_ALLREDUCE=resilient:T=x: T must be"},
      {{{"CHOREO_ALLREDUCE", "resilient:T=-1"}}, "T must be a whole number from 0 to 30"},
      {{{"CHOREO_ALLREDUCE", "fastest"}}, "CHOREO_ALLREDUCE=fastest: not a choice; use auto"},
      {{{"CHOREO_EXCHANGE", "best"}}, "CHOREO_EXCHANGE=best: not a schedule; use auto, direct"},
      {{{"CHOREO_DISABLE", "MPI_Reduce"}}, "MPI_Reduce is not taken by choreo; list some of"},
      {{{"CHOREO_REPORT", "report.txt"}}, "stderr, or a file name ending in .json"},
      {{{"CHOREO_PERSISTENT", "mpi"}},
       "CHOREO_PERSISTENT=mpi: not a choice; use auto, library, choreo or nonblocking"},
      {{{"CHOREO_MDOE", "choreo"}}, "CHOREO_MDOE is not a choreo setting; the settings are"},
  };
  for (const auto& [variables, expected] : cases) {
    const ConfigReading reading = read(variables);
    ASSERT_EQ(reading.problems.size(), 1u) << expected;
    EXPECT_NE(reading.problems[0].find(expected), std::string::npos) << reading.problems[0];
  }
}

TEST(InterceptSettings, DigestTellsSettingsApart) {
  EXPECT_EQ(read({{"CHOREO_MODE", "choreo"}}).digest, read({{"CHOREO_MODE", "choreo"}}).digest);
  EXPECT_NE(read({{"CHOREO_MODE", "choreo"}}).digest, read({{"CHOREO_MODE", "mpi"}}).digest);
  EXPECT_NE(read({}).digest, read({{"CHOREO_REPORT", "stderr"}}).digest);
}

TEST(InterceptReport, JsonCarriesTheSummedCounters) {
  Counters rank0, rank1;
  auto& a0 = rank0[static_cast<std::size_t>(Function::Alltoallv)];
  a0.calls = 10;
  a0.choreo = 7;
  a0.fallback = 3;
  a0.reasons[static_cast<std::size_t>(Fallback::NoGain)] = 3;
  a0.ns = 2'000'000'000;
  a0.hits = 5;
  a0.misses = 2;
  auto& a1 = rank1[static_cast<std::size_t>(Function::Alltoallv)];
  a1.calls = 10;
  a1.choreo = 10;
  a1.ns = 500'000'000;
  // What MPI_Reduce with MPI_SUM and MPI_MAX would give over the two ranks.
  std::vector<std::int64_t> w0 = flatten(rank0), w1 = flatten(rank1), sums(w0.size()),
                            maxima(w0.size());
  for (std::size_t k = 0; k < w0.size(); ++k) {
    sums[k] = w0[k] + w1[k];
    maxima[k] = std::max(w0[k], w1[k]);
  }
  const nlohmann::json report = nlohmann::json::parse(report_json(totals_from(sums, maxima, 2)));
  EXPECT_EQ(report["format"], "choreo.report/1");
  EXPECT_EQ(report["ranks"], 2);
  const auto& f = report["functions"]["MPI_Alltoallv"];
  EXPECT_EQ(f["calls"], 20);
  EXPECT_EQ(f["choreo"], 17);
  EXPECT_EQ(f["fallback"], 3);
  EXPECT_EQ(f["fallback_reasons"]["model_predicts_no_gain"], 3);
  EXPECT_DOUBLE_EQ(f["seconds"].get<double>(), 2.5);
  EXPECT_DOUBLE_EQ(f["busiest_rank_seconds"].get<double>(), 2.0);
  EXPECT_EQ(f["cache"]["hits"], 5);
  EXPECT_FALSE(report["functions"].contains("MPI_Bcast"));  // never called: not listed
}

}  // namespace
}  // namespace choreo::intercept
