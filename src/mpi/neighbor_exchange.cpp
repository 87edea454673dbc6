// NeighborExchange: the persistent requests of paper 000's runtime (Fig. 4), for the part of a
// plan that rank 0 made and sent to this rank (exchange_setup.hpp). Set-up problems are agreed
// on collectively, so all ranks throw the same choreo::Error and none is left waiting in a
// collective.
#include "choreo/mpi/neighbor_exchange.hpp"

#include <fmt/format.h>

#include <array>
#include <cstddef>
#include <utility>
#include <vector>

#include "choreo/core/error.hpp"
#include "choreo/core/pattern.hpp"
#include "exchange_runner.hpp"
#include "exchange_setup.hpp"
#include "timed_runs.hpp"

namespace choreo {
namespace {

using mpi::detail::collectively;

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

}  // namespace

struct NeighborExchange::State {
  MPI_Comm comm = MPI_COMM_NULL;  ///< our duplicate of the caller's communicator
  mpi::detail::PacedExchange exchange;
  ExchangeReport report;

  State() = default;
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  ~State() {
    exchange.abandon();  // before the communicator its requests use goes
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
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

  // Rank 0 plans the whole pattern; this rank gets back its own part.
  std::vector<Message> my_sends;
  for (int peer = 0; peer < ranks; ++peer)
    if (peer != rank && send.bytes(static_cast<std::size_t>(peer)) > 0)
      my_sends.push_back({rank, peer, send.bytes(static_cast<std::size_t>(peer))});
  const mpi::detail::PlannedExchange planned =
      mpi::detail::plan_collectively(state.comm, my_sends, options.model, options.algorithm);
  std::vector<std::int64_t> expected(n);
  for (std::size_t peer = 0; peer < n; ++peer) expected[peer] = recv.bytes(peer);
  mpi::detail::agree_on_failure(
      [&]() -> std::string {
        const std::string mismatch =
            mpi::detail::find_receive_mismatch(planned, expected, rank, [&](int source) {
              return fmt::format(
                  " (recv_counts[{}] = {} of a {}-byte type); as for MPI_Alltoallv, rank {}'s "
                  "send_counts[{}] x send type size must equal rank {}'s recv_counts[{}] x "
                  "receive type size",
                  source, recv.counts[source], recv.type_size, source, rank, rank, source);
            });
        return mismatch.empty() ? mismatch : "NeighborExchange: " + mismatch;
      }(),
      state.comm);
  state.report = planned.summary;

  // Receives in the plan's order, then the one from itself; sends in the plan's order, then
  // the one to itself (a local copy MPI makes at once).
  using mpi::detail::MessageBuffer;
  std::vector<MessageBuffer> receives, sends;
  std::vector<std::int64_t> not_before;
  auto receive_from = [&](int source) {
    receives.push_back(
        {static_cast<std::byte*>(recv_buffer) + recv.offset(static_cast<std::size_t>(source)),
         recv_counts[source], recv_type, source});
  };
  auto send_to = [&](int destination, std::int64_t not_before_ns) {
    sends.push_back({const_cast<std::byte*>(static_cast<const std::byte*>(send_buffer)) +
                         send.offset(static_cast<std::size_t>(destination)),
                     send_counts[destination], send_type, destination});
    not_before.push_back(not_before_ns);
  };
  for (const mpi::detail::IncomingMessage& message : planned.receives) receive_from(message.source);
  for (const ExchangeSend& message : planned.sends) send_to(message.peer, message.not_before_ns);
  if (send.bytes(static_cast<std::size_t>(rank)) > 0) {
    receive_from(rank);
    send_to(rank, 0);
  }
  state.exchange.bind_persistent(state.comm, options.tag, receives, sends, not_before,
                                 planned.summary.paced);
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
  if (s.exchange.active())
    throw Error(
        "NeighborExchange::start: the exchange is already started; call wait() before starting "
        "it again");
  s.exchange.start();
}

void NeighborExchange::wait() {
  State& s = state("wait");
  if (!s.exchange.active())
    throw Error("NeighborExchange::wait: the exchange is not started; call start() first");
  s.exchange.wait();
}

bool NeighborExchange::test() {
  State& s = state("test");
  if (!s.exchange.active())
    throw Error("NeighborExchange::test: the exchange is not started; call start() first");
  return s.exchange.test();
}

bool NeighborExchange::active() const { return state_ && state_->exchange.active(); }

std::string_view NeighborExchange::algorithm() const {
  return to_string(state("algorithm").report.algorithm);
}

const ExchangeReport& NeighborExchange::report() const { return state("report").report; }

}  // namespace choreo
