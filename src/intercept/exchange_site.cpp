#include "exchange_site.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "../mpi/exchange_setup.hpp"
#include "choreo/core/error.hpp"
#include "comm_state.hpp"
#include "next.hpp"
#include "runtime.hpp"
#include "type_size.hpp"

namespace choreo::intercept {
namespace {

using mpi::detail::MessageBuffer;

/// Patterns kept per communicator and function; a rank evicts its least recently used.
constexpr std::size_t kCacheEntries = 8;
/// Checkpoints come after 1, 1, 2, 4, ... calls, at most this many apart while choreo runs
/// the calls (a pattern that changed is planned again within 64 calls) and while MPI does.
constexpr std::uint64_t kLongestChoreoInterval = 64;
constexpr std::uint64_t kLongestMpiInterval = 1024;
/// While a pattern's candidates are being timed, windows of at most this many calls.
constexpr std::uint64_t kMeasuringInterval = 2;
/// Plans that no call reused before the ranks stop planning new patterns (they keep
/// changing), until the calls repeat their recent counts again.
constexpr int kBuildsBeforeGivingUp = 4;

/// The words each rank brings to a checkpoint; all are combined with MPI_MAX.
enum Agreement : std::size_t {
  kMiss,
  kCannot,
  kPaced,
  kNegativeRepeats,
  kMostSends,
  kProvisional,
  kWindowElsewhere,  ///< this rank timed no call of the window's pattern, or moved on from it
  kWindowMeanNs,     ///< this rank's mean time of the window's calls
  kPlannedNs,        ///< the current pattern's measurements as this rank holds them
  kDirectNs,
  kMpiNs,
  kWords
};

/// The largest pattern rank 0 gathers and plans (16 bytes a message there; every other rank
/// holds only its own). Beyond it, as most sends x ranks, nothing is gathered: the planner's
/// rule for big patterns keeps Direct anyway (docs/scheduling.md), so the calls go to MPI
/// (or, with CHOREO_MODE=choreo, run each rank's messages in ring order).
constexpr std::int64_t kLargestPlannedPattern = std::int64_t{1} << 23;

std::uint64_t mix(std::uint64_t hash, std::uint64_t value) {
  hash ^= value + 0x9e3779b97f4a7c15ULL + (hash << 6) + (hash >> 2);
  return hash;
}

/// This rank's key of the call: its counts and the sizes of its types (the plan depends on
/// bytes only; displacements, buffers and type layouts are applied at each call).
struct Key {
  std::uint64_t hash = 0;
  int send_size = 0, recv_size = 0;
  const int* send_counts = nullptr;
  const int* recv_counts = nullptr;
  int send_blocks = 0, recv_blocks = 0;
};

Key key_of(const ExchangeArgs& args) {
  Key key;
  // MPI_IN_PLACE: the data goes out of the receive blocks, as the receive type describes.
  const bool in_place = args.in_place();
  key.send_counts = in_place ? args.recvcounts : args.sendcounts;
  key.send_size = type_size(in_place ? args.recvtype : args.sendtype);
  key.recv_counts = args.recvcounts;
  key.recv_size = type_size(args.recvtype);
  key.send_blocks = args.send_blocks;
  key.recv_blocks = args.recv_blocks;
  std::uint64_t hash = mix(static_cast<std::uint64_t>(key.send_size), key.recv_size);
  for (int k = 0; k < key.send_blocks; ++k)
    hash = mix(hash, static_cast<std::uint32_t>(key.send_counts[k]));
  for (int k = 0; k < key.recv_blocks; ++k)
    hash = mix(hash, static_cast<std::uint32_t>(key.recv_counts[k]));
  key.hash = hash;
  return key;
}

bool matches(const ExchangeEntry& entry, const Key& key) {
  return entry.hash == key.hash && entry.send_size == key.send_size &&
         entry.recv_size == key.recv_size &&
         entry.send_counts.size() == static_cast<std::size_t>(key.send_blocks) &&
         entry.recv_counts.size() == static_cast<std::size_t>(key.recv_blocks) &&
         std::equal(entry.send_counts.begin(), entry.send_counts.end(), key.send_counts) &&
         std::equal(entry.recv_counts.begin(), entry.recv_counts.end(), key.recv_counts);
}

ExchangeEntry* find(ExchangeSite& site, const Key& key) {
  for (ExchangeEntry& entry : site.cache)
    if (matches(entry, key)) {
      entry.last_use = site.calls;
      return &entry;
    }
  return nullptr;
}

/// Predicted gain choreo's schedule must show over the plain exchange in ring order (Direct,
/// MPI_Alltoallv's stand-in) for it to be timed before MPI's own call (exchange_choice.hpp):
/// at a tie MPI's call is at least as good, and the model errs by a few per cent.
constexpr double kRequiredExchangeGain = 1.05;

/// The model's verdict, counting the barrier a paced plan starts with.
bool choreo_wins(const ExchangeReport& report, int ranks) {
  if (report.messages == 0) return false;
  const ExchangeModel& model = runtime().model;
  std::int64_t barrier_ns = 0;
  if (report.paced)
    for (int span = 1; span < ranks; span *= 2) barrier_ns += model.params.L + 2 * model.params.o;
  return static_cast<double>(report.predicted_ns + barrier_ns) * kRequiredExchangeGain <=
         static_cast<double>(report.direct_ns);
}

/// Plans the current pattern with every rank (collective); the entry, or nullptr when the
/// ranks' counts disagree (MPI's own call then reports the error as it would). `quick`: with
/// paper 000's closed-form model only (~1 ms for paper 000's 64-rank patterns, against 3-9 ms
/// simulating every candidate), for a pattern's first call.
ExchangeEntry* build(CommState& state, ExchangeSite& site, const ExchangeArgs& args, const Key& key,
                     bool quick, CallRecord& record) {
  const MPI_Comm comm = private_comm_of(state);
  const std::int64_t started = now_ns();
  // The ranks of this rank's blocks: blocks by peer, for the plan's peers.
  std::vector<std::pair<int, int>> send_block_of, recv_block_of;
  std::vector<Message> my_sends;
  for (int k = 0; k < key.send_blocks; ++k) {
    const int peer = args.send_peer(k);
    if (peer == MPI_PROC_NULL || key.send_counts[k] == 0) continue;
    send_block_of.emplace_back(peer, k);
    if (peer != state.rank)
      my_sends.push_back(
          {state.rank, peer, static_cast<std::int64_t>(key.send_counts[k]) * key.send_size});
  }
  std::vector<std::int64_t> expected(static_cast<std::size_t>(state.size), 0);
  for (int k = 0; k < key.recv_blocks; ++k) {
    const int peer = args.recv_peer(k);
    if (peer == MPI_PROC_NULL || key.recv_counts[k] == 0) continue;
    recv_block_of.emplace_back(peer, k);
    expected[static_cast<std::size_t>(peer)] =
        static_cast<std::int64_t>(key.recv_counts[k]) * key.recv_size;
  }
  std::sort(send_block_of.begin(), send_block_of.end());
  std::sort(recv_block_of.begin(), recv_block_of.end());

  ExchangeModel model = runtime().model;
  if (quick) model.simulation_budget = 0;
  const mpi::detail::PlannedExchange planned =
      mpi::detail::plan_collectively(comm, my_sends, model, runtime().config.exchange);
  const bool mismatch = !mpi::detail::find_receive_mismatch(planned, expected, state.rank, [](int) {
                           return std::string();
                         }).empty();
  int mine = mismatch ? 1 : 0, any = 0;
  next::Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm);
  record.planned(now_ns() - started);
  if (any) return nullptr;

