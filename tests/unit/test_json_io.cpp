// JSON reader and writer: a literal document read field by field, round trips on random
// schedules, and one clear error for each kind of malformed input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "choreo/core/error.hpp"
#include "choreo/core/json_io.hpp"
#include "schedule_builder.hpp"

namespace choreo {
namespace {

using ::testing::HasSubstr;

const char* kDesignExample =
    R"({"format": "choreo.schedule/1", "ranks": 2, "algorithm": "delay-insertion",
 "programs": [
   {"rank": 0, "ops": [
     {"id": 0, "op": "send", "peer": 1, "bytes": 64512, "tag": 0, "slot": 0},
     {"id": 1, "op": "delay", "seconds": 0.0004, "slot": 1},
     {"id": 2, "op": "recv", "peer": 1, "bytes": 64512, "tag": 0, "requires": [0]}]},
   {"rank": 1, "ops": [
     {"id": 0, "op": "recv", "peer": -1, "bytes": 64512, "tag": -1, "nic": 2},
     {"id": 1, "op": "send", "peer": 0, "bytes": 64512, "irequires": [0], "buf": 2, "offset": 128},
     {"id": 2, "op": "copy", "bytes": 16, "buf": 1, "offset": 0, "src_buf": 2, "src_offset": 8},
     {"id": 3, "op": "calc", "seconds": 1.5e-6, "cpu": 1}]}]})";

TEST(JsonIo, ReadsTheDesignExampleFieldByField) {
  Schedule s = schedule_from_json(kDesignExample);
  ASSERT_EQ(s.ranks, 2);
  EXPECT_EQ(s.algorithm, "delay-insertion");
  const auto& r0 = s.programs[0].ops;
  ASSERT_EQ(r0.size(), 3u);
  EXPECT_EQ(r0[0].kind, OpKind::Send);
  EXPECT_EQ(r0[0].peer, 1);
  EXPECT_EQ(r0[0].bytes, 64512);
  EXPECT_EQ(r0[0].slot, 0);
  EXPECT_EQ(r0[1].kind, OpKind::Delay);
  EXPECT_EQ(r0[1].nanoseconds, 400000);
  EXPECT_EQ(r0[2].requires_completed, std::vector<std::int64_t>{0});
  const auto& r1 = s.programs[1].ops;
  EXPECT_EQ(r1[0].peer, kAny);
  EXPECT_EQ(r1[0].tag, kAny);
  EXPECT_EQ(r1[1].tag, 0);  // default
  EXPECT_EQ(r1[1].requires_started, std::vector<std::int64_t>{0});
  EXPECT_EQ(r1[1].region, (Region{2, 128}));
  EXPECT_EQ(r1[2].kind, OpKind::Copy);
  EXPECT_EQ(r1[2].source, (Region{2, 8}));
  EXPECT_EQ(r1[3].nanoseconds, 1500);
  EXPECT_EQ(r1[3].cpu, 1);
  EXPECT_EQ(r1[0].nic, 2);
}

TEST(JsonIo, WriterSpellsTheStableFormat) {
  Schedule s = test::Builder(2).send(0, 0, 1, 8).recv(1, 0, 0, 8).build();
  s.algorithm = "direct";
  EXPECT_EQ(schedule_to_json(s),
            "{\"format\": \"choreo.schedule/1\", \"ranks\": 2, \"algorithm\": \"direct\",\n"
            " \"programs\": [\n"
            "  {\"rank\": 0, \"ops\": [\n"
            "    {\"id\":0,\"op\":\"send\",\"peer\":1,\"bytes\":8,\"tag\":0}]},\n"
            "  {\"rank\": 1, \"ops\": [\n"
            "    {\"id\":0,\"op\":\"recv\",\"peer\":0,\"bytes\":8,\"tag\":0}]}]}\n");
}

TEST(JsonIo, RoundTripsRandomSchedules) {
  std::mt19937_64 rng(2026);
  for (int i = 0; i < 300; ++i) {
    Schedule s = test::random_schedule(rng);
    ASSERT_EQ(schedule_from_json(schedule_to_json(s)), s) << schedule_to_json(s);
  }
}

