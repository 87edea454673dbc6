// The pipelined tree broadcasts (bcast:kary_pipeline, bcast:multitree) against references
// written here from the algorithms' definitions: the segmentation recomputed byte by byte,
// the trees rebuilt from an explicit rotated rank list. For many P, byte counts (not
// divisible by parts or segments), roots, arities and segment sizes:
//  (a) every non-root rank receives every byte of the root's buffer exactly once, each
//      segment from its parent in its part's reference tree;
//  (b) a rank sends a segment only after receiving it (a direct dependency), only to its
//      reference children, and the root sends each segment to each of its children;
//  (c) each rank is interior in at most one of the multitree's trees, and each tree spans
//      the ranks;
//  (d) the schedule validates (matching, no deadlock); generate() builds the same schedule.
// The torus-mapped multitree (bcast_multitree_torus) is checked for (a), (b), (d) with the
// trees read from its receives, which must be spanning trees of torus neighbours, and (e) by
// routing every message with choreo sim's torus routing (src/topo/links): no directed torus
// link carries two trees in one pipeline step, and choreo sim runs it no slower than the
// rotated heaps on the same torus.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "choreo/coll/generators.hpp"
#include "choreo/coll/pipeline.hpp"
#include "choreo/core/compact_schedule.hpp"
#include "choreo/core/error.hpp"
#include "choreo/core/validate.hpp"
#include "choreo/sim/engine.hpp"
// choreo sim's router, to route the torus trees' messages independently of the generator.
#include "../../src/topo/links.hpp"

