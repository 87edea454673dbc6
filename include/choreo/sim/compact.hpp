#pragma once
// A schedule laid out for simulation at scale: every op of every rank in one set of arrays
// (struct of arrays, about 20 bytes an op) and dependencies as compressed lists, so a
// 2^20-rank allreduce (tens of millions of ops) fits in memory. Generators can build it
// directly (CompactBuilder) without a Schedule or a file in between.
#include <cstdint>
#include <vector>

#include "choreo/schedule.hpp"
#include "choreo/sim/huge_pages.hpp"

namespace choreo::sim {

using OpIndex = std::uint32_t;  ///< index of an op over all ranks

class CompactSchedule {
 public:
  int ranks() const { return static_cast<int>(first_op_.size()) - 1; }
  std::size_t op_count() const { return kind_.size(); }
  /// Ops of rank r are first_op(r) .. first_op(r + 1) - 1, in program order.
  OpIndex first_op(int rank) const { return first_op_[static_cast<std::size_t>(rank)]; }

  OpKind kind(OpIndex op) const { return static_cast<OpKind>(kind_[op]); }
  int peer(OpIndex op) const { return peer_[op]; }
  int tag(OpIndex op) const { return tag_[op]; }
  /// Bytes of a send, recv or copy; nanoseconds of a delay or calc.
  std::int64_t amount(OpIndex op) const { return amount_[op]; }
  int cpu(OpIndex op) const { return cpu_[op]; }
  int nic(OpIndex op) const { return nic_[op]; }

  /// How many dependencies op waits for: its requires and irequires, plus one for its
  /// first-of group if it has one (the group is met once, by its first member to complete).
  std::uint32_t dependency_count(OpIndex op) const { return dependency_count_[op]; }
  /// Ops released when op starts (their irequires) and when it completes (their requires).
  template <typename F>
  void for_each_started_dependent(OpIndex op, F&& f) const {
    for (auto i = on_start_offset_[op]; i < on_start_offset_[op + 1]; ++i) f(on_start_[i]);
  }
  template <typename F>
  void for_each_completed_dependent(OpIndex op, F&& f) const {
    for (auto i = on_complete_offset_[op]; i < on_complete_offset_[op + 1]; ++i) f(on_complete_[i]);
  }
  /// Ops whose first-of group (Op::requires_any) holds op: the first member to complete
  /// meets the group; later members release nothing more.
  template <typename F>
  void for_each_any_dependent(OpIndex op, F&& f) const {
    if (on_any_offset_.empty()) return;
    for (auto i = on_any_offset_[op]; i < on_any_offset_[op + 1]; ++i) f(on_any_[i]);
  }
  /// True when some op has a first-of group (engines then keep one flag per op for it).
  bool has_any_groups() const { return !on_any_.empty(); }

  int cpus() const { return cpus_; }  ///< largest cpu number + 1
  int nics() const { return nics_; }  ///< largest nic number + 1
  std::size_t memory_bytes() const;

 private:
  friend class CompactBuilder;
  BigVector<OpIndex> first_op_{0};
  BigVector<std::uint8_t> kind_, cpu_, nic_;
  BigVector<std::int32_t> peer_, tag_;
  BigVector<std::int64_t> amount_;
  BigVector<std::uint32_t> dependency_count_;
  BigVector<OpIndex> on_start_offset_, on_start_, on_complete_offset_, on_complete_;
  BigVector<OpIndex> on_any_offset_, on_any_;  ///< both empty when no op has a first-of group
  int cpus_ = 1, nics_ = 1;
};

/// Builds a CompactSchedule rank by rank: begin_rank(0), its ops, begin_rank(1), ...
/// Op handles are the rank-local program positions the add functions return.
class CompactBuilder {
 public:
  /// expected_ops and expected_dependencies (requires + irequires) size the arrays once.
  explicit CompactBuilder(int ranks, std::size_t expected_ops = 0,
                          std::size_t expected_dependencies = 0);

  void begin_rank(int rank);
  std::uint32_t send(int peer, std::int64_t bytes, int tag = 0, int cpu = 0, int nic = 0);
  std::uint32_t recv(int peer, std::int64_t bytes, int tag = 0, int cpu = 0, int nic = 0);
  std::uint32_t calc(std::int64_t nanoseconds, int cpu = 0);
  std::uint32_t delay(std::int64_t nanoseconds, int cpu = 0);
  std::uint32_t copy(std::int64_t bytes, int cpu = 0);
  /// `op` starts only after `dependency` completed (GOAL requires), both of this rank.
  void requires_completed(std::uint32_t op, std::uint32_t dependency);
  /// `op` starts only after `dependency` started (GOAL irequires).
  void requires_started(std::uint32_t op, std::uint32_t dependency);
  /// Adds `dependency` to `op`'s first-of group (Op::requires_any): `op` starts only after
  /// the first member of its group completed (and its other dependencies are met).
  void requires_any(std::uint32_t op, std::uint32_t dependency);

  /// Throws choreo::Error if a rank was skipped or a dependency points outside its rank.
  CompactSchedule finish();

 private:
  std::uint32_t add(OpKind kind, int peer, int tag, std::int64_t amount, int cpu, int nic);
  void check_op(OpKind kind, int peer, int tag, std::int64_t amount) const;
  using Edges = BigVector<std::pair<OpIndex, OpIndex>>;  // (from, to)
  void add_edge(Edges& edges, std::uint32_t op, std::uint32_t dependency);

  CompactSchedule s_;
  int ranks_;
  int current_ = -1;
  Edges start_edges_, complete_edges_, any_edges_;
};

/// The compact form of a Schedule (which should have passed choreo::validate).
CompactSchedule compact(const Schedule& schedule);
/// A Schedule with the same ops and dependencies; ids are program positions, and every
/// dependency list (a first-of group's too) is in program order.
Schedule expand(const CompactSchedule& compact, const std::string& algorithm = "");

}  // namespace choreo::sim
