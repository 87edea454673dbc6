#include "choreo/core/shaped_schedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "choreo/core/error.hpp"
#include "huge_pages.hpp"
#include "op_checks.hpp"

namespace choreo {

namespace {
/// first_op of a schedule of no ranks (a default-constructed one).
constexpr OpIndex kNoRanksFirstOp[1] = {0};
}  // namespace

/// ShapedSchedule's per-op arrays while they are filled, then shared by the schedules that
/// view them.
struct ShapedBuilder::PerOp {
  BigVector<OpIndex> first_op{0};
  BigVector<ShapedSchedule::OpRef> ops;
};

ShapedSchedule::ShapedSchedule() { first_op_ = kNoRanksFirstOp; }

std::size_t ShapedSchedule::memory_bytes() const {
  auto bytes = [](const auto& v) { return v.size() * sizeof(v[0]); };
  const Shapes& s = shapes_;
  return bytes(first_op_) + bytes(ops_) + bytes(s.kind) + bytes(s.cpu) + bytes(s.nic) +
         bytes(s.tag) + bytes(s.amount) + bytes(s.dependency_count) + bytes(s.on_start_offset) +
         bytes(s.on_complete_offset) + bytes(s.on_any_offset) + bytes(s.on_start) +
         bytes(s.on_complete) + bytes(s.on_any);
}

std::uint32_t ShapedSchedule::most_dependencies() const {
  const auto& counts = shapes_.dependency_count;
  return counts.empty() ? 0 : *std::max_element(counts.begin(), counts.end());
}

ShapedBuilder::ShapedBuilder(int ranks, std::size_t expected_ops)
    : per_op_(std::make_unique<PerOp>()), ranks_(ranks) {
  if (ranks < 1) throw Error(fmt::format("a schedule needs at least 1 rank, not {}", ranks));
  per_op_->first_op.reserve(static_cast<std::size_t>(ranks) + 1);
  per_op_->ops.reserve(expected_ops);
}

ShapedBuilder::~ShapedBuilder() = default;
ShapedBuilder::ShapedBuilder(ShapedBuilder&&) noexcept = default;
ShapedBuilder& ShapedBuilder::operator=(ShapedBuilder&&) noexcept = default;

void ShapedBuilder::begin_rank(int rank) {
  if (rank != current_ + 1 || rank >= ranks_ || finished_)
    throw Error(
        fmt::format("ShapedBuilder: ranks must be built in order 0..{}; got rank {} after rank {}",
                    ranks_ - 1, rank, current_));
  if (current_ >= 0) end_rank();
  current_ = rank;
}

std::uint32_t ShapedBuilder::add(OpKind kind, int peer, int tag, std::int64_t amount, int cpu,
                                 int nic) {
  if (current_ < 0) throw Error("ShapedBuilder: call begin_rank(0) before adding ops");
  if (finished_) throw Error("ShapedBuilder: no ops can be added after finish()");
  if (per_op_->ops.size() + ops_.size() >= std::numeric_limits<OpIndex>::max())
    throw Error("ShapedBuilder: more than 2^32 ops do not fit the simulator's indices");
  check_built_op(kind, peer, tag, amount, cpu, nic, ranks_, current_, ops_.size());
  ops_.push_back({static_cast<std::uint8_t>(kind), static_cast<std::uint8_t>(cpu),
                  static_cast<std::uint8_t>(nic), tag, amount});
  peers_.push_back(peer);
  return static_cast<std::uint32_t>(ops_.size() - 1);
}

void ShapedBuilder::add_edge(Dependency kind, std::uint32_t op, std::uint32_t dependency) {
  std::vector<Edge>& edges = kind == Dependency::Completed ? complete_edges_
                             : kind == Dependency::Started ? start_edges_
                                                           : any_edges_;
  const auto count = static_cast<std::uint32_t>(ops_.size());
  if (op >= count || dependency >= count || op == dependency)
    throw Error(
        fmt::format("ShapedBuilder: rank {}: dependency {} -> {} names an op this rank does not "
                    "have (it has {})",
                    current_, op, dependency, count));
  edges.emplace_back(dependency, op);
}

namespace {

template <typename T>
void append_bytes(std::string& key, const T& value) {
  key.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

/// Appends a rank's edges to a shape's CSR lists, as offsets from their source op, in
/// CompactBuilder's order (by source, then as added), and counts each target's edges.
void append_lists(std::vector<std::pair<std::uint32_t, std::uint32_t>>& edges, std::size_t ops,
                  std::vector<std::uint32_t>& offsets, std::vector<std::int32_t>& targets,
                  std::vector<std::uint32_t>& per_target) {
  std::stable_sort(edges.begin(), edges.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::size_t e = 0;
  for (std::uint32_t from = 0; from < ops; ++from) {
    for (; e < edges.size() && edges[e].first == from; ++e) {
      targets.push_back(static_cast<std::int32_t>(edges[e].second) -
                        static_cast<std::int32_t>(from));
      ++per_target[edges[e].second];
    }
    offsets.push_back(static_cast<std::uint32_t>(targets.size()));
  }
}

}  // namespace

std::uint32_t ShapedBuilder::store_shape() {
  auto& sh = s_.shapes_;
  const auto base = static_cast<std::uint32_t>(sh.kind.size());
  const std::size_t n = ops_.size();
  for (const LocalOp& op : ops_) {
    sh.kind.push_back(op.kind);
    sh.cpu.push_back(op.cpu);
    sh.nic.push_back(op.nic);
    sh.tag.push_back(op.tag);
    sh.amount.push_back(op.amount);
    s_.cpus_ = std::max(s_.cpus_, op.cpu + 1);
    s_.nics_ = std::max(s_.nics_, op.nic + 1);
  }
  std::vector<std::uint32_t> count(n, 0), members(n, 0);
  append_lists(start_edges_, n, sh.on_start_offset, sh.on_start, count);
  append_lists(complete_edges_, n, sh.on_complete_offset, sh.on_complete, count);
  append_lists(any_edges_, n, sh.on_any_offset, sh.on_any, members);
  // A first-of group is one dependency however many members it has.
  for (std::size_t i = 0; i < n; ++i) sh.dependency_count.push_back(count[i] + (members[i] > 0));
  ++s_.shape_count_;
  return base;
}

void ShapedBuilder::end_rank() {
  // The shape: everything but the peers, dependencies in the order they were added.
  key_.clear();
  append_bytes(key_, ops_.size());
  for (const LocalOp& op : ops_) {
    append_bytes(key_, op.kind);
    append_bytes(key_, op.cpu);
    append_bytes(key_, op.nic);
    append_bytes(key_, op.tag);
    append_bytes(key_, op.amount);
  }
  for (const auto* edges : {&start_edges_, &complete_edges_, &any_edges_}) {
    append_bytes(key_, edges->size());
    for (const Edge& e : *edges) append_bytes(key_, e);
  }
  std::uint32_t base = last_base_;
  if (key_ != last_key_) {  // last_key_ starts empty; a key never is
    const auto [it, added] = bases_.try_emplace(key_, 0u);
    if (added) it->second = store_shape();
    base = it->second;
    last_key_ = key_;
    last_base_ = base;
  }
  PerOp& per_op = *per_op_;
  for (std::size_t i = 0; i < ops_.size(); ++i)
    per_op.ops.push_back({base + static_cast<std::uint32_t>(i), peers_[i]});
  per_op.first_op.push_back(static_cast<OpIndex>(per_op.ops.size()));
  ops_.clear();
  peers_.clear();
  start_edges_.clear();
  complete_edges_.clear();
  any_edges_.clear();
}

ShapedSchedule ShapedBuilder::finish() {
  if (finished_) throw Error("ShapedBuilder: finish() was called twice");
  if (current_ != ranks_ - 1)
    throw Error(fmt::format("ShapedBuilder: {} of {} ranks were built", current_ + 1, ranks_));
  end_rank();
  finished_ = true;
  bases_.clear();
  // Without first-of groups, the engine keeps no flag per op (CompactSchedule's rule).
  if (s_.shapes_.on_any.empty()) s_.shapes_.on_any_offset.clear();
  // The arrays move (their buffers stay put) into the owner the schedule's views share.
  const std::shared_ptr<const PerOp> owner = std::move(per_op_);
  s_.first_op_ = owner->first_op;
  s_.ops_ = owner->ops;
  s_.owner_ = owner;
  return std::move(s_);
}

namespace {

/// Adds every rank of `from` (a CompactSchedule or a ShapedSchedule) to `b`, ops and
/// dependencies in the order the source lists them.
template <class Source, class Builder>
void copy_into(const Source& from, Builder& b) {
  for (int r = 0; r < from.ranks(); ++r) {
    b.begin_rank(r);
    const OpIndex base = from.first_op(r), end = from.first_op(r + 1);
    for (OpIndex i = base; i < end; ++i) {
      switch (from.kind(i)) {
        case OpKind::Send:
          b.send(from.peer(i), from.amount(i), from.tag(i), from.cpu(i), from.nic(i));
          break;
        case OpKind::Recv:
          b.recv(from.peer(i), from.amount(i), from.tag(i), from.cpu(i), from.nic(i));
          break;
        case OpKind::Calc:
          b.calc(from.amount(i), from.cpu(i));
          break;
        case OpKind::Delay:
          b.delay(from.amount(i), from.cpu(i));
          break;
        case OpKind::Copy:
          b.copy(from.amount(i), from.cpu(i));
          break;
      }
    }
    for (OpIndex i = base; i < end; ++i) {
      from.for_each_started_dependent(i,
                                      [&](OpIndex d) { b.requires_started(d - base, i - base); });
      from.for_each_completed_dependent(
          i, [&](OpIndex d) { b.requires_completed(d - base, i - base); });
      from.for_each_any_dependent(i, [&](OpIndex d) { b.requires_any(d - base, i - base); });
    }
  }
}

}  // namespace

CompactSchedule compact(const ShapedSchedule& s) {
  CompactBuilder b(s.ranks(), s.op_count());
  copy_into(s, b);
  return b.finish();
}

ShapedSchedule shaped(const CompactSchedule& c) {
  ShapedBuilder b(c.ranks(), c.op_count());
  copy_into(c, b);
  return b.finish();
}

}  // namespace choreo
