// The MPI executor. Set-up (buffers, persistent requests, dependency lists) happens once;
// an iteration is: prepare data, barrier, run the program, verify. Only "run the program"
// is timed. Every failure is agreed on collectively, so all ranks throw the same
// choreo::Error and none is left waiting in a collective.
#include "choreo/mpi/executor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <climits>
#include <cstring>
#include <functional>
#include <optional>
#include <queue>
#include <span>

#ifdef CHOREO_SMPI
#include <simgrid/host.h>
#endif

#include "choreo/core/checked.hpp"
#include "choreo/core/data_pattern.hpp"
#include "choreo/core/error.hpp"
#include "choreo/core/limits.hpp"
#include "choreo/core/validate.hpp"
#include "fault_watch.hpp"
#include "timed_runs.hpp"

namespace choreo::mpi {
namespace {

using detail::collectively;
using detail::sleep_for;

void compute_for(std::int64_t nanoseconds) {
#ifdef CHOREO_SMPI
  // Advance the simulated clock by exactly this time, whatever the host's speed.
  smpi_execute_flops(static_cast<double>(nanoseconds) * 1e-9 * sg_host_get_speed(sg_host_self()));
#else
  // Spin rather than sleep: calc models work that keeps the CPU busy.
  auto end = std::chrono::steady_clock::now() + std::chrono::nanoseconds(nanoseconds);
  while (std::chrono::steady_clock::now() < end) {
  }
#endif
}

/// This rank's buffers and the address of every op's region in them. Ops that name a
/// buffer share it as they say; the others get regions of their own in one of three
/// arenas (sends, receives, copies), laid end to end.
class Buffers {
 public:
  Buffers(const Program& program, int rank) {
    for (const Op& op : program.ops) {
      Place data{}, source{};
      if (op.kind == OpKind::Send) data = reserve(op.region, op.bytes, kSendArena);
      if (op.kind == OpKind::Recv) data = reserve(op.region, op.bytes, kRecvArena);
      if (op.kind == OpKind::Copy) {
        data = reserve(op.region, op.bytes, kCopyArena);
        source = reserve(op.source, op.bytes, kCopyArena);
      }
      places_.push_back({data, source});
    }
    std::int64_t total = 0;
    for (const std::size_t size : sizes_)
      total = checked_add(total, static_cast<std::int64_t>(size), "the buffers' bytes");
    limits::check_allocation(
        total, fmt::format("rank {}: the buffers of its ops (each named buffer up to its largest "
                           "offset + size, and the ops that name none) take",
                           rank));
    storage_.resize(sizes_.size());
    for (std::size_t k = 0; k < sizes_.size(); ++k) storage_[k].resize(sizes_[k]);
  }

  std::span<std::byte> data(std::size_t op, std::int64_t bytes) {
    return at(places_[op].first, bytes);
  }
  std::span<std::byte> source(std::size_t op, std::int64_t bytes) {
    return at(places_[op].second, bytes);
  }

 private:
  static constexpr std::size_t kSendArena = 0, kRecvArena = 1, kCopyArena = 2, kArenas = 3;
  struct Place {
    std::size_t storage = 0;  ///< an arena, or kArenas + buffer id
    std::size_t offset = 0;
  };

  /// Grows the size the region's storage needs; storage is allocated once, at the end.
  /// Sizes and offsets are at most 2^50 (validate), so only sums of many can overflow.
  Place reserve(const Region& region, std::int64_t bytes, std::size_t arena) {
    auto size = static_cast<std::size_t>(bytes);
    if (region.buffer == kAutoBuffer) {
      Place place{arena, sizes_[arena]};
      sizes_[arena] =
          static_cast<std::size_t>(checked_add(static_cast<std::int64_t>(sizes_[arena]), bytes,
                                               "the bytes of the ops without a buffer"));
      return place;
    }
    Place place{kArenas + static_cast<std::size_t>(region.buffer),
                static_cast<std::size_t>(region.offset)};
    if (sizes_.size() <= place.storage) sizes_.resize(place.storage + 1, 0);
    sizes_[place.storage] = std::max(sizes_[place.storage], place.offset + size);
    return place;
  }
  std::span<std::byte> at(const Place& place, std::int64_t bytes) {
    return std::span<std::byte>(storage_[place.storage])
        .subspan(place.offset, static_cast<std::size_t>(bytes));
  }

