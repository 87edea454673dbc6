// libchoreo_pmpi.so under mpiexec: an ordinary MPI program whose MPI_Alltoallv and
// MPI_Neighbor_alltoallv calls the library takes (it is preloaded, or linked before MPI), each
// compared byte for byte with what the MPI library itself delivers for the same arguments
// (found in the MPI library itself, tests/support/own_mpi.hpp), including the
// bytes it must leave alone. Patterns repeat (cache hits), alternate, and change at every call;
// datatypes are derived and non-contiguous; MPI_IN_PLACE, zero counts, MPI_COMM_SELF, split and
// duplicated communicators, an intercommunicator (handed to MPI), distributed-graph, graph and
// Cartesian topologies (a periodic ring of 1 or 2 ranks, with two edges between a pair, held to
// MPI-4.1's pairing, which MPICH 4.0.2's own call gets wrong).
//
// With --expect-report, rank 0 reads the CHOREO_REPORT file after MPI_Finalize and checks
// that every call was counted and, with --expect-choreo F1,F2,..., that choreo took calls of
// each function named. Prints "intercept: N cases OK" and exits 0 only if every check passed.
#include <fmt/format.h>
#include <mpi.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "../support/exchange_cases.hpp"
#include "../support/own_mpi.hpp"

namespace {

using choreo::test::Checker;
using choreo::test::compare;
using choreo::test::fill;
using choreo::test::make_patterns;
using choreo::test::NamedPattern;
using choreo::test::SideLayout;
using choreo::test::TypePair;
using choreo::test::UnitMatrix;

// The references: the MPI library's own functions (a preloaded library may define PMPI_ too).
const auto own_alltoallv = choreo::test::own_mpi(&PMPI_Alltoallv, "PMPI_Alltoallv");
const auto own_neighbor_alltoallv =
    choreo::test::own_mpi(&PMPI_Neighbor_alltoallv, "PMPI_Neighbor_alltoallv");
const auto own_sendrecv = choreo::test::own_mpi(&PMPI_Sendrecv, "PMPI_Sendrecv");
const auto own_allreduce = choreo::test::own_mpi(&PMPI_Allreduce, "PMPI_Allreduce");
const auto own_bcast = choreo::test::own_mpi(&PMPI_Bcast, "PMPI_Bcast");
const auto own_allgather = choreo::test::own_mpi(&PMPI_Allgather, "PMPI_Allgather");

/// Calls made through the interposition library, to compare with its report.
struct Tally {
  long alltoallv = 0;
  long neighbor = 0;
  long allreduce = 0;
  long bcast = 0;
  long allgather = 0;
};

/// Per-rank counts of one pattern on `comm` (its ranks), for a datatype pair.
struct Arguments {
  SideLayout send, recv;
  Arguments(const UnitMatrix& units, const TypePair& types, int rank)
      : send(row(units, rank, types.send_per_unit), types.send_type, types.spread_send),
        recv(column(units, rank, types.recv_per_unit), types.recv_type, types.spread_recv) {}
  static std::vector<int> row(const UnitMatrix& u, int rank, int per_unit) {
    std::vector<int> counts;
    for (int v : u[static_cast<std::size_t>(rank)]) counts.push_back(v * per_unit);
    return counts;
  }
  static std::vector<int> column(const UnitMatrix& u, int rank, int per_unit) {
    std::vector<int> counts;
    for (const auto& r : u) counts.push_back(r[static_cast<std::size_t>(rank)] * per_unit);
    return counts;
  }
};

/// One MPI_Alltoallv through the library and the same through PMPI; byte comparison.
void alltoallv_once(const std::string& name, const UnitMatrix& units, const TypePair& types,
                    MPI_Comm comm, std::uint64_t seed, Checker& checker, Tally& tally) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  Arguments a(units, types, rank);
  // Every rank's data its own: a message delivered from the wrong rank cannot go unseen.
  seed = seed * 1000003u + static_cast<std::uint64_t>(rank);
  fill(a.send.buffer, seed);
  fill(a.recv.buffer, ~seed);
  std::vector<std::byte> reference = a.recv.buffer;
  MPI_Alltoallv(a.send.buffer.data(), a.send.counts.data(), a.send.displacements.data(),
                types.send_type, a.recv.buffer.data(), a.recv.counts.data(),
                a.recv.displacements.data(), types.recv_type, comm);
  ++tally.alltoallv;
  own_alltoallv(a.send.buffer.data(), a.send.counts.data(), a.send.displacements.data(),
                types.send_type, reference.data(), a.recv.counts.data(),
                a.recv.displacements.data(), types.recv_type, comm);
  const std::string difference = compare(a.recv.buffer, reference);
  checker.expect(difference.empty(), fmt::format("{}: {}", name, difference));
}

