// The strict JSON reader shared by choreo's JSON formats (src/core/json_read.hpp): a key given
// twice, a number beyond a double and text that is not UTF-8 are errors naming the place,
// never a silently changed document.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

#include "../../src/core/json_read.hpp"
#include "../../src/core/text.hpp"
#include "choreo/core/error.hpp"
#include "choreo/core/goal_io.hpp"
#include "choreo/core/json_io.hpp"
#include "choreo/core/run_result.hpp"
#include "error_of.hpp"

namespace choreo {
namespace {

using test::error_of;
using ::testing::HasSubstr;

std::string parse_error(const std::string& text) {
  return error_of([&] { parse_json(text); });
}

TEST(JsonRead, ADuplicateKeyIsAnErrorWithItsPath) {
  // The issue's case: nlohmann keeps the last "requires", silently dropping the dependency.
  const std::string schedule =
      R"({"format": "choreo.schedule/1", "ranks": 1, "programs": [{"rank": 0, "ops": [
        {"id": 0, "op": "calc", "seconds": 1},
        {"id": 1, "op": "calc", "seconds": 1, "requires": [0], "requires": []}]}]})";
  EXPECT_EQ(error_of([&] { schedule_from_json(schedule); }),
            "invalid JSON: programs[0].ops[1].requires: the key \"requires\" appears twice in "
            "one object; keep one (JSON does not say which one counts)");
  EXPECT_THAT(parse_error(R"({"a": 1, "b": {"c": 2}, "a": 3})"),
              HasSubstr("invalid JSON: a: the key \"a\" appears twice"));
  EXPECT_THAT(parse_error(R"([{"x": 1}, {"y": 1, "y": 2}])"),
              HasSubstr("invalid JSON: [1].y: the key \"y\" appears twice"));
  EXPECT_THAT(parse_error(R"({"k": {"": 1, "": 2}})"), HasSubstr("the key \"\" appears twice"));
  // The same key in different objects, and in nested ones, is fine.
  EXPECT_NO_THROW(parse_json(R"({"a": {"a": {"a": 1}}, "b": [{"a": 1}, {"a": 2}]})"));
  EXPECT_NO_THROW(parse_ordered_json(R"({"a": {"a": 1}, "b": {"a": 1}})"));
  EXPECT_THAT(error_of([] { parse_ordered_json(R"({"a": 1, "a": 1})"); }),
              HasSubstr("the key \"a\" appears twice"));
}

TEST(JsonRead, ANumberBeyondADoubleNamesItsKey) {
  const std::string schedule =
      R"({"format": "choreo.schedule/1", "ranks": 1, "programs": [{"rank": 0, "ops": [
        {"id": 0, "op": "calc", "seconds": 1e400}]}]})";
  EXPECT_EQ(error_of([&] { schedule_from_json(schedule); }),
            "invalid JSON: programs[0].ops[0].seconds: number overflow parsing '1e400'; numbers "
            "must fit a double");
  EXPECT_THAT(parse_error("[1, 2, -1e999]"), HasSubstr("invalid JSON: [2]: number overflow"));
  EXPECT_NO_THROW(parse_json("[1.7976931348623157e308, 1e-400]"));  // the largest, an underflow
}

TEST(JsonRead, SyntaxErrorsKeepNlohmannsPlace) {
  EXPECT_THAT(parse_error("{\"a\": }"),
              HasSubstr("invalid JSON: parse error at line 1, column 7: syntax error"));
  EXPECT_THAT(parse_error(""), HasSubstr("invalid JSON"));
  EXPECT_THAT(parse_error("{\"a\": \"\xff\"}"), HasSubstr("invalid JSON"));  // not UTF-8
}

