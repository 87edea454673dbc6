// alltoallv_init: an irregular exchange as a persistent request, ordered by paper 000's
// schedulers. Init gathers every rank's send counts into the pattern (who sends how many bytes
// to whom), schedules it as `choreo schedule` does, and keeps this rank's program as its
// command list, without the schedule's clock (see untimed()).
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <unordered_map>

#include "block_layout.hpp"
#include "choreo/core/error.hpp"
#include "choreo/core/pattern.hpp"
#include "choreo/core/schedule.hpp"
#include "choreo/persist/collectives.hpp"
#include "choreo/sched/schedulers.hpp"
#include "init_common.hpp"

namespace choreo::persist {

namespace {

constexpr const char* kAlltoallvInitCall = "alltoallv_init";

const std::vector<std::string> kAlgorithms = {"openshop", "optimal", "delay", "ring", "direct"};

/// The pattern of the exchange from the bytes every rank sends to every other
/// (matrix[src * n + dst]). A zero count is no message at all (nothing to match or wait for),
/// and a rank's block to itself is a local copy, not a message.
Pattern pattern_of(const std::vector<std::int64_t>& matrix, int ranks) {
  Pattern pattern;
  pattern.ranks = ranks;
  for (int src = 0; src < ranks; ++src)
    for (int dst = 0; dst < ranks; ++dst) {
      const std::int64_t bytes =
          matrix[static_cast<std::size_t>(src) * static_cast<std::size_t>(ranks) +
                 static_cast<std::size_t>(dst)];
      if (src != dst && bytes > 0) pattern.messages.push_back({src, dst, bytes});
    }
  return pattern;
}

/// The schedule `choreo schedule --algo ALGORITHM` writes. Its delays are irrelevant here
/// (untimed() drops them), so the slotted plans get 0 ns and the open shop 1 ns a byte.
Schedule scheduled(const Pattern& pattern, const std::string& algorithm) {
  if (algorithm == "direct") return schedule_direct(pattern);
  if (algorithm == "openshop") return schedule_from_timed_plan(pattern, plan_open_shop(pattern), 1);
  const SlotPlan plan = algorithm == "ring"    ? plan_ring(pattern)
                        : algorithm == "delay" ? plan_delay_insertion(pattern)
                                               : plan_optimal(pattern);
  check_plan(pattern, plan, algorithm != "ring");
  return schedule_from_plan(pattern, plan, 0);
}

/// A program without its clock. The schedulers pace sends with delays (nanosleep in paper
/// 000's runtime) and chain each send to the start of the op before it (irequires); a
/// persistent command list has neither. A delay's wait is taken as zero, so an op that waited
/// for a delay, or for another op to start, waits instead for whatever that op waited for.
/// Paper 000's chains thus leave every send free to start at start(), and the driver starts
/// ready commands in program order: the receives first, then the sends in the scheduler's
/// order. Completion dependencies between messages are kept.
Program untimed(const Program& program) {
  const std::size_t n = program.ops.size();
  std::unordered_map<std::int64_t, std::size_t> position;
  for (std::size_t i = 0; i < n; ++i) position.emplace(program.ops[i].id, i);
  std::vector<std::vector<std::int64_t>> gate(n);
  std::vector<bool> known(n, false);
  // gate[i]: the messages op i must wait to complete. Ids point to earlier ops in the
  // schedulers' programs, so one pass in program order sees every gate it needs; the
  // recursion covers any other valid order.
  std::function<const std::vector<std::int64_t>&(std::size_t)> gate_of =
      [&](std::size_t i) -> const std::vector<std::int64_t>& {
    if (known[i]) return gate[i];
    const Op& op = program.ops[i];
    std::vector<std::int64_t> out;
    for (std::int64_t id : op.requires_completed) {
      const std::size_t j = position.at(id);
      if (program.ops[j].kind == OpKind::Delay) {
        const auto& inherited = gate_of(j);
        out.insert(out.end(), inherited.begin(), inherited.end());
      } else {
        out.push_back(id);
      }
    }
    for (std::int64_t id : op.requires_started) {
      const auto& inherited = gate_of(position.at(id));
      out.insert(out.end(), inherited.begin(), inherited.end());
    }
    std::ranges::sort(out);
    out.erase(std::unique(out.begin(), out.end()), out.end());
    gate[i] = std::move(out);
    known[i] = true;
    return gate[i];
  };
  Program out;
  for (std::size_t i = 0; i < n; ++i) {
    if (program.ops[i].kind == OpKind::Delay) continue;
    Op op = program.ops[i];
    op.requires_completed = gate_of(i);
    op.requires_started.clear();
    out.ops.push_back(std::move(op));
  }
  return out;
}

/// What every rank checks of its own arguments before anything is gathered.
struct Local {
  std::string algorithm;
  detail::AllBlocks sent, received;                 ///< this rank's blocks to and from each rank
  detail::OwnedType send_indexed, receive_indexed;  ///< non-contiguous types' (block_layout.hpp)
};

void check_local(Local& local, const void* sendbuf, const int sendcounts[], const int sdispls[],
                 MPI_Datatype sendtype, const int recvcounts[], const int rdispls[],
                 MPI_Datatype recvtype, int ranks, const Options& options) {
  detail::check_thread_level(kAlltoallvInitCall, options);
  local.algorithm = detail::chosen_algorithm(kAlltoallvInitCall, options, "openshop", kAlgorithms);
  if (sendbuf == MPI_IN_PLACE)
    throw Error(fmt::format("{}: MPI_IN_PLACE is not supported; pass a separate send buffer",
                            kAlltoallvInitCall));
  if (sendcounts == nullptr || sdispls == nullptr || recvcounts == nullptr || rdispls == nullptr)
    throw Error(fmt::format(
        "{}: the counts and displacements must be arrays of one entry per rank, not null",
        kAlltoallvInitCall));
  local.sent = detail::all_blocks(kAlltoallvInitCall, "rank", sendcounts, sdispls, ranks, sendtype,
                                  true, false, local.send_indexed);
  local.received = detail::all_blocks(kAlltoallvInitCall, "rank", recvcounts, rdispls, ranks,
                                      recvtype, false, true, local.receive_indexed);
}

}  // namespace

Request alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                       const Options& options) {
  const detail::Ranks me = detail::ranks_of(comm);
  const int rank = me.rank, ranks = me.size;
  const auto n = static_cast<std::size_t>(ranks);
  Local local;
  detail::on_every_rank(comm, [&] {
    check_local(local, sendbuf, sendcounts, sdispls, sendtype, recvcounts, rdispls, recvtype, ranks,
                options);
  });
  detail::agree_between_ranks(kAlltoallvInitCall, comm,
                              {{"algorithm", detail::name_fingerprint(local.algorithm)}});
  // Every rank learns the whole pattern, so every rank builds the same schedule.
  std::vector<std::int64_t> matrix(n * n);
  MPI_Allgather(local.sent.blocks.bytes.data(), ranks, MPI_INT64_T, matrix.data(), ranks,
                MPI_INT64_T, comm);
  detail::Plan plan;
  detail::on_every_rank(comm, [&] {
    for (int src = 0; src < ranks; ++src) {
      const std::int64_t sent =
          matrix[static_cast<std::size_t>(src) * n + static_cast<std::size_t>(rank)];
      const std::int64_t expected = local.received.blocks.bytes[static_cast<std::size_t>(src)];
      if (sent != expected)
        throw Error(fmt::format(
            "{}: rank {} sends {} bytes to rank {}, which expects {} (recvcounts[{}] x recvtype "
            "size); the send and receive counts must describe the same bytes",
            kAlltoallvInitCall, src, sent, rank, expected, src));
    }
    const Pattern pattern = pattern_of(matrix, ranks);
    const Schedule schedule = scheduled(pattern, local.algorithm);
    // Only this rank's program is needed; the others stay empty.
    Schedule mine;
    mine.ranks = ranks;
    mine.algorithm = schedule.algorithm;
    mine.programs.resize(n);
    mine.programs[static_cast<std::size_t>(rank)] =
        untimed(schedule.programs[static_cast<std::size_t>(rank)]);
    const std::vector<std::int64_t>& send_at = local.sent.blocks.offsets;
    const std::vector<std::int64_t>& receive_at = local.received.blocks.offsets;
    plan = detail::plan_from_schedule(
        choreo::compact(mine), rank, 1,
        [&](const detail::MessageOp& message) {
          const auto peer = static_cast<std::size_t>(message.peer);
          return message.kind == detail::CommandKind::Send
                     ? detail::Place{detail::BufferId::Send, send_at[peer]}
                     : detail::Place{detail::BufferId::User, receive_at[peer]};
        },
        "alltoallv:" + local.algorithm);
    const auto self = static_cast<std::size_t>(rank);
    plan.choice = detail::named_or(options, "the default: openshop, for unequal sizes");
    plan.initial_copy_bytes = matrix[self * n + self];
    plan.initial_copy_offset = receive_at[self];
    plan.initial_copy_source_offset = send_at[self];
    detail::check_tags(kAlltoallvInitCall, plan, comm);
  });
  return detail::make_request(std::move(plan),
                              {recvbuf, sendbuf, local.received.layout, local.sent.layout}, comm,
                              recvtype, MPI_OP_NULL, options);
}

}  // namespace choreo::persist