/// MPI_IN_PLACE: the receive buffer's blocks go out and are replaced.
void alltoallv_in_place(const std::string& name, const UnitMatrix& units, const TypePair& types,
                        MPI_Comm comm, std::uint64_t seed, Checker& checker, Tally& tally) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // In place, each rank's send and receive counts are the same: make the pattern symmetric.
  UnitMatrix symmetric = units;
  for (std::size_t i = 0; i < units.size(); ++i)
    for (std::size_t j = 0; j < units.size(); ++j)
      symmetric[i][j] = std::max(units[i][j], units[j][i]);
  Arguments a(symmetric,
              {types.name, types.recv_type, types.recv_type, 1, 1, false, types.spread_recv}, rank);
  fill(a.recv.buffer, seed * 1000003u + static_cast<std::uint64_t>(rank));
  std::vector<std::byte> reference = a.recv.buffer;
  MPI_Alltoallv(MPI_IN_PLACE, nullptr, nullptr, MPI_DATATYPE_NULL, a.recv.buffer.data(),
                a.recv.counts.data(), a.recv.displacements.data(), types.recv_type, comm);
  ++tally.alltoallv;
  own_alltoallv(MPI_IN_PLACE, nullptr, nullptr, MPI_DATATYPE_NULL, reference.data(),
                a.recv.counts.data(), a.recv.displacements.data(), types.recv_type, comm);
  const std::string difference = compare(a.recv.buffer, reference);
  checker.expect(difference.empty(), fmt::format("{} in place: {}", name, difference));
}

/// A random pattern, the same on every rank for a seed.
UnitMatrix random_units(int n, std::uint64_t seed, int density_percent) {
  std::mt19937_64 generator(seed);
  UnitMatrix units(static_cast<std::size_t>(n), std::vector<int>(static_cast<std::size_t>(n)));
  for (auto& row : units)
    for (int& v : row)
      v = static_cast<int>(generator() % 100) < density_percent
              ? 1 + static_cast<int>(generator() % 700)
              : 0;
  return units;
}

void alltoallv_cases(MPI_Comm comm, const std::string& comm_name,
                     const std::vector<TypePair>& types, Checker& checker, Tally& tally) {
  int n = 0;
  MPI_Comm_size(comm, &n);
  std::uint64_t seed = 1;
  for (const NamedPattern& pattern : make_patterns(n))
    for (const TypePair& pair : types) {
      checker.count_case();
      // Five calls: checkpoints at the 1st, 2nd, 3rd and 5th, a cache hit at the 4th.
      for (int round = 0; round < 5; ++round)
        alltoallv_once(
            fmt::format("{} / {} on {}, call {}", pattern.name, pair.name, comm_name, round),
            pattern.units, pair, comm, ++seed, checker, tally);
    }
  for (const TypePair& pair : types) {
    checker.count_case();
    for (int round = 0; round < 3; ++round)
      alltoallv_in_place(fmt::format("random / {} on {}, call {}", pair.name, comm_name, round),
                         random_units(n, 99, 60), pair, comm, ++seed, checker, tally);
  }
  // Patterns that change at every call (misses, then MPI's own once planning stops paying),
  // and two that alternate (both cached).
  checker.count_case();
  for (int round = 0; round < 24; ++round)
    alltoallv_once(fmt::format("changing pattern on {}, call {}", comm_name, round),
                   random_units(n, 1000 + static_cast<std::uint64_t>(round), 50), types.front(),
                   comm, ++seed, checker, tally);
  checker.count_case();
  for (int round = 0; round < 12; ++round)
    alltoallv_once(fmt::format("alternating patterns on {}, call {}", comm_name, round),
                   random_units(n, 7 + static_cast<std::uint64_t>(round % 2), 70), types.back(),
                   comm, ++seed, checker, tally);
}

