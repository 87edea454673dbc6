// import_traces: the ranks' actions, their messages matched and tagged, emitted as one program
// per rank (include/choreo/replay/import.hpp has the rules).
#include <fmt/format.h>

#include <unordered_map>

#include "choreo/core/error.hpp"
#include "import_parts.hpp"

namespace choreo::replay {
namespace {

using detail::Action;
using detail::ActionKind;
using detail::RankActions;

/// The tag and byte count of every send and receive once matched.
struct Matched {
  std::vector<std::vector<int>> send_tag, recv_tag;
  std::vector<std::vector<std::int64_t>> recv_bytes;
};

Matched match_and_tag(const std::vector<RankActions>& ranks, detail::PairTags& tags) {
  std::vector<std::vector<SendKey>> sends;
  std::vector<std::vector<RecvKey>> recvs;
  for (const RankActions& r : ranks) {
    sends.push_back(r.sends);
    recvs.push_back(r.recvs);
  }
  const std::vector<std::vector<std::size_t>> matched = match_messages(sends, recvs);
  Matched out;
  for (const RankActions& r : ranks) {
    out.send_tag.emplace_back(r.sends.size(), -1);
    out.recv_tag.emplace_back(r.recvs.size(), -1);
    out.recv_bytes.emplace_back(r.recvs.size(), 0);
  }
  for (std::size_t dst = 0; dst < ranks.size(); ++dst)
    for (std::size_t k = 0; k < matched[dst].size(); ++k) {
      const auto src = static_cast<std::size_t>(ranks[dst].recvs[k].src);
      const std::size_t send = matched[dst][k];
      const int tag = tags.next(static_cast<int>(src), static_cast<int>(dst));
      out.send_tag[src][send] = tag;
      out.recv_tag[dst][k] = tag;
      out.recv_bytes[dst][k] = ranks[src].send_bytes[send];
    }
  return out;
}

/// Emits one rank's program: each op requires what the calls before it left pending.
class Emitter {
 public:
  Emitter(int rank, const RankActions& actions, const Matched& matched,
          const detail::Instances& instances, const detail::Communicators& comms)
      : rank_(static_cast<std::size_t>(rank)),
        actions_(actions),
        matched_(matched),
        instances_(instances),
        comms_(comms) {}

  Program emit() {
    for (const Action& a : actions_.actions) {
      switch (a.kind) {
        case ActionKind::Calc: {
          Op op;
          op.kind = OpKind::Calc;
          op.nanoseconds = a.ns;
          then(add(std::move(op)));
          break;
        }
        case ActionKind::Post: {
          const std::int64_t id = add(message(a.send, a.endpoint));
          if (a.blocking) {
            then(id);
          } else {
            // The calls after a nonblocking one wait only for it to have started.
            completed_.clear();
            started_ = {id};
            if (a.request != 0) request_op_[a.request] = id;
          }
          break;
        }
        case ActionKind::Sendrecv: {
          const std::int64_t send = add(message(true, a.endpoint));
          const std::int64_t recv = add(message(false, a.endpoint2), /*same_inputs=*/true);
          started_.clear();
          completed_ = {send, recv};
          break;
        }
        case ActionKind::Complete:
          for (std::uint64_t request : a.requests)
            if (const auto it = request_op_.find(request); it != request_op_.end())
              completed_.push_back(it->second);
          break;
        case ActionKind::Collective:
          splice(instances_.list[a.instance], a.comm_rank);
          break;
      }
    }
    return std::move(program_);
  }

 private:
  Op message(bool send, std::size_t endpoint) const {
    Op op;
    if (send) {
      const SendKey& key = actions_.sends[endpoint];
      op.kind = OpKind::Send;
      op.peer = key.dst;
      op.tag = matched_.send_tag[rank_][endpoint];
      op.bytes = actions_.send_bytes[endpoint];
    } else {
      op.kind = OpKind::Recv;
      op.peer = actions_.recvs[endpoint].src;
      op.tag = matched_.recv_tag[rank_][endpoint];
      op.bytes = matched_.recv_bytes[rank_][endpoint];
    }
    return op;
  }

