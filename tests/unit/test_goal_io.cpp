// Tests of the GOAL reader and writer against hand-written expectations: parsed fields of a
// hand-written file, the exact text the writer produces, round trips of random schedules,
// every class of reader error, comments, CRLF, and random corruptions of valid text.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "choreo/core/error.hpp"
#include "choreo/core/goal_io.hpp"
#include "choreo/core/limits.hpp"
#include "choreo/core/schedule.hpp"

namespace choreo {
namespace {

using ::testing::HasSubstr;

Op send_op(std::int64_t id, int peer, std::int64_t bytes, int tag) {
  Op op;
  op.id = id;
  op.kind = OpKind::Send;
  op.peer = peer;
  op.bytes = bytes;
  op.tag = tag;
  return op;
}

Op recv_op(std::int64_t id, int peer, std::int64_t bytes, int tag) {
  Op op = send_op(id, peer, bytes, tag);
  op.kind = OpKind::Recv;
  return op;
}

Op timed_op(std::int64_t id, OpKind kind, std::int64_t nanoseconds) {
  Op op;
  op.id = id;
  op.kind = kind;
  op.nanoseconds = nanoseconds;
  return op;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The message of the choreo::Error the reader throws, or a marker when it throws none.
std::string reader_error(const std::string& text) {
  try {
    schedule_from_goal(text);
  } catch (const Error& error) {
    return error.what();
  }
  return "<no error>";
}

std::string writer_error(const Schedule& schedule) {
  try {
    schedule_to_goal(schedule);
  } catch (const Error& error) {
    return error.what();
  }
  return "<no error>";
}

std::string with_crlf(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Reading a hand-written file.

// The schedule tests/data/dissemination4.goal describes, built independently of the reader.
Schedule expected_dissemination4() {
  Schedule s;
  s.ranks = 4;
  s.programs.resize(4);
  {
    auto& ops = s.programs[0].ops;
    ops = {send_op(0, 1, 1, 0), recv_op(1, 3, 1, 0), send_op(2, 2, 1, 1), recv_op(3, 2, 1, 1)};
    ops[2].requires_completed = {1};
    ops[3].requires_started = {0};
  }
  {
    // No l<N> labels: ids are given in program order.
    auto& ops = s.programs[1].ops;
    ops = {send_op(0, 2, 1, 0), recv_op(1, 0, 1, 0), send_op(2, 3, 1, 1), recv_op(3, 3, 1, 1)};
    ops[2].requires_completed = {1};
  }
  {
    auto& ops = s.programs[2].ops;
    ops = {send_op(0, 3, 1, 0), recv_op(1, 1, 1, 0), send_op(2, 0, 1, 1), recv_op(3, 0, 1, 1)};
    ops[2].requires_completed = {1};
    ops[3].requires_started = {0};
  }
  {
    // l1 and l0 take ids 1 and 0; the other ops get the free ids 2, 3, 4 in program order.
    auto& ops = s.programs[3].ops;
    Op calc = timed_op(0, OpKind::Calc, 500);
    calc.cpu = 1;
    ops = {send_op(1, 0, 1, 0), recv_op(2, 2, 1, 0), calc, send_op(3, 1, 1, 1),
           recv_op(4, 1, 1, 1)};
    ops[0].requires_completed = {0};
    ops[4].requires_completed = {0};
  }
  return s;
}

TEST(GoalRead, HandWrittenDisseminationFile) {
  const std::string text = read_file(std::string(CHOREO_TEST_DATA) + "/dissemination4.goal");
  ASSERT_FALSE(text.empty()) << "tests/data/dissemination4.goal is missing";
  const Schedule s = schedule_from_goal(text);
  EXPECT_EQ(s.ranks, 4);
  EXPECT_EQ(s.algorithm, "");
  ASSERT_EQ(s.programs.size(), 4u);
  // A few fields spelled out, so a failure says which one.
  const Op& rank3_calc = s.programs[3].ops.at(2);
  EXPECT_EQ(rank3_calc.kind, OpKind::Calc);
  EXPECT_EQ(rank3_calc.nanoseconds, 500);
  EXPECT_EQ(rank3_calc.cpu, 1);
  EXPECT_EQ(rank3_calc.id, 0);
  EXPECT_EQ(s.programs[1].ops.at(1).tag, 0);  // `recv 1b from 0` without tag: tag 0
  EXPECT_EQ(s.programs[0].ops.at(3).requires_started, std::vector<std::int64_t>{0});
  EXPECT_EQ(s, expected_dissemination4());
}

TEST(GoalRead, AllOpFieldsAndAnnotations) {
  const Schedule s = schedule_from_goal(
      "// @choreo algorithm=delay-insertion\n"
      "num_ranks 3\n"
      "rank 1 {\n"
      "l4: send 65536b to 2 tag 7 cpu 1 nic 2\n"
      "l5: recv 12b from -1 tag -1 nic 1 cpu 3\n"
      "// @choreo op=delay slot=4\n"
      "l6: calc 1000\n"
      "// @choreo op=copy bytes=4096\n"
      "// @choreo buf=2 offset=8 src_buf=1 src_offset=-16\n"
      "l9: calc 0 cpu 5\n"
      "l5 requires l4\n"
      "l9 irequires l5\n"
      "l9 requires l6\n"
      "}\n");
  ASSERT_EQ(s.ranks, 3);
  EXPECT_EQ(s.algorithm, "delay-insertion");
  EXPECT_TRUE(s.programs[0].ops.empty());
  EXPECT_TRUE(s.programs[2].ops.empty());
  const auto& ops = s.programs[1].ops;
  ASSERT_EQ(ops.size(), 4u);

  Op send = send_op(4, 2, 65536, 7);
  send.cpu = 1;
  send.nic = 2;
  EXPECT_EQ(ops[0], send);

  Op recv = recv_op(5, kAny, 12, kAny);
  recv.cpu = 3;
  recv.nic = 1;
  recv.requires_completed = {4};
  EXPECT_EQ(ops[1], recv);

  Op delay = timed_op(6, OpKind::Delay, 1000);
  delay.slot = 4;
  EXPECT_EQ(ops[2], delay);

  Op copy;
  copy.id = 9;
  copy.kind = OpKind::Copy;
  copy.bytes = 4096;
  copy.cpu = 5;
  copy.region = {2, 8};
  copy.source = {1, -16};
  copy.requires_started = {5};
  copy.requires_completed = {6};
  EXPECT_EQ(ops[3], copy);
}

TEST(GoalRead, FreshIdsSkipIdsOfLabels) {
  const Schedule s = schedule_from_goal(
      "num_ranks 1\n"
      "rank 0 {\n"
      "calc 1\n"       // fresh: 0
      "l05: calc 2\n"  // leading zero: not an id label, fresh: 2 (1 is taken by l1)
      "l1: calc 3\n"   // 1
      "foo: calc 4\n"  // fresh: 4 (3 is taken by l3)
      "m0: calc 5\n"   // not the writer's spelling: fresh 5
      "l3: calc 6\n"   // 3
      "m12: calc 7\n"  // -12
      "L2: calc 8\n"   // case matters: fresh 6
      "foo requires l05\n"
      "}\n");
  std::vector<std::int64_t> ids;
  for (const Op& op : s.programs[0].ops) ids.push_back(op.id);
  EXPECT_EQ(ids, (std::vector<std::int64_t>{0, 2, 1, 4, 5, 3, -12, 6}));
  EXPECT_EQ(s.programs[0].ops[3].requires_completed, std::vector<std::int64_t>{2});
}

TEST(GoalRead, LabelsArePerRankBlock) {
  const Schedule s = schedule_from_goal(
      "num_ranks 2\n"
      "rank 0 {\n"
      "a: calc 1\n"
      "b: calc 2\n"
      "b requires a\n"
      "}\n"
      "rank 1 {\n"
      "b: calc 3\n"
      "a: calc 4\n"
      "b requires a\n"
      "}\n");
  EXPECT_EQ(s.programs[0].ops[1].requires_completed, std::vector<std::int64_t>{0});
  EXPECT_EQ(s.programs[1].ops[0].requires_completed, std::vector<std::int64_t>{1});
}

TEST(GoalRead, ExtremeIdsAndNumbers) {
  const Schedule s = schedule_from_goal(
      "num_ranks 1\n"
      "rank 0 {\n"
      "l9223372036854775807: send 1125899906842624b to 2147483647 tag 2147483647\n"
      "m9223372036854775808: calc 1000000000000000\n"
      "l9223372036854775808: calc 1\n"  // too big for an id: an ordinary label, fresh id 0
      "}\n");
  const auto& ops = s.programs[0].ops;
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[0].id, std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(ops[0].bytes, limits::kMaxBytes);
  EXPECT_EQ(ops[1].nanoseconds, limits::kMaxNanoseconds);
  EXPECT_EQ(ops[0].peer, std::numeric_limits<int>::max());
  EXPECT_EQ(ops[1].id, std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(ops[2].id, 0);
}

TEST(GoalRead, EmptyScheduleAndMissingRanks) {
  EXPECT_EQ(schedule_from_goal("num_ranks 0\n"), Schedule{});
  const Schedule s = schedule_from_goal("num_ranks 3\nrank 1 {\ncalc 5\n}");  // no final newline
  ASSERT_EQ(s.programs.size(), 3u);
  EXPECT_TRUE(s.programs[0].ops.empty());
  EXPECT_EQ(s.programs[1].ops.size(), 1u);
  EXPECT_TRUE(s.programs[2].ops.empty());
}

// ---------------------------------------------------------------------------------------
// Comments and line endings.

constexpr const char* kPlainText =
    "num_ranks 2\n"
    "rank 0 {\n"
    "l0: send 8b to 1 tag 3\n"
    "// @choreo slot=2\n"
    "l1: calc 100\n"
    "l1 requires l0\n"
    "}\n"
    "rank 1 {\n"
    "l0: recv 8b from 0 tag 3\n"
    "}\n";

TEST(GoalRead, CommentsInEveryPosition) {
  const std::string commented =
      "// leading comment\n"
      "/* block comment before num_ranks */ num_ranks /* between */ 2 // trailing\n"
      "\n"
      "/* a block comment\n"
      "   over several lines */\n"
      "rank 0 { // after the brace\n"
      "  // an ordinary comment between ops is ignored\n"
      "l0: /* inside */ send 8b to 1 /* x */ tag 3  // trailing comment\n"
      "// @choreo slot=2\n"
      "// a plain comment between an annotation and its op\n"
      "\n"
      "l1: calc 100 /* trailing block */\n"
      "/* before a dependency */ l1 requires l0 // after it\n"
      "  // @choreo \n"  // a bare annotation says nothing, even right before '}'
      "} // after the closing brace\n"
      "/**/rank 1 {/* */\n"
      "\tl0 : recv 8b from 0 tag 3\n"
      "}\n"
      "// @choreofoo is not an annotation, just a comment\n"
      "// @choreo\n"  // a bare annotation says nothing
      "// final comment without newline";
  EXPECT_EQ(schedule_from_goal(commented), schedule_from_goal(kPlainText));
}

TEST(GoalRead, CrlfLineEndings) {
  EXPECT_EQ(schedule_from_goal(with_crlf(kPlainText)), schedule_from_goal(kPlainText));
  const std::string text = read_file(std::string(CHOREO_TEST_DATA) + "/dissemination4.goal");
  EXPECT_EQ(schedule_from_goal(with_crlf(text)), expected_dissemination4());
}

TEST(GoalRead, BlockCommentOverLinesSeparatesStatements) {
  const Schedule s = schedule_from_goal("num_ranks 1\nrank 0 {\ncalc 1 /*\n*/ calc 2\n}\n");
  EXPECT_EQ(s.programs[0].ops.size(), 2u);
}

// ---------------------------------------------------------------------------------------
// Writing.

TEST(GoalWrite, ExactText) {
  Schedule s;
  s.ranks = 3;
  s.algorithm = "delay insertion/v2";
  s.programs.resize(3);
  {
    Op send = send_op(0, 1, 64, 0);
    send.slot = 0;
    Op delay = timed_op(1, OpKind::Delay, 400000);
    delay.slot = 1;
    Op recv = recv_op(2, kAny, 64, kAny);
    recv.region = {1, 128};
    recv.requires_completed = {0};
    Op calc = timed_op(3, OpKind::Calc, 250);
    calc.cpu = 1;
    calc.requires_started = {1};
    calc.requires_completed = {2};
    s.programs[0].ops = {send, delay, recv, calc};
  }
  {
    Op copy;
    copy.id = -5;
    copy.kind = OpKind::Copy;
    copy.bytes = 4096;
    copy.region = {2, 0};
    copy.source = {0, 64};
    Op send = send_op(7, 0, 10, 3);
    send.cpu = 1;
    send.nic = 2;
    send.requires_completed = {-5};
    s.programs[2].ops = {copy, send};
  }
  const std::string expected =
      "// @choreo algorithm=delay%20insertion/v2\n"
      "num_ranks 3\n"
      "rank 0 {\n"
      "// @choreo slot=0\n"
      "l0: send 64b to 1 tag 0\n"
      "// @choreo op=delay slot=1\n"
      "l1: calc 400000\n"
      "// @choreo buf=1 offset=128\n"
      "l2: recv 64b from -1 tag -1\n"
      "l3: calc 250 cpu 1\n"
      "l2 requires l0\n"
      "l3 requires l2\n"
      "l3 irequires l1\n"
      "}\n"
      "rank 1 {\n"
      "}\n"
      "rank 2 {\n"
      "// @choreo op=copy bytes=4096 buf=2 src_buf=0 src_offset=64\n"
      "m5: calc 0\n"
      "l7: send 10b to 0 tag 3 cpu 1 nic 2\n"
      "l7 requires m5\n"
      "}\n";
  const std::string text = schedule_to_goal(s);
  EXPECT_EQ(text, expected);
  EXPECT_EQ(schedule_from_goal(text), s);
}

TEST(GoalWrite, EmptySchedule) { EXPECT_EQ(schedule_to_goal(Schedule{}), "num_ranks 0\n"); }

TEST(GoalWrite, AlgorithmNamesSurviveExactly) {
  const std::vector<std::string> names = {"ring",        "a b",       "x=y",
                                          "100%",        "tab\there", "new\nline",
                                          "caf\xc3\xa9", "//*/",      std::string("nul\0byte", 8)};
  for (const std::string& name : names) {
    Schedule s;
    s.algorithm = name;
    const std::string text = schedule_to_goal(s);
    EXPECT_EQ(text.find('\n'), text.find("num_ranks") - 1) << "the name must stay on one line";
    EXPECT_EQ(schedule_from_goal(text).algorithm, name);
  }
}

TEST(GoalWrite, RefusesWhatGoalCannotSay) {
  Schedule s;
  s.ranks = 1;
  s.programs.resize(1);
  s.programs[0].ops = {timed_op(3, OpKind::Calc, 1), timed_op(3, OpKind::Calc, 2)};
  EXPECT_THAT(writer_error(s), HasSubstr("rank 0, op 3 (calc)"));

  s.programs[0].ops = {timed_op(0, OpKind::Calc, 1)};
  s.programs[0].ops[0].requires_completed = {8};
  EXPECT_THAT(writer_error(s), HasSubstr("depends on op 8, which is not in rank 0's program"));

  s.programs[0].ops = {send_op(0, kAny, 1, 0)};
  EXPECT_THAT(writer_error(s), HasSubstr("destination rank is -1"));

  s.programs[0].ops = {recv_op(0, 0, 1, -2)};
  EXPECT_THAT(writer_error(s), HasSubstr("tag is -2"));

  s.programs[0].ops = {timed_op(0, OpKind::Delay, -1)};
  EXPECT_THAT(writer_error(s), HasSubstr("time in ns is -1"));

  s.programs.clear();
  EXPECT_THAT(writer_error(s), HasSubstr("ranks = 1 but has 0 programs"));
}

// No op line carries a comment: LogGOPSim's lexer rejects `op // comment`.
TEST(GoalWrite, CommentsOnlyOnTheirOwnLines) {
  Schedule s = expected_dissemination4();
  s.algorithm = "x";
  s.programs[0].ops[0].slot = 3;
  std::istringstream lines(schedule_to_goal(s));
  for (std::string line; std::getline(lines, line);) {
    const auto comment = line.find("//");
    EXPECT_TRUE(comment == std::string::npos || comment == 0) << line;
  }
}

// ---------------------------------------------------------------------------------------
// Round trips of random schedules.

class RandomSchedules {
 public:
  explicit RandomSchedules(std::uint64_t seed) : rng_(seed) {}

  Schedule next() {
    Schedule s;
    s.ranks = uniform(0, 5);
    const std::vector<std::string> names = {"", "direct", "delay insertion", "a=b%c", "r\xc3\xa9"};
    s.algorithm = names[pick(names.size())];
    s.programs.resize(static_cast<std::size_t>(s.ranks));
    for (Program& program : s.programs) program = random_program(s.ranks);
    return s;
  }

 private:
  int uniform(int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng_); }
  std::int64_t uniform64(std::int64_t low, std::int64_t high) {
    return std::uniform_int_distribution<std::int64_t>(low, high)(rng_);
  }
  std::size_t pick(std::size_t n) {
    return static_cast<std::size_t>(uniform(0, static_cast<int>(n) - 1));
  }
  bool coin(int percent) { return uniform(1, 100) <= percent; }

  // Distinct ids, not contiguous, sometimes negative or extreme.
  std::vector<std::int64_t> random_ids(int count) {
    std::vector<std::int64_t> ids;
    std::int64_t next = uniform64(-3, 3);
    for (int i = 0; i < count; ++i) {
      ids.push_back(next);
      next += uniform64(1, 4);
    }
    if (count > 0 && coin(20)) ids.back() = std::numeric_limits<std::int64_t>::max();
    if (count > 1 && coin(20)) ids.front() = std::numeric_limits<std::int64_t>::min();
    std::shuffle(ids.begin(), ids.end(), rng_);
    return ids;
  }

  Op random_op(std::int64_t id, int ranks) {
    Op op;
    op.id = id;
    op.kind = static_cast<OpKind>(uniform(0, 4));
    switch (op.kind) {
      case OpKind::Send:
      case OpKind::Recv: {
        const int lowest = op.kind == OpKind::Recv ? kAny : 0;
        op.peer = uniform(lowest, ranks + 2);  // beyond the ranks too: the reader does not check
        op.tag = coin(10) ? std::numeric_limits<int>::max() : uniform(lowest, 5);
        op.bytes = coin(10) ? limits::kMaxBytes : uniform64(0, 1 << 20);
        op.nic = coin(30) ? uniform(0, 3) : 0;
        break;
      }
      case OpKind::Delay:
      case OpKind::Calc:
        op.nanoseconds = uniform64(0, std::int64_t{1} << 40);
        break;
      case OpKind::Copy:
        op.bytes = uniform64(-5, 1 << 20);
        break;
    }
    op.cpu = coin(30) ? uniform(0, 3) : 0;
    if (coin(40)) op.slot = uniform(-3, 100);
    if (coin(30)) op.region.buffer = uniform(-2, 7);
    if (coin(30)) op.region.offset = uniform64(-100, std::int64_t{1} << 40);
    if (coin(20)) op.source.buffer = uniform(-2, 7);
    if (coin(20)) op.source.offset = uniform64(-100, 1 << 20);
    return op;
  }

  Program random_program(int ranks) {
    Program program;
    const std::vector<std::int64_t> ids = random_ids(uniform(0, 12));
    for (std::size_t i = 0; i < ids.size(); ++i) {
      Op op = random_op(ids[i], ranks);
      // Dependencies on earlier ops, and now and then on a later one or itself.
      const std::size_t reach = coin(10) ? ids.size() : i;
      for (int d = uniform(0, 3); d > 0 && reach > 0; --d) {
        auto& list = coin(70) ? op.requires_completed : op.requires_started;
        list.push_back(ids[pick(reach)]);
      }
      program.ops.push_back(op);
    }
    return program;
  }

  std::mt19937_64 rng_;
};

TEST(GoalRoundTrip, RandomSchedules) {
  RandomSchedules random(12345);
  for (int trial = 0; trial < 500; ++trial) {
    const Schedule s = random.next();
    const std::string text = schedule_to_goal(s);
    EXPECT_EQ(schedule_from_goal(text), s) << "trial " << trial << ":\n" << text;
    EXPECT_EQ(schedule_from_goal(with_crlf(text)), s) << "trial " << trial << " with CRLF";
    EXPECT_EQ(schedule_to_goal(schedule_from_goal(text)), text) << "trial " << trial;
  }
}

// ---------------------------------------------------------------------------------------
// Reader errors: each names the line and says what was expected.

struct ErrorCase {
  const char* text;
  const char* message;  // a substring of the error message
};

class GoalReadError : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(GoalReadError, NamesTheLine) {
  EXPECT_THAT(reader_error(GetParam().text), HasSubstr(GetParam().message)) << "input:\n"
                                                                            << GetParam().text;
}

INSTANTIATE_TEST_SUITE_P(
    Syntax, GoalReadError,
    ::testing::Values(
        ErrorCase{"num_ranks 2\nrank 0 {\nsend 8b from 1\n}\n",
                  "line 3: expected 'to' after the size in a send, found 'from'"},
        ErrorCase{"num_ranks 2\nrank 0 {\nrecv 8b to 1\n}\n",
                  "line 3: expected 'from' after the size in a recv, found 'to'"},
        ErrorCase{"num_ranks 2\n\nsend 8b to 1\n",
                  "line 3: 'send' outside a rank block; put ops inside 'rank R { ... }'"},
        ErrorCase{"num_ranks 2\n}\n", "line 2: '}' without an open 'rank R {' block"},
        ErrorCase{"num_ranks 2\nhello\n",
                  "line 2: expected 'num_ranks N' or 'rank R {', found 'hello'"},
        ErrorCase{
            "num_ranks 1\nrank 0 {\nrank 1 {\n}\n",
            "line 3: 'rank' inside rank 0's block (opened on line 2); close it with '}' first"},
        ErrorCase{"num_ranks 1\nrank 0 {\ncalc 5 #\n}\n",
                  "line 3: expected 'cpu' or the end of the line in a calc, found '#'"},
        ErrorCase{"num_ranks 1\nrank 0 {\ncalc 5 nic 1\n}\n",
                  "line 3: expected 'cpu' or the end of the line in a calc, found 'nic'"},
        ErrorCase{"num_ranks 1\nrank 0 {\nsend 5b to 0 tag 1 tag 2\n}\n",
                  "line 3: 'tag' is given twice in one send"},
        ErrorCase{
            "num_ranks 1\nrank 0 {\nsendd 5b to 0\n}\n",
            "line 3: expected an op ('send', 'recv', 'calc'), a label 'name:' or a dependency "
            "'a requires b', found 'sendd'"},
        ErrorCase{"num_ranks 1\nrank 0 {\n1a: calc 5\n}\n",
                  "line 3: the label '1a' is not a GOAL identifier"},
        ErrorCase{"num_ranks 1\nrank 0 {\na: b: calc 5\n}\n",
                  "line 3: expected 'send', 'recv' or 'calc' after the label 'a:', found 'b'"},
        ErrorCase{"num_ranks 1\nrank 0 \n{\n}\n",
                  "line 2: expected '{' after 'rank 0', found the end of the line"},
        ErrorCase{"num_ranks 1\nrank 0 {\n} }\n",
                  "line 3: expected the end of the line after '}', found '}'"},
        ErrorCase{"num_ranks 1\nrank 0 {\ncalc 5\n}\nnum_ranks 1\n",
                  "line 5: 'num_ranks' is given twice (first on line 1)"},
        ErrorCase{"num_ranks 1\nrank 0 {\n\x01\n}\n",
                  "line 3: expected an op ('send', 'recv', 'calc'), "
                  "a label 'name:', a dependency 'a requires b', or '}', found the byte 1"}));

// choreo's limits (docs/formats.md, Limits): one above each is refused with the line.
INSTANTIATE_TEST_SUITE_P(
    Limits, GoalReadError,
    ::testing::Values(
        ErrorCase{"num_ranks 1\nrank 0 {\nsend 1125899906842625b to 0\n}\n",
                  "line 3: the size '1125899906842625b' is more than choreo takes (2^50 bytes"},
        ErrorCase{"num_ranks 1\nrank 0 {\ncalc 1000000000000001\n}\n",
                  "line 3: a time of 1000000000000001 ns is more than choreo takes (10^15 ns"},
        ErrorCase{"num_ranks 1\nrank 0 {\ncalc 9223372036854775807\n}\n",
                  "line 3: a time of 9223372036854775807 ns is more than choreo takes"}));

INSTANTIATE_TEST_SUITE_P(
    NumRanksAndBlocks, GoalReadError,
    ::testing::Values(
        ErrorCase{"", "line 1: missing 'num_ranks N'"},
        ErrorCase{"// only a comment\n\n", "line 3: missing 'num_ranks N'"},
        ErrorCase{"rank 0 {\n}\n", "line 1: missing 'num_ranks N' before the first rank block"},
        ErrorCase{"num_ranks -1\n",
                  "line 1: the number of ranks after 'num_ranks' must be at least 0, found '-1'"},
        ErrorCase{"num_ranks 99999999999\n",
                  "line 1: the number of ranks after 'num_ranks' is out of range"},
        ErrorCase{"num_ranks 2000000000\n",
                  "line 1: num_ranks 2000000000 is more than choreo takes (16777216 = 2^24"},
        ErrorCase{"num_ranks 16777217\n", "line 1: num_ranks 16777217 is more than choreo takes"},
        ErrorCase{
            "num_ranks\n",
            "line 1: expected the number of ranks after 'num_ranks', found the end of the line"},
        ErrorCase{"num_ranks 2\nrank 2 {\n}\n",
                  "line 2: rank 2 is out of range: num_ranks is 2 (line 1), so ranks are 0 to 1"},
        ErrorCase{"num_ranks 2\nrank 0 {\n}\n\nrank 0 {\n}\n",
                  "line 5: rank 0's block appears twice (first on line 2)"},
        ErrorCase{"num_ranks 2\n\nrank 1 {\ncalc 5\n",
                  "line 3: rank 1's block is never closed; add '}'"},
        ErrorCase{"num_ranks 1\nrank 0 {\ncalc 5 /* note\n\n}\n",
                  "line 3: the comment '/*' is never closed; add '*/'"},
        ErrorCase{"/*\n\n*/num_ranks 1\nrank 0 {\nsend 1 to 0\n}\n",
                  "line 5: expected a size in bytes such as '64b' after 'send', found '1'; GOAL "
                  "sizes end in 'b'"}));

INSTANTIATE_TEST_SUITE_P(
    Numbers, GoalReadError,
    ::testing::Values(
        ErrorCase{"num_ranks 1\nrank 0 {\ncalc 99999999999999999999\n}\n",
                  "line 3: a time in ns after 'calc' is out of range: '99999999999999999999'"},
        ErrorCase{"num_ranks 1\nrank 0 {\ncalc -5\n}\n",
                  "line 3: a time in ns after 'calc' must be at least 0"},
        ErrorCase{"num_ranks 1\nrank 0 {\ncalc 5x\n}\n",
                  "line 3: expected a time in ns after 'calc', found '5x'"},
        ErrorCase{"num_ranks 1\nrank 0 {\nsend 99999999999999999999b to 0\n}\n",
                  "line 3: the size '99999999999999999999b' is out of range"},
        ErrorCase{"num_ranks 1\nrank 0 {\nsend -4b to 0\n}\n",
                  "line 3: a size must not be negative"},
        ErrorCase{"num_ranks 1\nrank 0 {\nsend 4kb to 0\n}\n",
                  "line 3: expected a size in bytes such as '64b' after 'send', found '4kb'"},
        ErrorCase{"num_ranks 1\nrank 0 {\nrecv b from 0\n}\n",
                  "line 3: expected a size in bytes such as '64b' after 'recv', found 'b'"},
        ErrorCase{"num_ranks 1\nrank 0 {\nsend 4b to 3000000000\n}\n",
                  "line 3: the destination rank of a send is out of range: '3000000000'"},
        ErrorCase{"num_ranks 1\nrank 0 {\n\nsend 4b to -1\n}\n",
                  "line 4: the destination rank of a send must be at least 0, found '-1'"},
        ErrorCase{"num_ranks 1\nrank 0 {\nsend 4b to 0 tag -1\n}\n",
                  "line 3: a tag after 'tag' must be at least 0"},
        ErrorCase{
            "num_ranks 1\nrank 0 {\nrecv 4b from -2\n}\n",
            "line 3: the source rank of a recv (or -1 for any) must be at least -1, found '-2'"},
        ErrorCase{"num_ranks 1\nrank 0 {\nrecv 4b from 0 tag -7\n}\n",
                  "line 3: a tag (or -1 for any) after 'tag' must be at least -1"},
        ErrorCase{"num_ranks 1\nrank 0 {\ncalc 4 cpu -1\n}\n",
                  "line 3: a cpu number after 'cpu' must be at least 0"},
        ErrorCase{"num_ranks 1\nrank 0 {\nrecv 4b from 0 nic\n}\n",
                  "line 3: expected a nic number after 'nic', found the end of the line"}));

INSTANTIATE_TEST_SUITE_P(
    Labels, GoalReadError,
    ::testing::Values(
        ErrorCase{
            "num_ranks 3\nrank 2 {\nl0: calc 5\nl0 requires l12\n}\n",
            "line 4: dependency names label 'l12', which is not defined earlier in rank 2's block"},
        ErrorCase{
            "num_ranks 1\nrank 0 {\nb requires a\na: calc 1\nb: calc 2\n}\n",
            "line 3: dependency names label 'b', which is not defined earlier in rank 0's block"},
        ErrorCase{
            "num_ranks 2\nrank 0 {\na: calc 1\n}\nrank 1 {\nb: calc 2\nb irequires a\n}\n",
            "line 7: dependency names label 'a', which is not defined earlier in rank 1's block"},
        ErrorCase{"num_ranks 1\nrank 0 {\na: calc 1\na: calc 2\n}\n",
                  "line 4: label 'a' is defined twice in rank 0's block (first on line 3)"},
        ErrorCase{"num_ranks 1\nrank 0 {\na: calc 1\na requires\n}\n",
                  "line 4: expected a label after 'requires', found the end of the line"},
        ErrorCase{"num_ranks 1\nrank 0 {\na: calc 1\na requires a a\n}\n",
                  "line 4: expected the end of the line after the dependency, found 'a'"}));

INSTANTIATE_TEST_SUITE_P(
    Annotations, GoalReadError,
    ::testing::Values(
        ErrorCase{"num_ranks 1\nrank 0 {\n// @choreo colour=red\ncalc 1\n}\n",
                  "line 3: unknown '@choreo' key 'colour'"},
        ErrorCase{"num_ranks 1\nrank 0 {\n// @choreo slot\ncalc 1\n}\n",
                  "line 3: expected key=value in the '@choreo' annotation, found 'slot'"},
        ErrorCase{"num_ranks 1\nrank 0 {\n// @choreo slot=x\ncalc 1\n}\n",
                  "line 3: the value of 'slot=' must be an integer, found 'x'"},
        ErrorCase{"num_ranks 1\nrank 0 {\n// @choreo offset=99999999999999999999\ncalc 1\n}\n",
                  "line 3: the value of 'offset=' is out of range"},
        ErrorCase{"num_ranks 1\nrank 0 {\n// @choreo slot=1\n// @choreo slot=2\ncalc 1\n}\n",
                  "line 4: 'slot=' is given twice for the same op"},
        ErrorCase{"num_ranks 1\nrank 0 {\n// @choreo op=sleep\ncalc 1\n}\n",
                  "line 3: 'op=' must be 'delay' or 'copy', found 'sleep'"},
        ErrorCase{
            "num_ranks 1\nrank 0 {\n// @choreo op=copy bytes=4\nsend 4b to 0\n}\n",
            "line 3: '@choreo op=copy' must annotate a 'calc' line, but the next op is a 'send'"},
        ErrorCase{"num_ranks 1\nrank 0 {\n// @choreo bytes=4\nsend 4b to 0\n}\n",
                  "line 3: 'bytes=' belongs to 'op=copy'"},
        ErrorCase{"num_ranks 1\nrank 0 {\ncalc 1\n// @choreo slot=1\n}\n",
                  "line 4: this '@choreo' annotation is followed by '}', not by an op"},
        ErrorCase{"num_ranks 1\nrank 0 {\na: calc 1\n// @choreo slot=1\na requires a\n}\n",
                  "line 4: this '@choreo' annotation is followed by a dependency, not by an op"},
        ErrorCase{"num_ranks 1\nrank 0 {\ncalc 1 // @choreo slot=1\n}\n",
                  "line 3: a '// @choreo' annotation must be on a line of its own"},
        ErrorCase{"// @choreo slot=1\nnum_ranks 1\n",
                  "line 1: '@choreo slot=' outside a rank block"},
        ErrorCase{"num_ranks 1\nrank 0 {\n// @choreo algorithm=x\ncalc 1\n}\n",
                  "line 3: '@choreo algorithm=' belongs outside rank blocks"},
        ErrorCase{"// @choreo algorithm=a\n// @choreo algorithm=b\nnum_ranks 1\n",
                  "line 2: 'algorithm=' is given twice"},
        ErrorCase{"// @choreo algorithm=a%G0\nnum_ranks 1\n",
                  "line 1: bad %-escape in 'algorithm=a%G0'"},
        ErrorCase{"// @choreo algorithm=a%4\nnum_ranks 1\n", "line 1: bad %-escape"}));

INSTANTIATE_TEST_SUITE_P(
    CrlfLines, GoalReadError,
    ::testing::Values(ErrorCase{"num_ranks 1\r\nrank 0 {\r\n\r\nsend 8b from 0\r\n}\r\n",
                                "line 4: expected 'to' after the size in a send, found 'from'"},
                      ErrorCase{"num_ranks 1\r\nrank 0 {\r\ncalc 1\r\n",
                                "line 2: rank 0's block is never closed"}));

// ---------------------------------------------------------------------------------------
// Corrupted input: a Schedule or a choreo::Error, never a crash, a hang or another exception.

std::string mutate(std::string text, std::mt19937_64& rng) {
  static const std::vector<std::string> kPieces = {" ",
                                                   "\n",
                                                   "\r\n",
                                                   "\t",
                                                   ":",
                                                   "{",
                                                   "}",
                                                   "/",
                                                   "*",
                                                   "//",
                                                   "/*",
                                                   "*/",
                                                   "-",
                                                   "-1",
                                                   "0",
                                                   "9",
                                                   "b",
                                                   "l",
                                                   "m",
                                                   "l0",
                                                   "send",
                                                   "recv",
                                                   "calc",
                                                   "rank",
                                                   "requires",
                                                   "irequires",
                                                   "tag",
                                                   "cpu",
                                                   "nic",
                                                   "// @choreo op=copy bytes=1\n",
                                                   "// @choreo slot=1\n",
                                                   "// @choreo ",
                                                   "=",
                                                   "%",
                                                   "99999999999999999999",
                                                   std::string(1, '\0'),
                                                   "\xff",
                                                   "rank 0 {\n"};
  auto uniform = [&](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n)(rng);
  };
  const std::size_t edits = 1 + uniform(3);
  for (std::size_t e = 0; e < edits; ++e) {
    const std::size_t at = uniform(text.size());
    switch (uniform(4)) {
      case 0:  // truncate
        text.resize(at);
        break;
      case 1:  // delete a short range
        text.erase(at, uniform(8));
        break;
      case 2:  // insert a piece of GOAL or junk
        text.insert(at, kPieces[uniform(kPieces.size() - 1)]);
        break;
      case 3:  // replace a byte
        if (at < text.size()) text[at] = static_cast<char>(uniform(255));
        break;
      default: {  // duplicate a range elsewhere
        const std::size_t from = uniform(text.size());
        text.insert(at, text.substr(from, uniform(40)));
        break;
      }
    }
  }
  return text;
}

TEST(GoalFuzz, MutatedTextGivesScheduleOrError) {
  std::vector<std::string> seeds = {
      read_file(std::string(CHOREO_TEST_DATA) + "/dissemination4.goal"), kPlainText};
  RandomSchedules random(777);
  for (int i = 0; i < 5; ++i) seeds.push_back(schedule_to_goal(random.next()));
  std::mt19937_64 rng(2024);
  int parsed = 0;
  int rejected = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const std::string text = mutate(seeds[static_cast<std::size_t>(trial) % seeds.size()], rng);
    try {
      const Schedule s = schedule_from_goal(text);
      EXPECT_EQ(s.programs.size(), static_cast<std::size_t>(s.ranks));
      ++parsed;
    } catch (const Error& error) {
      EXPECT_THAT(error.what(), ::testing::StartsWith("line ")) << error.what();
      ++rejected;
    } catch (const std::exception& other) {
      ADD_FAILURE() << "unexpected exception " << other.what() << " for input:\n" << text;
    }
  }
  // Both outcomes must occur, or the mutations are not exercising the reader.
  EXPECT_GT(parsed, 100);
  EXPECT_GT(rejected, 100);
}

}  // namespace
}  // namespace choreo
