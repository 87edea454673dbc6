// choreo::resilient_allreduce under mpiexec, against MPI_Allreduce (the MPI library's own, on
// the same inputs): every type x op x count x T x in-place; hundreds of calls in a row with
// different data, T, counts and communicators and the caller's own messages in between; one
// rank held back so that its partners must finish from a copy; noise injection; misuse.
// Prints "resilient: N cases OK" on rank 0; any failure aborts with the case named.
#include <fmt/format.h>
#include <mpi.h>

#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "../../src/mpi/resilient_stage_hook.hpp"
#include "choreo/core/error.hpp"
#include "choreo/jitter/allreduce.hpp"
#include "choreo/mpi/noise_injector.hpp"
#include "choreo/mpi/resilient_allreduce.hpp"

namespace {

int g_rank = 0, g_ranks = 1, g_stages = 0, g_cases = 0;

[[noreturn]] void fail(const std::string& message) {
  fmt::print(stderr, "rank {}: FAILED: {}\n", g_rank, message);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

/// Inputs whose reductions are exact in every type (integers; doubles that are halves of
/// small integers), so any order of combination gives MPI_Allreduce's bits.
template <typename T>
T value(int call, int rank, std::int64_t i) {
  const std::int64_t base = (i * 131 + rank * 17 + call * 29 + (i >> 7)) % 2001 - 1000;
  if constexpr (std::is_same_v<T, double>) return static_cast<double>(base) * 0.5;
  if constexpr (std::is_same_v<T, std::int64_t>) return base + (std::int64_t{rank + 1} << 33);
  return static_cast<T>(base);
}

const char* op_name(MPI_Op op) {
  if (op == MPI_SUM) return "sum";
  if (op == MPI_MAX) return "max";
  if (op == MPI_MIN) return "min";
  return "user op";
}

/// What MPI_Allreduce gives for call `call`'s data: the reference of the type x op matrix and
/// of the few calls whose setting is special (held back, user op).
template <typename T>
std::vector<T> mpi_reference(MPI_Datatype type, MPI_Op op, int count, int call, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::vector<T> send(static_cast<std::size_t>(count)), out(send.size());
  for (std::size_t i = 0; i < send.size(); ++i)
    send[i] = value<T>(call, rank, static_cast<std::int64_t>(i));
  MPI_Allreduce(send.data(), out.data(), count, type, op, comm);
  return out;
}

/// The same result computed on each rank from every rank's inputs (sum, max or min): the
/// reference of the long runs, where an MPI_Allreduce per call would double the time of a
/// test that oversubscribed ranks make slow (each blocking call waits for time slices).
template <typename T>
std::vector<T> local_reference(MPI_Op op, int count, int call, int ranks) {
  std::vector<T> out(static_cast<std::size_t>(count));
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto at = static_cast<std::int64_t>(i);
    T acc = value<T>(call, 0, at);
    for (int r = 1; r < ranks; ++r) {
      const T x = value<T>(call, r, at);
      acc = op == MPI_SUM   ? static_cast<T>(acc + x)
            : op == MPI_MAX ? std::max(acc, x)
                            : std::min(acc, x);
    }
    out[i] = acc;
  }
  return out;
}

/// One call on `comm` with call `call`'s data, compared with `reference`; the send buffer
/// must come back unchanged.
template <typename T>
void check_call(MPI_Datatype type, MPI_Op op, int count, int redundant, bool in_place, int call,
                MPI_Comm comm, const char* label, const std::vector<T>& reference) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const auto n = static_cast<std::size_t>(count);
  std::vector<T> send(n), recv(n);
  for (std::size_t i = 0; i < n; ++i) {
    send[i] = value<T>(call, rank, static_cast<std::int64_t>(i));
    recv[i] = in_place ? send[i] : static_cast<T>(-77);
  }
  choreo::resilient_allreduce(in_place ? MPI_IN_PLACE : send.data(), recv.data(), count, type, op,
                              comm, redundant);
  for (std::size_t i = 0; i < n; ++i) {
    if (recv[i] != reference[i])
      fail(fmt::format(
          "{}: {} count {} T {} in place {} call {}: element {} is {}, "
          "the reference gives {}",
          label, op_name(op), count, redundant, in_place, call, i, recv[i], reference[i]));
    if (!in_place && send[i] != value<T>(call, rank, static_cast<std::int64_t>(i)))
      fail(fmt::format("{}: {} count {} T {}: the send buffer changed at {}", label, op_name(op),
                       count, redundant, i));
  }
}