namespace choreo {
namespace {

using ::testing::HasSubstr;
using i64 = std::int64_t;

struct RefSegment {
  int part;
  i64 begin, end;
};

/// Parts as even as possible (first bytes % parts longer), each cut every `segment` bytes.
std::vector<RefSegment> reference_segments(i64 bytes, int parts, i64 segment) {
  std::vector<RefSegment> out;
  i64 begin = 0;
  for (int p = 0; p < parts; ++p) {
    const i64 length = bytes / parts + (p < bytes % parts ? 1 : 0);
    for (i64 at = 0; at < length; at += segment)
      out.push_back({p, begin + at, begin + std::min(length, at + segment)});
    begin += length;
  }
  return out;
}

/// parent[r] of tree t: the non-root ranks listed from root+1 on, rotated left by t*I
/// (I = interior non-root count), then laid out level by level, `arity` children each.
std::vector<int> reference_parents(int ranks, int root, int arity, int tree) {
  std::vector<int> order = {root};
  std::vector<int> others;
  for (int i = 1; i < ranks; ++i) others.push_back((root + i) % ranks);
  const int interior = ranks >= 2 ? (ranks - 2) / arity : 0;
  for (std::size_t i = 0; i < others.size(); ++i)
    order.push_back(others[(i + static_cast<std::size_t>(tree * interior)) % others.size()]);
  std::vector<int> parent(static_cast<std::size_t>(ranks), -1);
  std::size_t next_child = 1;
  for (std::size_t node = 0; node < order.size(); ++node)
    for (int c = 0; c < arity && next_child < order.size(); ++c)
      parent[static_cast<std::size_t>(order[next_child++])] = order[node];
  return parent;
}

struct Case {
  int ranks, root, parts, arity;
  i64 bytes, segment;
};

/// (a), (b) and (d) for the trees given as parents[part][rank] (-1 for the root).
void check_broadcast_down(const CompactSchedule& s, const Case& c,
                          const std::vector<std::vector<int>>& parents) {
  const auto segments = reference_segments(c.bytes, c.parts, c.segment);
  ASSERT_EQ(s.ranks(), c.ranks);
  for (int r = 0; r < c.ranks; ++r) {
    std::vector<int> received(static_cast<std::size_t>(c.bytes), 0);
    std::map<int, OpIndex> recv_of_tag;
    std::map<int, std::multiset<int>> sent_to;  // tag -> destinations
    for (OpIndex op = s.first_op(r); op < s.first_op(r + 1); ++op) {
      const int g = s.tag(op);
      ASSERT_GE(g, 0);
      ASSERT_LT(g, static_cast<int>(segments.size()));
      const RefSegment& seg = segments[static_cast<std::size_t>(g)];
      ASSERT_EQ(s.amount(op), seg.end - seg.begin);
      const auto& parent = parents[static_cast<std::size_t>(seg.part)];
      if (s.kind(op) == OpKind::Recv) {
        ASSERT_EQ(s.peer(op), parent[static_cast<std::size_t>(r)]) << "rank " << r << " seg " << g;
        for (i64 b = seg.begin; b < seg.end; ++b) ++received[static_cast<std::size_t>(b)];
        recv_of_tag[g] = op;
      } else {
        ASSERT_EQ(s.kind(op), OpKind::Send);
        ASSERT_EQ(parent[static_cast<std::size_t>(s.peer(op))], r) << "send to a non-child";
        sent_to[g].insert(s.peer(op));
        if (r != c.root) {
          // The receive of the same segment must be a direct requirement.
          ASSERT_TRUE(recv_of_tag.contains(g))
              << "rank " << r << " sends segment " << g << " before receiving it";
          bool found = false;
          s.for_each_completed_dependent(recv_of_tag[g], [&](OpIndex d) { found |= d == op; });
          ASSERT_TRUE(found) << "rank " << r << " segment " << g << " send does not wait";
        }
      }
    }
    for (std::size_t g = 0; g < segments.size(); ++g) {
      const auto& parent = parents[static_cast<std::size_t>(segments[g].part)];
      std::multiset<int> children;
      for (int q = 0; q < c.ranks; ++q)
        if (parent[static_cast<std::size_t>(q)] == r) children.insert(q);
      ASSERT_EQ(sent_to[static_cast<int>(g)], children) << "rank " << r << " segment " << g;
    }
    if (r == c.root) continue;
    for (i64 b = 0; b < c.bytes; ++b)
      ASSERT_EQ(received[static_cast<std::size_t>(b)], 1) << "rank " << r << " byte " << b;
  }
  validate(choreo::expand(s));
}

void check_broadcast(const CompactSchedule& s, const Case& c) {
  std::vector<std::vector<int>> parents;
  for (int t = 0; t < c.parts; ++t)
    parents.push_back(reference_parents(c.ranks, c.root, c.arity, t));
  check_broadcast_down(s, c, parents);
}

std::vector<int> rank_counts() {
  std::vector<int> out;
  for (int p = 1; p <= 10; ++p) out.push_back(p);
  for (int p : {13, 17, 31}) out.push_back(p);
  return out;
}

TEST(CollPipeline, MultitreeMovesEveryByteOnceDownItsTrees) {
  for (int ranks : rank_counts())
    for (int root : {0, ranks - 1})
      for (int arity : {1, 2, 3, 4})
        for (int parts = 1; parts <= arity; ++parts)
          for (i64 bytes : {0, 3, 1001, 20011})
            for (i64 segment : {1, 100, 4096}) {
              if (segment == 1 && bytes > 3) continue;  // validate() is quadratic-ish
              SCOPED_TRACE(testing::Message()
                           << "P=" << ranks << " root=" << root << " k=" << arity << " t=" << parts
                           << " bytes=" << bytes << " segment=" << segment);
              const Case c{ranks, root, parts, arity, bytes, segment};
              check_broadcast(coll::bcast_multitree(ranks, bytes, root, parts, arity, segment), c);
              if (parts == 1)
                check_broadcast(coll::bcast_kary_pipeline(ranks, bytes, root, arity, segment), c);
              if (HasFailure()) return;
            }
}

TEST(CollPipeline, MultitreeInteriorsAreDisjointAndTreesSpan) {
  for (int ranks : rank_counts())
    for (int arity : {1, 2, 3, 4, 5})
      for (int trees = 1; trees <= arity; ++trees)
        for (int root : {0, ranks - 1}) {
          std::vector<int> interior_in(static_cast<std::size_t>(ranks), 0);
          for (int t = 0; t < trees; ++t) {
            const coll::BroadcastTree tree = coll::multitree_tree(ranks, root, arity, trees, t);
            EXPECT_EQ(tree.parent, reference_parents(ranks, root, arity, t));
            for (int r = 0; r < ranks; ++r) {
              // Every rank reaches the root within depth hops: a spanning tree, no cycle.
              int at = r, hops = 0;
              while (at != root && hops <= tree.depth)
                at = tree.parent[static_cast<std::size_t>(at)], ++hops;
              EXPECT_EQ(at, root) << "P=" << ranks << " tree " << t << " rank " << r;
              EXPECT_LE(tree.children[static_cast<std::size_t>(r)].size(),
                        static_cast<std::size_t>(arity));
              if (r != root && tree.is_interior(r)) ++interior_in[static_cast<std::size_t>(r)];
            }
          }
          for (int r = 0; r < ranks; ++r)
            EXPECT_LE(interior_in[static_cast<std::size_t>(r)], 1)
                << "P=" << ranks << " k=" << arity << " t=" << trees << " rank " << r;
        }
}

// multitree_links gives one rank its links without the tree: they must be the tree's, which
// the test above holds to the reference rotated list.
TEST(CollPipeline, MultitreeLinksOfOneRankAreThoseOfItsTree) {
  for (int ranks : rank_counts())
    for (int arity : {1, 2, 3, 4, 5})
      for (int trees = 1; trees <= arity; ++trees)
        for (int root : {0, ranks - 1, ranks / 2})
          for (int t = 0; t < trees; ++t) {
            const coll::BroadcastTree tree = coll::multitree_tree(ranks, root, arity, trees, t);
            EXPECT_EQ(coll::multitree_depth(ranks, arity, trees), tree.depth);
            for (int r = 0; r < ranks; ++r) {
              const coll::TreeLinks links = coll::multitree_links(ranks, root, arity, trees, t, r);
              EXPECT_EQ(links.parent, tree.parent[static_cast<std::size_t>(r)])
                  << "P=" << ranks << " root " << root << " k=" << arity << " tree " << t
                  << " rank " << r;
              EXPECT_EQ(links.children, tree.children[static_cast<std::size_t>(r)])
                  << "P=" << ranks << " root " << root << " k=" << arity << " tree " << t
                  << " rank " << r;
            }
          }
  EXPECT_THROW(coll::multitree_links(10, 0, 3, 3, 0, 10), Error);
  EXPECT_THROW(coll::multitree_links(10, 0, 3, 4, 0, 1), Error);
  EXPECT_THROW(coll::multitree_depth(10, 3, 4), Error);
  EXPECT_THROW(coll::multitree_depth(10, 0), Error);
}

// At P = 2^30 and INT_MAX, where no test can build the tree: a rank's children name it as
// their parent, its parent names it as a child, and positions past P are no children.
TEST(CollPipeline, MultitreeLinksAgreeBetweenRanksOfHugeTrees) {
  for (int ranks : {1 << 30, 2147483647})
    for (int arity : {2, 3, 7})
      for (int t = 0; t < std::min(3, arity); ++t)
        for (int rank : {0, 1, 5, ranks / 2, ranks / arity, ranks - 2, ranks - 1}) {
          const int root = ranks - 2, trees = std::min(3, arity);
          const coll::TreeLinks links = coll::multitree_links(ranks, root, arity, trees, t, rank);
          EXPECT_EQ(links.parent < 0, rank == root);
          for (int child : links.children)
            EXPECT_EQ(coll::multitree_links(ranks, root, arity, trees, t, child).parent, rank);
          if (links.parent >= 0) {
            const auto siblings =
                coll::multitree_links(ranks, root, arity, trees, t, links.parent).children;
            EXPECT_NE(std::find(siblings.begin(), siblings.end(), rank), siblings.end());
          }
        }
}

TEST(CollPipeline, SegmentationCoversTheMessageInOrder) {
  for (i64 bytes : {0, 1, 2, 5, 1000, 1001, 99999})
    for (int parts : {1, 2, 3, 7})
      for (i64 segment : {1, 3, 64, 100000}) {
        const coll::Segmentation seg(bytes, parts, segment);
        const auto ref = reference_segments(bytes, parts, segment);
        ASSERT_EQ(seg.count(), static_cast<int>(ref.size()));
        for (int g = 0; g < seg.count(); ++g) {
          EXPECT_EQ(seg[g].part, ref[static_cast<std::size_t>(g)].part);
          EXPECT_EQ(seg[g].offset, ref[static_cast<std::size_t>(g)].begin);
          EXPECT_EQ(seg[g].offset + seg[g].bytes, ref[static_cast<std::size_t>(g)].end);
        }
      }
}

TEST(CollPipeline, HockneyRuleBalancesLatencyAndBandwidth) {
  // m = 1 MiB, depth 2, alpha 1 us, beta 1 ns/B: sqrt(2^20 * 1e-6 / 1e-9) = 32382 B.
  EXPECT_NEAR(static_cast<double>(coll::hockney_segment_bytes(1 << 20, 2, 1e-6, 1e-9)), 32382, 1);
  EXPECT_EQ(coll::hockney_segment_bytes(1 << 20, 1), 1 << 20);  // no pipeline to fill
  EXPECT_EQ(coll::hockney_segment_bytes(100, 5), 100);          // never more than the part
  EXPECT_EQ(coll::hockney_segment_bytes(i64{1} << 40, 2), coll::kMaxSegmentBytes);
  EXPECT_EQ(coll::hockney_segment_bytes(1 << 20, 9, 1e-9, 1e-6), coll::kMinSegmentBytes);
  EXPECT_EQ(coll::hockney_segment_bytes(0, 3), 1);
  EXPECT_THROW(coll::hockney_segment_bytes(1000, 3, 0, 1e-9), Error);
}

TEST(CollPipeline, RegistryBuildsTheSameSchedules) {
  const auto a =
      choreo::expand(coll::generate("bcast:multitree:ranks=7:bytes=1001:root=3:segment=100"));
  EXPECT_EQ(a, choreo::expand(coll::bcast_multitree(7, 1001, 3, 3, 3, 100)));
  const auto b = choreo::expand(coll::generate("bcast:kary_pipeline:ranks=9:bytes=5000:arity=3"));
  EXPECT_EQ(b, choreo::expand(coll::bcast_kary_pipeline(9, 5000, 0, 3, 0)));
}

TEST(CollPipeline, RefusesTreesThatCannotBeInteriorDisjoint) {
  try {
    coll::bcast_multitree(10, 1000, 0, 4, 3);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("need 1 <= trees <= arity"));
  }
  EXPECT_THROW(coll::bcast_kary_pipeline(4, 100, 0, 0), Error);
  EXPECT_THROW(coll::bcast_kary_pipeline(4, 100, 4), Error);
  EXPECT_THROW(coll::bcast_multitree(4, -1), Error);
}

// ---- the multitree mapped onto a 3-D torus ------------------------------------------------

std::string torus_name(const std::array<int, 3>& dims) {
  return "torus:" + std::to_string(dims[0]) + "x" + std::to_string(dims[1]) + "x" +
         std::to_string(dims[2]);
}

/// Tree of each part as the schedule's receives give it: parents[part][rank], asserting that
/// every receive of a part on a rank comes from the same peer.
std::vector<std::vector<int>> parents_from_receives(const CompactSchedule& s, const Case& c) {
  const auto segments = reference_segments(c.bytes, c.parts, c.segment);
  std::vector<std::vector<int>> parents(static_cast<std::size_t>(c.parts),
                                        std::vector<int>(static_cast<std::size_t>(c.ranks), -1));
  for (int r = 0; r < c.ranks; ++r)
    for (OpIndex op = s.first_op(r); op < s.first_op(r + 1); ++op) {
      if (s.kind(op) != OpKind::Recv) continue;
      const auto part =
          static_cast<std::size_t>(segments[static_cast<std::size_t>(s.tag(op))].part);
      int& parent = parents[part][static_cast<std::size_t>(r)];
      EXPECT_TRUE(parent == -1 || parent == s.peer(op)) << "rank " << r << " has two parents";
      parent = s.peer(op);
    }
  return parents;
}

/// Hops from each rank up to the root (-1 if the parents do not lead there: not a tree).
std::vector<int> depths(const std::vector<int>& parent, int root) {
  std::vector<int> out(parent.size(), -1);
  for (std::size_t r = 0; r < parent.size(); ++r) {
    int at = static_cast<int>(r), hops = 0;
    while (at != root && at >= 0 && hops <= static_cast<int>(parent.size()))
      at = parent[static_cast<std::size_t>(at)], ++hops;
    if (at == root) out[r] = hops;
  }
  return out;
}

/// True if a and b are neighbours on the torus (one coordinate differs by 1, wrapping).
bool neighbours(const std::array<int, 3>& dims, int a, int b) {
  int differ = 0, stride = 1;
  bool adjacent = true;
  for (int n : dims) {
    const int ca = a / stride % n, cb = b / stride % n;
    stride *= n;
    if (ca == cb) continue;
    ++differ;
    adjacent = adjacent && ((ca + 1) % n == cb || (cb + 1) % n == ca);
  }
  return differ == 1 && adjacent;
}

std::vector<std::array<int, 3>> torus_shapes() {
  return {{1, 1, 1}, {2, 2, 2}, {3, 3, 3}, {4, 3, 5}, {1, 4, 3}, {3, 1, 4}, {5, 4, 1}, {4, 4, 4}};
}

TEST(CollPipeline, TorusMultitreeMovesEveryByteOnceBetweenNeighbours) {
  for (const auto& dims : torus_shapes()) {
    const int ranks = dims[0] * dims[1] * dims[2];
    for (int root : {0, ranks - 1, ranks / 2})
      for (i64 bytes : {0, 1, 20011})
        for (i64 segment : {1000, 4096}) {
          SCOPED_TRACE(testing::Message() << torus_name(dims) << " root=" << root
                                          << " bytes=" << bytes << " segment=" << segment);
          const Case c{ranks, root, 3, 3, bytes, segment};
          const auto s = coll::bcast_multitree_torus(dims, bytes, root, segment);
          const auto parents = parents_from_receives(s, c);
          check_broadcast_down(s, c, parents);
          if (bytes < 3) continue;  // some parts are empty: no receives to read trees from
          for (int t = 0; t < 3; ++t) {
            const auto& parent = parents[static_cast<std::size_t>(t)];
            const auto tree = coll::torus_multitree_tree(dims, root, t);
            EXPECT_EQ(tree.parent, parent) << "tree " << t;
            const auto depth = depths(parent, root);
            for (int r = 0; r < ranks; ++r) {
              const auto at = static_cast<std::size_t>(r);
              EXPECT_GE(depth[at], 0) << "tree " << t << ": rank " << r << " is not reached";
              if (r != root) {
                EXPECT_TRUE(neighbours(dims, r, parent[at]))
                    << "tree " << t << ": rank " << r << " hears from " << parent[at];
              }
              EXPECT_LE(tree.children[at].size(), r == root ? 2u : 3u);
            }
            EXPECT_LE(tree.depth, dims[0] + dims[1] + dims[2] - 2);
          }
          if (HasFailure()) return;
        }
  }
  EXPECT_EQ(choreo::expand(coll::generate("bcast:multitree:ranks=60:bytes=1001:root=7:segment=100:"
                                          "x=4:y=3:z=5")),
            choreo::expand(coll::bcast_multitree_torus({4, 3, 5}, 1001, 7, 100)));
  EXPECT_THROW(coll::generate("bcast:multitree:ranks=27:bytes=100:x=3:y=3:z=2"), Error);
  EXPECT_THROW(coll::generate("bcast:multitree:ranks=27:bytes=100:x=3:y=3:z=3:arity=4"), Error);
  EXPECT_THROW(coll::bcast_multitree_torus({3, 0, 3}, 100), Error);
  EXPECT_THROW(coll::bcast_multitree_torus({3, 3, 3}, 100, 27), Error);
}

/// Pipeline-step collisions of a broadcast on a torus: the messages routed by choreo sim's
/// dimension-order routing, segment j of a part crossing the edge into a rank at depth d in
/// step j + d - 1 (every hop one step, the ideal pipeline). Counts the (step, directed torus
/// link) pairs used by more than one part, and the links used by more than one part at all.
struct Collisions {
  int in_a_step = 0, overall = 0, multi_hop_edges = 0;
};

Collisions torus_collisions(const CompactSchedule& s, const Case& c,
                            const std::array<int, 3>& dims) {
  const auto segments = reference_segments(c.bytes, c.parts, c.segment);
  const auto parents = parents_from_receives(s, c);
  std::vector<std::vector<int>> depth;
  for (const auto& parent : parents) depth.push_back(depths(parent, c.root));
  const Links links(parse_network(torus_name(dims)), c.ranks);
  // Links below nodes x 2 x dimensions join routers; the rest are injection and ejection.
  const auto router_links = static_cast<std::uint32_t>(c.ranks * 2 * 3);
  std::map<std::pair<int, std::uint32_t>, std::set<int>> step_link_parts;
  std::map<std::uint32_t, std::set<int>> link_parts;
  Collisions out;
  std::vector<std::uint32_t> route;
  for (int r = 0; r < c.ranks; ++r)
    for (OpIndex op = s.first_op(r); op < s.first_op(r + 1); ++op) {
      if (s.kind(op) != OpKind::Send) continue;
      const int g = s.tag(op), dst = s.peer(op);
      const RefSegment& seg = segments[static_cast<std::size_t>(g)];
      int first = g;  // the part's first segment number
      while (first > 0 && segments[static_cast<std::size_t>(first - 1)].part == seg.part) --first;
      const int step =
          g - first + depth[static_cast<std::size_t>(seg.part)][static_cast<std::size_t>(dst)] - 1;
      route.clear();
      links.route(r, dst, route);
      int hops = 0;
      for (std::uint32_t link : route) {
        if (link >= router_links) continue;
        ++hops;
        step_link_parts[{step, link}].insert(seg.part);
        link_parts[link].insert(seg.part);
      }
      out.multi_hop_edges += hops > 1;
    }
  for (const auto& [key, parts] : step_link_parts) out.in_a_step += parts.size() > 1;
  for (const auto& [link, parts] : link_parts) out.overall += parts.size() > 1;
  return out;
}

// The claim of torus_multitree_tree: with every dimension >= 3, no directed torus link
// carries two trees (so none does in any one pipeline step), and every edge is one hop.
// The rotated heaps of bcast_multitree on the same torus collide: the check can fail.
TEST(CollPipeline, TorusMultitreeUsesEveryDirectedLinkForOneTreeOnly) {
  for (const std::array<int, 3>& dims :
       std::vector<std::array<int, 3>>{{3, 3, 3}, {4, 3, 5}, {4, 4, 4}, {5, 3, 3}, {3, 6, 4}}) {
    const int ranks = dims[0] * dims[1] * dims[2];
    for (int root : {0, ranks - 1, ranks / 2 + 1}) {
      SCOPED_TRACE(testing::Message() << torus_name(dims) << " root=" << root);
      const Case c{ranks, root, 3, 3, 30000, 1000};
      const Collisions torus =
          torus_collisions(coll::bcast_multitree_torus(dims, c.bytes, root, c.segment), c, dims);
      EXPECT_EQ(torus.in_a_step, 0);
      EXPECT_EQ(torus.overall, 0);
      EXPECT_EQ(torus.multi_hop_edges, 0);
      const Collisions heap =
          torus_collisions(coll::bcast_multitree(ranks, c.bytes, root, 3, 3, c.segment), c, dims);
      EXPECT_GT(heap.in_a_step, 0);
    }
  }
}

// choreo sim on the torus the trees are mapped to, LogGOPS defaults (G = 6 ns/B on every
// link, serialize sharing), the same parts and segments: the torus mapping is no slower than
// the rotated heaps (docs/persistent.md has the figures).
TEST(CollPipeline, TorusMultitreeSimulatesNoSlowerThanRotatedHeaps) {
  for (const std::array<int, 3>& dims : std::vector<std::array<int, 3>>{{3, 3, 3}, {4, 4, 4}}) {
    const int ranks = dims[0] * dims[1] * dims[2];
    const i64 bytes = 3 << 18, segment = 16384;
    sim::SimOptions options;
    options.network = parse_network(torus_name(dims));
    const i64 torus =
        sim::simulate(coll::bcast_multitree_torus(dims, bytes, 0, segment), options).makespan;
    const i64 heap =
        sim::simulate(coll::bcast_multitree(ranks, bytes, 0, 3, 3, segment), options).makespan;
    EXPECT_LE(torus, heap) << torus_name(dims);
  }
}

}  // namespace
}  // namespace choreo