  auto block_of = [](const std::vector<std::pair<int, int>>& blocks, int peer) {
    return std::lower_bound(blocks.begin(), blocks.end(), std::pair{peer, -1})->second;
  };
  ExchangeEntry entry;
  entry.hash = key.hash;
  entry.send_size = key.send_size;
  entry.recv_size = key.recv_size;
  entry.send_counts.assign(key.send_counts, key.send_counts + key.send_blocks);
  entry.recv_counts.assign(key.recv_counts, key.recv_counts + key.recv_blocks);
  entry.choreo_wins = choreo_wins(planned.summary, state.size);
  entry.algorithm = planned.summary.algorithm;
  entry.paced = planned.summary.paced;
  entry.provisional = quick;
  for (const mpi::detail::IncomingMessage& message : planned.receives)
    entry.receive_blocks.push_back(block_of(recv_block_of, message.source));
  for (const ExchangeSend& send : planned.sends) {
    entry.send_blocks.push_back(block_of(send_block_of, send.peer));
    entry.not_before.push_back(send.not_before_ns);
  }
  entry.last_use = site.calls;
  for (ExchangeEntry& same : site.cache)
    if (matches(same, key)) {
      same = std::move(entry);
      return &same;
    }
  if (site.cache.size() == kCacheEntries) {
    auto oldest = std::min_element(site.cache.begin(), site.cache.end(),
                                   [](auto& a, auto& b) { return a.last_use < b.last_use; });
    *oldest = std::move(entry);
    return &*oldest;
  }
  return &site.cache.emplace_back(std::move(entry));
}

/// The ways the current pattern may run, and which the model would time first.
ChoiceRules rules_for(const ExchangeEntry& entry) {
  ChoiceRules rules;
  rules.allow_mpi = runtime().config.mode != Mode::Choreo;
  // A setting that names a schedule asks for that one (or MPI's call), not the plain exchange.
  rules.allow_direct = entry.algorithm != ExchangeAlgorithm::Direct &&
                       runtime().config.exchange == ExchangeAlgorithm::Auto;
  rules.model_prefers_mpi = !entry.choreo_wins;
  return rules;
}

/// The collective decision of a checkpoint; may plan the current pattern (updates `entry`).
void checkpoint(CommState& state, ExchangeSite& site, const ExchangeArgs& args, const Key& key,
                ExchangeEntry*& entry, std::optional<Fallback> cannot, CallRecord& record) {
  const MPI_Comm comm = private_comm_of(state);
  std::int64_t mine[kWords], agreed[kWords];
  mine[kMiss] = entry == nullptr ? 1 : 0;
  mine[kCannot] = cannot ? 1 + static_cast<std::int64_t>(*cannot) : 0;
  mine[kPaced] = entry != nullptr && entry->paced ? 1 : 0;
  mine[kNegativeRepeats] = -static_cast<std::int64_t>(site.window_repeats);
  mine[kProvisional] = entry != nullptr && entry->provisional ? 1 : 0;
  mine[kMostSends] = 0;
  for (int k = 0; k < key.send_blocks; ++k)
    mine[kMostSends] += key.send_counts[k] > 0 && args.send_peer(k) != state.rank &&
                        args.send_peer(k) != MPI_PROC_NULL;
  const bool timed_here = site.window_timed > 0 && key.hash == site.window_hash;
  mine[kWindowElsewhere] = timed_here ? 0 : 1;
  mine[kWindowMeanNs] = timed_here ? site.window_ns / site.window_timed : 0;
  for (Candidate c : {Candidate::Planned, Candidate::Direct, Candidate::Mpi})
    mine[kPlannedNs + static_cast<std::size_t>(c)] = entry != nullptr ? entry->times[c] : 0;
  next::Allreduce(mine, agreed, kWords, MPI_INT64_T, MPI_MAX, comm);

  const bool forced = runtime().config.mode == Mode::Choreo;
  const auto fewest_repeats = static_cast<std::uint64_t>(-agreed[kNegativeRepeats]);
  // The measurements of the current pattern, the same on every rank: what the ranks held
  // (the slowest's) and the window just ended when every rank spent it on this pattern.
  CandidateTimes times;
  for (Candidate c : {Candidate::Planned, Candidate::Direct, Candidate::Mpi})
    times[c] = agreed[kPlannedNs + static_cast<std::size_t>(c)];
  if (agreed[kWindowElsewhere] == 0 && agreed[kWindowMeanNs] > 0)
    times[site.running] = agreed[kWindowMeanNs];
  bool planned = false;
  // Runs `candidate` from now on (the same on every rank).
  auto run = [&](Candidate candidate, Fallback reason) {
    site.running = candidate;
    site.mpi_reason = reason;
    site.barrier = candidate == Candidate::Planned && entry != nullptr && entry->paced;
  };
  // The next candidate for the entry's pattern, by what has been measured.
  auto choose = [&] {
    entry->times = times;
    const ChoiceRules rules = rules_for(*entry);
    const Candidate next = choose_candidate(times, rules, site.running);
    run(next, still_measuring(times, rules) ? Fallback::NoGain : Fallback::MeasuredSlower);
  };
  // Plans the pattern with every rank; the plain exchange's and MPI's times stay (they do not
  // depend on the plan), the plan's only when it is the same schedule.
  auto plan_and_adopt = [&](bool quick) {
    // Auto is never a plan's schedule: "no plan before".
    const ExchangeAlgorithm before = entry != nullptr ? entry->algorithm : ExchangeAlgorithm::Auto;
    entry = build(state, site, args, key, quick, record);
    planned = true;
    if (entry == nullptr) {
      run(Candidate::Mpi, Fallback::CountsDisagree);
      return;
    }
    if (before != entry->algorithm) times[Candidate::Planned] = 0;
    choose();
  };
  if (agreed[kCannot] > 0) {
    run(Candidate::Mpi, static_cast<Fallback>(agreed[kCannot] - 1));
  } else if (agreed[kMiss] > 0 && agreed[kMostSends] * state.size > kLargestPlannedPattern) {
    entry = nullptr;  // no plan: the plain exchange when forced
    run(forced ? Candidate::Direct : Candidate::Mpi, Fallback::NoGain);
  } else if (agreed[kMiss] > 0) {
    const bool worth_planning = forced || site.calls == 0 ||
                                site.builds_without_reuse < kBuildsBeforeGivingUp ||
                                2 * fewest_repeats >= site.window_calls;
    if (worth_planning) {
      times = CandidateTimes{};  // some rank has not seen the pattern: nothing measured
      plan_and_adopt(/*quick=*/true);
      ++site.builds_without_reuse;
    } else {
      run(Candidate::Mpi, Fallback::NoRepeat);
    }
  } else if (agreed[kProvisional] > 0) {
    // Every rank has seen the pattern again: now it is worth simulating every candidate.
    site.builds_without_reuse = 0;
    plan_and_adopt(/*quick=*/false);
  } else {
    site.builds_without_reuse = 0;
    choose();
  }
  const bool measuring = entry != nullptr && still_measuring(entry->times, rules_for(*entry));
  const std::uint64_t longest = measuring                        ? kMeasuringInterval
                                : site.running != Candidate::Mpi ? kLongestChoreoInterval
                                                                 : kLongestMpiInterval;
  site.interval = planned ? 1 : std::min(2 * site.interval, longest);
  site.next_checkpoint = site.calls + site.interval;
  site.window_calls = site.window_repeats = 0;
  site.window_hash = key.hash;
  site.window_ns = site.window_timed = 0;
}

/// Where a side's blocks are: the buffer's address plus a displacement in extents.
struct BlockAddresses {
  std::byte* base;
  MPI_Aint extent = 0;
  BlockAddresses(const void* buffer, MPI_Datatype type)
      : base(const_cast<std::byte*>(static_cast<const std::byte*>(buffer))) {
    MPI_Aint lower_bound = 0;
    PMPI_Type_get_extent(type, &lower_bound, &extent);
  }
  void* at(const int* displacements, int block) const {
    return base + static_cast<MPI_Aint>(displacements[block]) * extent;
  }
};

/// The receive buffer's blocks copied aside, for MPI_IN_PLACE: the send side's data comes out
/// of the same blocks the receives overwrite. Returns the base address to send from.
const void* copy_in_place_blocks(ExchangeSite& site, const ExchangeArgs& args) {
  MPI_Aint lower_bound = 0, extent = 0, true_lower_bound = 0, true_extent = 0;
  PMPI_Type_get_extent(args.recvtype, &lower_bound, &extent);
  PMPI_Type_get_true_extent(args.recvtype, &true_lower_bound, &true_extent);
  MPI_Aint lowest = 0, highest = 0;
  bool any = false;
  for (int k = 0; k < args.recv_blocks; ++k) {
    if (args.recvcounts[k] == 0) continue;
    const MPI_Aint first = static_cast<MPI_Aint>(args.rdispls[k]) * extent + true_lower_bound;
    const MPI_Aint end =
        first + (static_cast<MPI_Aint>(args.recvcounts[k]) - 1) * extent + true_extent;
    lowest = any ? std::min(lowest, first) : first;
    highest = any ? std::max(highest, end) : end;
    any = true;
  }
  site.in_place_copy.resize(static_cast<std::size_t>(highest - lowest));
  std::memcpy(site.in_place_copy.data(), static_cast<const std::byte*>(args.recvbuf) + lowest,
              site.in_place_copy.size());
  // The copy's byte 0 is the receive buffer's byte `lowest`.
  return reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(site.in_place_copy.data()) -
                                       static_cast<std::uintptr_t>(lowest));
}