  std::vector<std::pair<Place, Place>> places_;
  std::vector<std::size_t> sizes_ = std::vector<std::size_t>(kArenas, 0);
  std::vector<std::vector<std::byte>> storage_;
};

/// Persistent requests, freed on every path out.
class Requests {
 public:
  explicit Requests(std::size_t n) : requests_(n, MPI_REQUEST_NULL) {}
  Requests(const Requests&) = delete;
  Requests& operator=(const Requests&) = delete;
  ~Requests() {
    for (auto& r : requests_)
      if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
  }
  MPI_Request& operator[](std::size_t i) { return requests_[i]; }

 private:
  std::vector<MPI_Request> requests_;
};

/// Which ops wait on which: lists of dependents, by op index. A first-of group
/// (Op::requires_any) counts as one dependency, met by the first member to complete.
struct DependencyLists {
  std::vector<std::size_t> waiting;  ///< dependencies each op has
  std::vector<std::vector<std::size_t>> on_start, on_complete, on_any;
  std::vector<char> has_any;  ///< the op has a first-of group

  explicit DependencyLists(const Program& program) {
    const auto& ops = program.ops;
    std::unordered_map<std::int64_t, std::size_t> index;
    for (std::size_t i = 0; i < ops.size(); ++i) index.emplace(ops[i].id, i);
    waiting.assign(ops.size(), 0);
    on_start.resize(ops.size());
    on_complete.resize(ops.size());
    on_any.resize(ops.size());
    has_any.assign(ops.size(), 0);
    for (std::size_t i = 0; i < ops.size(); ++i) {
      for (auto dep : ops[i].requires_completed) on_complete[index.at(dep)].push_back(i);
      for (auto dep : ops[i].requires_started) on_start[index.at(dep)].push_back(i);
      for (auto dep : ops[i].requires_any) on_any[index.at(dep)].push_back(i);
      has_any[i] = ops[i].requires_any.empty() ? 0 : 1;
      waiting[i] = ops[i].requires_completed.size() + ops[i].requires_started.size() +
                   static_cast<std::size_t>(has_any[i]);
    }
  }
};

/// Ops of `program` other than `op` that write bytes of `op`'s region (receives and copies
/// into the same named buffer, overlapping): "op 7 (copy 64 B ...)", or "" when none can.
std::string writers_of(const Program& program, const Op& op) {
  if (op.region.buffer == kAutoBuffer) return {};  // a region of its own
  std::string found;
  for (const Op& other : program.ops) {
    if (other.id == op.id || (other.kind != OpKind::Recv && other.kind != OpKind::Copy)) continue;
    if (other.region.buffer != op.region.buffer) continue;
    if (other.region.offset < op.region.offset + op.bytes &&
        op.region.offset < other.region.offset + other.bytes)
      found += fmt::format("{}op {} ({})", found.empty() ? "" : ", ", other.id, describe(other));
  }
  return found;
}

/// Why received bytes differ from what was sent: the schedule, when it lets another op write
/// the send's or the receive's region; otherwise the transport (MPI or the network).
std::string blame_for_wrong_bytes(const Schedule& schedule, int receiver, const Op& recv,
                                  int sender, int tag) {
  std::string blame;
  for (const Op& send : schedule.programs[static_cast<std::size_t>(sender)].ops) {
    if (send.kind != OpKind::Send || send.peer != receiver || send.tag != tag) continue;
    const std::string writers =
        writers_of(schedule.programs[static_cast<std::size_t>(sender)], send);
    if (!writers.empty())
      blame += fmt::format(
          " On rank {}, {} write(s) the region op {} sends from, so it did not "
          "send the bytes choreo put there: give op {} a region no other op "
          "writes, or order the writer after the send completes.",
          sender, writers, send.id, send.id);
  }
  const std::string writers =
      writers_of(schedule.programs[static_cast<std::size_t>(receiver)], recv);
  if (!writers.empty())
    blame += fmt::format(
        " On this rank, {} write(s) the region this receive lands in: give the "
        "receive a region no other op writes, or order the writer before it.",
        writers);
  if (!blame.empty()) return blame;
  return " No other op of the schedule writes either region, so the bytes changed inside MPI or "
         "the network, not because of the schedule: run again, and if it repeats, report it to "
         "the maintainers of your MPI library with this schedule.";
}

/// The longest any rank computes or sleeps in one run of the schedule: others may wait that
/// long for it without anything being wrong.
double longest_calc_and_delay_seconds(const Schedule& schedule) {
  std::int64_t longest = 0;
  for (const Program& program : schedule.programs) {
    std::int64_t total = 0;
    for (const Op& op : program.ops)
      if (op.kind == OpKind::Calc || op.kind == OpKind::Delay)
        total = checked_add(total, op.nanoseconds, "the calc and delay times of a rank");
    longest = std::max(longest, total);
  }
  return static_cast<double>(longest) * 1e-9;
}

/// A duplicate of the caller's communicator on which MPI returns errors instead of aborting,
/// so a failed op is reported with its name. MPICH raises an error completing several
/// requests (MPI_Testsome) on MPI_COMM_WORLD and Open MPI may on MPI_COMM_SELF, neither the
/// requests' communicator, so those return errors too while the run lasts.
class RunComm {
 public:
  explicit RunComm(MPI_Comm comm) {
    MPI_Comm_dup(comm, &comm_);
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    for (std::size_t k = 0; k < kGlobal.size(); ++k) {
      MPI_Comm_get_errhandler(kGlobal[k], &saved_[k]);
      MPI_Comm_set_errhandler(kGlobal[k], MPI_ERRORS_RETURN);
    }
  }
  ~RunComm() {
    for (std::size_t k = 0; k < kGlobal.size(); ++k) {
      // SimGrid SMPI 3.32 hands out no handler for a communicator still on its default, and
      // warns on every rank when one sets or frees that null handler.
      if (saved_[k] == MPI_ERRHANDLER_NULL) continue;
      MPI_Comm_set_errhandler(kGlobal[k], saved_[k]);
      MPI_Errhandler_free(&saved_[k]);
    }
    MPI_Comm_free(&comm_);
  }
  RunComm(const RunComm&) = delete;
  RunComm& operator=(const RunComm&) = delete;
  operator MPI_Comm() const { return comm_; }

