#include "choreo/core/compact_schedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <unordered_map>
#include <utility>

#include "choreo/core/error.hpp"
#include "choreo/core/limits.hpp"
#include "op_checks.hpp"

namespace choreo {

namespace {
/// first_op of a schedule of no ranks (a default-constructed one).
constexpr OpIndex kNoOps[1] = {0};
}  // namespace

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
  s_->first_op.reserve(static_cast<std::size_t>(ranks) + 1);
  for (auto* v : {&s_->kind, &s_->cpu, &s_->nic}) v->reserve(expected_ops);
  for (auto* v : {&s_->peer, &s_->tag}) v->reserve(expected_ops);
  s_->amount.reserve(expected_ops);
  complete_edges_.reserve(expected_dependencies);
}

void CompactBuilder::begin_rank(int rank) {
  if (rank != current_ + 1 || rank >= ranks_)
    throw Error(
        fmt::format("CompactBuilder: ranks must be built in order 0..{}; got rank {} "
                    "after rank {}",
                    ranks_ - 1, rank, current_));
  current_ = rank;
  if (rank > 0) s_->first_op.push_back(static_cast<OpIndex>(s_->kind.size()));
}

std::uint32_t CompactBuilder::add(OpKind kind, int peer, int tag, std::int64_t amount, int cpu,
                                  int nic) {
  if (current_ < 0) throw Error("CompactBuilder: call begin_rank(0) before adding ops");
  if (s_->kind.size() >= std::numeric_limits<OpIndex>::max())
    throw Error("CompactBuilder: more than 2^32 ops do not fit the simulator's indices");
  check_built_op(kind, peer, tag, amount, cpu, nic, ranks_, current_,
                 s_->kind.size() - s_->first_op.back());
  CompactStorage& st = *s_;  // one load of the pointer, not one per array
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

void CompactBuilder::add_edge(Edges& edges, std::uint32_t op, std::uint32_t dependency) {
  const CompactStorage& st = *s_;
  const OpIndex base = st.first_op.back();
  const auto count = static_cast<std::uint32_t>(st.kind.size() - base);
  if (op >= count || dependency >= count || op == dependency)
    throw Error(
        fmt::format("CompactBuilder: rank {}: dependency {} -> {} names an op this rank "
                    "does not have (it has {})",
                    current_, op, dependency, count));
  edges.emplace_back(base + dependency, base + op);
}

namespace {
/// Counting sort of (from, to) edges into offsets[from] .. offsets[from + 1] of targets.
void to_lists(BigVector<std::pair<OpIndex, OpIndex>>& edges, std::size_t ops,
              BigVector<OpIndex>& offsets, BigVector<OpIndex>& targets,
              BigVector<std::uint32_t>& dependency_count) {
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
  if (!s_) throw Error("CompactBuilder: finish() was called twice");
  if (current_ != ranks_ - 1)
    throw Error(fmt::format("CompactBuilder: {} of {} ranks were built", current_ + 1, ranks_));
  s_->first_op.push_back(static_cast<OpIndex>(s_->kind.size()));
  const std::size_t n = s_->kind.size();
  s_->dependency_count.assign(n, 0);
  to_lists(start_edges_, n, s_->on_start_offset, s_->on_start, s_->dependency_count);
  to_lists(complete_edges_, n, s_->on_complete_offset, s_->on_complete, s_->dependency_count);
  if (!any_edges_.empty()) {
    // A first-of group is one dependency however many members it has.
    BigVector<std::uint32_t> members(n, 0);
    to_lists(any_edges_, n, s_->on_any_offset, s_->on_any, members);
    for (std::size_t i = 0; i < n; ++i) s_->dependency_count[i] += members[i] > 0 ? 1 : 0;
  }
  const CompactStorage& st = *s_;
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
  return CompactSchedule::view(a, cpus_, nics_, std::exchange(s_, nullptr));
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
