// sim::validate checks a CompactSchedule in streaming passes, without building a Schedule.
// The reference is choreo::validate on the Schedule: on thousands of random schedules (valid
// ones and ones with each problem validate knows: unmatched ends, size mismatches, receives
// that may steal, dependency cycles, channel-order violations, deadlocks, first-of groups)
// both must accept or both reject, naming the same rank; and sim::validate's message must be
// exactly choreo::validate's on expand() of the compact form (same ids: program positions).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <map>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "choreo/coll/generators.hpp"
#include "choreo/core/compact_schedule.hpp"
#include "choreo/core/error.hpp"
#include "choreo/core/pattern.hpp"
#include "choreo/core/validate.hpp"
#include "choreo/sched/schedulers.hpp"
#include "choreo/sim/validate.hpp"
#include "error_of.hpp"
#include "schedule_builder.hpp"

namespace choreo {
namespace {

using test::error_of;

constexpr const char* kAccepted = "no error";

/// The rank a message starts with ("rank 3, op 7 (...): ..."), or -1.
int rank_in(const std::string& message) {
  static const std::regex leading("^rank (\\d+),");
  std::smatch m;
  return std::regex_search(message, m, leading) ? std::stoi(m[1]) : -1;
}

/// Which of validate's checks a message comes from.
std::string problem_of(const std::string& message) {
  for (const char* p : {"dependency cycle", "may start before", "may be posted before",
                        "posts no matching receive", "sends no matching message", "no send is left",
                        "sizes differ", "may take the message", "deadlock", "lists itself"})
    if (message.find(p) != std::string::npos) return p;
  return message == kAccepted ? "accepted" : "other";
}

struct Tally {
  std::map<std::string, int> by_problem;
  int refused_by_builder = 0;
};

/// Checks one schedule; returns false (after a failed assertion) on a disagreement.
::testing::AssertionResult agree(const Schedule& s, Tally& tally) {
  const std::string reference = error_of([&] { validate(s); });
  CompactSchedule c;
  const std::string built = error_of([&] { c = choreo::compact(s); });
  if (built != kAccepted) {
    // CompactBuilder refuses what the compact form cannot hold (an op in its own group or
    // dependencies, unknown ids): choreo::validate must reject those too.
    ++tally.refused_by_builder;
    if (reference == kAccepted)
      return ::testing::AssertionFailure() << "compact() refused a valid schedule: " << built;
    return ::testing::AssertionSuccess();
  }
  const std::string got = error_of([&] { sim::validate(c); });
  const std::string expanded = error_of([&] { validate(choreo::expand(c)); });
  ++tally.by_problem[problem_of(reference)];
  if ((got == kAccepted) != (reference == kAccepted) || rank_in(got) != rank_in(reference))
    return ::testing::AssertionFailure()
           << "\n  choreo::validate: " << reference << "\n  sim::validate:    " << got;
  if (got != expanded)
    return ::testing::AssertionFailure() << "\n  choreo::validate(expand): " << expanded
                                         << "\n  sim::validate:            " << got;
  return ::testing::AssertionSuccess();
}

/// A random exchange of a few ranks: matched sends and receives in random program orders,
/// with random dependencies (on earlier ops, sometimes on later ones: cycles), first-of
/// groups, wildcard receives, and now and then a dropped end or a size that differs.
/// `faults` scales how often the schedule is broken on purpose.
Schedule random_exchange(std::mt19937_64& rng, int faults) {
  const auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  const auto one_in = [&](std::int64_t n) { return n > 0 && pick(1, n) == 1; };
  Schedule s;
  s.ranks = static_cast<int>(pick(1, 5));
  s.programs.resize(static_cast<std::size_t>(s.ranks));
  const bool distinct_tags = one_in(2);
  const int messages = static_cast<int>(pick(0, 9));
  for (int m = 0; m < messages; ++m) {
    const int src = static_cast<int>(pick(0, s.ranks - 1));
    const int dst = static_cast<int>(pick(0, s.ranks - 1));
    const int tag = distinct_tags ? m : static_cast<int>(pick(0, 2));
    const std::int64_t bytes = 8 * pick(1, 2);
    Op send;
    send.kind = OpKind::Send;
    send.peer = dst;
    send.tag = tag;
    send.bytes = bytes;
    Op recv = send;
    recv.kind = OpKind::Recv;
    recv.peer = src;
    if (one_in(8)) recv.peer = kAny;
    if (one_in(10)) recv.tag = kAny;
    if (faults && one_in(40 / faults)) recv.bytes += 8;
    if (!(faults && one_in(50 / faults))) s.programs[src].ops.push_back(send);
    if (!(faults && one_in(50 / faults))) s.programs[dst].ops.push_back(recv);
  }
  const bool chained = one_in(3);  // each op after the one before it: channels in order
  for (auto& program : s.programs) {
    for (std::int64_t k = pick(0, 2); k > 0; --k) {
      Op other;
      other.kind = one_in(3) ? OpKind::Delay : one_in(2) ? OpKind::Calc : OpKind::Copy;
      (other.is_timed() ? other.nanoseconds : other.bytes) = pick(0, 100);
      program.ops.push_back(other);
    }
    auto& ops = program.ops;
    std::shuffle(ops.begin(), ops.end(), rng);
    // Ids: program positions, or unique ones with gaps in a shuffled order.
    std::vector<std::int64_t> ids(ops.size());
    std::int64_t next = pick(0, 3);
    for (auto& id : ids) id = (next += pick(1, 3));
    if (one_in(2)) std::shuffle(ids.begin(), ids.end(), rng);
    for (std::size_t i = 0; i < ops.size(); ++i) ops[i].id = ids[i];
    const std::size_t n = ops.size();
    for (std::size_t i = 0; i < n; ++i) {
      Op& op = ops[i];
      if (chained && i > 0) {
        (one_in(3) ? op.requires_started : op.requires_completed).push_back(ops[i - 1].id);
        continue;
      }
      for (std::size_t j = 0; j < n; ++j) {
        if (j == i) continue;
        if (j < i && one_in(static_cast<std::int64_t>(2 * n)))
          op.requires_completed.push_back(ops[j].id);
        else if (j < i && one_in(static_cast<std::int64_t>(4 * n)))
          op.requires_started.push_back(ops[j].id);
        else if (j > i && faults && one_in(static_cast<std::int64_t>(12 * n) / faults))
          op.requires_completed.push_back(ops[j].id);  // may close a cycle
      }
      if (n > 2 && one_in(6)) {  // a first-of group of two or three other ops
        for (std::size_t j = 0; j < n && op.requires_any.size() < 3; ++j)
          if (j != i && one_in(2)) op.requires_any.push_back(ops[j].id);
        std::shuffle(op.requires_any.begin(), op.requires_any.end(), rng);
        if (op.requires_any.size() < 2) op.requires_any.clear();
      }
    }
  }
  return s;
}

TEST(SimValidate, AgreesWithValidateOnRandomExchanges) {
  std::mt19937_64 rng(19);
  Tally tally;
  constexpr int kTrials = 6000;
  for (int trial = 0; trial < kTrials; ++trial) {
    const Schedule s = random_exchange(rng, trial % 3);
    ASSERT_TRUE(agree(s, tally)) << "trial " << trial;
  }
  const auto& seen = tally.by_problem;
  const auto count = [&](const char* problem) {
    const auto it = seen.find(problem);
    return it == seen.end() ? 0 : it->second;
  };
  std::string summary;
  for (const auto& [problem, n] : seen) summary += problem + ": " + std::to_string(n) + "; ";
  SCOPED_TRACE(summary);
  // Every check took part, and the valid schedules are no small minority.
  EXPECT_GT(count("accepted"), kTrials / 5);
  for (const char* problem :
       {"dependency cycle", "may start before", "may be posted before", "posts no matching receive",
        "sends no matching message", "no send is left", "sizes differ", "may take the message",
        "deadlock"})
    EXPECT_GT(count(problem), 10) << problem;
  std::cout << "[          ] " << summary
            << "refused by CompactBuilder: " << tally.refused_by_builder << "\n";
}

// The IR's random schedules (every field, ids with gaps, mostly unmatched messages) with
// random first-of groups, as test_first_of.cpp draws them.
TEST(SimValidate, AgreesWithValidateOnTheIrsRandomSchedules) {
  std::mt19937_64 rng(2026);
  Tally tally;
  for (int trial = 0; trial < 1500; ++trial) {
    Schedule s = test::random_schedule(rng, 4, 8);
    test::add_random_first_of_groups(s, rng);
    for (auto& program : s.programs)
      for (Op& op : program.ops) {
        op.region = {};  // the compact form keeps no buffer regions (nor slots)
        op.source = {};
      }
    ASSERT_TRUE(agree(s, tally)) << "trial " << trial;
  }
}

// Valid exchanges from random patterns (schedule_direct: receives first, then sends), with
// dependencies added at random: each may bring a deadlock or a channel-order violation.
TEST(SimValidate, AgreesWithValidateOnRandomPatterns) {
  std::mt19937_64 rng(7);
  Tally tally;
  for (int trial = 0; trial < 600; ++trial) {
    const int ranks = static_cast<int>(2 + rng() % 7);
    Schedule s = schedule_direct(patterns::random_density(ranks, 0.5, 64, rng()));
    for (auto& program : s.programs)
      for (std::size_t i = 1; i < program.ops.size(); ++i)
        if (rng() % 8 == 0) {
          const std::size_t j = rng() % program.ops.size();
          if (j != i) program.ops[i].requires_completed.push_back(program.ops[j].id);
        }
    ASSERT_TRUE(agree(s, tally)) << "trial " << trial;
  }
  EXPECT_GT(tally.by_problem["accepted"], 20);
}

// Every generator of the collective registry, at rank counts around powers of two.
TEST(SimValidate, AcceptsEveryRegistryGenerator) {
  int checked = 0;
  for (const std::string& name : coll::generator_names())
    for (int ranks : {1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 17, 31}) {
      for (const std::int64_t bytes : {0, 1, 7, 1000}) {
        std::string spec = name + ":ranks=" + std::to_string(ranks);
        if (name != "barrier:dissemination") spec += ":bytes=" + std::to_string(bytes);
        if (name == "allreduce:resilient") spec += ":T=1";
        if (name.ends_with(":neighbor") && ranks % 2 != 0) continue;
        if (name == "allreduce:resilient" && ranks < 2) continue;
        SCOPED_TRACE(spec);
        const CompactSchedule c = coll::generate(spec);
        EXPECT_EQ(error_of([&] { sim::validate(c); }), kAccepted);
        EXPECT_EQ(error_of([&] { validate(choreo::expand(c)); }), kAccepted);
        ++checked;
      }
    }
  EXPECT_GT(checked, 500);
}

// The messages name program positions and the same problem as choreo::validate's.
TEST(SimValidate, MessagesNameProgramPositions) {
  // Rank 0's recv (position 1, id 10) waits for its send (position 0, id 4); so does rank 1:
  // both sends start, and neither completes before its receive started.
  Schedule s = test::Builder(2)
                   .send(0, 4, 1, 8)
                   .recv(0, 10, 1, 8)
                   .after({4})
                   .send(1, 0, 0, 8)
                   .recv(1, 1, 0, 8)
                   .after({0})
                   .build();
  EXPECT_EQ(error_of([&] { sim::validate(choreo::compact(s)); }),
            "rank 0, op 0 (send 8 B to 1 tag 0): deadlock: it can never complete: rank 0 op 0 "
            "(send 8 B to 1 tag 0) waits for rank 1 op 1 (recv 8 B from 0 tag 0) waits for rank 1 "
            "op 0 (send 8 B to 0 tag 0) waits for rank 0 op 1 (recv 8 B from 1 tag 0); no rank "
            "can make progress. Start the receive before the send it waits on, or drop a "
            "dependency");
}

}  // namespace
}  // namespace choreo