/// MPI_Neighbor_alltoallv on a periodic 1-D ring by MPI-4.1 section 8.6 (Example 8.10), in the
/// MPI library's own point-to-point calls: block 0 goes to the -1 neighbour, which receives it
/// as its block 1, and block 1 to the +1 neighbour, as its block 0. The reference on a ring of 1
/// or 2 ranks, where MPICH 4.0.2's own call swaps the blocks.
void standard_ring_exchange(const SideLayout& send, const SideLayout& recv, MPI_Datatype send_type,
                            MPI_Datatype recv_type, std::vector<std::byte>& into, MPI_Comm comm) {
  int below = 0, above = 0;
  MPI_Cart_shift(comm, 0, 1, &below, &above);
  MPI_Aint lower = 0, send_extent = 0, recv_extent = 0;
  MPI_Type_get_extent(send_type, &lower, &send_extent);
  MPI_Type_get_extent(recv_type, &lower, &recv_extent);
  const auto from = [&](int k) { return send.buffer.data() + send.displacements[k] * send_extent; };
  const auto to = [&](int k) { return into.data() + recv.displacements[k] * recv_extent; };
  own_sendrecv(from(0), send.counts[0], send_type, below, 0, to(1), recv.counts[1], recv_type,
               above, 0, comm, MPI_STATUS_IGNORE);
  own_sendrecv(from(1), send.counts[1], send_type, above, 1, to(0), recv.counts[0], recv_type,
               below, 1, comm, MPI_STATUS_IGNORE);
}

/// One MPI_Neighbor_alltoallv through the library and through PMPI (`looped_ring`: through
/// standard_ring_exchange), `rounds` times.
void neighbor_case(const std::string& name, MPI_Comm comm, const std::vector<int>& sources,
                   const std::vector<int>& destinations, const TypePair& types, int rounds,
                   Checker& checker, Tally& tally, bool looped_ring = false) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  checker.count_case();
  // Counts: a function of the edge's two ranks, so that sender and receiver agree.
  auto units = [](int from, int to) {
    return from < 0 || to < 0 ? 0 : 1 + (from * 7 + to * 3) % 11;
  };
  std::vector<int> send_counts, recv_counts;
  for (int d : destinations)
    send_counts.push_back(d == MPI_PROC_NULL ? 0 : units(rank, d) * types.send_per_unit);
  for (int s : sources)
    recv_counts.push_back(s == MPI_PROC_NULL ? 0 : units(s, rank) * types.recv_per_unit);
  SideLayout send(send_counts, types.send_type, types.spread_send);
  SideLayout recv(recv_counts, types.recv_type, types.spread_recv);
  for (int round = 0; round < rounds; ++round) {
    const std::uint64_t seed =
        5000u + static_cast<std::uint64_t>(round) * 31u + static_cast<std::uint64_t>(rank);
    fill(send.buffer, seed);
    fill(recv.buffer, ~seed);
    std::vector<std::byte> reference = recv.buffer;
    MPI_Neighbor_alltoallv(send.buffer.data(), send.counts.data(), send.displacements.data(),
                           types.send_type, recv.buffer.data(), recv.counts.data(),
                           recv.displacements.data(), types.recv_type, comm);
    ++tally.neighbor;
    if (looped_ring)
      standard_ring_exchange(send, recv, types.send_type, types.recv_type, reference, comm);
    else
      own_neighbor_alltoallv(send.buffer.data(), send.counts.data(), send.displacements.data(),
                             types.send_type, reference.data(), recv.counts.data(),
                             recv.displacements.data(), types.recv_type, comm);
    const std::string difference = compare(recv.buffer, reference);
    checker.expect(difference.empty(), fmt::format("{}, call {}: {}", name, round, difference));
  }
}

