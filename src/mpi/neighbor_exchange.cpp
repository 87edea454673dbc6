// NeighborExchange: the persistent requests of paper 000's runtime (Fig. 4), built once from
// a plan every rank computes alike. Set-up problems are agreed on collectively, so all ranks
// throw the same choreo::Error and none is left waiting in a collective.
#include "choreo/mpi/neighbor_exchange.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <utility>
#include <vector>

#include "choreo/error.hpp"
#include "choreo/pattern.hpp"
#include "timed_runs.hpp"

namespace choreo {
namespace {

using mpi::detail::agree_on_failure;
using mpi::detail::collectively;
using mpi::detail::sleep_for;

/// What start() does after posting the receives, one entry per used slot of the plan.
enum class Step : char { Send, Delay };

/// One side (send or receive) of this rank's MPI_Alltoallv arguments.
struct Side {
  Side(const char* side_name, const int* side_counts, const int* side_displacements,
       MPI_Datatype side_type)
      : name(side_name), counts(side_counts), displacements(side_displacements), type(side_type) {}

  const char* name;  ///< "send" or "recv", as in the argument names
  const int* counts;
  const int* displacements;
  MPI_Datatype type;
  int type_size = 0;    ///< read by check_side
  MPI_Aint extent = 0;  ///< read by check_side

