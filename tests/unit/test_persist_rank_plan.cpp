// One rank's persistent-collective plan, built from that rank's program alone (PlanBuilder on
// the per-rank generator code; the multitree's links in closed form, multitree_links), against
// the reference: the plan read out of the generator's schedule of all P ranks
// (plan_from_schedule on coll::bcast_binomial, bcast_multitree, allreduce_recursive_doubling,
// allreduce_ring, allgather_ring), whose trees come from multitree_tree's O(P) heap. For every
// rank of many P (1..70 and a few large), roots, byte counts (0, 1, odd, not divisible by the
// parts or the segments), arities, parts and segment sizes, the two plans must agree command by
// command: kind, peer, tag, bytes, data and source places, dependency count and the dependents
// in order; and on the plan's name, scratch and initial copy.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../../src/persist/plan.hpp"
#include "../../src/persist/plan_builder.hpp"
#include "../../src/persist/plans.hpp"
#include "choreo/coll/pipeline.hpp"
#include "choreo/core/error.hpp"

namespace choreo::persist::detail {
namespace {

using i64 = std::int64_t;

std::string place_text(const Place& place) {
  const char* buffer = place.buffer == BufferId::User   ? "user"
                       : place.buffer == BufferId::Send ? "send"
                                                        : "scratch";
  return fmt::format("{}+{}", buffer, place.offset);
}

std::string command_text(const Command& c) {
  const char* kind = c.kind == CommandKind::Send   ? "send"
                     : c.kind == CommandKind::Recv ? "recv"
                                                   : "reduce";
  std::string dependents;
  for (std::uint32_t d : c.dependents) dependents += fmt::format(" {}", d);
  return fmt::format(
      "{} peer {} tag {} {} bytes data {} source {}, {} dependencies, dependents [{}]", kind,
      c.peer, c.tag, c.bytes, place_text(c.data), place_text(c.source), c.dependencies, dependents);
}

bool same_command(const Command& a, const Command& b) {
  return a.kind == b.kind && a.peer == b.peer && a.tag == b.tag && a.bytes == b.bytes &&
         a.data == b.data && a.source == b.source && a.dependencies == b.dependencies &&
         a.dependents == b.dependents;
}

/// The first difference between the plan built and the reference, or "" when they agree.
std::string first_difference(const Plan& built, const Plan& reference) {
  if (built.algorithm != reference.algorithm)
    return fmt::format("algorithm {} vs {}", built.algorithm, reference.algorithm);
  if (built.scratch_bytes != reference.scratch_bytes)
    return fmt::format("scratch {} vs {}", built.scratch_bytes, reference.scratch_bytes);
  if (built.initial_copy_bytes != reference.initial_copy_bytes ||
      built.initial_copy_offset != reference.initial_copy_offset ||
      built.initial_copy_source_offset != reference.initial_copy_source_offset)
    return "initial copy";
  const std::size_t common = std::min(built.commands.size(), reference.commands.size());
  for (std::size_t i = 0; i < common; ++i)
    if (!same_command(built.commands[i], reference.commands[i]))
      return fmt::format("command {}:\n  built     {}\n  reference {}", i,
                         command_text(built.commands[i]), command_text(reference.commands[i]));
  if (built.commands.size() != reference.commands.size())
    return fmt::format("{} commands vs {}", built.commands.size(), reference.commands.size());
  return "";
}

std::vector<int> every_rank(int ranks) {
  std::vector<int> out(static_cast<std::size_t>(ranks));
  for (int rank = 0; rank < ranks; ++rank) out[static_cast<std::size_t>(rank)] = rank;
  return out;
}

/// Checks every rank; stops at the first rank that differs (one message, not P).
template <typename Built>
void expect_every_rank_alike(int ranks, const std::string& what, Built built,
                             const std::vector<Plan>& reference, std::int64_t& compared) {
  for (int rank = 0; rank < ranks; ++rank) {
    const std::string difference =
        first_difference(built(rank), reference[static_cast<std::size_t>(rank)]);
    ++compared;
    if (!difference.empty()) {
      ADD_FAILURE() << what << ", rank " << rank << " of " << ranks << ": " << difference;
      return;
    }
  }
}

// ---- broadcasts ------------------------------------------------------------------------------

struct BcastCase {
  std::string algorithm;
  int ranks = 1, root = 0, arity = 0, parts = 1;
  i64 bytes = 0, segment = 0;  // segment 0: Hockney's rule
};

std::string text(const BcastCase& c) {
  return fmt::format("bcast:{} P={} root={} arity={} parts={} bytes={} segment={}", c.algorithm,
                     c.ranks, c.root, c.arity, c.parts, c.bytes, c.segment);
}

void expect_bcast_alike(const BcastCase& c, std::int64_t& compared) {
  Options options;
  options.arity = c.arity;
  options.parts = c.parts;
  options.segment_bytes = c.segment;
  const BcastShape shape = bcast_shape(c.algorithm, c.bytes, c.root, c.ranks, options);
  expect_every_rank_alike(
      c.ranks, text(c), [&](int rank) { return bcast_plan(shape, c.ranks, rank); },
      bcast_plans_from_full_schedule(shape, c.ranks, every_rank(c.ranks)), compared);
}

/// (root, bytes, segment) of a case, varied with P: roots at both ends and inside, byte counts
/// not divisible by 2 or 3 parts nor by the segments, and Hockney's rule (one segment a part).
std::vector<BcastCase> bcast_variants(BcastCase base) {
  const int p = base.ranks;
  const std::vector<std::array<i64, 3>> variants{
      {0, 0, 0}, {p - 1, 1, 0}, {p / 2, 1001, 64}, {(p * 7) / 13, 4099, 333}, {1 % p, 100, 7}};
  std::vector<BcastCase> out;
  for (const auto& [root, bytes, segment] : variants) {
    BcastCase c = base;
    c.root = static_cast<int>(root);
    c.bytes = bytes;
    c.segment = segment;
    out.push_back(c);
  }
  return out;
}

/// Every algorithm and layout the persistent broadcast takes: binomial, the k-ary pipeline of
/// arity 1 (a chain) to 4, and the multitree of arity 2..4 with 1..min(3, arity) parts.
std::vector<BcastCase> bcast_layouts(int ranks) {
  std::vector<BcastCase> out{{"binomial", ranks}};
  for (int arity = 1; arity <= 4; ++arity) out.push_back({"kary_pipeline", ranks, 0, arity, 1});
  for (int arity = 2; arity <= 4; ++arity)
    for (int parts = 1; parts <= std::min(3, arity); ++parts)
      out.push_back({"multitree", ranks, 0, arity, parts});
  return out;
}

TEST(PersistRankPlan, BroadcastsMatchTheFullScheduleOnEveryRank) {
  std::int64_t compared = 0;
  for (int ranks = 1; ranks <= 70; ++ranks)
    for (const BcastCase& layout : bcast_layouts(ranks))
      for (const BcastCase& c : bcast_variants(layout)) expect_bcast_alike(c, compared);
  EXPECT_GT(compared, 100000);
}

TEST(PersistRankPlan, BroadcastsMatchTheFullScheduleOnManyRanks) {
  std::int64_t compared = 0;
  for (int ranks : {1000, 4097}) {
    for (int root : {0, ranks - 1, ranks / 3}) {
      expect_bcast_alike({"binomial", ranks, root, 0, 1, 12345, 0}, compared);
      expect_bcast_alike({"kary_pipeline", ranks, root, 2, 1, 1001, 100}, compared);
      expect_bcast_alike({"multitree", ranks, root, 3, 3, 1001, 64}, compared);
      expect_bcast_alike({"multitree", ranks, root, 4, 2, 999, 0}, compared);
    }
  }
  EXPECT_EQ(compared, 3 * 4 * (1000 + 4097));
}

// ---- allreduce and allgather -----------------------------------------------------------------

void expect_allreduce_alike(const std::string& algorithm, int ranks, i64 count, int element_size,
                            std::int64_t& compared) {
  expect_every_rank_alike(
      ranks,
      fmt::format("allreduce:{} P={} count={} element size {}", algorithm, ranks, count,
                  element_size),
      [&](int rank) { return allreduce_plan(algorithm, count, element_size, ranks, rank); },
      allreduce_plans_from_full_schedule(algorithm, count, element_size, ranks, every_rank(ranks)),
      compared);
}

/// The torus-mapped trees (paper 003's Fig. 2) from each rank's own links against the plans read
/// out of bcast_multitree_torus's schedule, whose trees test_coll_pipeline.cpp checks for
/// one-hop, link-disjoint edges on the torus.
TEST(PersistRankPlan, TorusTreesMatchTheFullScheduleOnEveryRank) {
  std::int64_t compared = 0;
  for (const std::array<int, 3>& dims : std::vector<std::array<int, 3>>{
           {3, 3, 3}, {4, 3, 5}, {2, 2, 2}, {1, 3, 2}, {5, 1, 1}, {2, 3, 1}, {3, 1, 4}}) {
    const int ranks = dims[0] * dims[1] * dims[2];
    for (const BcastCase& c : bcast_variants({"multitree_torus", ranks})) {
      Options options;
      options.torus = dims;
      options.segment_bytes = c.segment;
      const BcastShape shape = bcast_shape(c.algorithm, c.bytes, c.root, ranks, options);
      expect_every_rank_alike(
          ranks, fmt::format("{} on {}x{}x{}", text(c), dims[0], dims[1], dims[2]),
          [&](int rank) { return bcast_plan(shape, ranks, rank); },
          bcast_plans_from_full_schedule(shape, ranks, every_rank(ranks)), compared);
    }
  }
  EXPECT_GT(compared, 500);
}

/// With a placement, rank r runs node placement[r]'s program of the linear placement, its
/// peers renamed from nodes to the ranks placed there (the root's node is the root).
TEST(PersistRankPlan, TorusPlacementRenamesTheLinearPlacementsPeers) {
  const std::array<int, 3> dims{3, 2, 4};
  const int ranks = 24;
  std::vector<int> placement(ranks), rank_of_node(ranks);
  for (int r = 0; r < ranks; ++r) placement[static_cast<std::size_t>(r)] = (r * 5 + 3) % ranks;
  for (int r = 0; r < ranks; ++r)
    rank_of_node[static_cast<std::size_t>(placement[static_cast<std::size_t>(r)])] = r;
  Options placed, linear;
  placed.torus = linear.torus = dims;
  placed.torus_placement = placement;
  placed.segment_bytes = linear.segment_bytes = 100;
  const int root = 7;
  const BcastShape shape = bcast_shape("multitree_torus", 4099, root, ranks, placed);
  const BcastShape reference = bcast_shape("multitree_torus", 4099, placement[root], ranks, linear);
  for (int r = 0; r < ranks; ++r) {
    Plan expected = bcast_plan(reference, ranks, placement[static_cast<std::size_t>(r)]);
    for (Command& command : expected.commands)
      command.peer = rank_of_node[static_cast<std::size_t>(command.peer)];
    const std::string difference = first_difference(bcast_plan(shape, ranks, r), expected);
    EXPECT_EQ(difference, "") << "rank " << r;
  }
}

TEST(PersistRankPlan, TorusRefusesAShapeOrPlacementThatDoesNotFit) {
  Options options;
  options.torus = {2, 2, 2};
  EXPECT_THROW(bcast_shape("multitree_torus", 100, 0, 9, options), Error);  // 8 nodes, 9 ranks
  options.torus_placement = {0, 1, 2, 3, 4, 5, 6, 6};                       // node 6 twice
  EXPECT_THROW(bcast_shape("multitree_torus", 100, 0, 8, options), Error);
  options.torus_placement = {0, 1, 2};  // too short
  EXPECT_THROW(bcast_shape("multitree_torus", 100, 0, 8, options), Error);
  options.torus = {0, 0, 0};
  options.torus_placement.clear();
  EXPECT_THROW(bcast_shape("multitree_torus", 100, 0, 8, options), Error);  // no torus
}

TEST(PersistRankPlan, AllreducesMatchTheFullScheduleOnEveryRank) {
  std::int64_t compared = 0;
  for (int ranks = 1; ranks <= 70; ++ranks)
    for (const char* algorithm : {"recdbl", "ring"})
      // Counts below, at and above P (the ring's empty chunks) and an odd one.
      for (i64 count : {i64{0}, i64{1}, i64{5}, i64{ranks} - 1, i64{ranks} + 3, i64{1001}})
        for (int element_size : {1, 8})
          expect_allreduce_alike(algorithm, ranks, count, element_size, compared);
  for (int ranks : {1000, 1025}) {
    expect_allreduce_alike("recdbl", ranks, 3, 8, compared);
    expect_allreduce_alike("ring", ranks, 7, 4, compared);  // mostly empty steps
  }
  expect_allreduce_alike("ring", 300, 1001, 8, compared);
  EXPECT_GT(compared, 60000);
}

TEST(PersistRankPlan, AllgathersMatchTheFullScheduleOnEveryRank) {
  std::int64_t compared = 0;
  for (int ranks = 1; ranks <= 70; ++ranks)
    for (i64 block : {i64{0}, i64{1}, i64{24}})
      expect_every_rank_alike(
          ranks, fmt::format("allgather:ring P={} block={}", ranks, block),
          [&](int rank) { return allgather_plan(block, ranks, rank); },
          allgather_plans_from_full_schedule(block, ranks, every_rank(ranks)), compared);
  EXPECT_EQ(compared, 3 * (70 * 71 / 2));
}

// ---- what no reference can build: communicators of a billion ranks -------------------------

/// A rank's plan at P = 2^30 and INT_MAX: an O(P) tree or rank list would take gigabytes and
/// seconds here. Each send goes to a rank whose own plan receives from this one, with the tag.
TEST(PersistRankPlan, OneRankOfABillionBuildsItsOwnPlan) {
  for (int ranks : {1 << 30, INT_MAX})
    for (const char* algorithm : {"binomial", "kary_pipeline", "multitree"}) {
      Options options;
      const BcastShape shape = bcast_shape(algorithm, 1 << 20, ranks - 2, ranks, options);
      for (int rank : {ranks - 2, ranks - 1, 0, 12345, ranks / 3}) {
        const Plan plan = bcast_plan(shape, ranks, rank);
        ASSERT_FALSE(plan.commands.empty()) << algorithm << " rank " << rank;
        for (const Command& send : plan.commands) {
          if (send.kind != CommandKind::Send) continue;
          const Plan peer = bcast_plan(shape, ranks, send.peer);
          bool received = false;
          for (const Command& recv : peer.commands)
            received |= recv.kind == CommandKind::Recv && recv.peer == rank &&
                        recv.tag == send.tag && recv.bytes == send.bytes && recv.data == send.data;
          EXPECT_TRUE(received) << algorithm << " P=" << ranks << ": rank " << rank << " sends tag "
                                << send.tag << " to " << send.peer << ", which never receives it";
        }
      }
    }
}

// MPI's int count limits what one message or reduction may carry, not a local copy (a memcpy):
// a gather root's 3 GiB own block is fine, a 3 GiB send is refused.
TEST(PersistRankPlan, MessagesAndReductionsPastTheLimitTravelInChainedPieces) {
  // A 3 GiB receive feeding a reduction that feeds a send, and a 3 GiB copy: with pieces of at
  // most INT_MAX bytes (whole 8-byte elements), the receive, the reduction and the send each
  // become a chain of pieces covering the same bytes in order; the copy (a memcpy) stays whole.
  constexpr i64 kThreeGiB = i64{3} << 30;
  Plan plan;
  plan.algorithm = "test";
  plan.commands.resize(4);
  Command& copy = plan.commands[0];
  copy.kind = CommandKind::Copy;
  copy.bytes = kThreeGiB;
  copy.dependents = {1};
  Command& recv = plan.commands[1];
  recv.kind = CommandKind::Recv;
  recv.peer = 1;
  recv.tag = 5;
  recv.bytes = kThreeGiB;
  recv.data = {BufferId::Scratch, 16};
  recv.dependencies = 1;
  recv.dependents = {2};
  Command& reduce = plan.commands[2];
  reduce.kind = CommandKind::Reduce;
  reduce.bytes = kThreeGiB;
  reduce.data = {BufferId::User, 0};
  reduce.source = {BufferId::Scratch, 16};
  reduce.dependencies = 1;
  reduce.dependents = {3};
  Command& send = plan.commands[3];
  send.kind = CommandKind::Send;
  send.peer = 1;
  send.tag = 6;
  send.bytes = kThreeGiB;
  send.dependencies = 1;
  const Command whole_recv = recv, whole_reduce = reduce, whole_send = send;  // before: the
  split_messages(plan, INT_MAX, 8);  // pieces go on the end of the vector, moving the commands
  const i64 piece = INT_MAX / 8 * 8;
  EXPECT_EQ(plan.commands[0].bytes, kThreeGiB);
  // Walks the chain from `first`: returns its pieces' indices; checks bytes and offsets.
  const auto chain = [&](std::uint32_t first, const Command& whole) {
    std::vector<std::uint32_t> pieces{first};
    i64 at = 0;
    for (;;) {
      const Command& c = plan.commands[pieces.back()];
      EXPECT_EQ(c.kind, whole.kind);
      EXPECT_EQ(c.peer, whole.peer);
      EXPECT_EQ(c.tag, whole.tag);
      EXPECT_EQ(c.data.buffer, whole.data.buffer);
      EXPECT_EQ(c.data.offset, whole.data.offset + at);
      if (whole.kind == CommandKind::Reduce) {
        EXPECT_EQ(c.source.offset, whole.source.offset + at);
      }
      EXPECT_EQ(c.bytes, std::min(piece, whole.bytes - at));
      at += c.bytes;
      if (at == whole.bytes) break;
      EXPECT_EQ(c.dependents.size(), 1U);
      EXPECT_EQ(plan.commands[c.dependents[0]].dependencies, 1U);
      pieces.push_back(c.dependents[0]);
    }
    return pieces;
  };
  const auto recvs = chain(1, whole_recv);
  const auto reduces = chain(2, whole_reduce);
  const auto sends = chain(3, whole_send);
  EXPECT_EQ(recvs.size(), 2U);  // 3 GiB: one piece of 2 GiB - 8, the rest
  // The last piece releases what the whole released; the first is released as the whole was.
  EXPECT_EQ(plan.commands[recvs.back()].dependents, std::vector<std::uint32_t>{2});
  EXPECT_EQ(plan.commands[reduces.back()].dependents, std::vector<std::uint32_t>{3});
  EXPECT_TRUE(plan.commands[sends.back()].dependents.empty());
  EXPECT_EQ(plan.commands[0].dependents, std::vector<std::uint32_t>{1});
  EXPECT_EQ(plan.commands.size(), 4U + 3U);
  // A limit that holds no element is refused.
  EXPECT_THROW(split_messages(plan, 4, 8), Error);
}

TEST(PersistRankPlan, RejectsRanksOutsideTheCommunicator) {
  Options options;
  const BcastShape shape = bcast_shape("multitree", 100, 0, 8, options);
  EXPECT_THROW(bcast_plan(shape, 8, 8), Error);
  EXPECT_THROW(bcast_plan(shape, 8, -1), Error);
  EXPECT_THROW(allreduce_plan("ring", 10, 8, 4, 4), Error);
  EXPECT_THROW(allreduce_plan("butterfly", 10, 8, 4, 0), Error);
  EXPECT_THROW(allgather_plan(8, 4, -1), Error);
}

}  // namespace
}  // namespace choreo::persist::detail
