#include "node_exchange.hpp"

#include <fmt/format.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <ctime>

#include "choreo/core/error.hpp"
#include "mpi_check.hpp"

namespace choreo::redist {
namespace {

// Handshake tags: distinct from the data tag and from each other for any tag (x ^ a == x ^ b
// only if a == b), and within 0..32767 where the tag is.
int sender_side_tag(int tag) { return tag ^ 3; }
int receiver_side_tag(int tag) { return tag ^ 4; }
int offset_tag(int tag) { return tag ^ 5; }

/// Flags and messages start on cache lines of their own: a flag written by one rank never
/// shares a line with one the other writes.
constexpr std::int64_t kLine = 64;
std::int64_t lines(std::int64_t bytes) { return (bytes + kLine - 1) / kLine * kLine; }
/// A rank's segment starts with its doorbell and its sleeping flag; a send link's block in its
/// sender's segment with the two counters, then the ring's slots.
constexpr std::int64_t kSleepingAt = kLine, kFirstLinkAt = 2 * kLine;
constexpr std::int64_t kProducedAt = 0, kConsumedAt = kLine, kSlotsAt = 2 * kLine;

/// A chunk's size (whole outermost indices, at least one) and the ring's depth: a message's
/// window is at most 4 MiB however long the message (or 4 outermost indices where one is
/// larger than a MiB; the pack path holds every message whole, twice),
/// and its receiver can start unpacking when the first MiB is in. Smaller chunks, kept in
/// cache between the two copies (8 of 64 KiB), measured no faster with four ranks on two cores
/// and slower where pieces are short (each chunk walks its sections' row runs again):
/// docs/redistribution.md.
constexpr std::int64_t kChunkBytes = 1024 * 1024, kDepth = 4;

/// How long a waiting rank spins before it sleeps on its doorbell: long enough that a rank
/// with a core of its own hears a peer's flag at once, short against a scheduler's time slice.
constexpr auto kSpin = std::chrono::microseconds(20);

/// CHOREO_REDIST_NODE_RANKS=K: at most K consecutive ranks of a node share memory (1: none do);
/// 0 when unset. Lets one machine test a mix of shared and MPI messages, and turns sharing off.
int group_limit() {
  const char* text = std::getenv("CHOREO_REDIST_NODE_RANKS");
  if (text == nullptr || *text == '\0') return 0;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < 1 || value > INT_MAX)
    throw Error(fmt::format(
        "CHOREO_REDIST_NODE_RANKS='{}': give a whole number of ranks, 1 or more (1: no rank "
        "shares memory with another)",
        text));
  return static_cast<int>(value);
}

template <typename Word>
Word load(const Word* word, std::memory_order order = std::memory_order_acquire) {
  return std::atomic_ref<Word>(*const_cast<Word*>(word)).load(order);
}

template <typename Word>
void store(Word* word, Word value, std::memory_order order = std::memory_order_release) {
  std::atomic_ref<Word>(*word).store(value, order);
}

/// A shared mapping: not FUTEX_PRIVATE.
long futex(std::uint32_t* word, int op, std::uint32_t value, const timespec* timeout) {
  return syscall(SYS_futex, word, op, value, timeout, nullptr, 0);
}

void pause_briefly() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/// The ranks of `comm` that `peers` name, in `node` (MPI_UNDEFINED: another node).
std::vector<int> node_ranks(MPI_Comm comm, MPI_Comm node, const std::vector<int>& peers) {
  MPI_Group from = MPI_GROUP_NULL, to = MPI_GROUP_NULL;
  check_mpi(MPI_Comm_group(comm, &from), "MPI_Comm_group");
  check_mpi(MPI_Comm_group(node, &to), "MPI_Comm_group");
  std::vector<int> ranks(peers.size(), MPI_UNDEFINED);
  if (!peers.empty())
    check_mpi(MPI_Group_translate_ranks(from, static_cast<int>(peers.size()), peers.data(), to,
                                        ranks.data()),
              "MPI_Group_translate_ranks");
  MPI_Group_free(&from);
  MPI_Group_free(&to);
  return ranks;
}

/// A message that may go through shared memory, while the two ranks shake hands.
struct Pending {
  int peer = 0;
  std::int64_t bytes = 0;
  bool contiguous = false;
  std::int64_t outer = 1, outer_bytes = 0;
  int node_rank = 0;
  int theirs = 0;  ///< the peer's side: 1 contiguous
};

/// The candidates on this node above `min_bytes`, by peer.
std::vector<Pending> local_candidates(MPI_Comm comm, MPI_Comm node,
                                      const std::vector<NodeCandidate>& all,
                                      std::int64_t min_bytes) {
  std::vector<int> peers;
  for (const NodeCandidate& c : all) peers.push_back(c.peer);
  const std::vector<int> ranks = node_ranks(comm, node, peers);
  std::vector<Pending> out;
  for (std::size_t k = 0; k < all.size(); ++k)
    if (ranks[k] != MPI_UNDEFINED && all[k].bytes > min_bytes)
      out.push_back({all[k].peer, all[k].bytes, all[k].contiguous, all[k].outer, all[k].outer_bytes,
                     ranks[k], 0});
  std::sort(out.begin(), out.end(),
            [](const Pending& a, const Pending& b) { return a.peer < b.peer; });
  return out;
}

/// Each side tells its peer whether it is contiguous (one tag per direction of a pair).
void shake_hands(MPI_Comm comm, int tag, std::vector<Pending>& out, std::vector<Pending>& in) {
  std::vector<MPI_Request> requests;
  std::vector<int> mine;
  mine.reserve(out.size() + in.size());
  for (auto* list : {&out, &in})
    for (Pending& p : *list) {
      const bool sending = list == &out;
      mine.push_back(p.contiguous ? 1 : 0);
      requests.emplace_back();
      check_mpi(MPI_Irecv(&p.theirs, 1, MPI_INT, p.peer,
                          sending ? receiver_side_tag(tag) : sender_side_tag(tag), comm,
                          &requests.back()),
                "MPI_Irecv");
      requests.emplace_back();
      check_mpi(MPI_Isend(&mine.back(), 1, MPI_INT, p.peer,
                          sending ? sender_side_tag(tag) : receiver_side_tag(tag), comm,
                          &requests.back()),
                "MPI_Isend");
    }
  check_mpi(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
            "MPI_Waitall");
}

}  // namespace