/// Runs this rank's part: the cached plan's order, or (a miss) its blocks in ring order.
void execute(CommState& state, ExchangeSite& site, const ExchangeArgs& args,
             const ExchangeEntry* entry) {
  const bool in_place = args.in_place();
  const void* send_base = in_place ? copy_in_place_blocks(site, args) : args.sendbuf;
  const int* send_counts = in_place ? args.recvcounts : args.sendcounts;
  const int* send_displs = in_place ? args.rdispls : args.sdispls;
  const MPI_Datatype send_type = in_place ? args.recvtype : args.sendtype;
  site.receives.clear();
  site.sends.clear();
  site.not_before.clear();
  const BlockAddresses receive_blocks(args.recvbuf, args.recvtype),
      send_blocks(send_base, send_type);
  auto receive = [&](int block) {
    site.receives.push_back({receive_blocks.at(args.rdispls, block), args.recvcounts[block],
                             args.recvtype, args.recv_peer(block)});
  };
  auto send = [&](int block, std::int64_t not_before) {
    site.sends.push_back(
        {send_blocks.at(send_displs, block), send_counts[block], send_type, args.send_peer(block)});
    site.not_before.push_back(not_before);
  };
  // The block to itself first (MPI copies it at once); with MPI_IN_PLACE it stays where it is.
  const int me = state.rank;
  if (!in_place)
    for (int k = 0; k < args.send_blocks; ++k)
      if (args.send_peer(k) == me && send_counts[k] > 0) {
        for (int j = 0; j < args.recv_blocks; ++j)
          if (args.recv_peer(j) == me && args.recvcounts[j] > 0) receive(j);
        send(k, 0);
      }
  if (entry != nullptr) {
    for (int block : entry->receive_blocks) receive(block);
    for (std::size_t k = 0; k < entry->send_blocks.size(); ++k)
      send(entry->send_blocks[k], entry->not_before[k]);
  } else {
    // Ring order: receives from me-1, me-2, ...; sends to me+1, me+2, ... (wrapping).
    auto distance = [&](int from, int to) {
      return ((to - from) % state.size + state.size) % state.size;
    };
    auto by_ring = [&](int blocks, auto peer_of, auto count_of, bool incoming) {
      site.order.clear();
      for (int k = 0; k < blocks; ++k) {
        const int peer = peer_of(k);
        if (peer != MPI_PROC_NULL && peer != me && count_of(k) > 0) site.order.push_back(k);
      }
      std::sort(site.order.begin(), site.order.end(), [&](int a, int b) {
        return incoming ? distance(peer_of(a), me) < distance(peer_of(b), me)
                        : distance(me, peer_of(a)) < distance(me, peer_of(b));
      });
    };
    by_ring(
        args.recv_blocks, [&](int k) { return args.recv_peer(k); },
        [&](int k) { return args.recvcounts[k]; }, true);
    for (int block : site.order) receive(block);
    by_ring(
        args.send_blocks, [&](int k) { return args.send_peer(k); },
        [&](int k) { return send_counts[k]; }, false);
    for (int block : site.order) send(block, 0);
  }
  site.exchange.start(private_comm_of(state), site.tag, site.receives, site.sends, site.not_before,
                      site.barrier);
  site.exchange.wait();
}

}  // namespace

