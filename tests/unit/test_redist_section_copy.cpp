// The pack path's copy loops (pack, unpack, copy_between) against a naive walk of the same
// sections, on shapes the plans' random configurations rarely make: matrices wider than the
// copy loops' column tiles, many short pieces, strided pieces, empty triplets, several
// sections, three dimensions. And the shared-memory ring's chunks (message_chunks.hpp): cut
// along the outermost dimension, they hold the same elements in the same order.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "../../src/redist/message_chunks.hpp"
#include "choreo/core/error.hpp"
#include "choreo/redist/message_layout.hpp"
#include "redist_reference.hpp"

namespace choreo::redist::section_copy_test {
namespace {

using testing::Rng;

/// The offsets of a section list in canonical order, by the definition: the outer positions
/// as an odometer (dimension 1 fastest), then dimension 0's triplets in order.
std::vector<std::int64_t> naive_offsets(const std::vector<LocalSection>& sections) {
  std::vector<std::int64_t> out;
  for (const LocalSection& s : sections) {
    std::vector<std::int64_t> positions{0};
    for (std::size_t d = 1; d < s.dims.size(); ++d) {
      // Dimension d moves slower than every dimension before it.
      std::vector<std::int64_t> next;
      for (const LocalTriplet& t : s.dims[d])
        for (std::int64_t k = 0; k < t.count; ++k)
          for (std::int64_t p : positions) next.push_back(p + t.start + k * t.stride);
      positions = std::move(next);
    }
    for (std::int64_t p : positions)
      for (const LocalTriplet& t : s.dims[0])
        for (std::int64_t k = 0; k < t.count; ++k) out.push_back(p + t.start + k * t.stride);
  }
  return out;
}

/// Non-overlapping triplets from `from` on, `unit` apart per step (rows: 1; columns: the
/// leading dimension). Returns the first free index after them.
std::int64_t add_triplets(Rng& rng, std::vector<LocalTriplet>& list, std::int64_t from,
                          std::int64_t unit, int triplets, std::int64_t largest) {
  for (int k = 0; k < triplets; ++k) {
    const std::int64_t start = from + rng.in(0, 3);
    const std::int64_t stride = rng.chance(70) ? 1 : rng.in(2, 4);
    const std::int64_t count = rng.chance(10) ? 0 : rng.in(1, largest);
    list.push_back({start * unit, stride * unit, count});
    from = start + (count > 0 ? (count - 1) * stride : 0) + 1;
  }
  return from;
}

/// 1-3 disjoint sections of two dimensions (sometimes three) over an array; `extent` is set to
/// the array's length in elements.
std::vector<LocalSection> random_sections(Rng& rng, std::int64_t& extent) {
  std::vector<LocalSection> sections;
  std::int64_t base = 0;  // the next free column (two dimensions) or plane (three)
  const bool three = rng.chance(20);
  const int count = rng.pick(1, 3);
  const std::int64_t rows = 128, planes = 64;  // leading dimensions: rows, columns a plane
  for (int k = 0; k < count; ++k) {
    LocalSection s;
    s.dims.resize(three ? 3 : 2);
    // Short pieces mostly (block-cyclic pieces of 1-8 elements), a long one sometimes; within
    // the leading dimension.
    do {
      s.dims[0].clear();
    } while (add_triplets(rng, s.dims[0], 0, 1, rng.pick(1, 6), rng.chance(80) ? 8 : 20) > rows);
    if (three) {
      add_triplets(rng, s.dims[1], 0, rows, rng.pick(1, 2), 5);  // under `planes` columns
      base = add_triplets(rng, s.dims[2], base, rows * planes, rng.pick(1, 2), 4);
    } else {
      base = add_triplets(rng, s.dims[1], base, rows, rng.pick(1, 3), 150);
    }
    sections.push_back(std::move(s));
  }
  extent = (base + 1) * rows * (three ? planes : 1);
  return sections;
}

TEST(RedistSectionCopy, PackUnpackAndLocalCopyMatchTheNaiveWalk) {
  Rng rng(20261125);
  int nonempty = 0;
  for (int trial = 0; trial < 400; ++trial) {
    std::int64_t extent = 0;
    const std::vector<LocalSection> sections = random_sections(rng, extent);
    const std::vector<std::int64_t> offsets = naive_offsets(sections);
    SCOPED_TRACE(trial);
    std::vector<double> array(static_cast<std::size_t>(extent));
    for (std::size_t i = 0; i < array.size(); ++i) array[i] = static_cast<double>(i) + 0.25;
    const std::int64_t n = static_cast<std::int64_t>(offsets.size());
    if (n > 0) ++nonempty;
    std::vector<double> buffer(offsets.size() + 1, -2.0);
    ASSERT_EQ(pack(sections, array.data(), buffer.data(), sizeof(double)), n * 8);
    for (std::size_t e = 0; e < offsets.size(); ++e)
      ASSERT_EQ(buffer[e], array[static_cast<std::size_t>(offsets[e])]) << "packed element " << e;
    ASSERT_EQ(buffer.back(), -2.0) << "pack wrote past its elements";

    std::vector<double> target(array.size(), -1.0), expected = target;
    for (std::size_t e = 0; e < offsets.size(); ++e)
      expected[static_cast<std::size_t>(offsets[e])] = static_cast<double>(e);
    std::vector<double> packed(offsets.size());
    for (std::size_t e = 0; e < packed.size(); ++e) packed[e] = static_cast<double>(e);
    ASSERT_EQ(unpack(sections, packed.data(), target.data(), sizeof(double)), n * 8);
    ASSERT_EQ(target, expected) << "unpack";

    // The local copy between these sections and one contiguous run of the same elements.
    const std::vector<LocalSection> contiguous{LocalSection{{{{0, 1, n}}}}};
    std::vector<double> gathered(offsets.size(), -1.0);
    copy_between(sections, array.data(), contiguous, gathered.data(), sizeof(double));
    for (std::size_t e = 0; e < offsets.size(); ++e)
      ASSERT_EQ(gathered[e], array[static_cast<std::size_t>(offsets[e])]) << "copy out " << e;
    std::vector<double> scattered(array.size(), -1.0);
    copy_between(contiguous, packed.data(), sections, scattered.data(), sizeof(double));
    ASSERT_EQ(scattered, expected) << "copy in";
  }
  EXPECT_GT(nonempty, 350);
}

/// Triplets holding `total` indices in all, from `from` on, `unit` apart per step, in pieces
/// of 1-`largest` (strided sometimes, empty sometimes). Returns the first free index after them.
std::int64_t triplets_holding(Rng& rng, std::vector<LocalTriplet>& list, std::int64_t from,
                              std::int64_t unit, std::int64_t total, std::int64_t largest) {
  while (total > 0) {
    const std::int64_t start = from + rng.in(0, 3);
    const std::int64_t stride = rng.chance(70) ? 1 : rng.in(2, 4);
    const std::int64_t count = rng.chance(10) ? 0 : std::min(total, rng.in(1, largest));
    list.push_back({start * unit, stride * unit, count});
    from = start + (count > 0 ? (count - 1) * stride : 0) + 1;
    total -= count;
  }
  return from;
}

TEST(RedistSectionCopy, LocalCopyBetweenTwoMatricesMatchesTheNaiveWalk) {
  // A rank's local copy between two block-cyclic layouts: one matrix section on each side,
  // the same shape, cut into different pieces (copy_between's array-to-array path).
  Rng rng(20261129);
  for (int trial = 0; trial < 300; ++trial) {
    SCOPED_TRACE(trial);
    const std::int64_t rows = rng.in(1, 40), columns = rng.in(1, 150), ld = 128;
    std::vector<LocalSection> a(1), b(1);
    for (LocalSection* s : {&a[0], &b[0]}) {
      s->dims.resize(2);
      triplets_holding(rng, s->dims[0], 0, 1, rows, rng.chance(80) ? 8 : 20);
      triplets_holding(rng, s->dims[1], 0, ld, columns, rng.chance(50) ? 5 : 64);
    }
    ASSERT_TRUE(matrix_pair(a, b));
    const std::vector<std::int64_t> from = naive_offsets(a), to = naive_offsets(b);
    ASSERT_EQ(from.size(), to.size());
    const auto extent_of = [&](const std::vector<std::int64_t>& offsets) {
      return static_cast<std::size_t>(*std::max_element(offsets.begin(), offsets.end()) + 1);
    };
    std::vector<double> array(extent_of(from));
    for (std::size_t i = 0; i < array.size(); ++i) array[i] = static_cast<double>(i) + 0.5;
    std::vector<double> target(extent_of(to) + 1, -1.0), expected = target;
    for (std::size_t e = 0; e < from.size(); ++e)
      expected[static_cast<std::size_t>(to[e])] = array[static_cast<std::size_t>(from[e])];
    copy_between(a, array.data(), b, target.data(), sizeof(double));
    ASSERT_EQ(target, expected);
  }
  // Not a pair: different shapes, or a section list of more than one section.
  const LocalSection m{{{{0, 1, 4}}, {{0, 8, 3}}}}, wide{{{{0, 1, 2}}, {{0, 8, 6}}}};
  EXPECT_FALSE(matrix_pair({m}, {wide}));
  EXPECT_FALSE(matrix_pair({m, m}, {m}));
  EXPECT_TRUE(matrix_pair({m}, {m}));
}

TEST(RedistSectionCopy, ElementsOfOtherSizes) {
  // 4-, 12- and 16-byte elements through the same loops (the fixed-size piece copies are
  // chosen by bytes, not by element).
  Rng rng(5);
  for (const std::int64_t bytes : {4, 12, 16}) {
    for (int trial = 0; trial < 50; ++trial) {
      std::int64_t extent = 0;
      const std::vector<LocalSection> sections = random_sections(rng, extent);
      const std::vector<std::int64_t> offsets = naive_offsets(sections);
      std::vector<unsigned char> array(static_cast<std::size_t>(extent * bytes));
      for (std::size_t i = 0; i < array.size(); ++i) array[i] = static_cast<unsigned char>(i * 7);
      std::vector<unsigned char> buffer(offsets.size() * static_cast<std::size_t>(bytes));
      pack(sections, array.data(), buffer.data(), bytes);
      std::vector<unsigned char> back(array.size(), 0);
      unpack(sections, buffer.data(), back.data(), bytes);
      for (std::size_t e = 0; e < offsets.size(); ++e)
        for (std::int64_t b = 0; b < bytes; ++b) {
          const std::size_t at = static_cast<std::size_t>(offsets[e] * bytes + b);
          ASSERT_EQ(buffer[e * static_cast<std::size_t>(bytes) + static_cast<std::size_t>(b)],
                    array[at]);
          ASSERT_EQ(back[at], array[at]);
        }
    }
  }
}

/// Outer indices of a section list by the definition: each section's outermost triplets.
std::int64_t naive_outer(const std::vector<LocalSection>& sections) {
  std::int64_t n = 0;
  for (const LocalSection& s : sections)
    for (const LocalTriplet& t : s.dims.back()) n += t.count;
  return n;
}

TEST(RedistChunks, ChunksHoldTheMessagesElementsInOrderAndAtMostTheirShare) {
  Rng rng(20261127);
  for (int trial = 0; trial < 400; ++trial) {
    std::int64_t extent = 0;
    const std::vector<LocalSection> sections = random_sections(rng, extent);
    const std::int64_t outer = naive_outer(sections);
    const std::int64_t per_chunk = rng.chance(20) ? 1 : rng.in(1, 40);
    SCOPED_TRACE(::testing::Message() << "trial " << trial << ", " << per_chunk << " per chunk");
    ASSERT_EQ(outer_extent(sections), outer);
    const auto chunks = split_outer(sections, per_chunk);
    ASSERT_EQ(static_cast<std::int64_t>(chunks.size()), (outer + per_chunk - 1) / per_chunk);
    std::vector<std::int64_t> joined;
    for (std::size_t k = 0; k < chunks.size(); ++k) {
      const std::int64_t held = naive_outer(chunks[k]);
      ASSERT_EQ(held, k + 1 < chunks.size() ? per_chunk
                                            : outer - per_chunk * static_cast<std::int64_t>(k))
          << "chunk " << k;
      const std::vector<std::int64_t> part = naive_offsets(chunks[k]);
      // What keeps a chunk inside its ring slot (node_exchange.cpp sizes slots so).
      ASSERT_LE(static_cast<std::int64_t>(part.size()), per_chunk * outer_elements(sections))
          << "chunk " << k;
      joined.insert(joined.end(), part.begin(), part.end());
    }
    ASSERT_EQ(joined, naive_offsets(sections));
  }
}

TEST(RedistChunks, OuterElementsIsTheLargestColumn) {
  // Two sections: 3 + 4 rows by 2 columns, and 2 rows by 5 columns.
  const std::vector<LocalSection> sections{LocalSection{{{{0, 1, 3}, {10, 1, 4}}, {{0, 100, 2}}}},
                                           LocalSection{{{{0, 2, 2}}, {{300, 100, 5}}}}};
  EXPECT_EQ(outer_elements(sections), 7);
  EXPECT_EQ(outer_extent(sections), 7);
  EXPECT_THROW(split_outer(sections, 0), Error);
}

}  // namespace
}  // namespace choreo::redist::section_copy_test