NodeExchange::NodeExchange(MPI_Comm comm, int tag, const std::vector<NodeCandidate>& sends,
                           const std::vector<NodeCandidate>& receives, std::int64_t min_bytes) {
  const int group = group_limit();  // before anything that a throw would leak
  try {
    connect(comm, tag, sends, receives, min_bytes, group);
  } catch (...) {
    // A throw here is this rank's alone (an MPI error, memory): freeing the window is
    // collective and would wait for ranks that went on, so it is left to MPI_Finalize.
    window_ = MPI_WIN_NULL;
    release_node();
    throw;
  }
}

void NodeExchange::release_node() {
  if (node_ != MPI_COMM_NULL) MPI_Comm_free(&node_);
}

void NodeExchange::connect(MPI_Comm comm, int tag, const std::vector<NodeCandidate>& sends,
                           const std::vector<NodeCandidate>& receives, std::int64_t min_bytes,
                           int group) {
  check_mpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node_),
            "MPI_Comm_split_type");
  if (group > 0) {
    // Groups of `group` consecutive ranks of the node, each sharing memory within itself only.
    int me = 0;
    MPI_Comm_rank(node_, &me);
    MPI_Comm sub = MPI_COMM_NULL;
    check_mpi(MPI_Comm_split(node_, me / group, me, &sub), "MPI_Comm_split");
    MPI_Comm_free(&node_);
    node_ = sub;
  }
  int node_size = 1;
  check_mpi(MPI_Comm_size(node_, &node_size), "MPI_Comm_size");
  // Alone on the node, or nothing to share on it: the same answer on every rank of the node,
  // which then holds no communicator per plan either.
  if (node_size == 1) return release_node();

  std::vector<Pending> out = local_candidates(comm, node_, sends, min_bytes);
  std::vector<Pending> in = local_candidates(comm, node_, receives, min_bytes);
  shake_hands(comm, tag, out, in);
  const auto shared = [](const Pending& p) { return !(p.contiguous && p.theirs == 1); };
  std::int64_t segment = kFirstLinkAt;
  for (const Pending& p : out) {
    if (!shared(p)) continue;
    // The sender cuts its message: whole outermost indices up to kChunkBytes a chunk.
    Link l{p.peer, p.node_rank, p.bytes, p.outer, p.outer_bytes, segment};
    l.per_chunk = std::max<std::int64_t>(1, kChunkBytes / std::max<std::int64_t>(1, p.outer_bytes));
    l.chunks = std::max<std::int64_t>(1, (p.outer + l.per_chunk - 1) / l.per_chunk);
    l.depth = std::min(l.chunks, kDepth);
    l.slot_bytes = lines(std::min(p.bytes, l.per_chunk * p.outer_bytes));
    sends_.push_back(l);
    segment += kSlotsAt + l.depth * l.slot_bytes;
  }
  for (const Pending& p : in)
    if (shared(p)) receives_.push_back({p.peer, p.node_rank, p.bytes});

  // A window only where some rank of the node shares a message.
  int any = empty() ? 0 : 1;
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, node_), "MPI_Allreduce");
  if (any == 0) return release_node();
  if (!allocate(segment)) {
    sends_.clear();
    receives_.clear();
    return release_node();
  }
  const auto segment_of = [&](int node_rank) {
    MPI_Aint size = 0;
    int unit = 0;
    char* base = nullptr;
    check_mpi(MPI_Win_shared_query(window_, node_rank, &size, &unit, &base),
              "MPI_Win_shared_query");
    return base;
  };
  int me = 0;
  MPI_Comm_rank(node_, &me);
  char* own = segment_of(me);
  // The doorbell needs no initial value: only its changes count. The counters start at 0, set
  // before the receiver learns where they are (the layout message below), so no barrier.
  doorbell_ = reinterpret_cast<std::uint32_t*>(own);
  sleeping_ = reinterpret_cast<std::uint32_t*>(own + kSleepingAt);
  store(sleeping_, 0u);
  const auto place = [&](Link& l, char* sender_segment, char* receiver_segment) {
    char* block = sender_segment + l.offset;
    l.produced = reinterpret_cast<std::uint64_t*>(block + kProducedAt);
    l.consumed = reinterpret_cast<std::uint64_t*>(block + kConsumedAt);
    l.slots = block + kSlotsAt;
    char* peer = sender_segment == own ? receiver_segment : sender_segment;
    l.peer_doorbell = reinterpret_cast<std::uint32_t*>(peer);
    l.peer_sleeping = reinterpret_cast<std::uint32_t*>(peer + kSleepingAt);
  };
  for (Link& l : sends_) {
    place(l, own, segment_of(l.node_rank));
    store(l.produced, std::uint64_t{0});
    store(l.consumed, std::uint64_t{0});
  }
  // The receivers learn where their message's ring is in the sender's segment and how the
  // sender cut the message.
  constexpr int kLayout = 5;
  std::vector<std::int64_t> layouts(kLayout * (sends_.size() + receives_.size()));
  std::vector<MPI_Request> requests;
  std::size_t next = 0;
  for (auto* list : {&sends_, &receives_})
    for (Link& l : *list) {
      std::int64_t* layout = &layouts[next];
      next += kLayout;
      const bool sending = list == &sends_;
      if (sending) {
        const std::int64_t fields[kLayout] = {l.offset, l.per_chunk, l.chunks, l.depth,
                                              l.slot_bytes};
        std::copy(fields, fields + kLayout, layout);
      }
      requests.emplace_back();
      check_mpi(sending ? MPI_Isend(layout, kLayout, MPI_INT64_T, l.peer, offset_tag(tag), comm,
                                    &requests.back())
                        : MPI_Irecv(layout, kLayout, MPI_INT64_T, l.peer, offset_tag(tag), comm,
                                    &requests.back()),
                sending ? "MPI_Isend" : "MPI_Irecv");
    }
  check_mpi(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
            "MPI_Waitall");
  next = kLayout * sends_.size();
  for (Link& l : receives_) {
    const std::int64_t* layout = &layouts[next];
    next += kLayout;
    l.offset = layout[0], l.per_chunk = layout[1], l.chunks = layout[2], l.depth = layout[3];
    l.slot_bytes = layout[4];
    place(l, segment_of(l.node_rank), own);
  }
  segment_bytes_ = segment;
}

