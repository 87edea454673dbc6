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

#include "choreo/error.hpp"
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
/// A send link's block in its sender's segment: "ready", "done", then the message.
constexpr std::int64_t kReadyAt = 0, kDoneAt = kLine, kDataAt = 2 * kLine;

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

std::uint32_t load(const std::uint32_t* word) {
  return std::atomic_ref<std::uint32_t>(*const_cast<std::uint32_t*>(word))
      .load(std::memory_order_acquire);
}

void store(std::uint32_t* word, std::uint32_t value) {
  std::atomic_ref<std::uint32_t>(*word).store(value, std::memory_order_release);
}

long futex(std::uint32_t* word, int op, std::uint32_t value, const timespec* timeout) {
  return syscall(SYS_futex, word, op, value, timeout, nullptr, 0);
}

/// Moves a rank's doorbell and wakes it if it sleeps (a shared mapping: not FUTEX_PRIVATE).
void ring(std::uint32_t* doorbell) {
  std::atomic_ref<std::uint32_t>(*doorbell).fetch_add(1, std::memory_order_acq_rel);
  futex(doorbell, FUTEX_WAKE, INT_MAX, nullptr);
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
      out.push_back({all[k].peer, all[k].bytes, all[k].contiguous, ranks[k], 0});
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
  if (node_size == 1) return;  // alone on the node: the same answer on every rank of it

  std::vector<Pending> out = local_candidates(comm, node_, sends, min_bytes);
  std::vector<Pending> in = local_candidates(comm, node_, receives, min_bytes);
  shake_hands(comm, tag, out, in);
  const auto shared = [](const Pending& p) { return !(p.contiguous && p.theirs == 1); };
  std::int64_t segment = kLine;  // the doorbell
  for (const Pending& p : out)
    if (shared(p)) {
      sends_.push_back({p.peer, p.node_rank, p.bytes, segment});
      segment += kDataAt + lines(p.bytes);
    }
  for (const Pending& p : in)
    if (shared(p)) receives_.push_back({p.peer, p.node_rank, p.bytes});

  // A window only where some rank of the node shares a message.
  int any = empty() ? 0 : 1;
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, node_), "MPI_Allreduce");
  if (any == 0) return;
  if (!allocate(segment)) {
    sends_.clear();
    receives_.clear();
    return;
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
  // The doorbell needs no initial value: only its changes count. The flags start at 0, set
  // before the receiver learns where they are (the offset message below), so no barrier.
  doorbell_ = reinterpret_cast<std::uint32_t*>(own);
  for (Link& l : sends_) {
    l.ready = reinterpret_cast<std::uint32_t*>(own + l.offset + kReadyAt);
    l.done = reinterpret_cast<std::uint32_t*>(own + l.offset + kDoneAt);
    l.data = own + l.offset + kDataAt;
    store(l.ready, 0);
    store(l.done, 0);
    l.peer_doorbell = reinterpret_cast<std::uint32_t*>(segment_of(l.node_rank));
  }
  // The receivers learn where their message's block starts in the sender's segment.
  std::vector<MPI_Request> requests;
  for (Link& l : sends_) {
    requests.emplace_back();
    check_mpi(MPI_Isend(&l.offset, 1, MPI_INT64_T, l.peer, offset_tag(tag), comm, &requests.back()),
              "MPI_Isend");
  }
  for (Link& l : receives_) {
    requests.emplace_back();
    check_mpi(MPI_Irecv(&l.offset, 1, MPI_INT64_T, l.peer, offset_tag(tag), comm, &requests.back()),
              "MPI_Irecv");
  }
  check_mpi(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
            "MPI_Waitall");
  for (Link& l : receives_) {
    char* theirs = segment_of(l.node_rank);
    l.ready = reinterpret_cast<std::uint32_t*>(theirs + l.offset + kReadyAt);
    l.done = reinterpret_cast<std::uint32_t*>(theirs + l.offset + kDoneAt);
    l.data = theirs + l.offset + kDataAt;
    l.peer_doorbell = reinterpret_cast<std::uint32_t*>(theirs);
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
  if (ok == 0 && window_ != MPI_WIN_NULL) MPI_Win_free(&window_);
  return ok != 0;
}

NodeExchange::~NodeExchange() {
  if (window_ != MPI_WIN_NULL) MPI_Win_free(&window_);
  if (node_ != MPI_COMM_NULL) MPI_Comm_free(&node_);
}

int NodeExchange::find(const std::vector<Link>& links, int peer) {
  const auto it = std::lower_bound(links.begin(), links.end(), peer,
                                   [](const Link& l, int p) { return l.peer < p; });
  return it != links.end() && it->peer == peer ? static_cast<int>(it - links.begin()) : -1;
}

int NodeExchange::send_index(int peer) const { return find(sends_, peer); }
int NodeExchange::receive_index(int peer) const { return find(receives_, peer); }

char* NodeExchange::claim_send_slot(int k) {
  Link& l = sends_[static_cast<std::size_t>(k)];
  wait_for(l.done, epoch_ - 1);
  return l.data;
}

void NodeExchange::sent(int k) {
  Link& l = sends_[static_cast<std::size_t>(k)];
  store(l.ready, epoch_);
  ring(l.peer_doorbell);
}

bool NodeExchange::arrived(int k) const {
  return load(receives_[static_cast<std::size_t>(k)].ready) == epoch_;
}

void NodeExchange::consumed(int k) {
  Link& l = receives_[static_cast<std::size_t>(k)];
  store(l.done, epoch_);
  ring(l.peer_doorbell);
}

std::uint32_t NodeExchange::doorbell() const { return load(doorbell_); }

void NodeExchange::wait(std::uint32_t seen) const {
  const auto spin_until = std::chrono::steady_clock::now() + kSpin;
  // A timeout bounds the sleep should a wake-up ever be lost; the flags decide.
  const timespec timeout{0, 10'000'000};
  while (load(doorbell_) == seen) {
    if (std::chrono::steady_clock::now() < spin_until) {
      pause_briefly();
      continue;
    }
    futex(doorbell_, FUTEX_WAIT, seen, &timeout);
  }
}

void NodeExchange::wait_for(std::uint32_t* flag, std::uint32_t value) const {
  for (;;) {
    const std::uint32_t seen = doorbell();
    if (load(flag) == value) return;
    wait(seen);
  }
}

}  // namespace choreo::redist
