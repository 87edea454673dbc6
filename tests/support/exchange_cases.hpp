#pragma once
// What the MPI tests of choreo's MPI_Alltoallv replacements share: patterns as unit matrices,
// datatype pairs with matching signatures, buffer layouts (packed or spread, blocks in
// reverse order with gaps), seeded fills and a byte comparison, and a checker that counts.
#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace choreo::test {

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

class Checker {
 public:
  Checker(std::string name, int rank) : name_(std::move(name)), rank_(rank) {}
  void expect(bool ok, const std::string& what) {
    if (ok) return;
    ++failures_;
    fmt::print(stderr, "{}: rank {}: FAILED: {}\n", name_, rank_, what);
  }
  void count_case() { ++cases_; }
  int failures() const { return failures_; }
  int cases() const { return cases_; }

 private:
  std::string name_;
  int rank_;
  int failures_ = 0;
  int cases_ = 0;
};

/// The test patterns on n ranks (every rank builds the same).
inline std::vector<NamedPattern> make_patterns(int n) {
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

inline std::byte byte_at(std::uint64_t seed, std::size_t offset) {
  std::uint64_t x = seed + 0x9e3779b97f4a7c15ULL * (offset + 1);
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return static_cast<std::byte>((x ^ (x >> 31)) & 0xff);
}

inline void fill(std::vector<std::byte>& buffer, std::uint64_t seed) {
  for (std::size_t k = 0; k < buffer.size(); ++k) buffer[k] = byte_at(seed, k);
}

/// "" when equal, else where they first differ.
inline std::string compare(const std::vector<std::byte>& got,
                           const std::vector<std::byte>& expected) {
  auto [a, b] = std::mismatch(got.begin(), got.end(), expected.begin());
  if (a == got.end()) return {};
  return fmt::format("byte {} of {} differs from MPI_Alltoallv's: got 0x{:02x}, expected 0x{:02x}",
                     a - got.begin(), got.size(), static_cast<unsigned>(*a),
                     static_cast<unsigned>(*b));
}

/// The datatype pairs every pattern is tried with: a packed MPI_INT, a spread MPI_DOUBLE, a
/// 3-int contiguous type received as 3 MPI_INTs, and an MPI_INT of extent 8 (strided). Makes
/// the derived types after MPI_Init and frees them on destruction (before MPI_Finalize).
class TestTypePairs {
 public:
  TestTypePairs() {
    MPI_Type_contiguous(3, MPI_INT, &three_ints_);
    MPI_Type_commit(&three_ints_);
    MPI_Type_create_resized(MPI_INT, 0, 2 * static_cast<MPI_Aint>(sizeof(int)), &strided_int_);
    MPI_Type_commit(&strided_int_);
    pairs_ = {
        {"MPI_INT packed", MPI_INT, MPI_INT, 1, 1, false, false},
        {"MPI_DOUBLE spread", MPI_DOUBLE, MPI_DOUBLE, 1, 1, true, true},
        {"3-int type to MPI_INT x3", three_ints_, MPI_INT, 1, 3, false, true},
        {"strided MPI_INT spread", strided_int_, strided_int_, 1, 1, true, true},
    };
  }
  ~TestTypePairs() {
    MPI_Type_free(&three_ints_);
    MPI_Type_free(&strided_int_);
  }
  TestTypePairs(const TestTypePairs&) = delete;
  TestTypePairs& operator=(const TestTypePairs&) = delete;
  const std::vector<TypePair>& pairs() const { return pairs_; }

 private:
  MPI_Datatype three_ints_ = MPI_DATATYPE_NULL, strided_int_ = MPI_DATATYPE_NULL;
  std::vector<TypePair> pairs_;
};

}  // namespace choreo::test
