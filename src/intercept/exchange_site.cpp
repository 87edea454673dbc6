#include "exchange_site.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "../mpi/exchange_setup.hpp"
#include "choreo/error.hpp"
#include "comm_state.hpp"
#include "next.hpp"
#include "runtime.hpp"

namespace choreo::intercept {
namespace {

using mpi::detail::MessageBuffer;

/// Patterns kept per communicator and function; a rank evicts its least recently used.
constexpr std::size_t kCacheEntries = 8;
/// Checkpoints come after 1, 1, 2, 4, ... calls, at most this many apart while choreo runs
/// the calls (a pattern that changed is planned again within 64 calls) and while MPI does.
constexpr std::uint64_t kLongestChoreoInterval = 64;
constexpr std::uint64_t kLongestMpiInterval = 1024;
/// Plans that no call reused before the ranks stop planning new patterns (they keep
/// changing), until the calls repeat their recent counts again.
constexpr int kBuildsBeforeGivingUp = 4;

/// The words each rank brings to a checkpoint; all are combined with MPI_MAX.
enum Agreement : std::size_t {
  kMiss,
  kSaysMpi,
  kCannot,
  kPaced,
  kNegativeRepeats,
  kMostSends,
  kProvisional,
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

int type_size(MPI_Datatype type) {
  int size = 0;
  PMPI_Type_size(type, &size);
  return size;
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
/// what MPI_Alltoallv does) before it takes the calls: at a tie MPI's own call is at least as
/// good, and the model errs by a few per cent (docs/BENCHMARKS.md).
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

/// The collective decision of a checkpoint; may plan the current pattern (updates `entry`).
void checkpoint(CommState& state, ExchangeSite& site, const ExchangeArgs& args, const Key& key,
                ExchangeEntry*& entry, std::optional<Fallback> cannot, CallRecord& record) {
  const MPI_Comm comm = private_comm_of(state);
  std::int64_t mine[kWords], agreed[kWords];
  mine[kMiss] = entry == nullptr ? 1 : 0;
  mine[kSaysMpi] = entry != nullptr && !entry->choreo_wins ? 1 : 0;
  mine[kCannot] = cannot ? 1 + static_cast<std::int64_t>(*cannot) : 0;
  mine[kPaced] = entry != nullptr && entry->paced ? 1 : 0;
  mine[kNegativeRepeats] = -static_cast<std::int64_t>(site.window_repeats);
  mine[kProvisional] = entry != nullptr && entry->provisional ? 1 : 0;
  mine[kMostSends] = 0;
  for (int k = 0; k < key.send_blocks; ++k)
    mine[kMostSends] += key.send_counts[k] > 0 && args.send_peer(k) != state.rank &&
                        args.send_peer(k) != MPI_PROC_NULL;
  next::Allreduce(mine, agreed, kWords, MPI_INT64_T, MPI_MAX, comm);

  const bool forced = runtime().config.mode == Mode::Choreo;
  const auto fewest_repeats = static_cast<std::uint64_t>(-agreed[kNegativeRepeats]);
  bool planned = false;
  // Plans the pattern with every rank and takes the plan's verdict (the same everywhere).
  auto plan_and_adopt = [&](bool quick) {
    entry = build(state, site, args, key, quick, record);
    planned = true;
    if (entry == nullptr) {
      site.path = Path::Mpi;
      site.mpi_reason = Fallback::CountsDisagree;
      return;
    }
    site.path = forced || entry->choreo_wins ? Path::Choreo : Path::Mpi;
    site.mpi_reason = Fallback::NoGain;
    site.barrier = entry->paced;  // the same on every rank: one plan for all
  };
  if (agreed[kCannot] > 0) {
    site.path = Path::Mpi;
    site.mpi_reason = static_cast<Fallback>(agreed[kCannot] - 1);
  } else if (agreed[kMiss] > 0 && agreed[kMostSends] * state.size > kLargestPlannedPattern) {
    site.path = forced ? Path::Choreo : Path::Mpi;  // no plan: ring order when forced
    site.mpi_reason = Fallback::NoGain;
    site.barrier = false;
  } else if (agreed[kMiss] > 0) {
    const bool worth_planning = forced || site.calls == 0 ||
                                site.builds_without_reuse < kBuildsBeforeGivingUp ||
                                2 * fewest_repeats >= site.window_calls;
    if (worth_planning) {
      plan_and_adopt(/*quick=*/true);
      ++site.builds_without_reuse;
    } else {
      site.path = Path::Mpi;
      site.mpi_reason = Fallback::NoRepeat;
    }
  } else if (agreed[kProvisional] > 0) {
    // Every rank has seen the pattern again: now it is worth simulating every candidate.
    site.builds_without_reuse = 0;
    plan_and_adopt(/*quick=*/false);
  } else {
    site.builds_without_reuse = 0;
    site.path = forced || agreed[kSaysMpi] == 0 ? Path::Choreo : Path::Mpi;
    site.mpi_reason = Fallback::NoGain;
    site.barrier = agreed[kPaced] > 0;
  }
  const std::uint64_t longest =
      site.path == Path::Choreo ? kLongestChoreoInterval : kLongestMpiInterval;
  site.interval = planned ? 1 : std::min(2 * site.interval, longest);
  site.next_checkpoint = site.calls + site.interval;
  site.window_calls = site.window_repeats = 0;
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
  if (site.path == Path::Mpi) return record.hand_over(site.mpi_reason, mpi);
  record.took_choreo();
  record.cache(hit);
  ChoreoScope scope;
  execute(state, site, args, entry);
  return MPI_SUCCESS;
}

}  // namespace choreo::intercept
