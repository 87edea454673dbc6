// Machine profiles: the JSON round trip, one clear error per malformed profile (naming the
// file and the field), the confidence interval of the median behind the stopping rule, and
// the Hockney and LogGP fits recovering known parameters from synthetic measurements.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>

#include "choreo/core/error.hpp"
#include "choreo/model/profile.hpp"
#include "synthetic_profile.hpp"

namespace choreo {
namespace {

using namespace choreo::testing;

using ::testing::AllOf;
using ::testing::HasSubstr;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("choreo_profile_test_" + std::to_string(getpid()) + "_" + name + ".json"))
      .string();
}

TEST(Profile, WriteReadRoundTripIsExact) {
  const MachineProfile p = synthetic_profile();
  const std::string path = temp_path("round_trip");
  write_profile(p, path);
  const MachineProfile back = read_profile(path);
  std::filesystem::remove(path);
  EXPECT_EQ(back, p);
  EXPECT_EQ(back.format, "choreo.profile/1");
  EXPECT_EQ(back.pingpong.size(), 27u);                        // 1 B .. 64 MiB
  EXPECT_EQ(back.pingpong[3].seconds, p.pingpong[3].seconds);  // raw samples kept, bit for bit
}

TEST(Profile, CollectiveTablesRoundTripAndAreOptional) {
  MachineProfile p = synthetic_profile(0.01, 7);
  std::mt19937 rng(7);
  p.collective.ranks = 2;
  for (std::int64_t s = 1; s <= (1 << 20); s *= 4) {
    p.collective.exchange.push_back({s, 1, noisy(2 * one_way(s), 7, 0.01, rng)});
    p.collective.memcpy.push_back({s, 1, noisy(static_cast<double>(s) * 1e-11, 7, 0.01, rng)});
  }
  const std::string text = profile_to_json(p);
  EXPECT_THAT(text, HasSubstr("\"collective\": {\"ranks\": 2,\n  \"exchange\": ["));
  EXPECT_EQ(profile_from_json(text), p);

  // A profile from before the collective tables reads, without them.
  nlohmann::json old = nlohmann::json::parse(text);
  old.erase("collective");
  const MachineProfile back = profile_from_json(old.dump());
  EXPECT_TRUE(back.collective.empty());
  EXPECT_EQ(back.pingpong, p.pingpong);
}

TEST(Profile, WriterPutsOneSizePerLine) {
  const std::string text = profile_to_json(synthetic_profile());
  EXPECT_THAT(text, HasSubstr("{\"format\": \"choreo.profile/1\",\n"));
  EXPECT_THAT(text, HasSubstr("\n  {\"bytes\":2,\"batch\":8,\"seconds\":["));
  EXPECT_THAT(text, HasSubstr("\"pairs\": [[0,1]]"));
}

TEST(Profile, WriteRefusesAProfileThatCouldNotBeRead) {
  MachineProfile p = synthetic_profile();
  p.memcpy.clear();
  EXPECT_THAT([&] { write_profile(p, temp_path("refused")); },
              ::testing::ThrowsMessage<Error>(HasSubstr("\"memcpy\" is empty")));
  EXPECT_FALSE(std::filesystem::exists(temp_path("refused")));
}

/// Writes the synthetic profile changed by `edit` and returns read_profile's message.
std::string error_reading(const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json doc = nlohmann::json::parse(profile_to_json(synthetic_profile(0.01, 7)));
  edit(doc);
  const std::string path = temp_path("malformed");
  std::ofstream(path) << doc.dump();
  std::string message = "(no error)";
  try {
    read_profile(path);
  } catch (const Error& e) {
    message = e.what();
  }
  std::filesystem::remove(path);
  EXPECT_THAT(message, AllOf(HasSubstr(path), HasSubstr("choreo-mpi calibrate -o")));
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  return message;
}