  std::int64_t bytes(std::size_t peer) const {
    return static_cast<std::int64_t>(counts[peer]) * type_size;
  }
  /// Where the data for `peer` starts in the buffer, as MPI_Alltoallv computes it.
  MPI_Aint offset(std::size_t peer) const {
    return static_cast<MPI_Aint>(displacements[peer]) * extent;
  }
};

/// Checks one side's arguments on this rank (local; the caller agrees on failures) and reads
/// the datatype's size and extent.
void check_side(Side& side, int rank, int ranks) {
  auto fail = [&](const std::string& problem) {
    return Error(fmt::format("NeighborExchange: rank {}: {}", rank, problem));
  };
  if (side.counts == nullptr || side.displacements == nullptr)
    throw fail(fmt::format(
        "{}_counts or {}_displacements is null; pass arrays of {} entries, one per rank of the "
        "communicator",
        side.name, side.name, ranks));
  if (side.type == MPI_DATATYPE_NULL)
    throw fail(
        fmt::format("the {} datatype is MPI_DATATYPE_NULL; pass a committed datatype", side.name));
  for (int peer = 0; peer < ranks; ++peer)
    if (side.counts[peer] < 0)
      throw fail(fmt::format("{}_counts[{}] = {} is negative; counts must be >= 0", side.name, peer,
                             side.counts[peer]));
  MPI_Type_size(side.type, &side.type_size);
  if (side.type_size == MPI_UNDEFINED)
    throw fail(fmt::format("the {} datatype's size does not fit an int; use a smaller datatype",
                           side.name));
  MPI_Aint lower_bound = 0;
  MPI_Type_get_extent(side.type, &lower_bound, &side.extent);
}

void check_options(const NeighborExchangeOptions& options, int rank, MPI_Comm comm) {
  auto fail = [&](const std::string& problem) {
    return Error(fmt::format("NeighborExchange: rank {}: {}", rank, problem));
  };
  switch (options.algorithm) {
    case ExchangeAlgorithm::Auto:
    case ExchangeAlgorithm::Direct:
    case ExchangeAlgorithm::Ring:
    case ExchangeAlgorithm::Delay:
    case ExchangeAlgorithm::Optimal:
    case ExchangeAlgorithm::OptimalPaced:
      break;
    default:
      throw fail(fmt::format("unknown algorithm {}; use a value of choreo::ExchangeAlgorithm",
                             static_cast<int>(options.algorithm)));
  }
  if (options.delay_ns < 0)
    throw fail(fmt::format("the delay must be >= 0 ns, not {}", options.delay_ns));
  void* value = nullptr;
  int found = 0;
  MPI_Comm_get_attr(comm, MPI_TAG_UB, &value, &found);
  const int tag_ub = found ? *static_cast<int*>(value) : 32767;  // the standard's minimum
  if (options.tag < 0 || options.tag > tag_ub)
    throw fail(fmt::format("tag {} is outside 0..{} (MPI_TAG_UB); pick a tag in that range",
                           options.tag, tag_ub));
}

/// A plan only works if every rank picks the same tag; the algorithm must agree so that every
/// rank reports the same plan. Every rank sees the same reduction, so all throw alike.
void check_same_everywhere(const NeighborExchangeOptions& options, MPI_Comm comm) {
  const int algorithm = static_cast<int>(options.algorithm);
  std::array<int, 4> mine{options.tag, -options.tag, algorithm, -algorithm}, largest{};
  MPI_Allreduce(mine.data(), largest.data(), 4, MPI_INT, MPI_MAX, comm);
  if (largest[0] != -largest[1])
    throw Error(fmt::format(
        "NeighborExchange: ranks pass different tags (from {} to {}); every rank must pass the "
        "same Options::tag",
        -largest[1], largest[0]));
  if (largest[2] != -largest[3])
    throw Error(
        "NeighborExchange: ranks pass different algorithms; every rank must pass the same "
        "Options::algorithm");
}

/// The first pair whose sizes disagree, as this rank (the receiver) sees it, or "".
std::string find_mismatch(const std::vector<std::int64_t>& send_bytes_matrix, const Side& recv,
                          int rank, int ranks) {
  const auto n = static_cast<std::size_t>(ranks), me = static_cast<std::size_t>(rank);
  for (std::size_t source = 0; source < n; ++source) {
    const std::int64_t sent = send_bytes_matrix[source * n + me], expected = recv.bytes(source);
    if (sent == expected) continue;
    return fmt::format(
        "NeighborExchange: rank {} sends {} bytes to rank {} but rank {} expects {} bytes from "
        "rank {} (recv_counts[{}] = {} of a {}-byte type); as for MPI_Alltoallv, rank {}'s "
        "send_counts[{}] x send type size must equal rank {}'s recv_counts[{}] x receive type "
        "size",
        source, sent, rank, rank, expected, source, source, recv.counts[source], recv.type_size,
        source, rank, rank, source);
  }
  return {};
}

/// Every non-zero message between two different ranks; self messages are local copies and
/// take no slot.
Pattern pattern_from(const std::vector<std::int64_t>& send_bytes_matrix, int ranks) {
  Pattern pattern;
  pattern.ranks = ranks;
  const auto n = static_cast<std::size_t>(ranks);
  for (std::size_t source = 0; source < n; ++source)
    for (std::size_t destination = 0; destination < n; ++destination) {
      const std::int64_t bytes = send_bytes_matrix[source * n + destination];
      if (bytes > 0 && source != destination)
        pattern.messages.push_back(
            {static_cast<int>(source), static_cast<int>(destination), bytes});
    }
  return pattern;
}

SlotPlan make_plan(const Pattern& pattern, ExchangeAlgorithm algorithm) {
  switch (algorithm) {
    case ExchangeAlgorithm::Direct:
    case ExchangeAlgorithm::Ring:
      return plan_ring(pattern);
    case ExchangeAlgorithm::Delay:
      return plan_delay_insertion(pattern);
    case ExchangeAlgorithm::Auto:
    case ExchangeAlgorithm::Optimal:
    case ExchangeAlgorithm::OptimalPaced:
      break;
  }
  return plan_optimal(pattern);
}

}  // namespace

struct NeighborExchange::State {
  MPI_Comm comm = MPI_COMM_NULL;  ///< our duplicate of the caller's communicator
  /// This rank's persistent requests: the receives first, then the sends in start order
  /// (slot order, the message to itself last), so that wait() is one MPI_Waitall.
  std::vector<MPI_Request> requests;
  std::size_t receive_count = 0;
  /// What each send request was made with, in the order of the sends in `requests`.
  struct SendArguments {
    const void* address;
    int count;
    int destination;
  };
  std::vector<SendArguments> sends;
  MPI_Datatype send_type = MPI_DATATYPE_NULL;
  int tag = 0;
  std::vector<Step> steps;         ///< the sends and delay slots, in slot order
  bool start_all_at_once = false;  ///< Direct: one MPI_Startall, no slots
  std::int64_t delay_ns = 0;
  bool active = false;
  std::string algorithm;
  PlanReport report;

#ifdef CHOREO_SMPI
  // SMPI (SimGrid 3.32) packs the data of a derived-datatype send when MPI_Send_init makes
  // the request, and the first MPI_Start sends that packed copy: the buffer as it was at
  // construction, not at start (later starts pack afresh). Making the send requests again
  // just before starting them sends the data as it is now, at no simulated cost.
  void remake_send_requests() {
    for (std::size_t k = 0; k < sends.size(); ++k) {
      MPI_Request& request = requests[receive_count + k];
      MPI_Request_free(&request);
      MPI_Send_init(sends[k].address, sends[k].count, send_type, sends[k].destination, tag, comm,
                    &request);
    }
  }
#endif