TEST(JsonRead, IntegersWithinBounds) {
  const auto doc = parse_json(
      R"({"small": -5, "big": 18446744073709551615, "max": 9223372036854775807, "f": 1.5})");
  EXPECT_EQ(get_integer(doc, "top", "small", -10, 10), -5);
  EXPECT_EQ(get_integer(doc, "top", "max", 0, INT64_MAX), INT64_MAX);
  EXPECT_THAT(error_of([&] { get_integer(doc, "top", "big", 0, INT64_MAX); }),
              HasSubstr("top: \"big\" = 18446744073709551615 is out of range: it must be 0 to "
                        "9223372036854775807"));
  EXPECT_THAT(error_of([&] { get_integer(doc, "top", "small", 0, 10); }),
              HasSubstr("\"small\" = -5 is out of range"));
  EXPECT_THAT(error_of([&] { get_integer(doc, "top", "f", 0, 10); }),
              HasSubstr("top: \"f\" must be an integer, not 1.5"));
  EXPECT_THAT(error_of([&] { get_integer(doc, "top", "none", 0, 10); }),
              HasSubstr("top: missing \"none\""));
}

// The writers refuse a name JSON cannot hold, rather than write a file no reader takes back.
TEST(JsonRead, WritersRefuseTextThatIsNotUtf8) {
  EXPECT_EQ(json_string("r\xc3\xa9", "the name"), "\"r\xc3\xa9\"");
  EXPECT_THAT(error_of([] { json_string("\xff", "the schedule's algorithm name"); }),
              HasSubstr("the schedule's algorithm name is not UTF-8 text"));
  Schedule s;
  s.ranks = 1;
  s.programs.resize(1);
  s.algorithm = "bad\xc0\xaf";
  EXPECT_THAT(error_of([&] { schedule_to_json(s); }), HasSubstr("not UTF-8"));
  // Found by fuzzing: GOAL's "num_ranks 0" reads as an empty schedule, which JSON cannot hold.
  EXPECT_THAT(error_of([] { schedule_to_json(Schedule{}); }),
              HasSubstr("cannot write the schedule as JSON: it has 0 ranks"));
}

// Found by fuzzing choreo import: a schedule built in memory beyond the limits was written and
// then refused by the reader. The writers now refuse it.
TEST(JsonRead, WritersRefuseWhatNoReaderTakesBack) {
  Schedule s;
  s.ranks = 1;
  s.programs.resize(1);
  s.programs[0].ops.resize(1);
  s.programs[0].ops[0].kind = OpKind::Calc;
  s.programs[0].ops[0].nanoseconds = 1000000000000000;
  EXPECT_EQ(schedule_from_json(schedule_to_json(s)), s);  // the limit itself round-trips
  s.programs[0].ops[0].nanoseconds += 1;
  EXPECT_THAT(error_of([&] { schedule_to_json(s); }),
              HasSubstr("cannot write the schedule as JSON: rank 0, op 0 (calc"));
  EXPECT_THAT(error_of([&] { schedule_to_goal(s); }),
              HasSubstr("cannot write the schedule as GOAL: rank 0, op 0"));
}

// ---------------------------------------------------------------------------------------
// is_utf8 against a decoder written the other way round: decode a code point by its lead
// byte's bit pattern, then refuse overlong forms, surrogates and values beyond U+10FFFF.

std::optional<std::size_t> reference_sequence_length(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[at + i]); };
  const unsigned char lead = byte(0);
  std::size_t length = 0;
  std::uint32_t code = 0;
  if ((lead & 0x80) == 0) return 1;
  if ((lead & 0xE0) == 0xC0)
    length = 2, code = lead & 0x1Fu;
  else if ((lead & 0xF0) == 0xE0)
    length = 3, code = lead & 0x0Fu;
  else if ((lead & 0xF8) == 0xF0)
    length = 4, code = lead & 0x07u;
  else
    return std::nullopt;
  if (at + length > text.size()) return std::nullopt;
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return std::nullopt;
    code = (code << 6) | (byte(i) & 0x3Fu);
  }
  const std::uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < smallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF))
    return std::nullopt;
  return length;
}

bool reference_is_utf8(std::string_view text) {
  for (std::size_t at = 0; at < text.size();) {
    const auto length = reference_sequence_length(text, at);
    if (!length) return false;
    at += *length;
  }
  return true;
}