bool NodeExchange::allocate(std::int64_t bytes) {
  // A window that cannot be had (shared memory exhausted, say) is no error: the node's
  // messages go through MPI. Every rank of the node must agree on that.
  MPI_Errhandler previous = MPI_ERRHANDLER_NULL;
  MPI_Comm_get_errhandler(node_, &previous);
  MPI_Comm_set_errhandler(node_, MPI_ERRORS_RETURN);
  MPI_Info info = MPI_INFO_NULL;
  MPI_Info_create(&info);
  // Each segment on pages of its own, near its rank (it writes it, a peer reads it).
  MPI_Info_set(info, "alloc_shared_noncontig", "true");
  char* base = nullptr;
  int ok = MPI_Win_allocate_shared(static_cast<MPI_Aint>(bytes), 1, info, node_, &base, &window_) ==
                   MPI_SUCCESS
               ? 1
               : 0;
  MPI_Info_free(&info);
  MPI_Comm_set_errhandler(node_, previous);
  if (previous != MPI_ERRHANDLER_NULL) MPI_Errhandler_free(&previous);
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, node_), "MPI_Allreduce");
  // Where some rank failed, freeing the others' window (collective) could wait for it: left to
  // MPI_Finalize.
  if (ok == 0) window_ = MPI_WIN_NULL;
  return ok != 0;
}

