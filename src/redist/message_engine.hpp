#pragma once
// Moves one rank's messages of a redistribution (a RankPlan) on MPI, each message side by the
// data path its shape calls for (mpi.hpp: direct, datatype or pack), or through a shared-memory
// window where the peer is on the same node (node_exchange.hpp). Built once per plan:
// datatypes, the sections the pack loops walk, the pack buffers and the window; execute() then
// posts every receive, packs and sends in ring order, copies the rank's own data while the
// messages fly, and unpacks each packed or shared message as it arrives. Shared by RedistPlan
// and the ScaLAPACK entry points (src/scalapack).
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "choreo/redist/mpi.hpp"
#include "node_exchange.hpp"

namespace choreo::redist {

enum class SidePath : std::uint8_t { Direct, Datatype, Pack, Shared };
const char* to_string(SidePath path);

/// How a message side of `shape` and `bytes` moves under `method`; `plain_base`: the base
/// type is contiguous (choreo packs it with memcpy; otherwise every side is a datatype unless
/// `method` is Pack, which then packs with MPI_Pack on both sides); `avoid_datatypes`: the MPI
/// library mishandles derived datatypes (mpi_quirks.hpp), so Auto packs where it would have
/// built one. Shared is not chosen here: it needs the peer's agreement (node_exchange.hpp); the
/// other sides of Method::Shared move as Auto's.
SidePath choose_path(Method method, const LayoutShape& shape, std::int64_t bytes, bool plain_base,
                     bool avoid_datatypes = false);

/// Whether `method` sends node-local messages through shared memory (Auto and Shared).
bool uses_node_exchange(Method method);

class MessageEngine {
 public:
  /// `comm` carries only this engine's messages (a private communicator; the caller keeps it
  /// alive), every rank uses the same `tag` and `method`. Collective over `comm` where the
  /// method uses a node exchange and the base type is contiguous (the same on every rank).
  /// Throws choreo::Error when a message is too large for MPI's int counts or a datatype
  /// cannot be built.
  MessageEngine(MPI_Comm comm, const RankPlan& plan, MPI_Datatype base, Method method, int tag);
  /// The engine of `previous` for another plan of this rank whose messages have the same
  /// peers and sizes (its local arrays' leading dimensions changed): takes over its node
  /// exchange and the decisions made with the peers; no communication.
  MessageEngine(const RankPlan& plan, MessageEngine&& previous);
  MessageEngine(const MessageEngine&) = delete;
  MessageEngine& operator=(const MessageEngine&) = delete;

  /// This rank's sends and receives, complete on return. `source` / `target` may be null when
  /// the rank sends / receives nothing; throws choreo::Error when one it needs is null.
  void execute(const void* source, void* target);

  /// Fills every field of RedistStats but plan_seconds.
  const RedistStats& stats() const { return stats_; }

 private:
  struct Side {
    int peer = 0;
    SidePath path = SidePath::Pack;
    std::int64_t elements = 0;
    std::vector<LocalSection> sections;  ///< kept for packing and the local copy
    LayoutShape shape;
    SectionType type;                ///< datatype path, and MPI_Pack of a non-contiguous base
    std::int64_t buffer_offset = 0;  ///< pack path: bytes into the pack buffer
    int wire_count = 0;              ///< pack / direct: count of the wire type
    int shared = -1;                 ///< shared path: the exchange's index of the message
    std::vector<std::vector<LocalSection>> chunks;  ///< shared path: the message cut for its ring
    int next_chunk = 0;                             ///< shared path: this execute's next chunk
    bool finished = false;                          ///< shared path: every chunk moved
  };

  void build(const RankPlan& plan, bool new_exchange);
  void build_side(Side& side, bool sending);
  void post_receives(void* target);
  /// Packs and sends the MPI messages in ring order.
  void send_all(const void* source);
  void copy_local(const void* source, void* target);
  /// Completes some MPI receives (blocking: at least one), unpacking packed ones; whether any.
  bool receive_some(void* target, bool block);
  /// Packs and unpacks the shared messages' chunks the rings allow; whether any moved.
  bool move_chunks(const void* source, void* target);
  /// Every shared message, the local copy and MPI's receives as they come.
  void move_shared(const void* source, void* target);
  /// Unpacks a completed receive (packed or shared; nothing to do for the others).
  void unpack_received(Side& side, void* target);

  MPI_Comm comm_;
  int rank_ = 0;
  std::unique_ptr<NodeExchange> exchange_;
  int tag_ = 0;
  Method method_;
  MPI_Datatype base_;
  MPI_Aint extent_ = 0;
  std::int64_t element_bytes_ = 0;
  bool plain_base_ = true;
  bool avoid_datatypes_ = false;        ///< mpi_quirks.hpp
  std::vector<Side> sends_, receives_;  ///< the local copy excluded
  Side local_out_, local_in_;
  bool has_local_ = false;
  std::vector<char> send_buffer_, receive_buffer_;
  /// The local copy goes through this buffer (pack, then unpack) where either side is cut
  /// into short runs: two passes of the matrix copy loops beat one pass that walks both
  /// sides' runs at once (0.34 against 0.77 ms for cyclic(7)->cyclic(5)'s 266,000 elements).
  std::vector<char> local_buffer_;
  std::vector<MPI_Request> receive_requests_, send_requests_;
  std::vector<int> completed_;
  int mpi_receives_ = 0, mpi_sends_ = 0;  ///< receives_ / sends_ that go through MPI
  int mpi_left_ = 0, shared_left_ = 0;    ///< this execute's receives / shared messages to go
  bool mpi_sending_ = false;              ///< this execute's MPI sends may be incomplete
  RedistStats stats_;
};

}  // namespace choreo::redist