void neighbor_cases(const std::vector<TypePair>& types, Checker& checker, Tally& tally) {
  int rank = 0, n = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);

  // A distributed graph, every rank naming its own edges: to rank + 1 and rank + 3 (mod n),
  // when those differ from itself and each other; a self edge on rank 0.
  std::vector<int> out, in;
  for (int step : {1, 3}) {
    const int to = (rank + step) % n, from = ((rank - step) % n + n) % n;
    if (to != rank && std::find(out.begin(), out.end(), to) == out.end()) out.push_back(to);
    if (from != rank && std::find(in.begin(), in.end(), from) == in.end()) in.push_back(from);
  }
  if (rank == 0) {
    out.push_back(0);
    in.insert(in.begin(), 0);
  }
  MPI_Comm graph = MPI_COMM_NULL;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, static_cast<int>(in.size()), in.data(),
                                 MPI_UNWEIGHTED, static_cast<int>(out.size()), out.data(),
                                 MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
  for (const TypePair& pair : types)
    neighbor_case(fmt::format("distributed graph / {}", pair.name), graph, in, out, pair, 5,
                  checker, tally);
  MPI_Comm_free(&graph);

  // Cartesian: a non-periodic line (MPI_PROC_NULL at its ends) and a periodic ring; with 1 or
  // 2 ranks the ring has two edges between a pair, held to MPI-4.1's pairing.
  for (int periodic : {0, 1}) {
    MPI_Comm cart = MPI_COMM_NULL;
    int dims[1] = {n}, periods[1] = {periodic};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    int below = 0, above = 0;
    MPI_Cart_shift(cart, 0, 1, &below, &above);
    const std::vector<int> neighbours = {below, above};
    neighbor_case(fmt::format("Cartesian {} of {}", periodic ? "ring" : "line", n), cart,
                  neighbours, neighbours, types[1], 4, checker, tally, periodic && n <= 2);
    MPI_Comm_free(&cart);
  }

  // A graph topology (MPI_Graph_create): a ring, with a chord to the opposite rank when n is
  // even (MPI_Graph_create's edges must be symmetric for neighbourhood calls).
  std::vector<int> index, edges;
  for (int r = 0; r < n; ++r) {
    std::vector<int> mine;
    const int opposite = n % 2 == 0 ? (r + n / 2) % n : r;
    for (int other : {(r + 1) % n, (r - 1 + n) % n, opposite})
      if (other != r && std::find(mine.begin(), mine.end(), other) == mine.end())
        mine.push_back(other);
    edges.insert(edges.end(), mine.begin(), mine.end());
    index.push_back(static_cast<int>(edges.size()));
  }
  MPI_Comm old_graph = MPI_COMM_NULL;
  int no_edge = 0;  // MPI refuses a null edge array even when there are no edges
  MPI_Graph_create(MPI_COMM_WORLD, n, index.data(), edges.empty() ? &no_edge : edges.data(), 0,
                   &old_graph);
  int count = 0;
  MPI_Graph_neighbors_count(old_graph, rank, &count);
  std::vector<int> neighbours(static_cast<std::size_t>(count));
  MPI_Graph_neighbors(old_graph, rank, count, neighbours.data());
  neighbor_case("graph topology", old_graph, neighbours, neighbours, types[0], 4, checker, tally);
  MPI_Comm_free(&old_graph);
}

/// A commutative user-defined op: MPI_Allreduce with it goes to MPI.
void add_ints(void* in, void* inout, int* count, MPI_Datatype*) {
  for (int k = 0; k < *count; ++k) static_cast<int*>(inout)[k] += static_cast<const int*>(in)[k];
}

