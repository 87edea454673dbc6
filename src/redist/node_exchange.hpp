#pragma once
// Messages between ranks of one node through a shared-memory window instead of MPI's
// transport. Each such message has a ring of slots in its sender's segment of the window: the
// sender packs the message chunk by chunk straight into the ring, the receiver unpacks each
// chunk straight out of it. That is one copy in and one copy out, where packing through MPI
// takes three (pack, MPI's copy between the processes, unpack). The ring (4 slots of about
// 1 MiB, or of one outermost index where that is larger) bounds the window a message needs
// however long the message, and lets the receiver start before the sender has packed all of it.
//
// The two ranks order their copies with counters beside the ring, not with MPI messages: the
// sender counts the chunks it has produced, the receiver those it has consumed, and each rings
// the other's doorbell (a counter in the other's segment, a futex) every half ring and at the
// message's end. A rank that can make no progress spins for a few microseconds, then sleeps on
// its doorbell: with more ranks than cores it gives its core to a rank it waits for, where a
// rank in MPI_Wait polls (MPICH) or yields (Open MPI) through its time slice. The counters run
// on from one execute to the next, so nothing waits at an execute's end: the next execute's
// first chunks wait for free slots.
//
// Which messages go this way is decided once, collectively, when the exchange is built: a
// message whose two ranks share a node, of more than `min_bytes`, unless both of its sides are
// contiguous (MPI then moves it with one copy from array to array). Both ranks learn each
// other's side in a handshake, so both decide alike, and the sender tells the receiver how its
// message is cut into chunks (outermost indices per chunk, message_chunks.hpp). The decision and
// the window outlive the engine that built them (MessageEngine's rebuilding constructor): a rank
// whose local arrays changed leading dimension rebuilds its engine without talking to anybody;
// its messages keep their sizes and their outermost indices.
#include <mpi.h>

#include <cstdint>
#include <vector>

namespace choreo::redist {

/// SMPI runs every rank in one thread of one process, where a rank must never sleep in the
/// kernel: no exchange there.
#if defined(CHOREO_SMPI)
inline constexpr bool kNodeExchangeAvailable = false;
#else
inline constexpr bool kNodeExchangeAvailable = true;
#endif

/// One of this rank's messages, as the exchange sees it.
struct NodeCandidate {
  int peer = 0;
  std::int64_t bytes = 0;
  bool contiguous = false;       ///< this rank's side of it is one run in memory
  std::int64_t outer = 1;        ///< its outermost indices (message_chunks.hpp)
  std::int64_t outer_bytes = 0;  ///< bytes of its largest outermost index
};

class NodeExchange {
 public:
  /// Collective over `comm` (every rank calls, ranks with no message too): splits `comm` by
  /// node, shakes hands with the node-local peers of `sends` and `receives` (this rank's
  /// messages to and from other ranks, at most one per peer and direction) and allocates the
  /// window. The handshake's messages use tags `tag ^ 3` to `tag ^ 5`, never `tag` itself.
  /// Where the window cannot be allocated on some rank of a node, no message of that node
  /// goes through it (every rank of the node agrees). Throws choreo::Error when
  /// CHOREO_REDIST_NODE_RANKS is malformed (the same on every rank).
  NodeExchange(MPI_Comm comm, int tag, const std::vector<NodeCandidate>& sends,
               const std::vector<NodeCandidate>& receives, std::int64_t min_bytes);
  /// Collective over the node (frees the window and the node's communicator).
  ~NodeExchange();
  NodeExchange(const NodeExchange&) = delete;
  NodeExchange& operator=(const NodeExchange&) = delete;