TEST(Profile, EveryMalformedProfileGetsOneClearLine) {
  using nlohmann::json;
  EXPECT_THAT(error_reading([](json& d) { d.erase("pingpong"); }),
              HasSubstr("top level: missing \"pingpong\""));
  EXPECT_THAT(error_reading([](json& d) { d["format"] = "choreo.schedule/1"; }),
              HasSubstr("\"format\" is \"choreo.schedule/1\", not \"choreo.profile/1\""));
  EXPECT_THAT(error_reading([](json& d) { d.erase("format"); }),
              HasSubstr("missing \"format\": \"choreo.profile/1\""));
  EXPECT_THAT(
      error_reading([](json& d) {
        d["collective"] = {{"ranks", 3}, {"exchange", d["pingpong"]}, {"memcpy", d["memcpy"]}};
      }),
      HasSubstr("collective: \"ranks\" is 3, more than the 2 ranks of the calibration run"));
  EXPECT_THAT(error_reading([](json& d) {
                d["collective"] = {{"ranks", 2}, {"exchange", d["pingpong"]}};
              }),
              HasSubstr("collective: missing \"memcpy\""));
  EXPECT_THAT(
      error_reading([](json& d) {
        d["collective"] = {{"ranks", 2}, {"exchange", json::array()}, {"memcpy", d["memcpy"]}};
      }),
      HasSubstr("collective: \"exchange\" is empty"));
  EXPECT_THAT(error_reading([](json& d) { std::swap(d["pingpong"][2], d["pingpong"][3]); }),
              HasSubstr("pingpong[3]: 4 B does not follow 8 B; sizes must be strictly ascending"));
  EXPECT_THAT(error_reading([](json& d) { d["memcpy"][1]["seconds"] = json::array(); }),
              HasSubstr("memcpy[1] (2 B): \"seconds\" is empty"));
  EXPECT_THAT(error_reading([](json& d) { d["pingpong"][0]["seconds"][2] = nullptr; }),
              HasSubstr("pingpong[0] (1 B): seconds[2] is null, not a number of seconds"));
  EXPECT_THAT(error_reading([](json& d) { d["pingpong"][0]["seconds"][0] = -1e-6; }),
              HasSubstr("seconds[0] is -1e-06; it must be finite and >= 0"));
  EXPECT_THAT(error_reading([](json& d) { d["pingpong"][0]["bytes"] = 0; }),
              HasSubstr("pingpong[0]: \"bytes\" is 0; it must be at least 1"));
  EXPECT_THAT(error_reading([](json& d) { d["memcpy"] = json::array(); }),
              HasSubstr("\"memcpy\" is empty"));
  EXPECT_THAT(error_reading([](json& d) { d["burst"]["sizes"][1]["bytes"] = 3; }),
              HasSubstr("burst.sizes[1]: 3 B is not among the ping-pong sizes"));
  EXPECT_THAT(error_reading([](json& d) { d["pairs"] = json::parse("[[0, 2]]"); }),
              HasSubstr("pairs[0] is [0,2]; its ranks must differ and lie in 0..1"));
  EXPECT_THAT(error_reading([](json& d) { d["ranks"] = 1; }),
              HasSubstr("\"ranks\" is 1; it must be at least 2"));
  EXPECT_THAT(error_reading([](json& d) { d["loggp"].erase("G"); }),
              HasSubstr("loggp: missing \"G\""));
  EXPECT_THAT(error_reading([](json& d) { d["hockney"]["beta"] = "fast"; }),
              HasSubstr("hockney: \"beta\" is \"fast\", not a number of seconds"));
  EXPECT_THAT(error_reading([](json& d) { d["overhead"].erase("recv"); }),
              HasSubstr("overhead: missing \"recv\""));
  EXPECT_THAT(error_reading([](json& d) { d["pingpong"][0]["sceonds"] = 1; }),
              HasSubstr("pingpong[0]: unknown key \"sceonds\""));
  EXPECT_THAT(error_reading([](json& d) { d["host"] = 7; }),
              HasSubstr("top level: \"host\" must be a string, not 7"));
}

TEST(Profile, NamesTheFileWhenItIsMissingOrNotJson) {
  const std::string missing = temp_path("does_not_exist");
  EXPECT_THAT(
      [&] { read_profile(missing); },
      ::testing::ThrowsMessage<Error>(AllOf(HasSubstr("cannot read " + missing + ": no such file"),
                                            HasSubstr("choreo-mpi calibrate -o " + missing))));
  const std::string path = temp_path("not_json");
  std::ofstream(path) << "{\"format\": ";
  EXPECT_THAT([&] { read_profile(path); },
              ::testing::ThrowsMessage<Error>(HasSubstr(path + ": invalid JSON")));
  std::filesystem::remove(path);
}

TEST(Profile, MedianOfEvenAndOddCounts) {
  EXPECT_EQ((SizeSamples{1, 1, {3, 1, 2}}.median()), 2);
  EXPECT_EQ((SizeSamples{1, 1, {4, 1, 3, 2}}.median()), 2.5);
  EXPECT_EQ((SizeSamples{1, 1, {}}.median()), 0);
}

TEST(Profile, ConfidenceIntervalOfTheMedianUsesOrderStatistics) {
  // Le Boudec's table: n = 6 -> [x1, x6], n = 10 -> [x2, x9]; below 6 there is none.
  EXPECT_TRUE(std::isinf(median_ci95({1, 2, 3, 4, 5}).high));
  EXPECT_TRUE(std::isinf(relative_ci_half_width({1, 2, 3, 4, 5})));
  const Interval six = median_ci95({6, 5, 4, 3, 2, 1});
  EXPECT_EQ(six.low, 1);
  EXPECT_EQ(six.high, 6);
  const Interval ten = median_ci95({10, 9, 8, 7, 6, 5, 4, 3, 2, 1});
  EXPECT_EQ(ten.low, 2);
  EXPECT_EQ(ten.high, 9);
  // (9 - 2) / 2 relative to the median 5.5.
  EXPECT_DOUBLE_EQ(relative_ci_half_width({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}), 3.5 / 5.5);
  // The interval tightens as samples accumulate: the stopping rule terminates.
  std::mt19937 rng(7);
  const double few = relative_ci_half_width(noisy(1e-6, 20, 0.05, rng));
  const double many = relative_ci_half_width(noisy(1e-6, 2000, 0.05, rng));
  EXPECT_LT(many, few);
  EXPECT_LT(many, 0.01);
}