/// MPI_Allreduce, MPI_Bcast and MPI_Allgather through the library and through PMPI.
/// Reductions use integers or MAX/MIN/MINLOC, exact in any order, and one double sum whose
/// result may differ in the last bits between orders (compared to a relative 1e-12).
void collective_cases(MPI_Comm comm, const std::string& comm_name, Checker& checker, Tally& tally) {
  int rank = 0, n = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &n);
  MPI_Op user_sum = MPI_OP_NULL;
  MPI_Op_create(add_ints, 1, &user_sum);
  for (int count : {0, 1, 7, 1000, 40000}) {
    checker.count_case();
    const std::string name = fmt::format("{} elements on {}", count, comm_name);
    std::vector<int> ints(static_cast<std::size_t>(count)), got(ints.size()), want(ints.size());
    for (std::size_t k = 0; k < ints.size(); ++k) ints[k] = (rank + 1) * 1000 + static_cast<int>(k);
    for (MPI_Op op : {MPI_SUM, MPI_MAX, MPI_BXOR, user_sum}) {
      MPI_Allreduce(ints.data(), got.data(), count, MPI_INT, op, comm);
      own_allreduce(ints.data(), want.data(), count, MPI_INT, op, comm);
      ++tally.allreduce;
      checker.expect(got == want, "MPI_Allreduce of ints, " + name);
    }
    got = ints;
    MPI_Allreduce(MPI_IN_PLACE, got.data(), count, MPI_INT, MPI_MIN, comm);
    own_allreduce(ints.data(), want.data(), count, MPI_INT, MPI_MIN, comm);
    ++tally.allreduce;
    checker.expect(got == want, "MPI_Allreduce in place, " + name);

    std::vector<double> values(ints.size()), sums(ints.size()), reference(ints.size());
    for (std::size_t k = 0; k < values.size(); ++k)
      values[k] = 1.0 / (1.0 + rank + static_cast<double>(k));
    MPI_Allreduce(values.data(), sums.data(), count, MPI_DOUBLE, MPI_SUM, comm);
    own_allreduce(values.data(), reference.data(), count, MPI_DOUBLE, MPI_SUM, comm);
    ++tally.allreduce;
    for (std::size_t k = 0; k < sums.size(); ++k)
      checker.expect(std::abs(sums[k] - reference[k]) <= 1e-12 * std::abs(reference[k]),
                     fmt::format("MPI_Allreduce of doubles, {}: element {}: {} against {}", name, k,
                                 sums[k], reference[k]));

    struct ValueRank {
      int value, rank;
    };
    std::vector<ValueRank> pairs(ints.size()), low(ints.size()), low_want(ints.size());
    for (std::size_t k = 0; k < pairs.size(); ++k)
      pairs[k] = {static_cast<int>((k * 7 + static_cast<std::size_t>(rank) * 3) % 5), rank};
    MPI_Allreduce(pairs.data(), low.data(), count, MPI_2INT, MPI_MINLOC, comm);
    own_allreduce(pairs.data(), low_want.data(), count, MPI_2INT, MPI_MINLOC, comm);
    ++tally.allreduce;
    for (std::size_t k = 0; k < low.size(); ++k)
      checker.expect(low[k].value == low_want[k].value && low[k].rank == low_want[k].rank,
                     fmt::format("MPI_Allreduce MINLOC, {}: element {}", name, k));

    for (int root : {0, n - 1}) {
      std::vector<int> data(ints.size()), data_want(ints.size());
      for (std::size_t k = 0; k < data.size(); ++k)
        data[k] = data_want[k] = rank == root ? static_cast<int>(k) * 3 + root : -1;
      MPI_Bcast(data.data(), count, MPI_INT, root, comm);
      own_bcast(data_want.data(), count, MPI_INT, root, comm);
      ++tally.bcast;
      checker.expect(data == data_want, fmt::format("MPI_Bcast from {}, {}", root, name));
    }

    std::vector<int> all(ints.size() * static_cast<std::size_t>(n)), all_want(all.size());
    MPI_Allgather(ints.data(), count, MPI_INT, all.data(), count, MPI_INT, comm);
    own_allgather(ints.data(), count, MPI_INT, all_want.data(), count, MPI_INT, comm);
    ++tally.allgather;
    checker.expect(all == all_want, "MPI_Allgather, " + name);
  }
  MPI_Op_free(&user_sum);
}

/// Rank 0, after MPI_Finalize: the report must exist, count every call, and (if asked) show
/// calls choreo took.
int check_report(const Tally& tally, int ranks, const std::string& expect_choreo) {
  const char* path = std::getenv("CHOREO_REPORT");
  if (path == nullptr) {
    fmt::print(stderr, "intercept: --expect-report needs CHOREO_REPORT=FILE.json\n");
    return 1;
  }
  std::ifstream in(path);
  nlohmann::json report;
  try {
    report = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    fmt::print(stderr, "intercept: FAILED: the report {} does not read: {}\n", path, e.what());
    return 1;
  }
  int failures = 0;
  auto expect = [&](bool ok, const std::string& what) {
    if (ok) return;
    ++failures;
    fmt::print(stderr, "intercept: FAILED: report: {}\n", what);
  };
  expect(report.value("format", "") == "choreo.report/1", "format is not choreo.report/1");
  expect(report.value("ranks", 0) == ranks, "ranks differ");
  for (auto [function, calls] :
       {std::pair{"MPI_Alltoallv", tally.alltoallv},
        std::pair{"MPI_Neighbor_alltoallv", tally.neighbor},
        std::pair{"MPI_Allreduce", tally.allreduce}, std::pair{"MPI_Bcast", tally.bcast},
        std::pair{"MPI_Allgather", tally.allgather}}) {
    const nlohmann::json f = report["functions"].value(function, nlohmann::json::object());
    const long counted = f.value("calls", 0L);
    expect(counted == calls * ranks, fmt::format("{}: {} calls counted, the ranks made {}",
                                                 function, counted, calls * ranks));
    expect(f.value("choreo", 0L) + f.value("fallback", 0L) == counted,
           fmt::format("{}: choreo + fallback != calls", function));
    if (expect_choreo.find(std::string(function) + ",") != std::string::npos)
      expect(f.value("choreo", 0L) > 0, fmt::format("{}: choreo took no call", function));
  }
  return failures;
}

}  // namespace