int run_exchange(CommState& state, ExchangeSite& site, const ExchangeArgs& args,
                 std::optional<Fallback> cannot, IntFunctionRef mpi, CallRecord& record) {
  const Key key = key_of(args);
  ExchangeEntry* entry = find(site, key);
  const bool repeat = std::find(site.recent_hashes.begin(), site.recent_hashes.end(), key.hash) !=
                      site.recent_hashes.end();
  site.recent_hashes[site.recent_next] = key.hash;
  site.recent_next = (site.recent_next + 1) % site.recent_hashes.size();
  ++site.window_calls;
  if (repeat) ++site.window_repeats;

  const bool hit = entry != nullptr;
  if (site.calls == site.next_checkpoint) {
    ChoreoScope scope;
    checkpoint(state, site, args, key, entry, cannot, record);
  }
  ++site.calls;
  // Calls on the pattern the last checkpoint decided for are timed (a clock read each side).
  const bool timed = key.hash == site.window_hash;
  const std::int64_t started = timed ? mpi::detail::exchange_clock_ns() : 0;
  int result = MPI_SUCCESS;
  if (site.running == Candidate::Mpi) {
    result = record.hand_over(site.mpi_reason, mpi);
  } else {
    record.took_choreo();
    record.cache(hit);
    ChoreoScope scope;
    execute(state, site, args, site.running == Candidate::Planned ? entry : nullptr);
  }
  if (timed) {
    site.window_ns += mpi::detail::exchange_clock_ns() - started;
    ++site.window_timed;
  }
  return result;
}

}  // namespace choreo::intercept
