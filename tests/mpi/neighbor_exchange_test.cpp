// choreo::NeighborExchange under mpiexec: for many patterns, datatypes and buffer layouts and
// for every algorithm, three start/wait rounds with fresh data each, every received byte
// compared with what MPI_Alltoallv delivers for the same arguments (an independent
// reference, including the bytes it must leave alone). Then the errors: mismatched sizes and
// bad arguments must throw the same choreo::Error on every rank, misuse must throw clearly.
//
// Prints "neighbor_exchange: N cases OK" on rank 0 and exits 0 only when every check passed
// on every rank; any mismatch is printed with its rank, case and first differing byte.
#include "choreo/mpi/neighbor_exchange.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "choreo/error.hpp"

namespace {

using choreo::ExchangeAlgorithm;
using choreo::NeighborExchange;

/// units[i][j]: how much rank i sends to rank j, in units that each datatype pair scales.
using UnitMatrix = std::vector<std::vector<int>>;

struct NamedPattern {
  std::string name;
  UnitMatrix units;
};

/// A send and a receive datatype with matching type signatures: `send_per_unit` send elements
/// carry what `recv_per_unit` receive elements hold.
struct TypePair {
  std::string name;
  MPI_Datatype send_type;
  MPI_Datatype recv_type;
  int send_per_unit;
  int recv_per_unit;
  bool spread_send;  ///< blocks in reverse rank order with gaps, rather than packed
  bool spread_recv;
};

struct AlgorithmCase {
  ExchangeAlgorithm algorithm;
  const char* expected_name;
  bool contention_free;
  bool fewest_slots;
};

constexpr AlgorithmCase kAlgorithms[] = {
    {ExchangeAlgorithm::Auto, "optimal", true, true},
    {ExchangeAlgorithm::Direct, "direct", false, false},
    {ExchangeAlgorithm::Ring, "ring", false, false},
    {ExchangeAlgorithm::Delay, "delay-insertion", true, false},
    {ExchangeAlgorithm::Optimal, "optimal", true, true},
};

class Checker {
 public:
  explicit Checker(int rank) : rank_(rank) {}
  void expect(bool ok, const std::string& what) {
    if (ok) return;
    ++failures_;
    fmt::print(stderr, "neighbor_exchange: rank {}: FAILED: {}\n", rank_, what);
  }
  void count_case() { ++cases_; }
  int failures() const { return failures_; }
  int cases() const { return cases_; }

 private:
  int rank_;
  int failures_ = 0;
  int cases_ = 0;
};

std::vector<NamedPattern> make_patterns(int n) {
  auto zeros = [n] { return UnitMatrix(static_cast<std::size_t>(n), std::vector<int>(n, 0)); };
  auto at = [](UnitMatrix& m, int i, int j) -> int& {
    return m[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
  };
  std::vector<NamedPattern> patterns;

  UnitMatrix alltoall = zeros();
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) at(alltoall, i, j) = 5;
  patterns.push_back({"alltoall", alltoall});

  UnitMatrix gather = zeros();
  for (int i = 0; i < n; ++i) at(gather, i, 0) = 7;
  patterns.push_back({"gather", gather});

  UnitMatrix scatter = zeros();
  for (int j = 0; j < n; ++j) at(scatter, n - 1, j) = 3 + j;
  patterns.push_back({"scatter", scatter});

  UnitMatrix triangle = zeros();
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < i; ++j) at(triangle, i, j) = 4;
  patterns.push_back({"triangle", triangle});

  // The same seed on every rank: every rank builds the same matrix.
  UnitMatrix sparse = zeros();
  std::mt19937 generator(2024);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      at(sparse, i, j) = generator() % 2 ? 0 : 1 + static_cast<int>(generator() % 300);
  patterns.push_back({"random-sparse", sparse});

  // Uneven sizes, with one message per rank large enough for the rendezvous protocol.
  UnitMatrix uneven = zeros();
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) at(uneven, i, j) = 1 + (i * 31 + j * 17) % 97 * 37;
  for (int i = 0; i < n; ++i) at(uneven, i, (i + 1) % n) = 40000;
  patterns.push_back({"uneven", uneven});

  patterns.push_back({"empty", zeros()});
  return patterns;
}