/// Every op x count x T x in place, against MPI_Allreduce (one per op and count: every T and
/// both in-place settings reduce the same data).
template <typename T>
void matrix(MPI_Datatype type, const char* label) {
  int call = 0;
  for (MPI_Op op : {MPI_SUM, MPI_MAX, MPI_MIN})
    for (int count : {0, 1, 7, 1000, 100003}) {
      ++call;
      const std::vector<T> reference = mpi_reference<T>(type, op, count, call, MPI_COMM_WORLD);
      for (int redundant = 0; redundant <= g_stages; ++redundant)
        for (bool in_place : {false, true}) {
          check_call<T>(type, op, count, redundant, in_place, call, MPI_COMM_WORLD, label,
                        reference);
          ++g_cases;
        }
    }
}

/// A commutative user op (sum modulo 1000003) on int32: not a predefined op, same checks.
void sum_mod(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const std::int32_t*>(in);
  auto* b = static_cast<std::int32_t*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = ((a[i] + b[i]) % 1000003 + 1000003) % 1000003;
}

void user_op_cases() {
  MPI_Op op = MPI_OP_NULL;
  MPI_Op_create(sum_mod, 1, &op);
  const auto reference = mpi_reference<std::int32_t>(MPI_INT32_T, op, 1001, 77, MPI_COMM_WORLD);
  for (int redundant = 0; redundant <= g_stages; ++redundant) {
    check_call<std::int32_t>(MPI_INT32_T, op, 1001, redundant, redundant % 2 == 1, 77,
                             MPI_COMM_WORLD, "int32 user op", reference);
    ++g_cases;
  }
  MPI_Op_free(&op);
}

/// Many calls in a row: data, count, op and T change every call, two communicators take
/// turns, and the caller's own messages (received with MPI_ANY_TAG) travel in between. Any
/// message of one call matched by another would give a wrong element or an internal-error tag.
void sequence_cases(int calls) {
  MPI_Comm other = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &other);
  const int counts[] = {1, 7, 1000, 33};
  const MPI_Op ops[] = {MPI_SUM, MPI_MAX, MPI_MIN};
  for (int call = 0; call < calls; ++call) {
    MPI_Comm comm = call % 3 == 2 ? other : MPI_COMM_WORLD;
    const MPI_Op op = ops[call % 3];
    const int count = counts[call % 4];
    check_call<std::int64_t>(MPI_INT64_T, op, count, call % (g_stages + 1), call % 5 == 0,
                             1000 + call, comm, "sequence",
                             local_reference<std::int64_t>(op, count, 1000 + call, g_ranks));
    if (call % 50 == 49) {  // the caller's ring message, matched with MPI_ANY_TAG
      int token = call, got = -1;
      MPI_Sendrecv(&token, 1, MPI_INT, (g_rank + 1) % g_ranks, call, &got, 1, MPI_INT,
                   (g_rank + g_ranks - 1) % g_ranks, MPI_ANY_TAG, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
      if (got != call)
        fail(fmt::format("sequence call {}: the caller's message carried {}", call, got));
    }
    ++g_cases;
  }
  for (MPI_Comm comm : {MPI_COMM_WORLD, other}) {
    choreo::resilient_allreduce_complete(comm);
    MPI_Barrier(comm);
    const choreo::ResilientStats stats = choreo::resilient_allreduce_stats(comm);
    if (stats.pending_requests != 0 || stats.calls_in_flight != 0 || stats.message_waiting)
      fail(
          fmt::format("after {} calls and resilient_allreduce_complete: {} requests pending in "
                      "{} calls, message waiting {}",
                      calls, stats.pending_requests, stats.calls_in_flight, stats.message_waiting));
    MPI_Barrier(comm);
  }
  MPI_Comm_free(&other);  // the attribute's delete callback frees the private duplicate
}

// Held-back rank: at stage `stage`, butterfly rank `held` waits in the hook (its stage
// message already sent) until `releases` other ranks have finished their call and said so.
struct Hold {
  int held = -1, stage = 0, releases = 0;
};
constexpr int kReleaseTag = 4242;