 private:
  inline static const std::array<MPI_Comm, 2> kGlobal = {MPI_COMM_WORLD, MPI_COMM_SELF};
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::array<MPI_Errhandler, 2> saved_{};
};

class RankProgram {
 public:
  RankProgram(const Schedule& schedule, int rank, MPI_Comm comm)
      : schedule_(schedule),
        program_(schedule.programs[static_cast<std::size_t>(rank)]),
        rank_(rank),
        buffers_(program_, rank),
        requests_(program_.ops.size()),
        deps_(program_),
        status_(program_.ops.size()) {
    for (std::size_t i = 0; i < program_.ops.size(); ++i) {
      const Op& op = program_.ops[i];
      auto region = buffers_.data(i, op.bytes);
      int count = static_cast<int>(op.bytes);
      int code = MPI_SUCCESS;
      if (op.kind == OpKind::Send)
        code = MPI_Send_init(region.data(), count, MPI_BYTE, op.peer, op.tag, comm, &requests_[i]);
      if (op.kind == OpKind::Recv)
        code = MPI_Recv_init(region.data(), count, MPI_BYTE,
                             op.peer == kAny ? MPI_ANY_SOURCE : op.peer,
                             op.tag == kAny ? MPI_ANY_TAG : op.tag, comm, &requests_[i]);
      if (code != MPI_SUCCESS)
        throw Error(fmt::format("rank {}, op {} ({}): MPI could not set it up: {}", rank, op.id,
                                describe(op), detail::FaultWatch::error_text(code)));
    }
  }

