// A rank's trace read as MPI would: communicators resolved to global ids, requests followed
// from their post to their completion, wildcard receives resolved by their status.
#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "choreo/core/error.hpp"
#include "choreo/core/limits.hpp"
#include "import_parts.hpp"

namespace choreo::replay::detail {

Communicators::Communicators(int ranks) {
  std::vector<int> world(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) world[static_cast<std::size_t>(r)] = r;
  intern({0}, world);
}

int Communicators::self(int rank) { return intern({1, rank}, {rank}); }

int Communicators::created(int parent, std::uint64_t sequence, const std::vector<int>& members) {
  std::vector<std::int64_t> key{2, parent, static_cast<std::int64_t>(sequence)};
  key.insert(key.end(), members.begin(), members.end());
  return intern(std::move(key), members);
}

int Communicators::met(std::uint64_t nth, const std::vector<int>& members) {
  std::vector<std::int64_t> key{3, static_cast<std::int64_t>(nth)};
  key.insert(key.end(), members.begin(), members.end());
  return intern(std::move(key), members);
}

int Communicators::intern(std::vector<std::int64_t> key, const std::vector<int>& members) {
  const auto [it, added] = ids_.emplace(std::move(key), static_cast<int>(members_.size()));
  if (added) members_.push_back(members);
  return it->second;
}

int Communicators::world_rank(int comm, int comm_rank) const {
  const std::vector<int>& m = members(comm);
  if (comm_rank < 0 || static_cast<std::size_t>(comm_rank) >= m.size())
    throw Error(
        fmt::format("rank {} is not a rank of communicator {} ({} ranks); the trace is "
                    "corrupt or the program's call was erroneous",
                    comm_rank, comm, m.size()));
  return m[static_cast<std::size_t>(comm_rank)];
}

namespace {

/// What a request stands for: a message to post (again, when persistent) and the receive it
/// posted last, whose status completes it.
struct Request {
  bool send = false;
  int comm = 0;
  int peer = 0;  ///< comm rank, or trace::kAnySource / kProcNull
  int tag = 0;
  std::int64_t bytes = 0;
  std::size_t posted = SIZE_MAX;  ///< the last receive's index in recvs
};

class RankReader {
 public:
  RankReader(int rank, const ImportOptions& options, Communicators& comms, Instances& instances)
      : rank_(rank), options_(options), comms_(comms), instances_(instances) {
    comm_ids_[trace::kWorld] = comms.world();
    comm_ids_[trace::kSelf] = comms.self(rank);
  }

  void gap(std::int64_t ns) {
    const double exact = static_cast<double>(ns) * options_.calc_scale;
    // Beyond choreo's longest time (and so also beyond int64): an error, not undefined
    // behaviour (found by fuzzing a trace whose gap was 8.7e18 ns).
    if (exact > static_cast<double>(limits::kMaxNanoseconds))
      throw Error(
          fmt::format("rank {}: a computation of {:.3g} ns between two MPI calls "
                      "(recorded, times the scale {}) is beyond choreo's 10^15 ns "
                      "(docs/formats.md, Limits); is the trace corrupt?",
                      rank_, exact, options_.calc_scale));
    const auto scaled = static_cast<std::int64_t>(exact);
    if (scaled <= 0) return;
    Action& a = add(ActionKind::Calc);
    a.ns = scaled;
  }