int main(int argc, char** argv) {
  bool expect_report = false;
  std::string expect_choreo;  // "MPI_Alltoallv,MPI_Bcast," (each name followed by a comma)
  for (int k = 1; k < argc; ++k) {
    expect_report = expect_report || std::strcmp(argv[k], "--expect-report") == 0;
    if (std::strcmp(argv[k], "--expect-choreo") == 0 && k + 1 < argc)
      expect_choreo = std::string(argv[++k]) + ",";
  }
  MPI_Init(&argc, &argv);
  int rank = 0, n = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  Checker checker("intercept", rank);
  Tally tally;

  // Scoped: the derived types are freed before MPI_Finalize.
  auto type_pairs = std::make_unique<choreo::test::TestTypePairs>();
  const std::vector<TypePair>& types = type_pairs->pairs();

  alltoallv_cases(MPI_COMM_WORLD, "MPI_COMM_WORLD", types, checker, tally);

  // A communicator numbered backwards, a duplicate, halves of different sizes, MPI_COMM_SELF.
  MPI_Comm reversed = MPI_COMM_NULL, duplicate = MPI_COMM_NULL, half = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, 0, n - rank, &reversed);
  alltoallv_cases(reversed, "a reversed communicator", {types[1]}, checker, tally);
  MPI_Comm_dup(MPI_COMM_WORLD, &duplicate);
  alltoallv_cases(duplicate, "a duplicate of MPI_COMM_WORLD", {types[3]}, checker, tally);
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  alltoallv_cases(half, "half of the ranks", {types[0]}, checker, tally);
  alltoallv_cases(MPI_COMM_SELF, "MPI_COMM_SELF", {types[2]}, checker, tally);

  // An intercommunicator between the halves: handed to MPI, still right.
  if (n >= 2) {
    MPI_Comm inter = MPI_COMM_NULL;
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 77, &inter);
    int remote = 0;
    MPI_Comm_remote_size(inter, &remote);
    checker.count_case();
    std::vector<int> counts(static_cast<std::size_t>(remote), 3), displs(counts.size());
    for (std::size_t k = 0; k < displs.size(); ++k) displs[k] = static_cast<int>(3 * k);
    std::vector<std::byte> send(3 * sizeof(int) * counts.size()), got(send.size()),
        reference(send.size());
    fill(send, 40u + static_cast<std::uint64_t>(rank));
    MPI_Alltoallv(send.data(), counts.data(), displs.data(), MPI_INT, got.data(), counts.data(),
                  displs.data(), MPI_INT, inter);
    ++tally.alltoallv;
    own_alltoallv(send.data(), counts.data(), displs.data(), MPI_INT, reference.data(),
                  counts.data(), displs.data(), MPI_INT, inter);
    checker.expect(compare(got, reference).empty(),
                   "intercommunicator: " + compare(got, reference));
    MPI_Comm_free(&inter);
  }
  MPI_Comm_free(&reversed);
  MPI_Comm_free(&duplicate);
  MPI_Comm_free(&half);

  neighbor_cases(types, checker, tally);
  collective_cases(MPI_COMM_WORLD, "MPI_COMM_WORLD", checker, tally);
  MPI_Comm odd = MPI_COMM_NULL;  // 3 of 5 ranks, 2 of 4: a fold in the butterfly when odd
  MPI_Comm_split(MPI_COMM_WORLD, rank < (n + 1) / 2 ? 0 : 1, rank, &odd);
  collective_cases(odd, "a split communicator", checker, tally);
  MPI_Comm_free(&odd);
  type_pairs.reset();

  int failures = 0;
  const int mine = checker.failures();
  MPI_Allreduce(&mine, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  ++tally.allreduce;  // intercepted too
  MPI_Finalize();
  if (rank == 0 && expect_report) failures += check_report(tally, n, expect_choreo);
  if (rank == 0) {
    if (failures == 0)
      fmt::print("intercept: {} cases OK\n", checker.cases());
    else
      fmt::print("intercept: {} checks FAILED\n", failures);
  }
  return failures == 0 ? 0 : 1;
}