  /// Untimed: receive regions poisoned, send regions filled with their messages.
  void prepare() {
    for (std::size_t i = 0; i < program_.ops.size(); ++i) {
      const Op& op = program_.ops[i];
      if (op.kind == OpKind::Recv && op.peer != kAny && op.tag != kAny)
        poison_message(buffers_.data(i, op.bytes), op.peer, rank_, op.tag);
    }
    for (std::size_t i = 0; i < program_.ops.size(); ++i) {
      const Op& op = program_.ops[i];
      if (op.kind == OpKind::Send) fill_message(buffers_.data(i, op.bytes), rank_, op.peer, op.tag);
    }
  }

  /// The timed part: start ops as their dependencies allow (lowest index first), wait for
  /// message completions, until every op has completed.
  void execute(detail::FaultWatch& watch) {
    const std::size_t n = program_.ops.size();
    std::vector<std::size_t> waiting = deps_.waiting;
    std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
    for (std::size_t i = 0; i < n; ++i)
      if (waiting[i] == 0) ready.push(i);
    auto release = [&](const std::vector<std::size_t>& dependents) {
      for (std::size_t d : dependents)
        if (--waiting[d] == 0) ready.push(d);
    };
    // Groups still waiting for their first member. The later members are still started and
    // waited for like every op (a redundant copy still arrives, and verify() checks it); they
    // just release nothing more.
    std::vector<char> any_open = deps_.has_any;
    std::size_t completed = 0;
    auto complete = [&](std::size_t i) {
      release(deps_.on_complete[i]);
      for (std::size_t d : deps_.on_any[i]) {
        if (!any_open[d]) continue;
        any_open[d] = 0;
        if (--waiting[d] == 0) ready.push(d);
      }
      ++completed;
    };
    std::vector<MPI_Request> active;
    std::vector<std::size_t> owner;
    std::vector<int> finished(n);
    std::vector<MPI_Status> statuses(n);
    const auto name = [&](std::size_t i) {
      return fmt::format("op {} ({})", program_.ops[i].id, describe(program_.ops[i]));
    };
    const detail::FaultWatch::PendingText pending = [&] {
      constexpr std::size_t kNamed = 4;  // a line, not a dump
      std::string text = fmt::format("{} started op(s) not reported complete: ", active.size());
      for (std::size_t k = 0; k < std::min(active.size(), kNamed); ++k)
        text += (k ? ", " : "") + name(owner[k]);
      if (active.size() > kNamed) text += fmt::format(" and {} more", active.size() - kNamed);
      const std::size_t unstarted = n - completed - active.size();
      if (unstarted > 0) text += fmt::format("; {} op(s) not started, waiting on them", unstarted);
      return text;
    };
    while (completed < n) {
      while (!ready.empty()) {
        std::size_t i = ready.top();
        ready.pop();
        const Op& op = program_.ops[i];
        if (op.is_message()) {
          const int code = MPI_Start(&requests_[i]);
          if (code != MPI_SUCCESS) watch.fail_on_error(code, "MPI_Start of " + name(i), pending);
          active.push_back(requests_[i]);
          owner.push_back(i);
          release(deps_.on_start[i]);
          continue;
        }
        if (op.kind == OpKind::Delay) sleep_for(op.nanoseconds);
        if (op.kind == OpKind::Calc) compute_for(op.nanoseconds);
        if (op.kind == OpKind::Copy && op.bytes > 0)
          std::memmove(buffers_.data(i, op.bytes).data(), buffers_.source(i, op.bytes).data(),
                       static_cast<std::size_t>(op.bytes));
        release(deps_.on_start[i]);
        complete(i);
      }
      if (completed == n) break;
      if (active.empty())
        throw Error(
            fmt::format("rank {}: internal error: nothing can run but {} ops are left; "
                        "please report this schedule",
                        rank_, n - completed));
      const int count = watch.wait_some(
          active, finished.data(), statuses.data(), [&](int k) { return name(owner[k]); }, pending);
      for (int k = 0; k < count; ++k) {
        std::size_t i = owner[finished[k]];
        status_[i] = statuses[k];
        complete(i);
      }
      // Drop what completed; Waitsome reports indices in any order.
      std::sort(finished.begin(), finished.begin() + count, std::greater<>());
      for (int k = 0; k < count; ++k) {
        active.erase(active.begin() + finished[k]);
        owner.erase(owner.begin() + finished[k]);
      }
    }
  }