TEST(Profile, HockneyFitRecoversAlphaAndBeta) {
  const double alpha = 2e-6, beta = 1 / 5e9;
  std::mt19937 rng(1);
  std::vector<SizeSamples> samples;
  for (std::int64_t s = 1; s <= (64 << 20); s *= 2)
    samples.push_back({s, 1, noisy(alpha + beta * static_cast<double>(s), 21, 0.02, rng)});
  const HockneyFit fit = fit_hockney(samples);
  EXPECT_NEAR(fit.alpha, alpha, 0.02 * alpha);
  EXPECT_NEAR(fit.beta, beta, 0.02 * beta);
  EXPECT_NEAR(fit.at(1 << 20), alpha + beta * (1 << 20), 0.02 * fit.at(1 << 20));
}

TEST(Profile, HockneyFitNeedsTwoSizesAndPositiveTimes) {
  EXPECT_THAT(
      [] {
        fit_hockney({{8, 1, {1e-6}}});
      },
      ::testing::ThrowsMessage<Error>(HasSubstr("at 2 sizes or more, not 1")));
  EXPECT_THAT(
      [] {
        fit_hockney({{8, 1, {1e-6}}, {16, 1, {0.0}}});
      },
      ::testing::ThrowsMessage<Error>(HasSubstr("16 B has median 0")));
}

// SMPI without simulated computation times every memcpy as 0: the profile must still load.
TEST(Profile, HockneyFitOfAllZeroTimesIsZero) {
  const HockneyFit fit = fit_hockney({{8, 1, {0.0, 0.0}}, {1 << 20, 1, {0.0}}});
  EXPECT_EQ(fit.alpha, 0);
  EXPECT_EQ(fit.beta, 0);
}

TEST(Profile, LogGPFitRecoversKnownParameters) {
  const MachineProfile p = synthetic_profile();
  EXPECT_NEAR(p.loggp.o, kO, 0.02 * kO);
  EXPECT_NEAR(p.loggp.L, kL, 0.05 * kL);
  EXPECT_NEAR(p.loggp.g, kGap, 0.05 * kGap);
  EXPECT_NEAR(p.loggp.G, kG, 0.02 * kG);
  // Without noise the method is exact.
  const MachineProfile exact = synthetic_profile(0, 1);
  EXPECT_NEAR(exact.loggp.L, kL, 1e-15);
  EXPECT_NEAR(exact.loggp.o, kO, 1e-15);
  EXPECT_NEAR(exact.loggp.g, kGap, 1e-15);
  EXPECT_NEAR(exact.loggp.G, kG, 1e-20);
  // And the memcpy line.
  EXPECT_NEAR(exact.memcpy_hockney.alpha, 50e-9, 1e-15);
  EXPECT_NEAR(exact.memcpy_hockney.beta, 5e-11, 1e-20);
}

TEST(Profile, LogGPGapPerByteIgnoresProtocolStepsAndOneDisturbedSize) {
  MachineProfile p = synthetic_profile(0, 1);
  for (SizeSamples& b : p.burst.sizes) {
    if (b.bytes == 1024 || b.bytes == 4096) b.seconds[0] += 15 * 5e-6;  // a rendezvous step
    if (b.bytes == (4 << 20)) b.seconds[0] *= 3;                        // a disturbed size
  }
  const LogGPFit fit = fit_loggp(p.pingpong, p.burst, p.overhead);
  EXPECT_NEAR(fit.G, kG, 1e-3 * kG);
  EXPECT_NEAR(fit.g, kGap, 1e-3 * kGap);
}

TEST(Profile, LogGPFitSaysWhatIsMissing) {
  const MachineProfile p = synthetic_profile(0, 1);
  BurstSamples one_size = p.burst;
  one_size.sizes.resize(1);
  EXPECT_THAT([&] { fit_loggp(p.pingpong, one_size, p.overhead); },
              ::testing::ThrowsMessage<Error>(HasSubstr("burst samples at 2 sizes or more")));
  BurstSamples odd = p.burst;
  odd.sizes[1].bytes = 3;
  EXPECT_THAT([&] { fit_loggp(p.pingpong, odd, p.overhead); },
              ::testing::ThrowsMessage<Error>(HasSubstr("no ping-pong samples at 3 B")));
  OverheadSamples none = p.overhead;
  none.recv.seconds.clear();
  EXPECT_THAT([&] { fit_loggp(p.pingpong, p.burst, none); },
              ::testing::ThrowsMessage<Error>(HasSubstr("receive overhead samples")));
}

}  // namespace
}  // namespace choreo