/// One side's MPI_Alltoallv arguments and a buffer large enough for them.
struct SideLayout {
  std::vector<int> counts, displacements;
  std::vector<std::byte> buffer;

  SideLayout(std::vector<int> element_counts, MPI_Datatype type, bool spread)
      : counts(std::move(element_counts)), displacements(counts.size()) {
    MPI_Aint lower_bound = 0, extent = 0;
    MPI_Type_get_extent(type, &lower_bound, &extent);
    int cursor = 0;
    const int n = static_cast<int>(counts.size());
    for (int k = 0; k < n; ++k) {
      // Spread: blocks in reverse rank order, with a gap of k + 1 elements before each.
      const int peer = spread ? n - 1 - k : k;
      if (spread) cursor += k + 1;
      displacements[static_cast<std::size_t>(peer)] = cursor;
      cursor += counts[static_cast<std::size_t>(peer)];
    }
    buffer.resize(static_cast<std::size_t>(cursor * extent) + 1);  // +1: never empty
  }
};

std::byte byte_at(std::uint64_t seed, std::size_t offset) {
  std::uint64_t x = seed + 0x9e3779b97f4a7c15ULL * (offset + 1);
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return static_cast<std::byte>((x ^ (x >> 31)) & 0xff);
}

void fill(std::vector<std::byte>& buffer, std::uint64_t seed) {
  for (std::size_t k = 0; k < buffer.size(); ++k) buffer[k] = byte_at(seed, k);
}

/// "" when equal, else where they first differ.
std::string compare(const std::vector<std::byte>& got, const std::vector<std::byte>& expected) {
  auto [a, b] = std::mismatch(got.begin(), got.end(), expected.begin());
  if (a == got.end()) return {};
  return fmt::format("byte {} of {} differs from MPI_Alltoallv's: got 0x{:02x}, expected 0x{:02x}",
                     a - got.begin(), got.size(), static_cast<unsigned>(*a),
                     static_cast<unsigned>(*b));
}

/// Did every rank of `comm` get the same plan? One reduction of each value and its negation.
bool same_report_everywhere(const choreo::PlanReport& report, MPI_Comm comm) {
  const std::int64_t values[] = {report.slots, report.delays, report.contention_pairs,
                                 report.predicted_ns};
  constexpr int kValues = 4;
  std::int64_t both[2 * kValues], largest[2 * kValues];
  for (int k = 0; k < kValues; ++k) {
    both[k] = values[k];
    both[kValues + k] = -values[k];
  }
  MPI_Allreduce(both, largest, 2 * kValues, MPI_INT64_T, MPI_MAX, comm);
  for (int k = 0; k < kValues; ++k)
    if (largest[k] != -largest[kValues + k]) return false;
  return true;
}