  State() = default;
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  ~State() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;  // MPI released everything already
    if (active) {
      // Destroyed mid-exchange (an exception between start and wait): make sure no message
      // lands in the receive buffer after we are gone. A cancelled receive completes at once;
      // one already matched completes when its data is in.
      for (std::size_t i = 0; i < receive_count; ++i) MPI_Cancel(&requests[i]);
      if (receive_count > 0)
        MPI_Waitall(static_cast<int>(receive_count), requests.data(), MPI_STATUSES_IGNORE);
    }
    for (MPI_Request& request : requests)
      if (request != MPI_REQUEST_NULL) MPI_Request_free(&request);
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }
};

NeighborExchange::NeighborExchange(MPI_Comm comm, const void* send_buffer, const int send_counts[],
                                   const int send_displacements[], MPI_Datatype send_type,
                                   void* recv_buffer, const int recv_counts[],
                                   const int recv_displacements[], MPI_Datatype recv_type,
                                   const Options& options)
    : state_(std::make_unique<State>()) {
  // Problems every rank sees alike need no agreement; they come before any communication.
  if (comm == MPI_COMM_NULL)
    throw Error(
        "NeighborExchange: the communicator is MPI_COMM_NULL; pass the communicator of the "
        "ranks that exchange");
  int inter = 0;
  MPI_Comm_test_inter(comm, &inter);
  if (inter)
    throw Error(
        "NeighborExchange: intercommunicators are not supported; pass an intracommunicator "
        "(MPI_Intercomm_merge makes one)");

  State& state = *state_;
  MPI_Comm_dup(comm, &state.comm);  // our own matching space: tags never meet the caller's
  int rank = 0, ranks = 0;
  MPI_Comm_rank(state.comm, &rank);
  MPI_Comm_size(state.comm, &ranks);
  const auto n = static_cast<std::size_t>(ranks);

  Side send("send", send_counts, send_displacements, send_type);
  Side recv("recv", recv_counts, recv_displacements, recv_type);
  collectively(state.comm, [&] {
    if (send_buffer == MPI_IN_PLACE || recv_buffer == MPI_IN_PLACE)
      throw Error(fmt::format(
          "NeighborExchange: rank {}: MPI_IN_PLACE is not supported; pass separate send and "
          "receive buffers",
          rank));
    check_side(send, rank, ranks);
    check_side(recv, rank, ranks);
    check_options(options, rank, state.comm);
  });
  check_same_everywhere(options, state.comm);

  // The whole pattern on every rank: row i holds rank i's send bytes (O(n^2) memory).
  std::vector<std::int64_t> my_send_bytes(n), send_bytes_matrix(n * n);
  for (std::size_t peer = 0; peer < n; ++peer) my_send_bytes[peer] = send.bytes(peer);
  MPI_Allgather(my_send_bytes.data(), ranks, MPI_INT64_T, send_bytes_matrix.data(), ranks,
                MPI_INT64_T, state.comm);
  agree_on_failure(find_mismatch(send_bytes_matrix, recv, rank, ranks), state.comm);

  // The same deterministic scheduler on the same pattern: every rank gets the same plan.
  const Pattern pattern = pattern_from(send_bytes_matrix, ranks);
  send_bytes_matrix = {};
  SlotPlan plan;
  collectively(state.comm, [&] {
    plan = make_plan(pattern, options.algorithm);
    // A plan that missed a message would leave its receiver waiting forever: check it.
    const bool ordered_only = options.algorithm == ExchangeAlgorithm::Direct ||
                              options.algorithm == ExchangeAlgorithm::Ring;
    check_plan(pattern, plan, !ordered_only);
  });
  state.report = report_plan(pattern, plan, SlotModel{});
  state.start_all_at_once = options.algorithm == ExchangeAlgorithm::Direct;
  state.algorithm = state.start_all_at_once ? "direct" : plan.algorithm;
  state.delay_ns = options.delay_ns;

  // Receives, in the order the ring's sends reach this rank (the order they most likely
  // arrive in, which keeps MPI's matching queue short), then the one from itself.
  std::vector<int> sources;
  for (const Message& message : pattern.messages)
    if (message.dst == rank) sources.push_back(message.src);
  std::stable_sort(sources.begin(), sources.end(), [&](int a, int b) {
    return ring_distance(a, rank, ranks) < ring_distance(b, rank, ranks);
  });
  const bool to_itself = send.bytes(static_cast<std::size_t>(rank)) > 0;
  if (to_itself) sources.push_back(rank);
  for (int source : sources) {
    MPI_Request& request = state.requests.emplace_back(MPI_REQUEST_NULL);
    MPI_Recv_init(
        static_cast<std::byte*>(recv_buffer) + recv.offset(static_cast<std::size_t>(source)),
        recv_counts[source], recv_type, source, options.tag, state.comm, &request);
  }
  state.receive_count = state.requests.size();

  // Sends in slot order; delay slots after the last send would only idle, so they go.
  state.send_type = send_type;
  state.tag = options.tag;
  auto make_send_request_to = [&](int destination) {
    const State::SendArguments& arguments = state.sends.emplace_back(
        State::SendArguments{static_cast<const std::byte*>(send_buffer) +
                                 send.offset(static_cast<std::size_t>(destination)),
                             send_counts[destination], destination});
    MPI_Request& request = state.requests.emplace_back(MPI_REQUEST_NULL);
    MPI_Send_init(arguments.address, arguments.count, send_type, destination, options.tag,
                  state.comm, &request);
    state.steps.push_back(Step::Send);
  };
  std::vector<int> slots = plan.slots[static_cast<std::size_t>(rank)];
  while (!slots.empty() && slots.back() == kDelaySlot) slots.pop_back();
  for (int slot : slots) {
    if (slot == kDelaySlot)
      state.steps.push_back(Step::Delay);
    else
      make_send_request_to(pattern.messages[static_cast<std::size_t>(slot)].dst);
  }
  if (to_itself) make_send_request_to(rank);
}