void hold_hook(int stage, int butterfly_rank, void* data) {
  const auto* hold = static_cast<const Hold*>(data);
  if (butterfly_rank != hold->held || stage != hold->stage) return;
  for (int k = 0; k < hold->releases; ++k) {
    int dummy = 0;
    MPI_Recv(&dummy, 1, MPI_INT, MPI_ANY_SOURCE, kReleaseTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}

/// With P = 4 and T >= 1, hold rank `held` at stage 0 until the ranks named in `must_finish`
/// have returned. They can only return by taking a copy (their stage-1 partner, or its
/// partner, is held): if the copy path did not work, this test would hang until ctest's
/// timeout. Their copies_taken must grow; everyone's result must be right.
void held_back_case(int held, const std::vector<int>& must_finish, int redundant, int round) {
  Hold hold{held, 0, static_cast<int>(must_finish.size())};
  choreo::detail::resilient_stage_hook = hold_hook;
  choreo::detail::resilient_stage_hook_data = &hold;
  const std::int64_t before = choreo::resilient_allreduce_stats(MPI_COMM_WORLD).copies_taken;
  const int count = 513 + round;
  std::vector<double> send(static_cast<std::size_t>(count)), recv(send.size(), -1.0);
  for (int i = 0; i < count; ++i)
    send[static_cast<std::size_t>(i)] = value<double>(5000 + round, g_rank, i);
  choreo::resilient_allreduce(send.data(), recv.data(), count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD,
                              redundant);
  bool finisher = false;
  for (int r : must_finish) finisher = finisher || r == g_rank;
  if (finisher) {
    int one = 1;
    MPI_Send(&one, 1, MPI_INT, held, kReleaseTag, MPI_COMM_WORLD);
    if (choreo::resilient_allreduce_stats(MPI_COMM_WORLD).copies_taken != before + 1)
      fail(fmt::format("held-back case {} round {}: rank {} finished without taking a copy", held,
                       round, g_rank));
  }
  choreo::detail::resilient_stage_hook = nullptr;
  std::vector<double> reference(send.size());
  MPI_Allreduce(send.data(), reference.data(), count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (recv != reference)
    fail(fmt::format("held-back case {} round {}: wrong result on rank {}", held, round, g_rank));
  ++g_cases;
}

void held_back_cases() {
  if (g_ranks != 4) return;  // with 2 or 3 ranks the only copy comes from the stage partner
  for (int round = 0; round < 4; ++round) {
    // Rank 3 held after sending its stage-0 partial: 0 and 2 finish the butterfly; 1 waits
    // for 3 at stage 1 and must take 0's copy.
    held_back_case(3, {1}, 1 + round % 2, round);
    // Rank 0 held: 1 and 3 finish the butterfly, 2 waits for 0 at stage 1 and must take 3's
    // copy. Rank 0 then finds copies and 1's partial waiting; if it takes a copy at stage 0
    // it sends 2 the final result in place of its stage-1 partial.
    held_back_case(0, {2}, 1 + round % 2, round);
    // Calls right after, with everything the held-back calls left in flight.
    check_call<double>(MPI_DOUBLE, MPI_SUM, 1000, g_stages, false, 6000 + round, MPI_COMM_WORLD,
                       "after held-back",
                       local_reference<double>(MPI_SUM, 1000, 6000 + round, g_ranks));
  }
}

void noise_cases() {
  const int noise_signal = SIGRTMIN + 4;
  // The injector must put back whatever handler it found.
  using SigAction = struct sigaction;
  SigAction marker{}, seen{};
  marker.sa_handler = [](int) {};
  sigemptyset(&marker.sa_mask);
  sigaction(noise_signal, &marker, nullptr);
  std::int64_t windows = 0, calls = 0;
  {
    choreo::NoiseInjector noise({.duration_ns = 200'000,
                                 .period_ns = 1'000'000,
                                 .seed = 7u + static_cast<unsigned>(g_rank)});
    bool refused = false;
    try {
      choreo::NoiseInjector second({.duration_ns = 1000, .period_ns = 1'000'000});
    } catch (const choreo::Error&) {
      refused = true;
    }
    if (!refused) fail("a second NoiseInjector was accepted while one is alive");
    // At least 20 calls, and until every rank has met at least 3 windows since the loop began
    // (the windows decide, not the time).
    const std::int64_t before = noise.windows();
    for (int all_met = 0; !all_met; ++calls) {
      if (calls > 20000) fail("noise: 20000 calls and still not 3 windows on every rank");
      const int call = 7000 + static_cast<int>(calls);
      check_call<double>(MPI_DOUBLE, MPI_SUM, 1000, static_cast<int>(calls % (g_stages + 1)),
                         calls % 2 == 1, call, MPI_COMM_WORLD, "noise",
                         local_reference<double>(MPI_SUM, 1000, call, g_ranks));
      int met = noise.windows() - before >= 3 && calls >= 20 ? 1 : 0;
      MPI_Allreduce(&met, &all_met, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    }
    windows = noise.windows() - before;
  }
  sigaction(noise_signal, nullptr, &seen);
  if (seen.sa_handler != marker.sa_handler)
    fail("NoiseInjector did not restore the signal's previous handler");
  signal(noise_signal, SIG_DFL);
  bool refused = false;
  try {
    choreo::NoiseInjector bad({.duration_ns = 2'000'000, .period_ns = 1'000'000});
  } catch (const choreo::Error& e) {
    refused = std::string(e.what()).find("duration < period") != std::string::npos;
  }
  if (!refused) fail("NoiseInjector accepted a duration longer than its period");
  if (g_rank == 0)
    fmt::print("noise: {} calls checked under {} windows of 200 us every 1 ms on rank 0\n", calls,
               windows);
  ++g_cases;
}

void expect_error(const std::string& what, const std::string& needle, void (*call)()) {
  try {
    call();
  } catch (const choreo::Error& e) {
    if (std::string(e.what()).find(needle) == std::string::npos)
      fail(fmt::format("{}: message '{}' does not say '{}'", what, e.what(), needle));
    ++g_cases;
    return;
  }
  fail(what + ": no choreo::Error");
}

void not_commutative(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const int*>(in);
  auto* b = static_cast<int*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = a[i];
}

void misuse_cases() {
  expect_error("T too large", "T = ", [] {
    int x = 1, y = 0;
    choreo::resilient_allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, g_stages + 1);
  });
  expect_error("T negative", "pass T in that range", [] {
    int x = 1, y = 0;
    choreo::resilient_allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, -1);
  });
  expect_error("non-commutative op", "not commutative", [] {
    MPI_Op op = MPI_OP_NULL;
    MPI_Op_create(not_commutative, 0, &op);
    int x = 1, y = 0;
    try {
      choreo::resilient_allreduce(&x, &y, 1, MPI_INT, op, MPI_COMM_WORLD, 0);
    } catch (...) {
      MPI_Op_free(&op);
      throw;
    }
    MPI_Op_free(&op);
  });
  expect_error("negative count", "count must be 0 or more", [] {
    int x = 1, y = 0;
    choreo::resilient_allreduce(&x, &y, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, 0);
  });
  // A failed call sends nothing: the next one works.
  check_call<int>(MPI_INT, MPI_SUM, 5, g_stages, false, 9000, MPI_COMM_WORLD, "after misuse",
                  mpi_reference<int>(MPI_INT, MPI_SUM, 5, 9000, MPI_COMM_WORLD));
  ++g_cases;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_ranks);
  g_stages = choreo::jitter::butterfly_stages(g_ranks);
  std::string seconds;  // where the time goes (printed, never checked)
  auto section = [&](const char* name, auto&& body) {
    const double start = MPI_Wtime();
    body();
    seconds += fmt::format(" {} {:.1f}", name, MPI_Wtime() - start);
  };
  try {
    section("int32", [] { matrix<std::int32_t>(MPI_INT32_T, "int32"); });
    section("int64", [] { matrix<std::int64_t>(MPI_INT64_T, "int64"); });
    section("double", [] { matrix<double>(MPI_DOUBLE, "double"); });
    section("user-op", user_op_cases);
    section("misuse", misuse_cases);
    section("sequence", [] { sequence_cases(520); });
    section("held-back", held_back_cases);
    section("noise", noise_cases);
  } catch (const std::exception& e) {
    fail(e.what());
  }
  const std::int64_t copies = choreo::resilient_allreduce_stats(MPI_COMM_WORLD).copies_taken;
  if (g_rank == 0)
    fmt::print("resilient: {} cases OK ({} ranks, K = {}, copies taken on rank 0: {}; s:{})\n",
               g_cases, g_ranks, g_stages, copies, seconds);
  MPI_Finalize();
  return 0;
}
