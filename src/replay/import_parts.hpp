#pragma once
// The stages of `choreo import` (private): what each rank did, read off its trace
// (rank_actions.cpp); the collectives, expanded (collective_instances.cpp); and the ops emitted
// from both (import.cpp).
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "choreo/core/schedule.hpp"
#include "choreo/replay/import.hpp"
#include "choreo/replay/trace_format.hpp"

namespace choreo::replay::detail {

/// Every communicator of the recording, across the ranks: a global id and the members' world
/// ranks. A communicator is named by how it was made (its parent, the number of creations on
/// the parent before it) and its members, which every member of it records alike.
class Communicators {
 public:
  explicit Communicators(int ranks);
  int world() const { return 0; }
  /// MPI_COMM_SELF of `rank`.
  int self(int rank);
  /// The `sequence`-th communicator made on `parent`, with these members.
  int created(int parent, std::uint64_t sequence, const std::vector<int>& members);
  /// A communicator first met in use: the `nth` such with these members on its rank.
  int met(std::uint64_t nth, const std::vector<int>& members);
  const std::vector<int>& members(int comm) const {
    return members_[static_cast<std::size_t>(comm)];
  }
  /// World rank of `comm_rank` in `comm`; throws if it is not one of its ranks.
  int world_rank(int comm, int comm_rank) const;

 private:
  int intern(std::vector<std::int64_t> key, const std::vector<int>& members);
  std::map<std::vector<std::int64_t>, int> ids_;
  std::vector<std::vector<int>> members_;
};

/// One blocking collective call, as every member of its communicator made it.
struct Instance {
  int comm = 0;
  trace::Collective collective = trace::Collective::Barrier;
  int root = 0;
  std::int64_t bytes = 0;
  std::vector<std::vector<std::int64_t>> send_bytes;  ///< alltoallv: per comm rank
  std::size_t calls = 0;                              ///< members that made it so far
  /// After expansion: the generated schedule on the communicator's ranks, and every op's tag
  /// in the imported schedule (-1 for ops that are no message).
  std::shared_ptr<const Schedule> schedule;
  std::vector<std::vector<int>> tags;
};

enum class ActionKind : std::uint8_t { Calc, Post, Sendrecv, Complete, Collective };

/// One step of a rank's program, before its messages are matched.
struct Action {
  ActionKind kind = ActionKind::Calc;
  bool send = false;                    ///< Post: a send (else a receive)
  bool blocking = false;                ///< Post
  std::int64_t ns = 0;                  ///< Calc
  std::size_t endpoint = 0;             ///< Post: index in sends or recvs; Sendrecv: the send's
  std::size_t endpoint2 = 0;            ///< Sendrecv: the receive's
  std::uint64_t request = 0;            ///< Post, nonblocking: the request it is (0: none)
  std::vector<std::uint64_t> requests;  ///< Complete
  std::size_t instance = 0;             ///< Collective
  int comm_rank = 0;                    ///< Collective: this rank's rank in it
};

struct RankActions {
  std::vector<Action> actions;
  std::vector<SendKey> sends;
  std::vector<std::int64_t> send_bytes;
  std::vector<RecvKey> recvs;
  std::vector<bool> resolved;  ///< whether recvs[k] knows its source and tag
};

/// The collective instances of the recording, keyed by communicator and call number on it.
struct Instances {
  std::vector<Instance> list;
  std::map<std::pair<int, std::uint64_t>, std::size_t> index;
};

/// Rank `rank`'s actions, its messages, and its part in the collectives.
RankActions rank_actions(const trace::RankTrace& trace, int rank, const ImportOptions& options,
                         Communicators& comms, Instances& instances);

/// Pair-tag counters: the next tag of each (sender, receiver).
class PairTags {
 public:
  int next(int src, int dst) {
    return counters_[(static_cast<std::uint64_t>(static_cast<std::uint32_t>(src)) << 32) |
                     static_cast<std::uint32_t>(dst)]++;
  }

 private:
  std::map<std::uint64_t, int> counters_;
};

/// Generates each instance's schedule and gives its messages their tags.
void expand_instances(Instances& instances, const Communicators& comms,
                      const ImportOptions& options, std::string_view mpi_library, PairTags& tags);

}  // namespace choreo::replay::detail