NeighborExchange::~NeighborExchange() = default;
NeighborExchange::NeighborExchange(NeighborExchange&&) noexcept = default;
NeighborExchange& NeighborExchange::operator=(NeighborExchange&&) noexcept = default;

NeighborExchange::State& NeighborExchange::state(const char* operation) const {
  if (!state_)
    throw Error(fmt::format(
        "NeighborExchange::{}: this object was moved from; use the object it was moved to",
        operation));
  return *state_;
}

void NeighborExchange::start() {
  State& s = state("start");
  if (s.active)
    throw Error(
        "NeighborExchange::start: the exchange is already started; call wait() before starting "
        "it again");
  s.active = true;
#ifdef CHOREO_SMPI
  s.remake_send_requests();
#endif
  if (s.start_all_at_once) {
    if (!s.requests.empty()) MPI_Startall(static_cast<int>(s.requests.size()), s.requests.data());
    return;
  }
  if (s.receive_count > 0) MPI_Startall(static_cast<int>(s.receive_count), s.requests.data());
  std::size_t next_send = s.receive_count;
  for (Step step : s.steps) {
    if (step == Step::Delay)
      sleep_for(s.delay_ns);
    else
      MPI_Start(&s.requests[next_send++]);
  }
}

void NeighborExchange::wait() {
  State& s = state("wait");
  if (!s.active)
    throw Error("NeighborExchange::wait: the exchange is not started; call start() first");
  if (!s.requests.empty())
    MPI_Waitall(static_cast<int>(s.requests.size()), s.requests.data(), MPI_STATUSES_IGNORE);
  s.active = false;
}

bool NeighborExchange::test() {
  State& s = state("test");
  if (!s.active)
    throw Error("NeighborExchange::test: the exchange is not started; call start() first");
  int done = 1;
  if (!s.requests.empty())
    MPI_Testall(static_cast<int>(s.requests.size()), s.requests.data(), &done, MPI_STATUSES_IGNORE);
  if (done) s.active = false;
  return done != 0;
}

bool NeighborExchange::active() const { return state_ && state_->active; }

const std::string& NeighborExchange::algorithm() const { return state("algorithm").algorithm; }

const PlanReport& NeighborExchange::report() const { return state("report").report; }

}  // namespace choreo