TEST(Utf8, MatchesTheReferenceOnEveryShortSequence) {
  // Every 1- and 2-byte string, and every 3-byte string whose first byte is not ASCII.
  std::string text;
  int valid = 0;
  for (int a = 0; a < 256; ++a) {
    text = std::string(1, static_cast<char>(a));
    ASSERT_EQ(is_utf8(text), reference_is_utf8(text)) << a;
    for (int b = 0; b < 256; ++b) {
      text = {static_cast<char>(a), static_cast<char>(b)};
      ASSERT_EQ(is_utf8(text), reference_is_utf8(text)) << a << " " << b;
      if (a < 0xC0) continue;
      for (int c = 0x70; c < 0xD0; ++c) {
        text = {static_cast<char>(a), static_cast<char>(b), static_cast<char>(c)};
        const bool expected = reference_is_utf8(text);
        ASSERT_EQ(is_utf8(text), expected) << a << " " << b << " " << c;
        valid += expected;
      }
    }
  }
  EXPECT_GT(valid, 1000);
}

TEST(Utf8, FourByteSequencesAtTheEdges) {
  for (int a : {0xF0, 0xF3, 0xF4, 0xF5})
    for (int b = 0x70; b < 0xD0; ++b)
      for (int c : {0x7F, 0x80, 0xBF, 0xC0})
        for (int d : {0x7F, 0x80, 0xBF, 0xC0}) {
          const std::string text = {static_cast<char>(a), static_cast<char>(b),
                                    static_cast<char>(c), static_cast<char>(d)};
          ASSERT_EQ(is_utf8(text), reference_is_utf8(text)) << a << " " << b << " " << c;
        }
  EXPECT_TRUE(is_utf8("\xf4\x8f\xbf\xbf"));   // U+10FFFF
  EXPECT_FALSE(is_utf8("\xf4\x90\x80\x80"));  // U+110000
  EXPECT_FALSE(is_utf8("\xed\xa0\x80"));      // a surrogate
  EXPECT_FALSE(is_utf8("\xc0\xaf"));          // an overlong '/'
}

// ---------------------------------------------------------------------------------------
// The run result reader (choreo.run/1) is as strict as the others.

TEST(RunResultRead, RoundTripsAndRejectsWhatItCannotHold) {
  RunResult r;
  r.label = "x";
  r.schedule = "s.json";
  r.algorithm = "direct";
  r.engine = "MPICH";
  r.ranks = 4;
  r.warmup = 1;
  r.repetitions = 2;
  r.messages = 12;
  r.bytes_per_iteration = 96;
  r.bytes_verified = 192;
  r.seconds = {1e-6, 2e-6};
  r.median = 1.5e-6;
  r.min = 1e-6;
  r.max = 2e-6;
  const std::string text = run_result_to_json(r);
  EXPECT_EQ(run_result_to_json(run_result_from_json(text)), text);

  auto with = [&](const std::string& from, const std::string& to) {
    std::string changed = text;
    changed.replace(changed.find(from), from.size(), to);
    return error_of([&] { run_result_from_json(changed); });
  };
  EXPECT_THAT(with("\"ranks\": 4", "\"ranks\": 2147483647"),
              HasSubstr("top level: \"ranks\" = 2147483647 is out of range"));
  EXPECT_THAT(with("\"ranks\": 4", "\"ranks\": 4, \"ranks\": 4"), HasSubstr("appears twice"));
  EXPECT_THAT(with("\"repetitions\": 2", "\"repetitions\": 0"), HasSubstr("out of range"));
  EXPECT_THAT(with("\"label\": \"x\"", "\"label\": 5"), HasSubstr("\"label\" must be a string"));
  EXPECT_THAT(with("\"label\": \"x\"", "\"label\": \"x\", \"colour\": 1"),
              HasSubstr("unknown key \"colour\""));
  EXPECT_THAT(with("\"median\": 1.5e-06", "\"median\": -1"), HasSubstr("out of range"));
  r.label = "\xff";
  EXPECT_THAT(error_of([&] { run_result_to_json(r); }), HasSubstr("the run's label is not UTF-8"));
}

}  // namespace
}  // namespace choreo
