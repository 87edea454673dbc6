#pragma once
// Messages between ranks of one node through a shared-memory window instead of MPI's
// transport: the sender packs straight into its segment of the window, the receiver unpacks
// straight out of it. That is one copy in and one copy out, where packing through MPI takes
// three (pack, MPI's copy between the processes, unpack).
//
// The two ranks order their copies with flags beside the data, not with MPI messages: the
// sender sets the message's "ready" to the execute's number, the receiver sets "done" when it
// has unpacked, and each rings the other's doorbell (a counter in the ringing rank's peer's
// segment, a futex). A rank with nothing left but shared messages to wait for spins briefly,
// then sleeps on its doorbell: with more ranks than cores it gives its core to the rank it is
// waiting for, where a rank in MPI_Wait polls (MPICH) or yields (Open MPI) through its time
// slice. The sender waits for "done" only before it packs the next execute's message, so an
// execute returns when this rank's own data has arrived, not when its peers have unpacked.
//
// Which messages go this way is decided once, collectively, when the exchange is built: a
// message whose two ranks share a node, of more than `min_bytes`, unless both of its sides are
// contiguous (MPI then moves it with one copy from array to array). Both ranks learn each
// other's side in a handshake, so both decide alike. The decision and the window outlive the
// engine that built them (MessageEngine's rebuilding constructor): a rank whose local arrays
// changed leading dimension rebuilds its engine without talking to anybody, and its messages
// keep their sizes.
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
  bool contiguous = false;  ///< this rank's side of it is one run in memory
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
  std::int64_t send_bytes(int k) const { return sends_[static_cast<std::size_t>(k)].bytes; }
  std::int64_t receive_bytes(int k) const { return receives_[static_cast<std::size_t>(k)].bytes; }
  bool empty() const { return sends_.empty() && receives_.empty(); }
  /// This rank's segment of the window: its shared sends, their flags and its doorbell.
  std::int64_t segment_bytes() const { return segment_bytes_; }

  /// Starts an execute (every rank of the engine calls it at the same executes).
  void begin_execute() { ++epoch_; }
  /// Where send k's elements go, once its receiver has unpacked the previous execute's
  /// (waits for that).
  char* claim_send_slot(int k);
  /// Send k is packed: the receiver may unpack it.
  void sent(int k);
  /// Whether receive k's data of this execute is ready to unpack (does not wait).
  bool arrived(int k) const;
  const char* receive_slot(int k) const { return receives_[static_cast<std::size_t>(k)].data; }
  /// Receive k is unpacked: the sender may reuse its slot.
  void consumed(int k);

  /// This rank's doorbell: read it before testing arrived(), then wait(seen) if nothing had,
  /// so that a ring between the test and the wait is not missed.
  std::uint32_t doorbell() const;
  /// Returns once the doorbell has moved from `seen` (a peer set a flag of this rank's):
  /// spins for a few microseconds, then sleeps.
  void wait(std::uint32_t seen) const;

 private:
  struct Link {
    int peer = 0;
    int node_rank = 0;  ///< the peer's rank in node_
    std::int64_t bytes = 0;
    std::int64_t offset = 0;  ///< the link's block in the sender's segment
    char* data = nullptr;     ///< the message's bytes
    // Words in the window, used through std::atomic_ref (each on a cache line of its own).
    std::uint32_t* ready = nullptr;  ///< the execute whose data is in place
    std::uint32_t* done = nullptr;   ///< the execute the receiver has unpacked
    std::uint32_t* peer_doorbell = nullptr;
  };

  static int find(const std::vector<Link>& links, int peer);
  bool allocate(std::int64_t bytes);
  /// Waits until `flag` holds `value`.
  void wait_for(std::uint32_t* flag, std::uint32_t value) const;

  MPI_Comm node_ = MPI_COMM_NULL;
  MPI_Win window_ = MPI_WIN_NULL;
  std::int64_t segment_bytes_ = 0;
  std::uint32_t* doorbell_ = nullptr;  ///< in this rank's own segment
  std::uint32_t epoch_ = 0;
  std::vector<Link> sends_, receives_;  ///< by peer
};

}  // namespace choreo::redist
