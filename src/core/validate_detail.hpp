#pragma once
// Part of choreo::validate (private), shared with sim::validate (src/sim/validate.cpp), which
// checks a CompactSchedule without building a Schedule: the per-rank checks run on a RankGraph
// (one rank's dependencies as flat lists of program positions) that either caller fills, and
// every failure message is formatted here, so both say the same thing about the same problem.
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "choreo/core/schedule.hpp"

namespace choreo::detail {

/// Compressed lists: list i is items[offset[i] .. offset[i + 1]). Cleared, not freed, between
/// ranks, so one set of arrays serves every rank.
struct FlatLists {
  std::vector<std::uint32_t> offset{0}, items;
  void clear() {
    offset.assign(1, 0);
    items.clear();
  }
  void push(std::uint32_t item) { items.push_back(item); }
  void end_list() { offset.push_back(static_cast<std::uint32_t>(items.size())); }
  std::span<const std::uint32_t> operator[](std::size_t i) const {
    return {items.data() + offset[i], items.data() + offset[i + 1]};
  }
};

/// One rank's program as the per-rank checks need it: each op's kind, peer and tag, and its
/// requires / irequires / first-of group as program positions, in the order the op lists
/// them. `op` returns the full op at a position; the checks call it only to write a failure.
struct RankGraph {
  int rank = 0;
  std::vector<OpKind> kind;
  std::vector<std::int32_t> peer, tag;
  FlatLists completed, started, any;
  std::function<Op(std::size_t)> op;

  std::size_t size() const { return kind.size(); }
  void clear(int r) {
    rank = r;
    kind.clear();
    peer.clear();
    tag.clear();
    completed.clear();
    started.clear();
    any.clear();
  }
};

/// Scratch of the per-rank checks, sized by the largest rank seen and reused for the others.
struct RankScratch {
  FlatLists dependents, any_dependents;  // cycle check: the graph's lists reversed
  std::vector<std::uint32_t> pending, ready, path;
  std::vector<char> any_open, seen;
  std::vector<std::uint32_t> channel;  // channel order: message ops by (kind, peer, tag, position)
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  std::vector<std::uint8_t> state, other_state;
  std::vector<std::uint32_t> touched, other_touched, stack;
  std::vector<std::pair<std::uint32_t, std::uint8_t>> common;
};

/// Fills `graph` with the kinds, peers and tags of `program`, rank `rank`.
void fill_kinds(int rank, const Program& program, RankGraph& graph);
/// Fills the dependency lists of `graph` too; `index` maps the program's ids to positions.
void fill_dependencies(const Program& program,
                       const std::unordered_map<std::int64_t, std::size_t>& index,
                       RankGraph& graph);

/// Op fields: peer range, sizes, times, tags, slots, cpu and nic numbers, regions.
void check_op_fields(int ranks, int rank, const Op& op);
/// No dependency cycle within the rank (a first-of group is stuck only if all its members are).
void check_no_cycle(const RankGraph& graph, RankScratch& scratch);
/// The channel-order pairs of the rank (two message ops of one (kind, peer, tag), consecutive
/// in program order) into scratch.pairs, by the later op; needs only kind, peer and tag.
bool find_channel_pairs(const RankGraph& graph, RankScratch& scratch);
/// Throws unless every pair found by find_channel_pairs starts in program order in every run
/// (src/core/message_order.cpp); needs the dependency lists too.
void check_channel_pairs(const RankGraph& graph, RankScratch& scratch);

// The failures of matching and of the deadlock play, by (rank, op).
[[noreturn]] void fail_size_mismatch(int send_rank, const Op& send, int recv_rank, const Op& recv);
[[noreturn]] void fail_unmatched_send(int rank, const Op& send);
[[noreturn]] void fail_unmatched_recv(int rank, const Op& recv);
[[noreturn]] void fail_may_steal(int rank, const Op& wildcard, const Op& other);
/// `chain` starts with the stuck op and holds up to 9 links (a ninth says "...").
[[noreturn]] void fail_deadlock(bool started, const std::vector<std::pair<int, Op>>& chain);

}  // namespace choreo::detail