  void event(const trace::Event& e) {
    switch (e.kind) {
      case trace::Kind::Send:
        post_blocking(true, send(comm(e.comm), e.peer, e.tag, e.bytes));
        return;
      case trace::Kind::Recv:
        post_blocking(false, recv(comm(e.comm), e.peer, e.tag, &e.status));
        return;
      case trace::Kind::Isend:
      case trace::Kind::Irecv:
      case trace::Kind::SendInit:
      case trace::Kind::RecvInit:
        requests_[e.request] = {e.kind == trace::Kind::Isend || e.kind == trace::Kind::SendInit,
                                comm(e.comm), e.peer, e.tag, e.bytes};
        if (e.kind == trace::Kind::Isend || e.kind == trace::Kind::Irecv) start(e.request);
        return;
      case trace::Kind::Start:
        for (std::uint64_t id : e.requests) start(id);
        return;
      case trace::Kind::Complete:
        complete(e);
        return;
      case trace::Kind::Sendrecv:
        sendrecv(e);
        return;
      case trace::Kind::Collective:
        collective(e);
        return;
      case trace::Kind::CommCreate:
        comm_create(e);
        return;
      case trace::Kind::RequestFree:
      case trace::Kind::End:
        return;
    }
  }

  RankActions finish() {
    for (std::size_t k = 0; k < out_.recvs.size(); ++k)
      if (!out_.resolved[k])
        throw Error(fmt::format(
            "rank {}'s receive #{} names MPI_ANY_SOURCE or MPI_ANY_TAG but no Wait or Test "
            "completed it, so what it matched is unknown; record a run in which every receive "
            "completes",
            rank_, k));
    return std::move(out_);
  }

 private:
  int comm(std::uint32_t id) const {
    const auto it = comm_ids_.find(id);
    if (it == comm_ids_.end())
      throw Error(
          fmt::format("rank {}: communicator {} is used before the record that makes "
                      "it; the trace is corrupt",
                      rank_, id));
    return it->second;
  }

  Action& add(ActionKind kind) {
    out_.actions.emplace_back();
    out_.actions.back().kind = kind;
    return out_.actions.back();
  }

  /// A send endpoint, or SIZE_MAX for MPI_PROC_NULL.
  std::size_t send(int comm, int peer, int tag, std::int64_t bytes) {
    if (peer == trace::kProcNull) return SIZE_MAX;
    out_.sends.push_back({comm, comms_.world_rank(comm, peer), tag});
    out_.send_bytes.push_back(bytes);
    return out_.sends.size() - 1;
  }

  /// A receive endpoint, resolved by `status` when there is one; SIZE_MAX for MPI_PROC_NULL.
  std::size_t recv(int comm, int peer, int tag, const trace::Status* status) {
    if (peer == trace::kProcNull || (status && status->source == trace::kProcNull)) return SIZE_MAX;
    out_.recvs.push_back({comm, 0, tag});
    out_.resolved.push_back(false);
    const std::size_t k = out_.recvs.size() - 1;
    if (status) {
      resolve(k, *status);
    } else if (peer != trace::kAnySource && tag != trace::kAnyTag) {
      out_.recvs[k].src = comms_.world_rank(comm, peer);
      out_.resolved[k] = true;
    }
    return k;
  }

  void resolve(std::size_t k, const trace::Status& status) {
    out_.recvs[k].src = comms_.world_rank(out_.recvs[k].comm, status.source);
    out_.recvs[k].tag = status.tag;
    out_.resolved[k] = true;
  }

  void post_blocking(bool is_send, std::size_t endpoint) {
    if (endpoint == SIZE_MAX) return;
    Action& a = add(ActionKind::Post);
    a.send = is_send;
    a.blocking = true;
    a.endpoint = endpoint;
  }

  void start(std::uint64_t id) {
    const auto it = requests_.find(id);
    if (it == requests_.end()) return;  // not the recorder's (never posted in the trace)
    Request& r = it->second;
    const std::size_t endpoint =
        r.send ? send(r.comm, r.peer, r.tag, r.bytes) : recv(r.comm, r.peer, r.tag, nullptr);
    if (!r.send) r.posted = endpoint;
    if (endpoint == SIZE_MAX) return;
    Action& a = add(ActionKind::Post);
    a.send = r.send;
    a.endpoint = endpoint;
    a.request = id;
  }