TEST(JsonIo, RoundTripsPatterns) {
  Pattern p{3, {{0, 1, 10}, {2, 1, 0}, {1, 0, 7}}};
  EXPECT_EQ(pattern_from_json(pattern_to_json(p)), p);
}

std::string error_of(const std::string& text) {
  try {
    schedule_from_json(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::string with_op(const std::string& op) {
  return R"({"format": "choreo.schedule/1", "ranks": 2, "programs": [{"rank": 0, "ops": [)" + op +
         "]}]}";
}

TEST(JsonIo, MalformedInputGetsOneClearError) {
  EXPECT_THAT(error_of("{\"format\": "), HasSubstr("invalid JSON"));
  EXPECT_THAT(error_of("[1, 2]"), HasSubstr("expected a JSON object"));
  EXPECT_THAT(error_of("{\"ranks\": 2}"), HasSubstr("missing \"format\""));
  EXPECT_THAT(error_of(R"({"format": "choreo.pattern/1", "ranks": 2, "messages": []})"),
              HasSubstr("is a pattern, not a schedule"));
  EXPECT_THAT(error_of(R"({"format": "choreo.schedule/9", "ranks": 2, "programs": []})"),
              HasSubstr("unsupported format"));
  EXPECT_THAT(error_of(R"({"format": "choreo.schedule/1", "ranks": 0, "programs": []})"),
              HasSubstr("at least 1"));
  EXPECT_THAT(error_of(R"({"format": "choreo.schedule/1", "ranks": 2})"),
              HasSubstr("missing \"programs\""));
  EXPECT_THAT(error_of(with_op(R"({"id": 0, "op": "sned", "peer": 1, "bytes": 8})")),
              HasSubstr("unknown op \"sned\"; ops are send, recv, delay, calc, copy"));
  EXPECT_THAT(error_of(with_op(R"({"id": 0, "op": "send", "peer": 1})")),
              HasSubstr("missing \"bytes\""));
  EXPECT_THAT(error_of(with_op(R"({"id": 0, "op": "send", "peer": "one", "bytes": 8})")),
              HasSubstr("\"peer\" must be an integer"));
  EXPECT_THAT(
      error_of(with_op(R"({"id": 0, "op": "send", "peer": 1, "bytes": 8, "requries": [0]})")),
      HasSubstr("unknown key \"requries\""));
  EXPECT_THAT(error_of(with_op(R"({"id": 0, "op": "delay", "peer": 1, "seconds": 1})")),
              HasSubstr("unknown key \"peer\""));
  EXPECT_THAT(
      error_of(with_op(R"({"id": 0, "op": "send", "peer": 1, "bytes": 99999999999999999999})")),
      HasSubstr("\"bytes\""));
  EXPECT_THAT(error_of(with_op(R"({"id": 0, "op": "send", "peer": 3000000000, "bytes": 8})")),
              HasSubstr("out of range"));
  EXPECT_THAT(error_of(with_op(R"({"id": 0, "op": "calc", "seconds": "soon"})")),
              HasSubstr("\"seconds\" must be a number"));
  EXPECT_THAT(
      error_of(
          R"({"format": "choreo.schedule/1", "ranks": 2, "programs": [{"rank": 5, "ops": []}]})"),
      HasSubstr("rank 5 is out of range"));
  EXPECT_THAT(
      error_of(
          R"({"format": "choreo.schedule/1", "ranks": 2, "programs": [{"rank": 1, "ops": []}, {"rank": 1, "ops": []}]})"),
      HasSubstr("second program"));
}

TEST(JsonIo, MalformedPatterns) {
  auto error = [](const std::string& text) {
    try {
      pattern_from_json(text);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_THAT(
      error(
          R"({"format": "choreo.pattern/1", "ranks": 2, "messages": [{"src": 0, "dst": 2, "bytes": 1}]})"),
      HasSubstr("rank 2 is out of range"));
  EXPECT_THAT(
      error(
          R"({"format": "choreo.pattern/1", "ranks": 2, "messages": [{"src": 1, "dst": 1, "bytes": 1}]})"),
      HasSubstr("cannot send to itself"));
  EXPECT_THAT(error(R"({"format": "choreo.schedule/1", "ranks": 2, "programs": []})"),
              HasSubstr("is a schedule, not a pattern"));
}

}  // namespace
}  // namespace choreo