/// Runs one pattern with one datatype pair and one algorithm on `comm`, three rounds.
void run_case(const NamedPattern& pattern, const TypePair& types, const AlgorithmCase& algorithm,
              MPI_Comm comm, const std::string& comm_name, Checker& checker) {
  int rank = 0, n = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &n);
  const auto me = static_cast<std::size_t>(rank);
  std::vector<int> send_counts(static_cast<std::size_t>(n)), recv_counts(send_counts.size());
  for (std::size_t peer = 0; peer < send_counts.size(); ++peer) {
    send_counts[peer] = pattern.units[me][peer] * types.send_per_unit;
    recv_counts[peer] = pattern.units[peer][me] * types.recv_per_unit;
  }
  SideLayout send(send_counts, types.send_type, types.spread_send);
  SideLayout recv(recv_counts, types.recv_type, types.spread_recv);
  std::vector<std::byte> reference(recv.buffer.size());
  const std::string name = fmt::format("{} / {} / {} on {}", pattern.name, types.name,
                                       algorithm.expected_name, comm_name);
  checker.count_case();

  NeighborExchange::Options options;
  options.algorithm = algorithm.algorithm;
  NeighborExchange exchange(comm, send.buffer.data(), send.counts.data(), send.displacements.data(),
                            types.send_type, recv.buffer.data(), recv.counts.data(),
                            recv.displacements.data(), types.recv_type, options);

  const choreo::PlanReport& report = exchange.report();
  checker.expect(exchange.algorithm() == algorithm.expected_name,
                 fmt::format("{}: algorithm() is \"{}\"", name, exchange.algorithm()));
  checker.expect(same_report_everywhere(report, comm),
                 fmt::format("{}: ranks report different plans", name));
  if (algorithm.contention_free)
    checker.expect(report.contention_pairs == 0,
                   fmt::format("{}: {} contention pairs", name, report.contention_pairs));
  if (algorithm.fewest_slots)
    checker.expect(report.slots == report.degree_bound,
                   fmt::format("{}: {} slots, the degree bound is {}", name, report.slots,
                               report.degree_bound));

  for (int round = 0; round < 3; ++round) {
    const auto seed = static_cast<std::uint64_t>(checker.cases()) * 1000003u +
                      static_cast<std::uint64_t>(round) * 1009u + me;
    fill(send.buffer, seed);
    fill(recv.buffer, ~seed);  // poison: what MPI must not touch stays equal too
    reference = recv.buffer;
    exchange.start();
    checker.expect(exchange.active(), fmt::format("{}: not active after start()", name));
    exchange.wait();
    MPI_Alltoallv(send.buffer.data(), send.counts.data(), send.displacements.data(),
                  types.send_type, reference.data(), recv.counts.data(), recv.displacements.data(),
                  types.recv_type, comm);
    const std::string difference = compare(recv.buffer, reference);
    checker.expect(difference.empty(), fmt::format("{}, round {}: {}", name, round, difference));
  }
}

/// Constructs an exchange that must fail on every rank with a message containing `expected`.
void expect_collective_error(MPI_Comm comm, const std::string& name, const std::string& expected,
                             const std::function<void()>& construct, Checker& checker) {
  checker.count_case();
  std::string message;
  try {
    construct();
  } catch (const choreo::Error& e) {
    message = e.what();
  }
  checker.expect(
      message.find(expected) != std::string::npos,
      fmt::format("{}: expected an error containing \"{}\", got \"{}\"", name, expected, message));
  MPI_Barrier(comm);  // keep the ranks in step before the next case
}

