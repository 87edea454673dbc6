// One rank's plan (rank_plan.hpp) against a naive reference on random configurations: sections
// at any offset of arrays of any size, block sizes that divide nothing, 1xP and Px1 grids,
// grids on different and shared subsets of the ranks, a leading dimension of each rank's own,
// and the upper and lower trapezoids of ScaLAPACK's p?trmr2d. The reference walks every
// element of the section, finds its owner and local offset on both sides from the block-cyclic
// formulas (written here, sharing nothing with the library), and lists per (source rank,
// target rank) the element pairs in the section's column-major order. Every rank's plan must
// send exactly the source offsets, in that order, and every receiver place them at exactly the
// target offsets; pack, unpack and the local copy must move the same elements.
#include <gtest/gtest.h>

#include <map>
#include <numeric>

#include "choreo/redist/message_layout.hpp"
#include "choreo/redist/rank_plan.hpp"
#include "redist_reference.hpp"

// A namespace of its own: the unity build compiles this file with test_redist_plan_reference.cpp,
// whose reference helpers have the same names.
namespace choreo::redist::rank_plan_test {
namespace {

using testing::Rng;

// ---- a random configuration and its reference ----------------------------------------------

struct RefDim {
  std::int64_t n = 0, b = 1, start = 0;  // array extent, block size, the section's start
  int p = 1, first = 0;                  // processors, processor of block 0
};

struct RefSide {
  std::vector<RefDim> dims;
  std::vector<int> rank_of;                 // linear coords (dim 0 fastest) -> rank
  std::map<int, std::int64_t> leading_dim;  // per rank (2+ dims): its own LLD
};

struct Config {
  std::vector<std::int64_t> extent;
  RefSide from, to;
  Region region;
  int ranks = 1;
};

int ref_owner(const RefDim& d, std::int64_t i) {
  return static_cast<int>(((d.start + i) / d.b + d.first) % d.p);
}
std::int64_t ref_local(const RefDim& d, std::int64_t i) {
  const std::int64_t g = d.start + i;
  return g / (d.b * d.p) * d.b + g % d.b;
}
std::int64_t ref_rows(const RefDim& d, int proc) {
  std::int64_t rows = 0;
  for (std::int64_t g = 0; g < d.n; ++g) rows += (g / d.b + d.first) % d.p == proc;
  return rows;
}

bool ref_in_region(const Config& c, std::int64_t i, std::int64_t j) {
  if (c.region.part == Part::All) return true;
  const std::int64_t m = c.extent[0], n = c.extent[1];
  // p?trmr2d, read from its definition: upper keeps rows 0..(m-n)+j (diagonal included) when
  // tall, 0..j when wide; lower keeps rows j-(n-m).. when wide, j.. when tall.
  if (c.region.part == Part::Upper) {
    const std::int64_t last = std::max<std::int64_t>(m - n, 0) + j - (c.region.diagonal ? 0 : 1);
    return i <= last;
  }
  const std::int64_t first = j - std::max<std::int64_t>(n - m, 0) + (c.region.diagonal ? 0 : 1);
  return i >= first;
}

/// The processor coordinates of `rank` on a side, or empty.
std::vector<int> ref_coords(const RefSide& s, int rank) {
  for (std::size_t linear = 0; linear < s.rank_of.size(); ++linear) {
    if (s.rank_of[linear] != rank) continue;
    std::vector<int> coords;
    std::size_t rest = linear;
    for (const RefDim& d : s.dims) {
      coords.push_back(static_cast<int>(rest % static_cast<std::size_t>(d.p)));
      rest /= static_cast<std::size_t>(d.p);
    }
    return coords;
  }
  return {};
}

std::vector<std::int64_t> ref_strides(const RefSide& s, int rank) {
  const std::vector<int> coords = ref_coords(s, rank);
  std::vector<std::int64_t> strides(s.dims.size(), 1);
  for (std::size_t d = 1; d < s.dims.size(); ++d) {
    const std::int64_t below = std::max<std::int64_t>(1, ref_rows(s.dims[d - 1], coords[d - 1]));
    strides[d] =
        d == 1 && s.leading_dim.count(rank) ? s.leading_dim.at(rank) : strides[d - 1] * below;
  }
  return strides;
}

using Pairs = std::map<std::pair<int, int>, std::vector<std::pair<std::int64_t, std::int64_t>>>;

/// Every element of the section in column-major order, by (source rank, target rank).
Pairs reference(const Config& c) {
  Pairs out;
  const std::size_t ndims = c.extent.size();
  std::int64_t total = 1;
  for (std::int64_t e : c.extent) total *= e;
  std::map<int, std::vector<std::int64_t>> strides[2];
  for (std::int64_t linear = 0; linear < total; ++linear) {
    std::vector<std::int64_t> index(ndims);
    std::int64_t rest = linear;
    for (std::size_t d = 0; d < ndims; ++d) index[d] = rest % c.extent[d], rest /= c.extent[d];
    if (ndims == 2 && !ref_in_region(c, index[0], index[1])) continue;
    int ranks[2];
    std::int64_t offsets[2];
    for (int side = 0; side < 2; ++side) {
      const RefSide& s = side == 0 ? c.from : c.to;
      std::size_t where = 0, weight = 1;
      for (std::size_t d = 0; d < ndims; ++d) {
        where += static_cast<std::size_t>(ref_owner(s.dims[d], index[d])) * weight;
        weight *= static_cast<std::size_t>(s.dims[d].p);
      }
      ranks[side] = s.rank_of[where];
      auto& st = strides[side];
      if (!st.count(ranks[side])) st[ranks[side]] = ref_strides(s, ranks[side]);
      offsets[side] = 0;
      for (std::size_t d = 0; d < ndims; ++d)
        offsets[side] += ref_local(s.dims[d], index[d]) * st[ranks[side]][d];
    }
    out[{ranks[0], ranks[1]}].push_back({offsets[0], offsets[1]});
  }
  return out;
}

RefSide random_side(Rng& rng, const std::vector<std::int64_t>& extent, int ranks) {
  RefSide s;
  int procs = 1;
  for (std::int64_t e : extent) {
    RefDim d;
    d.start = rng.chance(50) ? 0 : rng.in(0, 9);
    d.n = d.start + e + (rng.chance(50) ? 0 : rng.in(0, 7));
    const int room = std::max(1, ranks / procs);
    d.p = rng.pick(1, std::min(room, 5));
    procs *= d.p;
    d.b = rng.chance(25) ? 1 : rng.chance(20) ? std::max<std::int64_t>(1, d.n) : rng.in(1, 9);
    d.first = rng.pick(0, d.p - 1);
    s.dims.push_back(d);
  }
  // Different subsets of the ranks, in a random order: disjoint or overlapping grids.
  std::vector<int> all(static_cast<std::size_t>(ranks));
  std::iota(all.begin(), all.end(), 0);
  for (std::size_t k = all.size(); k > 1; --k)
    std::swap(all[k - 1], all[static_cast<std::size_t>(rng.in(0, static_cast<int>(k) - 1))]);
  s.rank_of.assign(all.begin(), all.begin() + procs);
  if (extent.size() >= 2)
    for (std::size_t linear = 0; linear < s.rank_of.size(); ++linear)
      if (rng.chance(40)) {
        const int rank = s.rank_of[linear];
        const int row = static_cast<int>(linear % static_cast<std::size_t>(s.dims[0].p));
        s.leading_dim[rank] = std::max<std::int64_t>(1, ref_rows(s.dims[0], row)) + rng.in(0, 5);
      }
  return s;
}

Config random_config(Rng& rng) {
  Config c;
  const int ndims = rng.chance(15) ? 1 : rng.chance(85) ? 2 : 3;
  c.ranks = rng.pick(1, 9);
  for (int d = 0; d < ndims; ++d)
    c.extent.push_back(rng.chance(5) ? 0 : rng.in(1, ndims == 1 ? 60 : ndims == 2 ? 23 : 7));
  c.from = random_side(rng, c.extent, c.ranks);
  c.to = random_side(rng, c.extent, c.ranks);
  if (ndims == 2 && rng.chance(40))
    c.region = {rng.chance(50) ? Part::Upper : Part::Lower, rng.chance(50)};
  return c;
}

// ---- the library's view of the same configuration ------------------------------------------

SideView view_of(const RefSide& s, int rank) {
  SideView v;
  std::vector<int> procs;
  for (const RefDim& d : s.dims) {
    v.dims.push_back({BlockCyclicDim{d.n, d.b, d.p, d.first}, d.start});
    procs.push_back(d.p);
  }
  v.grid = GridMap(procs, s.rank_of);
  v.my_coords = ref_coords(s, rank);
  if (v.holds()) v.my_strides = ref_strides(s, rank);
  return v;
}

/// The offsets a message's sections visit, in order.
std::vector<std::int64_t> offsets_of(const std::vector<LocalSection>& sections) {
  std::vector<std::int64_t> out;
  RunCursor cursor(sections);
  Run run;
  while (cursor.next(run))
    for (std::int64_t k = 0; k < run.count; ++k) out.push_back(run.offset + k * run.stride);
  return out;
}

std::string describe(const Config& c) {
  std::string s = "extent";
  for (std::int64_t e : c.extent) s += " " + std::to_string(e);
  for (const auto* side : {&c.from, &c.to}) {
    s += side == &c.from ? " | from" : " | to";
    for (const RefDim& d : side->dims)
      s += " (n " + std::to_string(d.n) + " b " + std::to_string(d.b) + " p " +
           std::to_string(d.p) + " first " + std::to_string(d.first) + " start " +
           std::to_string(d.start) + ")";
  }
  s += " | region " + std::to_string(static_cast<int>(c.region.part)) +
       (c.region.diagonal ? " diag" : " nodiag") + " | ranks " + std::to_string(c.ranks);
  return s;
}

TEST(RedistRankPlan, MatchesTheReferenceOnRandomConfigurations) {
  Rng rng(20261124);
  int configurations = 0;
  for (int k = 0; k < 1500; ++k) {
    const Config c = random_config(rng);
    SCOPED_TRACE(describe(c));
    const Pairs expected = reference(c);
    Pairs sent, received;
    for (int rank = 0; rank < c.ranks; ++rank) {
      const RankPlan plan =
          plan_rank(view_of(c.from, rank), view_of(c.to, rank), c.extent, c.region, rank);
      for (const auto* side : {&plan.sends, &plan.receives})
        for (const PeerMessage& m : side->messages) {
          const std::vector<std::int64_t> offsets = offsets_of(message_sections(plan, *side, m));
          ASSERT_EQ(static_cast<std::int64_t>(offsets.size()), m.elements);
          const std::pair<int, int> pair =
              side == &plan.sends ? std::pair{rank, m.peer} : std::pair{m.peer, rank};
          Pairs& into = side == &plan.sends ? sent : received;
          ASSERT_FALSE(into.count(pair)) << "two messages for one pair";
          for (std::int64_t o : offsets) into[pair].push_back({o, o});
        }
    }
    ASSERT_EQ(sent.size(), expected.size());
    ASSERT_EQ(received.size(), expected.size());
    for (const auto& [pair, elements] : expected) {
      ASSERT_TRUE(sent.count(pair)) << pair.first << " -> " << pair.second << " missing";
      ASSERT_TRUE(received.count(pair)) << pair.first << " -> " << pair.second << " missing";
      const auto& s = sent.at(pair);
      const auto& r = received.at(pair);
      ASSERT_EQ(s.size(), elements.size());
      ASSERT_EQ(r.size(), elements.size());
      for (std::size_t e = 0; e < elements.size(); ++e) {
        ASSERT_EQ(s[e].first, elements[e].first) << "source offset, element " << e;
        ASSERT_EQ(r[e].first, elements[e].second) << "target offset, element " << e;
      }
    }
    ++configurations;
  }
  EXPECT_EQ(configurations, 1500);
}

TEST(RedistRankPlan, PackUnpackAndLocalCopyMoveTheSameElements) {
  Rng rng(77);
  for (int k = 0; k < 300; ++k) {
    Config c = random_config(rng);
    c.ranks = 1;  // one rank holds both sides: everything is its local copy
    for (auto* side : {&c.from, &c.to}) {
      for (RefDim& d : side->dims) d.p = 1, d.first = 0;
      side->rank_of = {0};
      if (side->leading_dim.size() > 0) side->leading_dim = {{0, side->dims[0].n + 2}};
    }
    SCOPED_TRACE(describe(c));
    const RankPlan plan = plan_rank(view_of(c.from, 0), view_of(c.to, 0), c.extent, c.region, 0);
    const PeerMessage* out = plan.local_send();
    const PeerMessage* in = plan.local_receive();
    ASSERT_EQ(out == nullptr, in == nullptr);
    if (out == nullptr) continue;
    const auto send = message_sections(plan, plan.sends, *out);
    const auto receive = message_sections(plan, plan.receives, *in);
    const std::vector<std::int64_t> from = offsets_of(send), to = offsets_of(receive);
    const std::int64_t source_size = *std::max_element(from.begin(), from.end()) + 1;
    const std::int64_t target_size = *std::max_element(to.begin(), to.end()) + 1;
    std::vector<double> source(static_cast<std::size_t>(source_size));
    for (std::size_t i = 0; i < source.size(); ++i) source[i] = static_cast<double>(i) + 0.5;
    std::vector<double> direct(static_cast<std::size_t>(target_size), -1.0), staged = direct;
    copy_between(send, source.data(), receive, direct.data(), sizeof(double));
    std::vector<double> buffer(from.size());
    EXPECT_EQ(pack(send, source.data(), buffer.data(), sizeof(double)),
              static_cast<std::int64_t>(buffer.size() * sizeof(double)));
    unpack(receive, buffer.data(), staged.data(), sizeof(double));
    for (std::size_t e = 0; e < from.size(); ++e) {
      ASSERT_EQ(buffer[e], source[static_cast<std::size_t>(from[e])]);
      ASSERT_EQ(direct[static_cast<std::size_t>(to[e])], source[static_cast<std::size_t>(from[e])]);
      ASSERT_EQ(staged[static_cast<std::size_t>(to[e])], source[static_cast<std::size_t>(from[e])]);
    }
    EXPECT_EQ(shape_of(send).elements, static_cast<std::int64_t>(from.size()));
  }
}

TEST(RedistRankPlan, ContiguousMessagesAreOneRun) {
  // Column blocks of a 10x12 matrix, 1x2 -> 1x3: every message is whole columns.
  RefSide a{{{10, 10, 0, 1, 0}, {12, 6, 0, 2, 0}}, {0, 1}, {}};
  RefSide b{{{10, 10, 0, 1, 0}, {12, 4, 0, 3, 0}}, {0, 1, 2}, {}};
  const RankPlan plan = plan_rank(view_of(a, 1), view_of(b, 1), {10, 12}, {}, 1);
  ASSERT_EQ(plan.sends.messages.size(), 2u);  // columns 6-7 to rank 1, 8-11 to rank 2
  for (const PeerMessage& m : plan.sends.messages) {
    const LayoutShape shape = shape_of(message_sections(plan, plan.sends, m));
    EXPECT_TRUE(shape.contiguous());
    EXPECT_EQ(shape.offset, m.peer == 1 ? 0 : 20);
  }
}

TEST(RedistRankPlan, NormalizeAscendingIsTheGreedyDecomposition) {
  Rng rng(5);
  for (int k = 0; k < 2000; ++k) {
    // A random ascending set, cut into random ascending pieces.
    std::vector<std::int64_t> elements;
    std::int64_t next = rng.in(0, 5);
    for (int n = rng.pick(1, 30); n > 0; --n) elements.push_back(next), next += rng.in(1, 4);
    std::vector<Triplet> pieces;
    for (std::size_t i = 0; i < elements.size();) {
      std::size_t j = i + 1;  // extend while the stride holds and the dice say so
      while (j < elements.size() && rng.chance(70) &&
             (j == i + 1 || elements[j] - elements[j - 1] == elements[i + 1] - elements[i]))
        ++j;
      const std::int64_t stride = j - i > 1 ? elements[i + 1] - elements[i] : 1;
      pieces.push_back(make_triplet(elements[i], elements[j - 1], stride));
      i = j;
    }
    normalize_ascending(pieces);
    // The greedy decomposition, element by element.
    std::vector<Triplet> greedy;
    for (std::size_t i = 0; i < elements.size();) {
      std::size_t j = i + 1;
      if (j < elements.size()) {
        const std::int64_t step = elements[j] - elements[i];
        while (j + 1 < elements.size() && elements[j + 1] - elements[j] == step) ++j;
        greedy.push_back(make_triplet(elements[i], elements[j], step));
        i = j + 1;
      } else {
        greedy.push_back(make_triplet(elements[i], elements[i], 1));
        i = j;
      }
    }
    ASSERT_EQ(pieces, greedy);
  }
}

TEST(RedistRankPlan, ScalesWithTheRanksOwnMessages) {
  // 64x64 grids, 100000x100000, cyclic(64) -> cyclic(100): a rank's plan stays small.
  const int p = 64;
  const std::int64_t n = 100000;
  std::vector<int> ranks(static_cast<std::size_t>(p * p));
  std::iota(ranks.begin(), ranks.end(), 0);
  RefSide a{{{n, 64, 0, p, 0}, {n, 64, 0, p, 0}}, ranks, {}};
  RefSide b{{{n, 100, 0, p, 0}, {n, 100, 0, p, 0}}, ranks, {}};
  const int rank = 1234;
  SideView from = view_of(a, rank), to = view_of(b, rank);
  from.my_strides = {1, 1600}, to.my_strides = {1, 1600};
  const RankPlan plan = plan_rank(from, to, {n, n}, {}, rank);
  EXPECT_GT(plan.sends.messages.size(), 100u);
  EXPECT_LT(plan.bytes(), 4 << 20);
  std::int64_t elements = 0;
  for (const PeerMessage& m : plan.sends.messages) elements += m.elements;
  EXPECT_EQ(elements, (n / (64 * p) * 64 + 64) * (n / (64 * p) * 64 + 64));  // rank 1234's block
}

}  // namespace
}  // namespace choreo::redist::rank_plan_test
