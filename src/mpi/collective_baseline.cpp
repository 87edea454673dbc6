// MPI collectives as baselines. Each collective is described the same way: which chunks of
// the send (or receive, for in-place calls) buffer to fill with which message's bytes,
// which chunks of the receive buffer must hold which message afterwards, and the call.
// The timing, verification and failure agreement are the executor's (timed_runs.hpp).
#include "choreo/mpi/collective_baseline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <functional>
#include <set>
#include <span>

#include "choreo/core/data_pattern.hpp"
#include "choreo/core/error.hpp"
#include "timed_runs.hpp"

namespace choreo::mpi {
namespace {

constexpr std::string_view kNames[] = {
    "bcast", "scatter", "gather", "allgather", "alltoall", "alltoallv", "neighbor_alltoallv"};
constexpr std::string_view kFunctions[] = {
    "MPI_Bcast",     "MPI_Scatter",           "MPI_Gather", "MPI_Allgather", "MPI_Alltoall",
    "MPI_Alltoallv", "MPI_Neighbor_alltoallv"};

/// The root and size of a pattern in which one rank sends (or, `to_root`, receives) equal
/// messages to (from) every other rank; root -1 if the pattern is not of that shape.
struct Rooted {
  int root = -1;
  std::int64_t bytes = 0;
};
Rooted rooted_shape(const Pattern& p, bool to_root) {
  if (p.ranks < 2 || p.messages.size() != static_cast<std::size_t>(p.ranks - 1)) return {};
  const Message& first = p.messages.front();
  Rooted shape{to_root ? first.dst : first.src, first.bytes};
  std::set<int> others;
  for (const Message& m : p.messages) {
    if ((to_root ? m.dst : m.src) != shape.root || m.bytes != shape.bytes) return {};
    others.insert(to_root ? m.src : m.dst);
  }
  return others.size() == p.messages.size() ? shape : Rooted{};
}

/// The size of every message if the pattern is a full alltoall of equal messages, else -1.
std::int64_t alltoall_bytes(const Pattern& p) {
  const auto n = static_cast<std::size_t>(p.ranks);
  if (p.ranks < 2 || p.messages.size() != n * (n - 1)) return -1;
  std::set<std::pair<int, int>> pairs;
  for (const Message& m : p.messages) {
    if (m.bytes != p.messages.front().bytes) return -1;
    pairs.emplace(m.src, m.dst);
  }
  return pairs.size() == p.messages.size() ? p.messages.front().bytes : -1;
}

/// A message's bytes at a place in one of the two buffers.
struct Chunk {
  bool in_receive_buffer = false;
  std::int64_t offset = 0, bytes = 0;
  int src = 0, dst = 0;
};

struct Plan {
  std::vector<std::byte> send, receive;
  std::vector<Chunk> fill;    ///< written before every iteration
  std::vector<Chunk> expect;  ///< in the receive buffer after the call
  std::function<void()> call;
};

int as_int(std::int64_t value, const char* what) {
  if (value > INT_MAX)
    throw Error(
        fmt::format("{} of {} bytes exceeds what an MPI int count can say ({}); use "
                    "smaller messages",
                    what, value, INT_MAX));
  return static_cast<int>(value);
}

/// Counts and displacements (bytes) of this rank's sends and receives in peer order.
struct Vectors {
  std::vector<int> send_counts, send_displs, recv_counts, recv_displs;
  std::vector<int> destinations, sources;  ///< peers with a non-empty entry, ascending
};
Vectors vectors_for(const Pattern& p, int me) {
  const auto n = static_cast<std::size_t>(p.ranks);
  Vectors v{std::vector<int>(n, 0),
            std::vector<int>(n, 0),
            std::vector<int>(n, 0),
            std::vector<int>(n, 0),
            {},
            {}};
  for (const Message& m : p.messages) {
    if (m.src == me) v.send_counts[static_cast<std::size_t>(m.dst)] += as_int(m.bytes, "a message");
    if (m.dst == me) v.recv_counts[static_cast<std::size_t>(m.src)] += as_int(m.bytes, "a message");
  }
  std::int64_t send_end = 0, recv_end = 0;
  for (std::size_t peer = 0; peer < n; ++peer) {
    v.send_displs[peer] = as_int(send_end, "the send buffer");
    v.recv_displs[peer] = as_int(recv_end, "the receive buffer");
    send_end += v.send_counts[peer];
    recv_end += v.recv_counts[peer];
    if (v.send_counts[peer] > 0) v.destinations.push_back(static_cast<int>(peer));
    if (v.recv_counts[peer] > 0) v.sources.push_back(static_cast<int>(peer));
  }
  as_int(send_end, "the send buffer");
  as_int(recv_end, "the receive buffer");
  return v;
}

/// A dist-graph communicator with this rank's neighbours, freed with the plan.
struct GraphComm {
  MPI_Comm comm = MPI_COMM_NULL;
  GraphComm() = default;
  GraphComm(const GraphComm&) = delete;
  GraphComm& operator=(const GraphComm&) = delete;
  ~GraphComm() {
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }
};

void check_fits(const Pattern& p, Collective c) {
  auto fit = collectives_that_fit(p);
  if (std::find(fit.begin(), fit.end(), c) != fit.end()) return;
  std::string names;
  for (Collective f : fit)
    names += fmt::format("{}{}", names.empty() ? "" : ", ", kNames[static_cast<int>(f)]);
#ifdef CHOREO_SMPI
  if (c == Collective::NeighborAlltoallv)
    throw Error(
        fmt::format("SimGrid SMPI has no MPI_Neighbor_alltoallv (it aborts); run it on "
                    "real MPI, or pick one of: {}",
                    names));
#endif
  throw Error(
      fmt::format("{} does not fit this pattern ({} ranks, {} messages); {} needs {}. "
                  "Collectives that fit: {}",
                  mpi_function(c), p.ranks, p.messages.size(), mpi_function(c),
                  c == Collective::Gather ? "a gather of equal messages to one root"
                  : c == Collective::Bcast || c == Collective::Scatter
                      ? "one root sending equal messages to every other rank"
                      : "every rank sending equal messages to every other rank",
                  names));
}

/// Fills `plan` in place: its call refers to the plan's own buffers.
void make_plan(const Pattern& p, Collective c, MPI_Comm comm, int me, Plan& plan,
               GraphComm& graph) {
  const int n = p.ranks;
  const auto un = static_cast<std::size_t>(n);
  switch (c) {
    case Collective::Bcast: {
      const Rooted s = rooted_shape(p, false);
      const int k = as_int(s.bytes, "a message");
      plan.send.resize(static_cast<std::size_t>(k));
      plan.receive.resize(static_cast<std::size_t>(k));
      // The root's bytes, the same for everyone: message (root -> root).
      if (me == s.root) plan.fill.push_back(Chunk{false, 0, k, s.root, s.root});
      if (me != s.root) plan.expect.push_back(Chunk{true, 0, k, s.root, s.root});
      plan.call = [&plan, k, root = s.root, me, comm] {
        MPI_Bcast(me == root ? plan.send.data() : plan.receive.data(), k, MPI_BYTE, root, comm);
      };
      break;
    }
    case Collective::Scatter: {
      const Rooted s = rooted_shape(p, false);
      const int k = as_int(s.bytes, "a message");
      as_int(s.bytes * n, "the root's buffer");
      plan.send.resize(me == s.root ? un * static_cast<std::size_t>(k) : 0);
      plan.receive.resize(static_cast<std::size_t>(k));
      for (int j = 0; j < n; ++j)
        if (me == s.root && j != me)
          plan.fill.push_back(Chunk{false, std::int64_t{j} * k, k, me, j});
      if (me != s.root) plan.expect.push_back(Chunk{true, 0, k, s.root, me});
      plan.call = [&plan, k, root = s.root, me, comm] {
        MPI_Scatter(plan.send.data(), k, MPI_BYTE, me == root ? MPI_IN_PLACE : plan.receive.data(),
                    k, MPI_BYTE, root, comm);
      };
      break;
    }
    case Collective::Gather: {
      const Rooted s = rooted_shape(p, true);
      const int k = as_int(s.bytes, "a message");
      as_int(s.bytes * n, "the root's buffer");
      plan.send.resize(static_cast<std::size_t>(k));
      plan.receive.resize(me == s.root ? un * static_cast<std::size_t>(k) : 0);
      if (me != s.root) plan.fill.push_back(Chunk{false, 0, k, me, s.root});
      for (int j = 0; j < n; ++j)
        if (me == s.root && j != me)
          plan.expect.push_back(Chunk{true, std::int64_t{j} * k, k, j, me});
      plan.call = [&plan, k, root = s.root, me, comm] {
        MPI_Gather(me == root ? MPI_IN_PLACE : plan.send.data(), k, MPI_BYTE, plan.receive.data(),
                   k, MPI_BYTE, root, comm);
      };
      break;
    }
    case Collective::Allgather:
    case Collective::Alltoall: {
      const int k = as_int(alltoall_bytes(p), "a message");
      as_int(std::int64_t{k} * n, "the buffer");
      const bool all_gather = c == Collective::Allgather;
      plan.receive.resize(un * static_cast<std::size_t>(k));
      plan.send.resize(all_gather ? 0 : un * static_cast<std::size_t>(k));
      for (int j = 0; j < n; ++j) {
        const std::int64_t at = std::int64_t{j} * k;
        if (all_gather) {
          // In place: my block, the same for every receiver, is message (me -> me).
          if (j == me) plan.fill.push_back(Chunk{true, at, k, me, me});
          if (j != me) plan.expect.push_back(Chunk{true, at, k, j, j});
        } else {
          plan.fill.push_back(Chunk{false, at, k, me, j});
          if (j != me) plan.expect.push_back(Chunk{true, at, k, j, me});
        }
      }
      plan.call = [&plan, k, all_gather, comm] {
        if (all_gather)
          MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, plan.receive.data(), k, MPI_BYTE, comm);
        else
          MPI_Alltoall(plan.send.data(), k, MPI_BYTE, plan.receive.data(), k, MPI_BYTE, comm);
      };
      break;
    }
    case Collective::Alltoallv:
    case Collective::NeighborAlltoallv: {
      auto v = std::make_shared<Vectors>(vectors_for(p, me));
      std::int64_t send_end = 0, recv_end = 0;
      for (std::size_t peer = 0; peer < un; ++peer) {
        const int j = static_cast<int>(peer);
        if (v->send_counts[peer] > 0)
          plan.fill.push_back(Chunk{false, v->send_displs[peer], v->send_counts[peer], me, j});
        if (v->recv_counts[peer] > 0)
          plan.expect.push_back(Chunk{true, v->recv_displs[peer], v->recv_counts[peer], j, me});
        send_end += v->send_counts[peer];
        recv_end += v->recv_counts[peer];
      }
      plan.send.resize(static_cast<std::size_t>(send_end));
      plan.receive.resize(static_cast<std::size_t>(recv_end));
      if (c == Collective::Alltoallv) {
        plan.call = [&plan, v, comm] {
          MPI_Alltoallv(plan.send.data(), v->send_counts.data(), v->send_displs.data(), MPI_BYTE,
                        plan.receive.data(), v->recv_counts.data(), v->recv_displs.data(), MPI_BYTE,
                        comm);
        };
        break;
      }
#ifndef CHOREO_SMPI
      // Counts and displacements compacted to the neighbours, in the order given below.
      auto compact = std::make_shared<Vectors>();
      for (int j : v->destinations) {
        compact->send_counts.push_back(v->send_counts[static_cast<std::size_t>(j)]);
        compact->send_displs.push_back(v->send_displs[static_cast<std::size_t>(j)]);
      }
      for (int j : v->sources) {
        compact->recv_counts.push_back(v->recv_counts[static_cast<std::size_t>(j)]);
        compact->recv_displs.push_back(v->recv_displs[static_cast<std::size_t>(j)]);
      }
      MPI_Dist_graph_create_adjacent(comm, static_cast<int>(v->sources.size()), v->sources.data(),
                                     MPI_UNWEIGHTED, static_cast<int>(v->destinations.size()),
                                     v->destinations.data(), MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                     &graph.comm);
      plan.call = [&plan, compact, &graph] {
        MPI_Neighbor_alltoallv(plan.send.data(), compact->send_counts.data(),
                               compact->send_displs.data(), MPI_BYTE, plan.receive.data(),
                               compact->recv_counts.data(), compact->recv_displs.data(), MPI_BYTE,
                               graph.comm);
      };
#else
      (void)graph;
#endif
      break;
    }
  }
}

std::span<std::byte> place(Plan& plan, const Chunk& c) {
  auto& buffer = c.in_receive_buffer ? plan.receive : plan.send;
  return std::span<std::byte>(buffer).subspan(static_cast<std::size_t>(c.offset),
                                              static_cast<std::size_t>(c.bytes));
}

}  // namespace

