#pragma once
// Terse construction of hand-made schedules for tests.
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "choreo/core/schedule.hpp"

namespace choreo::test {

class Builder {
 public:
  explicit Builder(int ranks) {
    s_.ranks = ranks;
    s_.programs.resize(static_cast<std::size_t>(ranks));
  }
  Builder& send(int rank, std::int64_t id, int to, std::int64_t bytes, int tag = 0) {
    return add(rank, id, OpKind::Send, to, bytes, tag);
  }
  Builder& recv(int rank, std::int64_t id, int from, std::int64_t bytes, int tag = 0) {
    return add(rank, id, OpKind::Recv, from, bytes, tag);
  }
  Builder& calc(int rank, std::int64_t id, std::int64_t ns) {
    add(rank, id, OpKind::Calc, 0, 0, 0);
    last().nanoseconds = ns;
    return *this;
  }
  Builder& delay(int rank, std::int64_t id, std::int64_t ns) {
    add(rank, id, OpKind::Delay, 0, 0, 0);
    last().nanoseconds = ns;
    return *this;
  }
  Builder& copy(int rank, std::int64_t id, std::int64_t bytes, Region to, Region from) {
    add(rank, id, OpKind::Copy, 0, bytes, 0);
    last().region = to;
    last().source = from;
    return *this;
  }
  /// The last op added to `rank` requires (completion of) `ids`.
  Builder& after(std::vector<std::int64_t> ids) {
    last().requires_completed = std::move(ids);
    return *this;
  }
  /// The last op added starts only after `ids` started.
  Builder& after_start(std::vector<std::int64_t> ids) {
    last().requires_started = std::move(ids);
    return *this;
  }
  Builder& in(Region region) {
    last().region = region;
    return *this;
  }
  Schedule build() const { return s_; }
  Op& last() { return *last_; }

 private:
  Builder& add(int rank, std::int64_t id, OpKind kind, int peer, std::int64_t bytes, int tag) {
    Op op;
    op.id = id;
    op.kind = kind;
    op.peer = peer;
    op.bytes = bytes;
    op.tag = tag;
    auto& ops = s_.programs.at(static_cast<std::size_t>(rank)).ops;
    ops.push_back(op);
    last_ = &ops.back();
    return *this;
  }
  Schedule s_;
  Op* last_ = nullptr;
};

/// A random schedule exercising every field of the IR (not necessarily valid: matching
/// and deadlock are not considered). Ids are unique per rank but not contiguous, and
/// dependencies point to earlier ops, so the dependency graph is acyclic. Times are whole
/// nanoseconds, choreo's resolution.
inline Schedule random_schedule(std::mt19937_64& rng, int max_ranks = 6, int max_ops = 12) {
  auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  Schedule s;
  s.ranks = static_cast<int>(pick(1, max_ranks));
  s.algorithm = pick(0, 1) ? "random" : "";
  s.programs.resize(static_cast<std::size_t>(s.ranks));
  for (auto& program : s.programs) {
    std::int64_t next_id = pick(0, 3);
    for (std::int64_t i = 0, n = pick(0, max_ops); i < n; ++i) {
      Op op;
      op.id = next_id;
      next_id += pick(1, 3);
      op.kind = static_cast<OpKind>(pick(0, 4));
      if (op.is_message()) {
        op.peer = static_cast<int>(pick(op.kind == OpKind::Recv ? -1 : 0, s.ranks - 1));
        op.tag = static_cast<int>(pick(op.kind == OpKind::Recv ? -1 : 0, 40000));
        op.bytes = pick(0, 1 << 20);
      }
      if (op.is_timed()) op.nanoseconds = pick(0, 5'000'000'000);
      if (op.kind == OpKind::Copy) {
        op.bytes = pick(0, 4096);
        if (pick(0, 1)) op.source = {static_cast<int>(pick(0, 3)), pick(0, 1000)};
      }
      if (op.kind != OpKind::Delay && op.kind != OpKind::Calc && pick(0, 1))
        op.region = {static_cast<int>(pick(0, 3)), pick(0, 1000)};
      if (pick(0, 2) == 0) op.slot = static_cast<int>(pick(0, 100));
      if (pick(0, 5) == 0) op.cpu = static_cast<int>(pick(1, 3));
      if (op.is_message() && pick(0, 5) == 0) op.nic = static_cast<int>(pick(1, 3));
      for (const Op& earlier : program.ops) {
        if (pick(0, 4) == 0)
          op.requires_completed.push_back(earlier.id);
        else if (pick(0, 8) == 0)
          op.requires_started.push_back(earlier.id);
      }
      program.ops.push_back(op);
    }
  }
  return s;
}

/// Gives about a third of the ops of every program of two or more ops a first-of group
/// (Op::requires_any): other ops of the rank, each with probability 1/3, in random order (the
/// group may stay empty). Members may come before or after the op, and may also be required.
inline void add_random_first_of_groups(Schedule& s, std::mt19937_64& rng) {
  auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  for (auto& program : s.programs)
    for (Op& op : program.ops) {
      if (program.ops.size() < 2 || pick(0, 2) != 0) continue;
      for (const Op& other : program.ops)
        if (other.id != op.id && pick(0, 2) == 0) op.requires_any.push_back(other.id);
      std::shuffle(op.requires_any.begin(), op.requires_any.end(), rng);
    }
}

}  // namespace choreo::test
