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

#include "../support/exchange_cases.hpp"
#include "choreo/core/error.hpp"

namespace {

using choreo::ExchangeAlgorithm;
using choreo::NeighborExchange;
using choreo::test::Checker;
using choreo::test::compare;
using choreo::test::fill;
using choreo::test::make_patterns;
using choreo::test::NamedPattern;
using choreo::test::SideLayout;
using choreo::test::TypePair;

struct AlgorithmCase {
  ExchangeAlgorithm algorithm;
  const char* expected_name;  ///< "" for Auto: whichever the model picks
  bool fewest_slots;
};

constexpr AlgorithmCase kAlgorithms[] = {
    {ExchangeAlgorithm::Auto, "", false},
    {ExchangeAlgorithm::Direct, "direct", false},
    {ExchangeAlgorithm::Ring, "ring", false},
    {ExchangeAlgorithm::Delay, "delay", false},
    {ExchangeAlgorithm::Optimal, "optimal", true},
    {ExchangeAlgorithm::OptimalPaced, "optimal-paced", true},
};

/// Did every rank of `comm` get the same plan? One reduction of each value and its negation.
bool same_report_everywhere(const choreo::ExchangeReport& report, MPI_Comm comm) {
  const std::int64_t values[] = {static_cast<std::int64_t>(report.algorithm),
                                 report.slots,
                                 report.delays,
                                 report.predicted_ns,
                                 report.delta_ns,
                                 report.paced ? 1 : 0};
  constexpr int kValues = 6;
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
  const std::string name =
      fmt::format("{} / {} / {} on {}", pattern.name, types.name,
                  *algorithm.expected_name ? algorithm.expected_name : "auto", comm_name);
  checker.count_case();

  NeighborExchange::Options options;
  options.algorithm = algorithm.algorithm;
  NeighborExchange exchange(comm, send.buffer.data(), send.counts.data(), send.displacements.data(),
                            types.send_type, recv.buffer.data(), recv.counts.data(),
                            recv.displacements.data(), types.recv_type, options);

  const choreo::ExchangeReport& report = exchange.report();
  checker.expect(!*algorithm.expected_name || exchange.algorithm() == algorithm.expected_name,
                 fmt::format("{}: algorithm() is \"{}\"", name, exchange.algorithm()));
  checker.expect(same_report_everywhere(report, comm),
                 fmt::format("{}: ranks report different plans", name));
  if (algorithm.fewest_slots && report.messages > 0)
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
  Checker checker("neighbor_exchange", rank);
  try {
    // Datatypes whose size differs from their extent, or whose counts differ per side.
    const choreo::test::TestTypePairs test_types;
    const std::vector<TypePair>& type_pairs = test_types.pairs();

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