  /// Adds `op` requiring what is pending; `same_inputs`: as the op added just before it (the
  /// two halves of a Sendrecv).
  std::int64_t add(Op op, bool same_inputs = false) {
    op.id = static_cast<std::int64_t>(program_.ops.size());
    if (same_inputs) {
      op.requires_completed = program_.ops.back().requires_completed;
      op.requires_started = program_.ops.back().requires_started;
    } else {
      op.requires_completed = completed_;
      op.requires_started = started_;
    }
    program_.ops.push_back(std::move(op));
    return program_.ops.back().id;
  }

  /// What follows a blocking op waits for its completion.
  void then(std::int64_t id) {
    completed_ = {id};
    started_.clear();
  }

  /// The rank's part of a collective: its first ops require what is pending, and what follows
  /// requires its last ops (those no other op of the collective waits for).
  void splice(const detail::Instance& instance, int comm_rank) {
    const auto local = static_cast<std::size_t>(comm_rank);
    const Program& part = instance.schedule->programs[local];
    if (part.ops.empty()) return;
    const std::vector<int>& members = comms_.members(instance.comm);
    const auto base = static_cast<std::int64_t>(program_.ops.size());
    std::vector<bool> required(part.ops.size(), false);
    for (std::size_t i = 0; i < part.ops.size(); ++i) {
      Op op = part.ops[i];
      op.id = base + static_cast<std::int64_t>(i);
      if (op.is_message()) {
        op.peer = members[static_cast<std::size_t>(op.peer)];
        op.tag = instance.tags[local][i];
      }
      const bool entry =
          op.requires_completed.empty() && op.requires_started.empty() && op.requires_any.empty();
      for (auto* list : {&op.requires_completed, &op.requires_started, &op.requires_any})
        for (std::int64_t& dependency : *list) {
          required[static_cast<std::size_t>(dependency)] = true;
          dependency += base;
        }
      if (entry) {
        op.requires_completed = completed_;
        op.requires_started = started_;
      }
      program_.ops.push_back(std::move(op));
    }
    completed_.clear();
    started_.clear();
    for (std::size_t i = 0; i < part.ops.size(); ++i)
      if (!required[i]) completed_.push_back(base + static_cast<std::int64_t>(i));
  }

  std::size_t rank_;
  const RankActions& actions_;
  const Matched& matched_;
  const detail::Instances& instances_;
  const detail::Communicators& comms_;
  Program program_;
  std::vector<std::int64_t> completed_, started_;
  std::unordered_map<std::uint64_t, std::int64_t> request_op_;
};

}  // namespace

Schedule import_traces(const std::vector<trace::RankTrace>& traces, const ImportOptions& options) {
  check_algorithms(options);
  if (options.calc_scale < 0)
    throw Error(
        fmt::format("the computation scale {} is negative; use 0 (none), 1 (as "
                    "recorded) or any factor above 0",
                    options.calc_scale));
  const int ranks = static_cast<int>(traces.size());
  detail::Communicators comms(ranks);
  detail::Instances instances;
  std::vector<RankActions> actions;
  for (int r = 0; r < ranks; ++r)
    actions.push_back(
        detail::rank_actions(traces[static_cast<std::size_t>(r)], r, options, comms, instances));
  detail::PairTags tags;
  const Matched matched = match_and_tag(actions, tags);
  detail::expand_instances(instances, comms, options, traces.at(0).header.mpi_library, tags);
  Schedule schedule;
  schedule.ranks = ranks;
  schedule.algorithm = "import";
  for (int r = 0; r < ranks; ++r) {
    Emitter emitter(r, actions[static_cast<std::size_t>(r)], matched, instances, comms);
    schedule.programs.push_back(emitter.emit());
  }
  return schedule;
}

}  // namespace choreo::replay
