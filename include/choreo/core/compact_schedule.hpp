#pragma once
// The compact schedule: choreo's IR at scale. Every op of every rank in one set of arrays
// (struct of arrays, about 20 bytes an op) and dependencies as compressed lists, so a
// 2^20-rank allreduce (tens of millions of ops) fits in memory. The generators (coll/) and
// schedulers (sched/) build it directly with CompactBuilder, without a Schedule or a file in
// between; the engines (sim/, mpi/) and the writers read it. It lives in core/ because every
// layer above shares it (docs/architecture.md).
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "choreo/core/schedule.hpp"

namespace choreo {

using OpIndex = std::uint32_t;  ///< index of an op over all ranks

class CompactSchedule {
 public:
  /// Read-only views of every array; `owner` (below) keeps what they point to alive.
  struct Arrays {
    std::span<const OpIndex> first_op;  ///< ranks + 1 entries
    std::span<const std::uint8_t> kind, cpu, nic;
    std::span<const std::int32_t> peer, tag;
    std::span<const std::int64_t> amount;
    std::span<const std::uint32_t> dependency_count;
    std::span<const OpIndex> on_start_offset, on_start, on_complete_offset, on_complete;
    std::span<const OpIndex> on_any_offset, on_any;  ///< both empty without first-of groups
  };

  CompactSchedule();
  /// A schedule over arrays that `owner` keeps alive (an mmap'd .cbs file, say). The arrays
  /// are taken as they are: the caller checked them first (load_binary does).
  static CompactSchedule view(const Arrays& arrays, int cpus, int nics,
                              std::shared_ptr<const void> owner);

  int ranks() const { return static_cast<int>(a_.first_op.size()) - 1; }
  std::size_t op_count() const { return a_.kind.size(); }
  /// Ops of rank r are first_op(r) .. first_op(r + 1) - 1, in program order.
  OpIndex first_op(int rank) const { return a_.first_op[static_cast<std::size_t>(rank)]; }

  OpKind kind(OpIndex op) const { return static_cast<OpKind>(a_.kind[op]); }
  int peer(OpIndex op) const { return a_.peer[op]; }
  int tag(OpIndex op) const { return a_.tag[op]; }
  /// Bytes of a send, recv or copy; nanoseconds of a delay or calc.
  std::int64_t amount(OpIndex op) const { return a_.amount[op]; }
  int cpu(OpIndex op) const { return a_.cpu[op]; }
  int nic(OpIndex op) const { return a_.nic[op]; }

  /// How many dependencies op waits for: its requires and irequires, plus one for its
  /// first-of group if it has one (the group is met once, by its first member to complete).
  std::uint32_t dependency_count(OpIndex op) const { return a_.dependency_count[op]; }
  /// Ops released when op starts (their irequires) and when it completes (their requires).
  template <typename F>
  void for_each_started_dependent(OpIndex op, F&& f) const {
    for (auto i = a_.on_start_offset[op]; i < a_.on_start_offset[op + 1]; ++i) f(a_.on_start[i]);
  }
  template <typename F>
  void for_each_completed_dependent(OpIndex op, F&& f) const {
    for (auto i = a_.on_complete_offset[op]; i < a_.on_complete_offset[op + 1]; ++i)
      f(a_.on_complete[i]);
  }
  /// Ops whose first-of group (Op::requires_any) holds op: the first member to complete
  /// meets the group; later members release nothing more.
  template <typename F>
  void for_each_any_dependent(OpIndex op, F&& f) const {
    if (a_.on_any_offset.empty()) return;
    for (auto i = a_.on_any_offset[op]; i < a_.on_any_offset[op + 1]; ++i) f(a_.on_any[i]);
  }
  /// True when some op has a first-of group (engines then keep one flag per op for it).
  bool has_any_groups() const { return !a_.on_any.empty(); }

  int cpus() const { return cpus_; }  ///< largest cpu number + 1
  int nics() const { return nics_; }  ///< largest nic number + 1
  /// Bytes of the arrays (in memory, or mapped from a file).
  std::size_t memory_bytes() const;
  /// Every array at once (writers of the binary format read them from here).
  const Arrays& arrays() const { return a_; }

