#pragma once
// A schedule whose ranks share program shapes: the generated collectives give most ranks the
// same program up to their peers (every rank of a power-of-two butterfly sends, receives and
// reduces in the same order with the same sizes and tags), so each distinct shape (kinds,
// tags, amounts, processors and dependencies) is stored once and an op keeps only its shape
// op and its peer: 8 bytes an op instead of the CompactSchedule's 30-40. A 2^23-rank allreduce
// (580 million ops) takes 4.6 GB this way. The simulator runs it as it runs a CompactSchedule
// (sim::simulate), with the same results.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "choreo/core/compact_schedule.hpp"
#include "choreo/core/schedule.hpp"

namespace choreo {

class ShapedSchedule {
 public:
  ShapedSchedule();

  int ranks() const { return static_cast<int>(first_op_.size()) - 1; }
  std::size_t op_count() const { return ops_.size(); }
  OpIndex first_op(int rank) const { return first_op_[static_cast<std::size_t>(rank)]; }

  OpKind kind(OpIndex op) const { return static_cast<OpKind>(shapes_.kind[ops_[op].shape_op]); }
  int peer(OpIndex op) const { return ops_[op].peer; }
  int tag(OpIndex op) const { return shapes_.tag[ops_[op].shape_op]; }
  std::int64_t amount(OpIndex op) const { return shapes_.amount[ops_[op].shape_op]; }
  int cpu(OpIndex op) const { return shapes_.cpu[ops_[op].shape_op]; }
  int nic(OpIndex op) const { return shapes_.nic[ops_[op].shape_op]; }
  std::uint32_t dependency_count(OpIndex op) const {
    return shapes_.dependency_count[ops_[op].shape_op];
  }
  /// As CompactSchedule's: dependents are kept as offsets from the op, within its rank.
  template <typename F>
  void for_each_started_dependent(OpIndex op, F&& f) const {
    each(shapes_.on_start_offset, shapes_.on_start, op, f);
  }
  template <typename F>
  void for_each_completed_dependent(OpIndex op, F&& f) const {
    each(shapes_.on_complete_offset, shapes_.on_complete, op, f);
  }
  template <typename F>
  void for_each_any_dependent(OpIndex op, F&& f) const {
    if (!shapes_.on_any.empty()) each(shapes_.on_any_offset, shapes_.on_any, op, f);
  }
  bool has_any_groups() const { return !shapes_.on_any.empty(); }

  int cpus() const { return cpus_; }
  int nics() const { return nics_; }
  std::size_t shape_count() const { return shape_count_; }  ///< distinct rank programs
  /// The largest dependency_count of any op.
  std::uint32_t most_dependencies() const;
  std::size_t memory_bytes() const;

  /// Per op, together so that one cache line brings both: its op in the shapes, and its peer.
  struct OpRef {
    std::uint32_t shape_op;
    std::int32_t peer;
  };

 private:
  friend class ShapedBuilder;
  /// The ops of every distinct shape, one after another; dependents as CSR lists of offsets.
  struct Shapes {
    std::vector<std::uint8_t> kind, cpu, nic;
    std::vector<std::int32_t> tag;
    std::vector<std::int64_t> amount;
    std::vector<std::uint32_t> dependency_count;
    std::vector<std::uint32_t> on_start_offset{0}, on_complete_offset{0}, on_any_offset{0};
    std::vector<std::int32_t> on_start, on_complete, on_any;
  };
  template <typename F>
  void each(const std::vector<std::uint32_t>& offset, const std::vector<std::int32_t>& target,
            OpIndex op, F& f) const {
    const std::uint32_t s = ops_[op].shape_op;
    for (auto i = offset[s]; i < offset[s + 1]; ++i)
      f(static_cast<OpIndex>(static_cast<std::int64_t>(op) + target[i]));
  }

  std::span<const OpIndex> first_op_;  ///< ranks + 1 entries
  std::span<const OpRef> ops_;
  std::shared_ptr<const void> owner_;  ///< what first_op_ and ops_ point into (ShapedBuilder's)
  Shapes shapes_;
  std::size_t shape_count_ = 0;
  int cpus_ = 1, nics_ = 1;
};

/// Builds a ShapedSchedule rank by rank, with CompactBuilder's calls and checks.
class ShapedBuilder : public ProgramCalls<ShapedBuilder> {
 public:
  /// expected_ops sizes the per-op arrays once.
  explicit ShapedBuilder(int ranks, std::size_t expected_ops = 0);
  ~ShapedBuilder();
  ShapedBuilder(ShapedBuilder&&) noexcept;
  ShapedBuilder& operator=(ShapedBuilder&&) noexcept;

  void begin_rank(int rank);

  /// Throws choreo::Error if a rank was skipped.
  ShapedSchedule finish();

 private:
  friend class ProgramCalls<ShapedBuilder>;
  struct LocalOp {
    std::uint8_t kind, cpu, nic;
    std::int32_t tag;
    std::int64_t amount;
  };
  using Edge = std::pair<std::uint32_t, std::uint32_t>;  // (from, to), rank-local
  std::uint32_t add(OpKind kind, int peer, int tag, std::int64_t amount, int cpu, int nic);
  void add_edge(Dependency kind, std::uint32_t op, std::uint32_t dependency);
  void end_rank();
  std::uint32_t store_shape();

  ShapedSchedule s_;
  /// The per-op arrays being filled (src/core/shaped_schedule.cpp); s_ views them at finish().
  struct PerOp;
  std::unique_ptr<PerOp> per_op_;
  int ranks_, current_ = -1;
  bool finished_ = false;
  std::vector<LocalOp> ops_;
  std::vector<std::int32_t> peers_;
  std::vector<Edge> start_edges_, complete_edges_, any_edges_;
  std::string key_;  ///< the current rank's shape, serialized
  std::string last_key_;
  std::uint32_t last_base_ = 0;
  std::unordered_map<std::string, std::uint32_t> bases_;  ///< shape -> its first op in shapes_
};

/// The CompactSchedule with the same ops and dependencies (for writers and checks).
CompactSchedule compact(const ShapedSchedule& schedule);
/// The ShapedSchedule with the same ops and dependencies (dependents in the same order).
ShapedSchedule shaped(const CompactSchedule& schedule);

}  // namespace choreo