  /// The index of the shared message to / from `peer`, or -1 when it goes through MPI.
  int send_index(int peer) const;
  int receive_index(int peer) const;
  std::int64_t send_bytes(int k) const { return sends_[at(k)].bytes; }
  std::int64_t receive_bytes(int k) const { return receives_[at(k)].bytes; }
  /// How message k is cut: outermost indices per chunk, and chunks per execute.
  std::int64_t send_per_chunk(int k) const { return sends_[at(k)].per_chunk; }
  std::int64_t receive_per_chunk(int k) const { return receives_[at(k)].per_chunk; }
  int send_chunks(int k) const { return static_cast<int>(sends_[at(k)].chunks); }
  int receive_chunks(int k) const { return static_cast<int>(receives_[at(k)].chunks); }
  bool empty() const { return sends_.empty() && receives_.empty(); }
  /// This rank's segment of the window: its rings, their counters and its doorbell.
  std::int64_t segment_bytes() const { return segment_bytes_; }

  /// Starts an execute (every rank of the engine calls it at the same executes).
  void begin_execute();
  /// Whether send k's chunk i of this execute has a free slot (its receiver consumed the
  /// chunk that was there).
  bool can_produce(int k, int i) const;
  char* send_slot(int k, int i);
  /// Send k's chunk i is packed (chunks go in order).
  void produced(int k, int i);
  /// Whether receive k's chunk i of this execute is ready to unpack.
  bool ready(int k, int i) const;
  const char* receive_slot(int k, int i) const;
  /// Receive k's chunk i is unpacked (chunks go in order).
  void consumed(int k, int i);

  /// This rank's doorbell: read it before testing can_produce() and ready(), then flush() and
  /// wait(seen) if neither could go on, so that a ring between the test and the wait is not
  /// missed.
  std::uint32_t doorbell() const;
  /// Rings every peer told of progress it has not yet heard of (before this rank waits).
  void flush();
  /// Returns once the doorbell has moved from `seen`: spins for a few microseconds, then
  /// sleeps.
  void wait(std::uint32_t seen);

 private:
  struct Link {
    int peer = 0;
    int node_rank = 0;  ///< the peer's rank in node_
    std::int64_t bytes = 0;
    std::int64_t outer = 1, outer_bytes = 0;  ///< the sender's, for the cut
    std::int64_t offset = 0;                  ///< the link's block in the sender's segment
    std::int64_t per_chunk = 1;               ///< outermost indices per chunk
    std::int64_t chunks = 1;                  ///< chunks per execute
    std::int64_t depth = 1;                   ///< slots in the ring
    std::int64_t slot_bytes = 0;
    char* slots = nullptr;
    // Words in the window, used through std::atomic_ref, each on a cache line of its own.
    std::uint64_t* produced = nullptr;  ///< chunks the sender has packed, over all executes
    std::uint64_t* consumed = nullptr;  ///< chunks the receiver has unpacked
    std::uint32_t* peer_doorbell = nullptr;
    std::uint32_t* peer_sleeping = nullptr;
    std::uint64_t base = 0;   ///< this execute's chunk 0, in the counters' numbering
    std::int64_t unrung = 0;  ///< progress the peer has not been rung for
  };

  static std::size_t at(int k) { return static_cast<std::size_t>(k); }
  static int find(const std::vector<Link>& links, int peer);
  /// Where chunk i of this execute goes in the link's ring.
  static char* slot_of(const Link& link, int i);
  /// The constructor's work; `group`: CHOREO_REDIST_NODE_RANKS.
  void connect(MPI_Comm comm, int tag, const std::vector<NodeCandidate>& sends,
               const std::vector<NodeCandidate>& receives, std::int64_t min_bytes, int group);
  void release_node();
  bool allocate(std::int64_t bytes);
  void progress(Link& link, std::int64_t i);
  static void ring(Link& link);

  MPI_Comm node_ = MPI_COMM_NULL;
  MPI_Win window_ = MPI_WIN_NULL;
  std::int64_t segment_bytes_ = 0;
  std::uint32_t* doorbell_ = nullptr;  ///< in this rank's own segment
  std::uint32_t* sleeping_ = nullptr;  ///< 1 while this rank sleeps on its doorbell
  std::uint64_t executes_ = 0;
  std::vector<Link> sends_, receives_;  ///< by peer
};

}  // namespace choreo::redist