 private:
  friend class CompactBuilder;
  Arrays a_;
  int cpus_ = 1, nics_ = 1;
  std::shared_ptr<const void> owner_;  ///< CompactBuilder's arrays, or a file mapping
};

/// How an op waits for another of its rank: GOAL's requires (the other completed), irequires
/// (it started), or as a member of the op's first-of group (Op::requires_any).
enum class Dependency : std::uint8_t { Completed, Started, FirstOf };

/// The calls that add an op or a dependency to the rank being built, shared by CompactBuilder
/// and ShapedBuilder: each supplies add() and add_edge(). Op handles are the rank-local
/// program positions the add calls return.
template <class Builder>
class ProgramCalls {
 public:
  std::uint32_t send(int peer, std::int64_t bytes, int tag = 0, int cpu = 0, int nic = 0) {
    return self().add(OpKind::Send, peer, tag, bytes, cpu, nic);
  }
  std::uint32_t recv(int peer, std::int64_t bytes, int tag = 0, int cpu = 0, int nic = 0) {
    return self().add(OpKind::Recv, peer, tag, bytes, cpu, nic);
  }
  std::uint32_t calc(std::int64_t nanoseconds, int cpu = 0) {
    return self().add(OpKind::Calc, 0, 0, nanoseconds, cpu, 0);
  }
  std::uint32_t delay(std::int64_t nanoseconds, int cpu = 0) {
    return self().add(OpKind::Delay, 0, 0, nanoseconds, cpu, 0);
  }
  std::uint32_t copy(std::int64_t bytes, int cpu = 0) {
    return self().add(OpKind::Copy, 0, 0, bytes, cpu, 0);
  }
  /// `op` starts only after `dependency` completed (GOAL requires), both of this rank.
  void requires_completed(std::uint32_t op, std::uint32_t dependency) {
    self().add_edge(Dependency::Completed, op, dependency);
  }
  /// `op` starts only after `dependency` started (GOAL irequires).
  void requires_started(std::uint32_t op, std::uint32_t dependency) {
    self().add_edge(Dependency::Started, op, dependency);
  }
  /// Adds `dependency` to `op`'s first-of group (Op::requires_any): `op` starts only after
  /// the first member of its group completed (and its other dependencies are met).
  void requires_any(std::uint32_t op, std::uint32_t dependency) {
    self().add_edge(Dependency::FirstOf, op, dependency);
  }

 private:
  Builder& self() { return static_cast<Builder&>(*this); }
};

/// Builds a CompactSchedule rank by rank: begin_rank(0), its ops, begin_rank(1), ...
/// Op handles are the rank-local program positions the add functions return.
class CompactBuilder : public ProgramCalls<CompactBuilder> {
 public:
  /// expected_ops and expected_dependencies (requires + irequires) size the arrays once.
  explicit CompactBuilder(int ranks, std::size_t expected_ops = 0,
                          std::size_t expected_dependencies = 0);
  ~CompactBuilder();
  CompactBuilder(CompactBuilder&&) noexcept;
  CompactBuilder& operator=(CompactBuilder&&) noexcept;

  void begin_rank(int rank);

  /// Throws choreo::Error if a rank was skipped or a dependency points outside its rank.
  CompactSchedule finish();

 private:
  friend class ProgramCalls<CompactBuilder>;
  std::uint32_t add(OpKind kind, int peer, int tag, std::int64_t amount, int cpu, int nic);
  void add_edge(Dependency kind, std::uint32_t op, std::uint32_t dependency);

  /// The arrays being filled and the dependencies gathered (src/core/compact_schedule.cpp);
  /// null after finish().
  struct State;
  std::unique_ptr<State> state_;
  int cpus_ = 1, nics_ = 1;
  int ranks_;
  int current_ = -1;
};

/// The compact form of a Schedule (which should have passed choreo::validate).
CompactSchedule compact(const Schedule& schedule);
/// A Schedule with the same ops and dependencies; ids are program positions, and every
/// dependency list (a first-of group's too) is in program order.
Schedule expand(const CompactSchedule& compact, const std::string& algorithm = "");

}  // namespace choreo
