#include "exchange_runner.hpp"

#include <algorithm>
#include <chrono>

#include "timed_runs.hpp"

namespace choreo::mpi::detail {
namespace {

// Waits longer than this sleep (nanosleep costs ~77 us here even for 1 us, so only long
// waits are worth it), waking this much early and polling MPI up to the send's time. Shorter
// waits poll MPI on the clock. A sleep is at most kLongestSleepNs, so that MPI progresses
// (rendezvous hand-shakes, arrivals) at least that often.
constexpr std::int64_t kSleepAboveNs = 500'000;
constexpr std::int64_t kWakeEarlyNs = 200'000;
constexpr std::int64_t kLongestSleepNs = 1'000'000;

}  // namespace

std::int64_t exchange_clock_ns() {
#ifdef CHOREO_SMPI
  return static_cast<std::int64_t>(MPI_Wtime() * 1e9);
#else
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
#endif
}

PacedExchange::~PacedExchange() { abandon(); }

void PacedExchange::take(MPI_Comm comm, int tag, std::span<const MessageBuffer> receives,
                         std::span<const MessageBuffer> sends,
                         std::span<const std::int64_t> not_before_ns, bool synchronize,
                         bool persistent) {
  persistent_ = persistent;
  synchronize_ = synchronize;
  comm_ = comm;
  tag_ = tag;
  sends_.assign(sends.begin(), sends.end());
  not_before_.assign(not_before_ns.begin(), not_before_ns.end());
  receive_count_ = receives.size();
  requests_.assign(receives.size() + sends.size(), MPI_REQUEST_NULL);
  next_send_ = 0;
}

void PacedExchange::bind_persistent(MPI_Comm comm, int tag, std::span<const MessageBuffer> receives,
                                    std::span<const MessageBuffer> sends,
                                    std::span<const std::int64_t> not_before_ns, bool synchronize) {
  abandon();
  take(comm, tag, receives, sends, not_before_ns, synchronize, /*persistent=*/true);
  for (std::size_t k = 0; k < receives.size(); ++k)
    MPI_Recv_init(receives[k].address, receives[k].count, receives[k].type, receives[k].peer, tag,
                  comm, &requests_[k]);
  for (std::size_t k = 0; k < sends.size(); ++k)
    MPI_Send_init(sends[k].address, sends[k].count, sends[k].type, sends[k].peer, tag, comm,
                  &requests_[receive_count_ + k]);
}

void PacedExchange::start() {
  active_ = true;
  next_send_ = 0;
  begin();
}

void PacedExchange::begin() {
  // One-shot starts have posted their receives already (MPI_Irecv needs the arguments).
  if (persistent_ && receive_count_ > 0)
    MPI_Startall(static_cast<int>(receive_count_), requests_.data());
  if (synchronize_) MPI_Ibarrier(comm_, &gate_);
  start_ns_ = exchange_clock_ns();
  start_due_sends();
}

bool PacedExchange::passed_gate() {
  if (gate_ == MPI_REQUEST_NULL) return true;
  int passed = 0;
  MPI_Test(&gate_, &passed, MPI_STATUS_IGNORE);
  if (!passed) return false;
  start_ns_ = exchange_clock_ns();
  return true;
}

void PacedExchange::start(MPI_Comm comm, int tag, std::span<const MessageBuffer> receives,
                          std::span<const MessageBuffer> sends,
                          std::span<const std::int64_t> not_before_ns, bool synchronize) {
  if (persistent_) abandon();
  take(comm, tag, receives, sends, not_before_ns, synchronize, /*persistent=*/false);
  active_ = true;
  for (std::size_t k = 0; k < receives.size(); ++k)
    MPI_Irecv(receives[k].address, receives[k].count, receives[k].type, receives[k].peer, tag, comm,
              &requests_[k]);
  begin();
}

void PacedExchange::start_send(std::size_t index) {
  MPI_Request& request = requests_[receive_count_ + index];
  const MessageBuffer& send = sends_[index];
  if (!persistent_) {
    MPI_Isend(send.address, send.count, send.type, send.peer, tag_, comm_, &request);
    return;
  }
#ifdef CHOREO_SMPI
  // SMPI (SimGrid 3.32) packs a derived-datatype send's data when MPI_Send_init makes the
  // request, and the first MPI_Start sends that copy: the buffer as it was then. Making the
  // request again just before starting it sends the data as it is now, at no simulated cost.
  MPI_Request_free(&request);
  MPI_Send_init(send.address, send.count, send.type, send.peer, tag_, comm_, &request);
#endif
  MPI_Start(&request);
}

void PacedExchange::start_due_sends() {
  const std::size_t count = sends_.size();
  if (!passed_gate()) return;
  // Sends due at the start need no clock: all of an unpaced schedule's.
  while (next_send_ < count && not_before_[next_send_] <= 0) start_send(next_send_++);
  if (next_send_ == count) return;
  const std::int64_t elapsed = exchange_clock_ns() - start_ns_;
  while (next_send_ < count && not_before_[next_send_] <= elapsed) start_send(next_send_++);
}

bool PacedExchange::test() {
  if (!active_) return true;
  start_due_sends();
  if (next_send_ < sends_.size()) return false;
  int done = 1;
  if (!requests_.empty())
    MPI_Testall(static_cast<int>(requests_.size()), requests_.data(), &done, MPI_STATUSES_IGNORE);
  if (done) active_ = false;
  return done != 0;
}

void PacedExchange::wait() {
  if (!active_) return;
  if (gate_ != MPI_REQUEST_NULL) {
    MPI_Wait(&gate_, MPI_STATUS_IGNORE);
    start_ns_ = exchange_clock_ns();
  }
  while (true) {
    start_due_sends();
    if (next_send_ == sends_.size()) break;
    const std::int64_t remaining = start_ns_ + not_before_[next_send_] - exchange_clock_ns();
#ifdef CHOREO_SMPI
    // The clock is simulated: only a sleep (which SMPI turns into simulated time) moves it.
    if (remaining > 0) sleep_for(remaining);
#else
    if (remaining > kSleepAboveNs) {
      sleep_for(std::min(remaining - kWakeEarlyNs, kLongestSleepNs));
    } else {
      // Let MPI progress what is under way while the clock runs to the next send.
      int done = 0;
      const auto started = static_cast<int>(receive_count_ + next_send_);
      if (started > 0) MPI_Testall(started, requests_.data(), &done, MPI_STATUSES_IGNORE);
    }
#endif
  }
  if (!requests_.empty())
    MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  active_ = false;
}

void PacedExchange::abandon() noexcept {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;  // MPI released everything already
  if (active_) {
    // A barrier cannot be cancelled; the others are in it too (the start was collective).
    if (gate_ != MPI_REQUEST_NULL) MPI_Wait(&gate_, MPI_STATUS_IGNORE);
    // No message may land in a receive buffer after the owner is gone: a cancelled receive
    // completes at once, one already matched completes when its data is in.
    for (std::size_t k = 0; k < receive_count_; ++k)
      if (requests_[k] != MPI_REQUEST_NULL) MPI_Cancel(&requests_[k]);
    if (receive_count_ > 0)
      MPI_Waitall(static_cast<int>(receive_count_), requests_.data(), MPI_STATUSES_IGNORE);
    active_ = false;
  }
  free_requests();
}

void PacedExchange::free_requests() noexcept {
  // A started send that is freed still completes; MPI keeps it until it has.
  for (MPI_Request& request : requests_)
    if (request != MPI_REQUEST_NULL) MPI_Request_free(&request);
  requests_.clear();
  receive_count_ = 0;
  next_send_ = 0;
  sends_.clear();
  not_before_.clear();
}

}  // namespace choreo::mpi::detail
