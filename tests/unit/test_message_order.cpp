// validate's channel order (src/core/message_order.hpp): MPI matches one channel's messages in
// the order their sends start, so a send that may overtake an earlier one to the same
// (destination, tag) is an error; the simulator and the MPI executor would pair it with the
// receive meant for the other (the case: a truncation under MPI, a hang in sim).
//
// The reference is a brute force over every state a rank can be in: which ops started (S) and
// which completed (C within S), every started op having had its dependencies met. The engines
// start ops in the order they became ready (the simulator queues what an event releases
// after what is already queued), so a later op b of a channel may start before the earlier a
// exactly when some state meets b's dependencies and not a's. check_channel_order must never accept
// a pair the brute force finds unordered; on these small programs (dependencies on earlier ops,
// first-of groups) it also rejects no other.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "../../src/core/message_order.hpp"
#include "choreo/core/compact_schedule.hpp"
#include "choreo/core/error.hpp"
#include "choreo/core/validate.hpp"
#include "choreo/sim/engine.hpp"
#include "error_of.hpp"
#include "schedule_builder.hpp"

namespace choreo {
namespace {

using test::Builder;
using test::error_of;
using ::testing::HasSubstr;

// ---------------------------------------------------------------------------------------
// The case and its fixes.

/// Rank 0 sends 16 B after a calc, then 8 B at once, both to rank 1 with tag 0.
Builder overtaking() {
  return std::move(Builder(2)
                       .calc(0, 0, 1000000)
                       .send(0, 1, 1, 16)
                       .after({0})
                       .send(0, 2, 1, 8)
                       .recv(1, 0, 0, 16)
                       .recv(1, 1, 0, 8));
}

TEST(MessageOrder, ASendThatMayOvertakeAnEarlierOneIsRejected) {
  EXPECT_EQ(error_of([] { validate(overtaking().build()); }),
            "rank 0, op 2 (send 8 B to 1 tag 0): may start before op 1 (send 16 B to 1 tag 0), "
            "an earlier send to rank 1 with the same tag, and MPI matches the messages of one "
            "destination and tag in the order their sends start: it would take the receive "
            "meant for op 1. Make op 2 require or irequire op 1, or give the two different tags");
}

TEST(MessageOrder, EachFixTheMessageNamesIsAccepted) {
  Schedule required = overtaking().build();
  required.programs[0].ops[2].requires_started = {1};
  EXPECT_NO_THROW(validate(required));
  Schedule tagged = overtaking().build();
  tagged.programs[0].ops[2].tag = 1;
  tagged.programs[1].ops[1].tag = 1;
  EXPECT_NO_THROW(validate(tagged));
  // And what validate accepts, the simulator finishes.
  EXPECT_GT(sim::simulate(choreo::compact(required), sim::SimOptions{}).makespan, 1000000);
}

TEST(MessageOrder, ReceivesPostedOutOfOrderAreRejected) {
  Builder b(2);
  b.send(0, 0, 1, 16).send(0, 1, 1, 8).after_start({0});
  b.calc(1, 0, 1000).recv(1, 1, 0, 16).after({0}).recv(1, 2, 0, 8);
  EXPECT_THAT(error_of([&] { validate(b.build()); }),
              HasSubstr("rank 1, op 2 (recv 8 B from 0 tag 0): may be posted before op 1"));
}

TEST(MessageOrder, ADependencyImpliedThroughAChainOrders) {
  // b waits for c, which waits for a's own dependency: once b may start, a may too.
  Builder b(2);
  b.calc(0, 0, 1000).send(0, 1, 1, 16).after({0}).calc(0, 2, 5).after({0});
  b.send(0, 3, 1, 8).after({2});
  b.recv(1, 0, 0, 16).recv(1, 1, 0, 8);
  EXPECT_NO_THROW(validate(b.build()));
}

// ---------------------------------------------------------------------------------------
// Random programs against the brute force.

struct State {
  std::uint32_t started = 0, completed = 0;
};

bool met(const Op& op, const std::vector<std::int64_t>& ids, const State& s) {
  const auto bit = [&](std::int64_t id) {
    return std::uint32_t{1} << (std::find(ids.begin(), ids.end(), id) - ids.begin());
  };
  for (std::int64_t d : op.requires_completed)
    if (!(s.completed & bit(d))) return false;
  for (std::int64_t d : op.requires_started)
    if (!(s.started & bit(d))) return false;
  if (op.requires_any.empty()) return true;
  return std::any_of(op.requires_any.begin(), op.requires_any.end(),
                     [&](std::int64_t d) { return (s.completed & bit(d)) != 0; });
}

/// Can op b start while op a has not (in some state every engine may reach)?
bool reference_may_overtake(const Program& program, std::size_t a, std::size_t b) {
  const std::size_t n = program.ops.size();
  std::vector<std::int64_t> ids;
  for (const Op& op : program.ops) ids.push_back(op.id);
  for (std::uint32_t started = 0; started < (1u << n); ++started) {
    for (std::uint32_t completed = started;; completed = (completed - 1) & started) {
      const State s{started, completed};
      bool consistent = true;  // every started op had its dependencies met
      for (std::size_t i = 0; i < n && consistent; ++i)
        consistent = !((started >> i) & 1u) || met(program.ops[i], ids, s);
      if (consistent && met(program.ops[b], ids, s) && !met(program.ops[a], ids, s)) return true;
      if (completed == 0) break;
    }
  }
  return false;
}

/// A program of `n` ops, sends to rank 1 with tags 0..1 and calcs, with random dependencies
/// on earlier ops (acyclic, as validate requires before this check).
Program random_program(std::mt19937& rng, int n) {
  Program p;
  for (int i = 0; i < n; ++i) {
    Op op;
    op.id = i;
    if (rng() % 3 == 0) {
      op.kind = OpKind::Calc;
      op.nanoseconds = 10;
    } else {
      op.kind = OpKind::Send;
      op.peer = 1;
      op.bytes = 8;
      op.tag = static_cast<int>(rng() % 2);
    }
    for (int d = 0; d < i; ++d) {
      const auto roll = rng() % 10;
      if (roll == 0) op.requires_completed.push_back(d);
      if (roll == 1) op.requires_started.push_back(d);
      if (roll == 2 && i > 1) op.requires_any.push_back(d);
    }
    if (op.requires_any.size() == 1) op.requires_any.clear();  // a group has two or more
    p.ops.push_back(op);
  }
  return p;
}

TEST(MessageOrder, AgreesWithTheBruteForceOnRandomPrograms) {
  std::mt19937 rng(20);
  int accepted = 0, rejected = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    Schedule s;
    s.ranks = 2;
    s.programs = {random_program(rng, 2 + static_cast<int>(rng() % 6)), Program{}};
    const auto& ops = s.programs[0].ops;
    bool unordered = false;
    for (std::size_t b = 0; b < ops.size(); ++b)
      for (std::size_t a = 0; a < b; ++a)
        if (ops[a].kind == OpKind::Send && ops[b].kind == OpKind::Send &&
            ops[a].tag == ops[b].tag && reference_may_overtake(s.programs[0], a, b))
          unordered = true;
    bool ok = true;
    try {
      detail::check_channel_order(s);
    } catch (const Error&) {
      ok = false;
    }
    ASSERT_FALSE(ok && unordered) << "trial " << trial << ": accepted an unordered pair";
    EXPECT_FALSE(!ok && !unordered) << "trial " << trial << ": rejected an ordered program";
    ok ? ++accepted : ++rejected;
  }
  EXPECT_GT(accepted, 500);
  EXPECT_GT(rejected, 500);
}

}  // namespace
}  // namespace choreo
