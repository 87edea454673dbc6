#include "choreo/core/compact_schedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <unordered_map>
#include <utility>

#include "choreo/core/error.hpp"
#include "choreo/core/limits.hpp"
#include "huge_pages.hpp"
#include "op_checks.hpp"

namespace choreo {

namespace {
/// first_op of a schedule of no ranks (a default-constructed one).
constexpr OpIndex kNoOps[1] = {0};

using Edges = BigVector<std::pair<OpIndex, OpIndex>>;  // (from, to)
}  // namespace

/// The arrays of a CompactSchedule that CompactBuilder made: filled while it builds, then
/// shared by the schedules that view them. Not in the anonymous namespace: CompactBuilder::State
/// holds one.
struct CompactStorage {
  BigVector<std::uint32_t> first_op{0};
  BigVector<std::uint8_t> kind, cpu, nic;
  BigVector<std::int32_t> peer, tag;
  BigVector<std::int64_t> amount;
  BigVector<std::uint32_t> dependency_count;
  BigVector<std::uint32_t> on_start_offset, on_start, on_complete_offset, on_complete;
  BigVector<std::uint32_t> on_any_offset, on_any;
};

struct CompactBuilder::State {
  CompactStorage arrays;
  Edges start_edges, complete_edges, any_edges;
  Edges& edges(Dependency kind) {
    return kind == Dependency::Completed ? complete_edges
           : kind == Dependency::Started ? start_edges
                                         : any_edges;
  }
};

CompactSchedule::CompactSchedule() { a_.first_op = kNoOps; }

CompactSchedule CompactSchedule::view(const Arrays& arrays, int cpus, int nics,
                                      std::shared_ptr<const void> owner) {
  CompactSchedule s;
  s.a_ = arrays;
  s.cpus_ = cpus;
  s.nics_ = nics;
  s.owner_ = std::move(owner);
  return s;
}

std::size_t CompactSchedule::memory_bytes() const {
  auto bytes = [](const auto& v) { return v.size_bytes(); };
  return bytes(a_.first_op) + bytes(a_.kind) + bytes(a_.cpu) + bytes(a_.nic) + bytes(a_.peer) +
         bytes(a_.tag) + bytes(a_.amount) + bytes(a_.dependency_count) + bytes(a_.on_start_offset) +
         bytes(a_.on_start) + bytes(a_.on_complete_offset) + bytes(a_.on_complete) +
         bytes(a_.on_any_offset) + bytes(a_.on_any);
}

CompactBuilder::CompactBuilder(int ranks, std::size_t expected_ops,
                               std::size_t expected_dependencies)
    : ranks_(ranks) {
  if (ranks < 1) throw Error(fmt::format("a schedule needs at least 1 rank, not {}", ranks));
  state_ = std::make_unique<State>();
  CompactStorage& st = state_->arrays;
  st.first_op.reserve(static_cast<std::size_t>(ranks) + 1);
  for (auto* v : {&st.kind, &st.cpu, &st.nic}) v->reserve(expected_ops);
  for (auto* v : {&st.peer, &st.tag}) v->reserve(expected_ops);
  st.amount.reserve(expected_ops);
  state_->complete_edges.reserve(expected_dependencies);
}

CompactBuilder::~CompactBuilder() = default;
CompactBuilder::CompactBuilder(CompactBuilder&&) noexcept = default;
CompactBuilder& CompactBuilder::operator=(CompactBuilder&&) noexcept = default;

void CompactBuilder::begin_rank(int rank) {
  if (rank != current_ + 1 || rank >= ranks_)
    throw Error(
        fmt::format("CompactBuilder: ranks must be built in order 0..{}; got rank {} "
                    "after rank {}",
                    ranks_ - 1, rank, current_));
  if (!state_) throw Error("CompactBuilder: begin_rank() after finish()");
  current_ = rank;
  CompactStorage& st = state_->arrays;
  if (rank > 0) st.first_op.push_back(static_cast<OpIndex>(st.kind.size()));
}

std::uint32_t CompactBuilder::add(OpKind kind, int peer, int tag, std::int64_t amount, int cpu,
                                  int nic) {
  if (current_ < 0) throw Error("CompactBuilder: call begin_rank(0) before adding ops");
  if (!state_) throw Error("CompactBuilder: no ops can be added after finish()");
  CompactStorage& st = state_->arrays;  // one load of the pointer, not one per array
  if (st.kind.size() >= std::numeric_limits<OpIndex>::max())
    throw Error("CompactBuilder: more than 2^32 ops do not fit the simulator's indices");
  check_built_op(kind, peer, tag, amount, cpu, nic, ranks_, current_,
                 st.kind.size() - st.first_op.back());
  st.kind.push_back(static_cast<std::uint8_t>(kind));
  st.peer.push_back(peer);
  st.tag.push_back(tag);
  st.amount.push_back(amount);
  st.cpu.push_back(static_cast<std::uint8_t>(cpu));
  st.nic.push_back(static_cast<std::uint8_t>(nic));
  cpus_ = std::max(cpus_, cpu + 1);
  nics_ = std::max(nics_, nic + 1);
  return static_cast<std::uint32_t>(st.kind.size() - st.first_op.back() - 1);
}

void check_built_op(OpKind kind, int peer, int tag, std::int64_t amount, int cpu, int nic,
                    int ranks, int rank, std::size_t position) {
  if (cpu < 0 || cpu > 255 || nic < 0 || nic > 255)
    throw Error(fmt::format("cpu {} / nic {} out of range 0..255", cpu, nic));
  const auto where = [&] {
    return fmt::format("rank {}, op {} ({})", rank, position, to_string(kind));
  };
  const bool message = kind == OpKind::Send || kind == OpKind::Recv;
  const int lowest = kind == OpKind::Recv ? kAny : 0;
  if (message && (peer < lowest || peer >= ranks))
    throw Error(
        fmt::format("{}: peer {} is out of range for a {}-rank schedule; run `choreo "
                    "validate` on it",
                    where(), peer, ranks));
  if (message && tag < lowest)
    throw Error(fmt::format("{}: tag {} is invalid; run `choreo validate` on it", where(), tag));
  const bool timed = kind == OpKind::Calc || kind == OpKind::Delay;
  if (amount < 0 || amount > (timed ? limits::kMaxNanoseconds : limits::kMaxBytes))
    throw Error(
        fmt::format("{}: {} {} is out of range: choreo takes 0 to {} (docs/formats.md, "
                    "Limits)",
                    where(), timed ? "time" : "size", amount, timed ? "10^15 ns" : "2^50 bytes"));
}

void CompactBuilder::add_edge(Dependency kind, std::uint32_t op, std::uint32_t dependency) {
  if (!state_) throw Error("CompactBuilder: no ops can be added after finish()");
  const CompactStorage& st = state_->arrays;
  const OpIndex base = st.first_op.back();
  const auto count = static_cast<std::uint32_t>(st.kind.size() - base);
  if (op >= count || dependency >= count || op == dependency)
    throw Error(
        fmt::format("CompactBuilder: rank {}: dependency {} -> {} names an op this rank "
                    "does not have (it has {})",
                    current_, op, dependency, count));
  state_->edges(kind).emplace_back(base + dependency, base + op);
}

namespace {
/// Counting sort of (from, to) edges into offsets[from] .. offsets[from + 1] of targets.
void to_lists(Edges& edges, std::size_t ops, BigVector<OpIndex>& offsets,
              BigVector<OpIndex>& targets, BigVector<std::uint32_t>& dependency_count) {
  offsets.assign(ops + 1, 0);
  for (const auto& [from, to] : edges) ++offsets[from + 1];
  for (std::size_t i = 0; i < ops; ++i) offsets[i + 1] += offsets[i];
  targets.resize(edges.size());
  BigVector<OpIndex> next(offsets.begin(), offsets.end() - 1);
  for (const auto& [from, to] : edges) {
    targets[next[from]++] = to;
    ++dependency_count[to];
  }
  edges.clear();
  edges.shrink_to_fit();
}
}  // namespace

CompactSchedule CompactBuilder::finish() {
  if (!state_) throw Error("CompactBuilder: finish() was called twice");
  if (current_ != ranks_ - 1)
    throw Error(fmt::format("CompactBuilder: {} of {} ranks were built", current_ + 1, ranks_));
  State& state = *state_;
  CompactStorage& s = state.arrays;
  s.first_op.push_back(static_cast<OpIndex>(s.kind.size()));
  const std::size_t n = s.kind.size();
  s.dependency_count.assign(n, 0);
  to_lists(state.start_edges, n, s.on_start_offset, s.on_start, s.dependency_count);
  to_lists(state.complete_edges, n, s.on_complete_offset, s.on_complete, s.dependency_count);
  if (!state.any_edges.empty()) {
    // A first-of group is one dependency however many members it has.
    BigVector<std::uint32_t> members(n, 0);
    to_lists(state.any_edges, n, s.on_any_offset, s.on_any, members);
    for (std::size_t i = 0; i < n; ++i) s.dependency_count[i] += members[i] > 0 ? 1 : 0;
  }
  // The arrays move (their buffers stay put) into the owner the schedule's views share.
  const auto owner = std::make_shared<const CompactStorage>(std::move(s));
  state_.reset();
  const CompactStorage& st = *owner;
  CompactSchedule::Arrays a;
  a.first_op = st.first_op;
  a.kind = st.kind;
  a.cpu = st.cpu;
  a.nic = st.nic;
  a.peer = st.peer;
  a.tag = st.tag;
  a.amount = st.amount;
  a.dependency_count = st.dependency_count;
  a.on_start_offset = st.on_start_offset;
  a.on_start = st.on_start;
  a.on_complete_offset = st.on_complete_offset;
  a.on_complete = st.on_complete;
  a.on_any_offset = st.on_any_offset;
  a.on_any = st.on_any;
  return CompactSchedule::view(a, cpus_, nics_, owner);
}

CompactSchedule compact(const Schedule& schedule) {
  if (schedule.programs.size() != static_cast<std::size_t>(std::max(schedule.ranks, 0)))
    throw Error(
        fmt::format("the schedule declares {} ranks but has {} programs; run `choreo "
                    "validate` on it",
                    schedule.ranks, schedule.programs.size()));
  std::size_t total = 0;
  for (const auto& p : schedule.programs) total += p.ops.size();
  CompactBuilder b(schedule.ranks, total);
  for (int r = 0; r < schedule.ranks; ++r) {
    b.begin_rank(r);
    const auto& ops = schedule.programs[static_cast<std::size_t>(r)].ops;
    std::unordered_map<std::int64_t, std::uint32_t> position;
    for (const Op& op : ops) {
      std::uint32_t at = 0;
      switch (op.kind) {
        case OpKind::Send:
          at = b.send(op.peer, op.bytes, op.tag, op.cpu, op.nic);
          break;
        case OpKind::Recv:
          at = b.recv(op.peer, op.bytes, op.tag, op.cpu, op.nic);
          break;
        case OpKind::Calc:
          at = b.calc(op.nanoseconds, op.cpu);
          break;
        case OpKind::Delay:
          at = b.delay(op.nanoseconds, op.cpu);
          break;
        case OpKind::Copy:
          at = b.copy(op.bytes, op.cpu);
          break;
      }
      if (!position.emplace(op.id, at).second)
        throw Error(
            fmt::format("rank {}, op {}: a second op with this id; run `choreo validate` "
                        "on the schedule",
                        r, op.id));
    }
    const auto at = [&](std::size_t i, std::int64_t dependency) {
      const auto it = position.find(dependency);
      if (it == position.end())
        throw Error(
            fmt::format("rank {}, op {}: depends on op {}, which rank {} does not have; "
                        "run `choreo validate` on the schedule",
                        r, ops[i].id, dependency, r));
      return it->second;
    };
    for (std::size_t i = 0; i < ops.size(); ++i) {
      auto self = static_cast<std::uint32_t>(i);
      for (auto dep : ops[i].requires_completed) b.requires_completed(self, at(i, dep));
      for (auto dep : ops[i].requires_started) b.requires_started(self, at(i, dep));
      for (auto dep : ops[i].requires_any) b.requires_any(self, at(i, dep));
    }
  }
  return b.finish();
}

Schedule expand(const CompactSchedule& c, const std::string& algorithm) {
  Schedule s;
  s.ranks = c.ranks();
  s.algorithm = algorithm;
  s.programs.resize(static_cast<std::size_t>(s.ranks));
  for (int r = 0; r < s.ranks; ++r) {
    auto& ops = s.programs[static_cast<std::size_t>(r)].ops;
    const OpIndex base = c.first_op(r), end = c.first_op(r + 1);
    for (OpIndex i = base; i < end; ++i) {
      Op op;
      op.id = i - base;
      op.kind = c.kind(i);
      if (op.is_message()) {
        op.peer = c.peer(i);
        op.tag = c.tag(i);
        op.nic = c.nic(i);
      }
      (op.is_timed() ? op.nanoseconds : op.bytes) = c.amount(i);
      op.cpu = c.cpu(i);
      ops.push_back(op);
    }
    for (OpIndex i = base; i < end; ++i) {
      c.for_each_started_dependent(
          i, [&](OpIndex d) { ops[d - base].requires_started.push_back(i - base); });
      c.for_each_completed_dependent(
          i, [&](OpIndex d) { ops[d - base].requires_completed.push_back(i - base); });
      c.for_each_any_dependent(i,
                               [&](OpIndex d) { ops[d - base].requires_any.push_back(i - base); });
    }
  }
  return s;
}

}  // namespace choreo