NodeExchange::~NodeExchange() {
  if (window_ != MPI_WIN_NULL) MPI_Win_free(&window_);
  release_node();
}

int NodeExchange::find(const std::vector<Link>& links, int peer) {
  const auto it = std::lower_bound(links.begin(), links.end(), peer,
                                   [](const Link& l, int p) { return l.peer < p; });
  return it != links.end() && it->peer == peer ? static_cast<int>(it - links.begin()) : -1;
}

int NodeExchange::send_index(int peer) const { return find(sends_, peer); }
int NodeExchange::receive_index(int peer) const { return find(receives_, peer); }

void NodeExchange::begin_execute() {
  // Both ends number an execute's chunks alike: chunks x executes before it.
  for (auto* list : {&sends_, &receives_})
    for (Link& l : *list) l.base = executes_ * static_cast<std::uint64_t>(l.chunks);
  ++executes_;
}

bool NodeExchange::can_produce(int k, int i) const {
  const Link& l = sends_[at(k)];
  return l.base + static_cast<std::uint64_t>(i) <
         load(l.consumed) + static_cast<std::uint64_t>(l.depth);
}

char* NodeExchange::slot_of(const Link& l, int i) {
  const std::uint64_t slot =
      (l.base + static_cast<std::uint64_t>(i)) % static_cast<std::uint64_t>(l.depth);
  return l.slots + static_cast<std::int64_t>(slot) * l.slot_bytes;
}

char* NodeExchange::send_slot(int k, int i) { return slot_of(sends_[at(k)], i); }

void NodeExchange::produced(int k, int i) {
  Link& l = sends_[at(k)];
  store(l.produced, l.base + static_cast<std::uint64_t>(i) + 1);
  progress(l, i);
}

bool NodeExchange::ready(int k, int i) const {
  const Link& l = receives_[at(k)];
  return load(l.produced) > l.base + static_cast<std::uint64_t>(i);
}

const char* NodeExchange::receive_slot(int k, int i) const { return slot_of(receives_[at(k)], i); }

void NodeExchange::consumed(int k, int i) {
  Link& l = receives_[at(k)];
  store(l.consumed, l.base + static_cast<std::uint64_t>(i) + 1);
  progress(l, i);
}

void NodeExchange::progress(Link& l, std::int64_t i) {
  // Every half ring, and at the message's end: a peer woken per chunk would take the core
  // back and forth a chunk at a time.
  if (++l.unrung >= std::max<std::int64_t>(1, l.depth / 2) || i + 1 == l.chunks) ring(l);
}

void NodeExchange::ring(Link& l) {
  l.unrung = 0;
  // Sequentially consistent with the sleeper's flag and doorbell (wait()): either it sees the
  // new doorbell and does not sleep, or this sees it asleep and wakes it.
  std::atomic_ref<std::uint32_t>(*l.peer_doorbell).fetch_add(1, std::memory_order_seq_cst);
  if (load(l.peer_sleeping, std::memory_order_seq_cst) != 0)
    futex(l.peer_doorbell, FUTEX_WAKE, INT_MAX, nullptr);
}

void NodeExchange::flush() {
  for (auto* list : {&sends_, &receives_})
    for (Link& l : *list)
      if (l.unrung > 0) ring(l);
}

std::uint32_t NodeExchange::doorbell() const { return load(doorbell_); }

void NodeExchange::wait(std::uint32_t seen) {
  const auto spin_until = std::chrono::steady_clock::now() + kSpin;
  while (load(doorbell_) == seen) {
    if (std::chrono::steady_clock::now() < spin_until) {
      pause_briefly();
      continue;
    }
    store(sleeping_, 1u, std::memory_order_seq_cst);
    // A timeout bounds the sleep should a wake-up ever be lost: the doorbell is read again.
    const timespec timeout{0, 10'000'000};
    if (load(doorbell_, std::memory_order_seq_cst) == seen)
      futex(doorbell_, FUTEX_WAIT, seen, &timeout);
    store(sleeping_, 0u, std::memory_order_seq_cst);
  }
}

}  // namespace choreo::redist