  void complete(const trace::Event& e) {
    Action done;
    done.kind = ActionKind::Complete;
    for (const trace::Completion& c : e.completed) {
      const auto it = requests_.find(c.request);
      if (it == requests_.end()) continue;
      const Request& r = it->second;
      if (!r.send && c.has_status && r.posted != SIZE_MAX && !out_.resolved[r.posted])
        resolve(r.posted, c.status);
      done.requests.push_back(c.request);
    }
    if (!done.requests.empty()) out_.actions.push_back(std::move(done));
  }

  void sendrecv(const trace::Event& e) {
    const int c = comm(e.comm);
    const std::size_t s = send(c, e.peer, e.tag, e.bytes);
    const std::size_t r = recv(c, e.recv_peer, e.recv_tag, &e.status);
    if (s == SIZE_MAX || r == SIZE_MAX) {
      post_blocking(true, s);
      post_blocking(false, r);
      return;
    }
    Action& a = add(ActionKind::Sendrecv);
    a.endpoint = s;
    a.endpoint2 = r;
  }

  void collective(const trace::Event& e) {
    const int c = comm(e.comm);
    const std::vector<int>& members = comms_.members(c);
    const auto at = std::find(members.begin(), members.end(), rank_);
    if (at == members.end())
      throw Error(
          fmt::format("rank {} calls a collective on communicator {}, which it is not "
                      "a member of; the trace is corrupt",
                      rank_, c));
    const int comm_rank = static_cast<int>(at - members.begin());
    const std::uint64_t number = collectives_on_[c]++;
    const auto [slot, added] = instances_.index.emplace(std::pair{c, number}, 0);
    if (added) {
      slot->second = instances_.list.size();
      Instance made;
      made.comm = c;
      made.collective = e.collective;
      made.root = e.root;
      made.bytes = e.collective_bytes;
      made.send_bytes.resize(members.size());
      instances_.list.push_back(std::move(made));
    }
    Instance& instance = instances_.list[slot->second];
    if (instance.collective != e.collective || instance.root != e.root)
      throw Error(fmt::format(
          "collective call #{} on communicator {}: rank {} recorded {} (root {}) where another "
          "rank recorded {} (root {}); MPI requires every rank to make the same call",
          number, c, rank_, trace::collective_name(e.collective), e.root,
          trace::collective_name(instance.collective), instance.root));
    // Rooted collectives' blocks agree by MPI's rules; keep the largest any rank recorded.
    instance.bytes = std::max(instance.bytes, e.collective_bytes);
    instance.send_bytes[static_cast<std::size_t>(comm_rank)] = e.send_bytes;
    ++instance.calls;
    Action& a = add(ActionKind::Collective);
    a.instance = slot->second;
    a.comm_rank = comm_rank;
  }

  void comm_create(const trace::Event& e) {
    int made = 0;
    if (e.comm == trace::kNoParent) {
      made = comms_.met(met_[e.members]++, e.members);
    } else {
      const int parent = comm(e.comm);
      const std::uint64_t sequence = created_on_[parent]++;
      if (e.new_comm == trace::kNoComm) return;
      made = comms_.created(parent, sequence, e.members);
    }
    comm_ids_[e.new_comm] = made;
  }

  int rank_;
  const ImportOptions& options_;
  Communicators& comms_;
  Instances& instances_;
  RankActions out_;
  std::unordered_map<std::uint32_t, int> comm_ids_;
  std::unordered_map<std::uint64_t, Request> requests_;
  std::map<int, std::uint64_t> collectives_on_, created_on_;
  std::map<std::vector<int>, std::uint64_t> met_;
};

}  // namespace

RankActions rank_actions(const trace::RankTrace& trace, int rank, const ImportOptions& options,
                         Communicators& comms, Instances& instances) {
  RankReader reader(rank, options, comms, instances);
  for (const trace::Event& e : trace.events) {
    reader.gap(e.gap_ns);
    reader.event(e);
  }
  reader.gap(trace.final_gap_ns);
  return reader.finish();
}

}  // namespace choreo::replay::detail