  /// Checks every received byte; returns the first problem or "".
  std::string verify(int iteration, std::int64_t& bytes_checked) {
    for (std::size_t i = 0; i < program_.ops.size(); ++i) {
      const Op& op = program_.ops[i];
      if (op.kind != OpKind::Recv) continue;
      const MPI_Status& st = status_[i];
      int received = 0;
      MPI_Get_count(&st, MPI_BYTE, &received);
      auto where = [&] {
        return fmt::format("rank {}, op {} ({}), iteration {}", rank_, op.id, describe(op),
                           iteration);
      };
      if (received != op.bytes)
        return fmt::format("{}: {} bytes arrived from rank {} tag {}, expected {}", where(),
                           received, st.MPI_SOURCE, st.MPI_TAG, op.bytes);
      auto bad = check_message(buffers_.data(i, op.bytes), st.MPI_SOURCE, rank_, st.MPI_TAG);
      if (bad.count > 0)
        return fmt::format(
            "{}: {} of {} bytes differ from what rank {} sent with tag {}; first at byte "
            "{}: got 0x{:02x}, expected 0x{:02x}.{}",
            where(), bad.count, op.bytes, st.MPI_SOURCE, st.MPI_TAG, bad.first, bad.got,
            bad.expected, blame_for_wrong_bytes(schedule_, rank_, op, st.MPI_SOURCE, st.MPI_TAG));
      bytes_checked += op.bytes;
    }
    return {};
  }

 private:
  const Schedule& schedule_;
  const Program& program_;
  int rank_;
  Buffers buffers_;
  Requests requests_;
  DependencyLists deps_;
  std::vector<MPI_Status> status_;
};

void check_runnable(const Schedule& schedule, MPI_Comm comm) {
  int size = 0, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  if (size != schedule.ranks)
    throw Error(
        fmt::format("the schedule is for {} ranks but MPI runs {}; start it with "
                    "mpiexec -n {}",
                    schedule.ranks, size, schedule.ranks));
  validate(schedule);
  void* value = nullptr;
  int found = 0;
  MPI_Comm_get_attr(comm, MPI_TAG_UB, &value, &found);
  const int tag_ub = found ? *static_cast<int*>(value) : 32767;
  for (const Op& op : schedule.programs[rank].ops) {
    if (op.is_message() && op.tag > tag_ub)
      throw Error(
          fmt::format("rank {}, op {} ({}): tag {} exceeds this MPI's MPI_TAG_UB {}; use "
                      "smaller tags",
                      rank, op.id, describe(op), op.tag, tag_ub));
    if ((op.is_message() || op.kind == OpKind::Copy) && op.bytes > INT_MAX)
      throw Error(
          fmt::format("rank {}, op {} ({}): messages above {} bytes are not supported yet; "
                      "split the message",
                      rank, op.id, describe(op), INT_MAX));
  }
}

}  // namespace

RunResult run(const Schedule& schedule, MPI_Comm comm, const RunOptions& options) {
  collectively(comm, [&] {
    detail::check_options(options);
    check_runnable(schedule, comm);
  });
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // Buffers are allocated here: a rank that cannot is an error on every rank, not an abort.
  const RunComm run_comm(comm);
  std::optional<RankProgram> built;
  collectively(comm, [&] { built.emplace(schedule, rank, run_comm); });
  RankProgram& program = *built;

  RunResult result = detail::time_iterations(
      comm, options,
      {[&] { program.prepare(); }, [&](detail::FaultWatch& watch) { program.execute(watch); },
       [&](int iteration, std::int64_t& checked) { return program.verify(iteration, checked); }},
      longest_calc_and_delay_seconds(schedule));
  result.ranks = schedule.ranks;
  result.messages = schedule.message_count();
  result.bytes_per_iteration = schedule.message_bytes();
  result.algorithm = schedule.algorithm;
  return result;
}

}  // namespace choreo::mpi