Collective parse_collective(std::string_view name) {
  for (std::size_t i = 0; i < std::size(kNames); ++i)
    if (kNames[i] == name) return static_cast<Collective>(i);
  throw Error(
      fmt::format("unknown collective '{}'; choose bcast, scatter, gather, allgather, "
                  "alltoall, alltoallv or neighbor_alltoallv",
                  name));
}

std::string_view mpi_function(Collective c) { return kFunctions[static_cast<int>(c)]; }
std::string_view collective_name(Collective c) { return kNames[static_cast<int>(c)]; }

std::vector<Collective> collectives_that_fit(const Pattern& p) {
  std::vector<Collective> fit;
  if (rooted_shape(p, false).root >= 0) fit = {Collective::Bcast, Collective::Scatter};
  if (rooted_shape(p, true).root >= 0) fit.push_back(Collective::Gather);
  if (alltoall_bytes(p) >= 0) fit.insert(fit.end(), {Collective::Allgather, Collective::Alltoall});
  fit.push_back(Collective::Alltoallv);
#ifndef CHOREO_SMPI
  fit.push_back(Collective::NeighborAlltoallv);
#endif
  return fit;
}

RunResult run_collective(const Pattern& pattern, Collective collective, MPI_Comm comm,
                         const RunOptions& options) {
  int size = 0, me = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &me);
  GraphComm graph;
  Plan plan;
  detail::collectively(comm, [&] {
    detail::check_options(options);
    validate(pattern);
    if (size != pattern.ranks)
      throw Error(
          fmt::format("the pattern is for {} ranks but MPI runs {}; start it with "
                      "mpiexec -n {}",
                      pattern.ranks, size, pattern.ranks));
    check_fits(pattern, collective);
  });
  // Size limits are local (each rank's own counts), so agree on them too.
  detail::collectively(comm, [&] { make_plan(pattern, collective, comm, me, plan, graph); });

  RunResult result = detail::time_iterations(
      comm, options,
      {[&] {
         for (const Chunk& c : plan.expect) poison_message(place(plan, c), c.src, c.dst, 0);
         for (const Chunk& c : plan.fill) fill_message(place(plan, c), c.src, c.dst, 0);
       },
       [&](detail::FaultWatch&) { plan.call(); },  // MPI's own blocking call: nothing to watch
       [&](int iteration, std::int64_t& checked) -> std::string {
         for (const Chunk& c : plan.expect) {
           const ByteMismatch bad = check_message(place(plan, c), c.src, c.dst, 0);
           if (bad.count > 0)
             return fmt::format(
                 "rank {}, {}, iteration {}: {} of {} bytes from rank {} differ from what it "
                 "sent; first at byte {}: got 0x{:02x}, expected 0x{:02x}",
                 me, mpi_function(collective), iteration, bad.count, c.bytes, c.src, bad.first,
                 bad.got, bad.expected);
           checked += c.bytes;
         }
         return {};
       }});
  result.ranks = pattern.ranks;
  result.algorithm = std::string(mpi_function(collective));
  result.messages = static_cast<std::int64_t>(pattern.messages.size());
  for (const Message& m : pattern.messages) result.bytes_per_iteration += m.bytes;
  return result;
}

}  // namespace choreo::mpi