void error_cases(MPI_Comm comm, Checker& checker) {
  int rank = 0, n = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &n);
  const auto size = static_cast<std::size_t>(n);
  std::vector<int> counts(size, 2), displacements(size);
  for (std::size_t k = 0; k < size; ++k) displacements[k] = static_cast<int>(3 * k);
  std::vector<int> send(3 * size), recv(3 * size);

  // Rank 1 sends 3 ints to rank 0, which expects 2.
  std::vector<int> send_counts = counts;
  if (rank == 1) send_counts[0] = 3;
  expect_collective_error(
      comm, "mismatched counts",
      "rank 1 sends 12 bytes to rank 0 but rank 0 expects 8 bytes from rank 1",
      [&] {
        NeighborExchange exchange(comm, send.data(), send_counts.data(), displacements.data(),
                                  MPI_INT, recv.data(), counts.data(), displacements.data(),
                                  MPI_INT);
      },
      checker);

  // A negative count on the last rank only.
  send_counts = counts;
  if (rank == n - 1) send_counts[0] = -1;
  expect_collective_error(
      comm, "negative count", fmt::format("rank {}: send_counts[0] = -1 is negative", n - 1),
      [&] {
        NeighborExchange exchange(comm, send.data(), send_counts.data(), displacements.data(),
                                  MPI_INT, recv.data(), counts.data(), displacements.data(),
                                  MPI_INT);
      },
      checker);

  // Tags that differ between ranks would never match: refused up front.
  NeighborExchange::Options options;
  if (rank == 0) options.tag = 5;
  expect_collective_error(
      comm, "different tags", "ranks pass different tags",
      [&] {
        NeighborExchange exchange(comm, send.data(), counts.data(), displacements.data(), MPI_INT,
                                  recv.data(), counts.data(), displacements.data(), MPI_INT,
                                  options);
      },
      checker);

  // Misuse of one (valid) exchange: wait before start, start twice; and moving.
  checker.count_case();
  NeighborExchange exchange(comm, send.data(), counts.data(), displacements.data(), MPI_INT,
                            recv.data(), counts.data(), displacements.data(), MPI_INT);
  auto message_of = [](const std::function<void()>& action) -> std::string {
    try {
      action();
    } catch (const choreo::Error& e) {
      return e.what();
    }
    return "no error";
  };
  std::string message = message_of([&] { exchange.wait(); });
  checker.expect(message.find("not started; call start() first") != std::string::npos,
                 "wait() before start(): " + message);
  exchange.start();
  message = message_of([&] { exchange.start(); });
  checker.expect(message.find("already started; call wait()") != std::string::npos,
                 "start() twice: " + message);
  exchange.wait();

  NeighborExchange moved(std::move(exchange));
  message = message_of([&] { exchange.start(); });  // NOLINT(bugprone-use-after-move)
  checker.expect(message.find("moved from") != std::string::npos,
                 "start() on a moved-from exchange: " + message);
  NeighborExchange assigned(comm, send.data(), counts.data(), displacements.data(), MPI_INT,
                            recv.data(), counts.data(), displacements.data(), MPI_INT);
  assigned = std::move(moved);  // frees the requests `assigned` had
  for (std::size_t k = 0; k < send.size(); ++k) send[k] = rank * 1000 + static_cast<int>(k);
  std::fill(recv.begin(), recv.end(), -1);
  assigned.start();
  assigned.wait();
  for (int source = 0; source < n; ++source)
    for (int k = 0; k < 2; ++k) {
      const int got = recv[static_cast<std::size_t>(3 * source + k)];
      const int expected = source * 1000 + 3 * rank + k;
      checker.expect(got == expected, fmt::format("moved exchange: from rank {} element {}: got "
                                                  "{}, expected {}",
                                                  source, k, got, expected));
    }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, n = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  Checker checker(rank);
  try {
    // Datatypes whose size differs from their extent, or whose counts differ per side.
    MPI_Datatype three_ints = MPI_DATATYPE_NULL, strided_int = MPI_DATATYPE_NULL;
    MPI_Type_contiguous(3, MPI_INT, &three_ints);
    MPI_Type_commit(&three_ints);
    MPI_Type_create_resized(MPI_INT, 0, 2 * static_cast<MPI_Aint>(sizeof(int)), &strided_int);
    MPI_Type_commit(&strided_int);
    const std::vector<TypePair> type_pairs = {
        {"MPI_INT packed", MPI_INT, MPI_INT, 1, 1, false, false},
        {"MPI_DOUBLE spread", MPI_DOUBLE, MPI_DOUBLE, 1, 1, true, true},
        {"3-int type to MPI_INT x3", three_ints, MPI_INT, 1, 3, false, true},
        {"strided MPI_INT spread", strided_int, strided_int, 1, 1, true, true},
    };

    for (const NamedPattern& pattern : make_patterns(n))
      for (const TypePair& types : type_pairs)
        for (const AlgorithmCase& algorithm : kAlgorithms)
          run_case(pattern, types, algorithm, MPI_COMM_WORLD, "MPI_COMM_WORLD", checker);

    // A communicator whose ranks are numbered backwards: ranks are the communicator's.
    MPI_Comm reversed = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, 0, n - rank, &reversed);
    const std::vector<NamedPattern> patterns = make_patterns(n);
    for (const NamedPattern& pattern : patterns)
      if (pattern.name == "random-sparse" || pattern.name == "scatter")
        for (const AlgorithmCase& algorithm : kAlgorithms)
          run_case(pattern, type_pairs[1], algorithm, reversed, "a reversed communicator", checker);
    MPI_Comm_free(&reversed);

    if (n >= 2) error_cases(MPI_COMM_WORLD, checker);
    MPI_Type_free(&three_ints);
    MPI_Type_free(&strided_int);
  } catch (const std::exception& e) {
    fmt::print(stderr, "neighbor_exchange: rank {}: unexpected error: {}\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }

  int failures = 0;
  const int mine = checker.failures();
  MPI_Allreduce(&mine, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    if (failures == 0)
      fmt::print("neighbor_exchange: {} cases OK\n", checker.cases());
    else
      fmt::print("neighbor_exchange: {} checks FAILED\n", failures);
  }
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
