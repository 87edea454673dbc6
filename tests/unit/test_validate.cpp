// Every class of validation error, each on a minimal hand-made schedule, and valid
// schedules that must pass (wildcards, eager-looking exchanges, dependencies).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "choreo/core/error.hpp"
#include "choreo/core/validate.hpp"
#include "schedule_builder.hpp"

namespace choreo {
namespace {

using test::Builder;
using ::testing::AllOf;
using ::testing::HasSubstr;

std::string error_of(const Schedule& s) {
  try {
    validate(s);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

Builder ping(int ranks = 2) {
  return std::move(Builder(ranks).send(0, 0, 1, 64).recv(1, 0, 0, 64));
}

TEST(Validate, AcceptsASimpleExchange) {
  auto matches = validate(ping().build());
  ASSERT_EQ(matches.size(), 1u);
  EXPECT_EQ(matches[0].src_rank, 0);
  EXPECT_EQ(matches[0].dst_rank, 1);
}

TEST(Validate, RankCountMustMatchPrograms) {
  Schedule s = ping().build();
  s.programs.pop_back();
  EXPECT_THAT(error_of(s), HasSubstr("declares 2 ranks but has 1 programs"));
  s.ranks = 0;
  EXPECT_THAT(error_of(s), HasSubstr("needs at least 1"));
}

TEST(Validate, PeerOutOfRange) {
  Schedule s = Builder(2).send(0, 7, 2, 64).build();
  EXPECT_THAT(error_of(s), AllOf(HasSubstr("rank 0, op 7 (send 64 B to 2 tag 0)"),
                                 HasSubstr("peer 2 is out of range"), HasSubstr("0..1")));
  EXPECT_THAT(error_of(Builder(2).send(0, 0, -1, 8).build()), HasSubstr("peer -1 is out of range"));
  EXPECT_THAT(error_of(Builder(2).recv(1, 0, -2, 8).build()), HasSubstr("or -1 for any source"));
}

TEST(Validate, NegativeSizeAndTime) {
  EXPECT_THAT(error_of(Builder(2).send(0, 0, 1, -5).recv(1, 0, 0, -5).build()),
              HasSubstr("negative size"));
  EXPECT_THAT(error_of(Builder(1).calc(0, 3, -1).build()),
              AllOf(HasSubstr("rank 0, op 3 (calc -1 ns)"), HasSubstr("negative time")));
  EXPECT_THAT(error_of(Builder(1).delay(0, 0, -10).build()), HasSubstr("negative time"));
}

TEST(Validate, BadTagsSlotsAndRegions) {
  EXPECT_THAT(error_of(Builder(2).send(0, 0, 1, 8, -1).recv(1, 0, 0, 8, -1).build()),
              HasSubstr("tag -1 is invalid"));
  Builder slot = ping();
  slot.last().slot = -3;
  EXPECT_THAT(error_of(slot.build()), HasSubstr("negative slot"));
  EXPECT_THAT(error_of(ping().in({0, -4}).build()), HasSubstr("offset -4 is negative"));
  EXPECT_THAT(error_of(ping().in({kAutoBuffer, 16}).build()), HasSubstr("without a buffer"));
}

TEST(Validate, CpuAndNicNumbers) {
  Builder cpu(1);
  cpu.calc(0, 0, 1).last().cpu = -1;
  EXPECT_THAT(error_of(cpu.build()), HasSubstr("negative cpu or nic"));
  Builder nic(1);
  nic.calc(0, 0, 1).last().nic = 2;
  EXPECT_THAT(error_of(nic.build()), HasSubstr("send and recv only"));
}

TEST(Validate, DuplicateId) {
  Schedule s = Builder(1).calc(0, 4, 10).calc(0, 4, 20).build();
  EXPECT_THAT(error_of(s), AllOf(HasSubstr("rank 0, op 4"), HasSubstr("duplicate id 4")));
}

TEST(Validate, UnknownDependency) {
  Schedule s = Builder(1).calc(0, 0, 10).calc(0, 1, 10).after({9}).build();
  EXPECT_THAT(error_of(s), AllOf(HasSubstr("rank 0, op 1"), HasSubstr("depends on op 9")));
  Schedule t = Builder(1).calc(0, 0, 10).after_start({5}).build();
  EXPECT_THAT(error_of(t), HasSubstr("depends on op 5"));
}

TEST(Validate, DependencyCycle) {
  Schedule s = Builder(1)
                   .calc(0, 0, 1)
                   .after({2})
                   .calc(0, 1, 1)
                   .after({0})
                   .calc(0, 2, 1)
                   .after_start({1})
                   .build();
  EXPECT_THAT(error_of(s), AllOf(HasSubstr("dependency cycle"), HasSubstr("op 0 waits for op 2"),
                                 HasSubstr("op 2 waits for op 1")));
  EXPECT_THAT(error_of(Builder(1).calc(0, 5, 1).after({5}).build()), HasSubstr("dependency cycle"));
}

TEST(Validate, UnmatchedSendAndReceive) {
  EXPECT_THAT(error_of(Builder(2).send(0, 0, 1, 8, 3).build()),
              AllOf(HasSubstr("rank 0, op 0 (send 8 B to 1 tag 3)"),
                    HasSubstr("rank 1 posts no matching receive")));
  EXPECT_THAT(error_of(Builder(2).recv(1, 2, 0, 8).build()),
              AllOf(HasSubstr("rank 1, op 2"), HasSubstr("rank 0 sends no matching message")));
  // Tags must agree too.
  EXPECT_THAT(error_of(Builder(2).send(0, 0, 1, 8, 1).recv(1, 0, 0, 8, 2).build()),
              HasSubstr("no matching"));
  EXPECT_THAT(error_of(Builder(3).recv(2, 0, kAny, 8).build()), HasSubstr("no send is left"));
}

TEST(Validate, SizeMismatchFollowsMessageOrder) {
  // Two messages 0 -> 1 with the same tag match in order (non-overtaking): 8 with 8,
  // then 16 with 16. Swapping the receives' sizes breaks that.
  Builder ok(2);
  ok.send(0, 0, 1, 8).send(0, 1, 1, 16).recv(1, 0, 0, 8).recv(1, 1, 0, 16);
  EXPECT_NO_THROW(validate(ok.build()));
  Builder bad(2);
  bad.send(0, 0, 1, 8).send(0, 1, 1, 16).recv(1, 0, 0, 16).recv(1, 1, 0, 8);
  EXPECT_THAT(error_of(bad.build()),
              AllOf(HasSubstr("rank 0, op 0 (send 8 B"), HasSubstr("sizes differ")));
}

TEST(Validate, WildcardReceivesTakeTheRemainingSends) {
  Builder b(4);
  b.send(0, 0, 3, 8, 5).send(1, 0, 3, 8, 5).send(2, 0, 3, 4, 1);
  b.recv(3, 0, kAny, 8, 5).recv(3, 1, kAny, 8, 5).recv(3, 2, 2, 4, 1);
  auto matches = validate(b.build());
  EXPECT_EQ(matches.size(), 3u);
  Builder sizes(3);
  sizes.send(0, 0, 2, 8).send(1, 0, 2, 9).recv(2, 0, kAny, 8).recv(2, 1, kAny, 8);
  EXPECT_THAT(error_of(sizes.build()), HasSubstr("sizes differ"));
}

TEST(Validate, CompetingReceivesMustShareAFilter) {
  // An any-source receive may take rank 1's message, leaving "from 1" waiting forever.
  Builder steal(3);
  steal.send(0, 0, 2, 8).send(1, 0, 2, 8).recv(2, 0, kAny, 8).recv(2, 1, 1, 8);
  EXPECT_THAT(error_of(steal.build()),
              AllOf(HasSubstr("rank 2, op 0"), HasSubstr("may take the message meant for op 1")));
  // Both wildcards, but one only accepts tag 3: the other may take tag 3's message.
  Builder tags(3);
  tags.send(0, 0, 2, 8, 3).send(1, 0, 2, 8, 4).recv(2, 0, kAny, 8, kAny).recv(2, 1, kAny, 8, 3);
  EXPECT_THAT(error_of(tags.build()), HasSubstr("may take the message"));
  // Any source but disjoint tags cannot compete.
  Builder disjoint(3);
  disjoint.send(0, 0, 2, 8, 3).send(1, 0, 2, 8, 4).recv(2, 0, kAny, 8, 3).recv(2, 1, kAny, 8, 4);
  EXPECT_NO_THROW(validate(disjoint.build()));
}

TEST(Validate, HeadToHeadSendsAreFineReceiveFirstCycleIsDeadlock) {
  // Both ranks send, then receive: safe, since the receives do not wait on the sends.
  Builder safe(2);
  safe.send(0, 0, 1, 8).recv(0, 1, 1, 8).send(1, 0, 0, 8).recv(1, 1, 0, 8);
  EXPECT_NO_THROW(validate(safe.build()));
  // Each rank sends only after its receive completed: nobody ever sends.
  Builder dead(2);
  dead.recv(0, 0, 1, 8).send(0, 1, 1, 8).after({0}).recv(1, 0, 0, 8).send(1, 1, 0, 8).after({0});
  EXPECT_THAT(error_of(dead.build()), AllOf(HasSubstr("deadlock"), HasSubstr("never")));
}

TEST(Validate, RendezvousDeadlockIsCaught) {
  // Each rank receives only after its own send completed. With eager buffering this may
  // run, but MPI does not promise buffering: a send completes once received.
  Builder b(2);
  b.send(0, 0, 1, 1 << 20).recv(0, 1, 1, 1 << 20).after({0});
  b.send(1, 0, 0, 1 << 20).recv(1, 1, 0, 1 << 20).after({0});
  EXPECT_THAT(error_of(b.build()), AllOf(HasSubstr("deadlock"), HasSubstr("can never complete")));
}

TEST(Validate, StartDependenciesDoNotWaitForCompletion) {
  // irequires: rank 0 sends after its receive has started, not completed. No deadlock.
  Builder b(2);
  b.recv(0, 0, 1, 8).send(0, 1, 1, 8).after_start({0});
  b.recv(1, 0, 0, 8).send(1, 1, 0, 8).after_start({0});
  EXPECT_NO_THROW(validate(b.build()));
}

TEST(Validate, CopyRegionsAreChecked) {
  Builder b(1);
  b.copy(0, 0, 16, {1, 0}, {0, -1});
  EXPECT_THAT(error_of(b.build()), HasSubstr("source offset -1 is negative"));
}

}  // namespace
}  // namespace choreo
