// The collective generators of paper 001's algorithm families (Bruck, neighbour exchange,
// recursive doubling with a fold, van de Geijn's broadcast, ring and Rabenseifner allreduce,
// pairwise and Bruck alltoall) against references written here from the algorithms'
// definitions (mostly transcriptions of MPICH's and Open MPI's loops), never from the code
// under test. For every P in 1..17, 31, 32, 33, 64 and several byte counts:
//  (a) per step (tag) the exact multiset of (src, dst, bytes), and each rank's copies and
//      calcs in program order, equal the reference's;
//  (b) the schedule validates and the simulator runs it to the end, eager and rendezvous;
//  (c) a data replay in an adversarial order (sends as early as their dependencies allow,
//      receives as late) moves the blocks the reference says each message carries, each
//      send only what its rank holds by then, and ends with every block (or every
//      contribution) where the collective puts it, exactly once; copies are checked against
//      the dependencies the algorithm needs;
//  (d) the total bytes sent equal a closed form.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "choreo/coll/generators.hpp"
#include "choreo/core/compact_schedule.hpp"
#include "choreo/core/error.hpp"
#include "choreo/core/validate.hpp"
#include "choreo/sim/engine.hpp"

namespace choreo {
namespace {

using ::testing::HasSubstr;
using i64 = std::int64_t;

std::vector<int> rank_counts() {
  std::vector<int> out;
  for (int p = 1; p <= 17; ++p) out.push_back(p);
  for (int p : {31, 32, 33, 64}) out.push_back(p);
  return out;
}

/// 0 and 1, counts below P (empty pieces), and counts not divisible by most P.
const std::vector<i64> kByteCounts = {0, 1, 3, 100, 1001, 65537};

int floor_pow2(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}
int steps_to_cover(int n) {  // ceil(log2 n), by counting
  int k = 0;
  for (i64 covered = 1; covered < n; covered *= 2) ++k;
  return k;
}
int modp(i64 x, int p) { return static_cast<int>(((x % p) + p) % p); }

// ---------------------------------------------------------------------------------------
// References

enum class Data {
  Gather,     ///< rank r starts with item r; everyone ends with every item once
  Broadcast,  ///< the root starts with every item; everyone ends with every item
  Exchange,   ///< rank r starts with items r*P + j; ends with items s*P + r, once each
  Reduce,     ///< everyone starts with its contribution to every item; ends with all of them
};

/// How a receiver takes an allreduce message: into a buffer the next calc adds in, or as the
/// new value of the items.
enum class Take { Add, Reduce, Replace };

struct Message {
  int src = 0, dst = 0, tag = 0;
  i64 bytes = 0;
  std::vector<int> items;
  Take take = Take::Add;
};

struct Reference {
  int ranks = 0, root = 0;
  std::vector<i64> item_bytes;
  std::vector<Message> messages;
  std::vector<std::vector<i64>> copies, calcs;  // per rank, in program order

  explicit Reference(int p, std::vector<i64> sizes)
      : ranks(p),
        item_bytes(std::move(sizes)),
        copies(static_cast<std::size_t>(p)),
        calcs(static_cast<std::size_t>(p)) {}

  /// Adds a message unless it carries no bytes; its bytes are its items' sizes.
  void message(int src, int dst, int tag, std::vector<int> items, Take take = Take::Add) {
    i64 bytes = 0;
    for (int item : items) bytes += item_bytes[static_cast<std::size_t>(item)];
    if (bytes > 0) messages.push_back({src, dst, tag, bytes, std::move(items), take});
  }
  std::vector<i64>& copies_of(int r) { return copies[static_cast<std::size_t>(r)]; }
  std::vector<i64>& calcs_of(int r) { return calcs[static_cast<std::size_t>(r)]; }
};

std::vector<i64> equal_items(std::size_t n, i64 bytes) { return std::vector<i64>(n, bytes); }

/// Bruck's allgather as Open MPI runs it: a buffer of blocks per rank; step i sends blocks
/// 0..min(2^i, P-2^i)-1 to r - 2^i, which appends them at block 2^i.
Reference allgather_bruck_ref(int p, i64 m) {
  Reference ref(p, equal_items(static_cast<std::size_t>(p), m));
  if (m == 0) return ref;
  std::vector<std::vector<int>> buffer(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) buffer[static_cast<std::size_t>(r)] = {r};
  int tag = 0;
  for (int distance = 1; distance < p; distance *= 2, ++tag) {
    const int count = std::min(distance, p - distance);
    const auto before = buffer;
    for (int r = 0; r < p; ++r) {
      const auto& mine = before[static_cast<std::size_t>(r)];
      const std::vector<int> out(mine.begin(), mine.begin() + count);
      const int to = modp(r - distance, p);
      auto& theirs = buffer[static_cast<std::size_t>(to)];
      EXPECT_EQ(theirs.size(), static_cast<std::size_t>(distance));
      theirs.insert(theirs.end(), out.begin(), out.end());
      ref.message(r, to, tag, out);
    }
  }
  for (int r = 0; r < p; ++r) {
    for (int j = 0; j < p; ++j)
      EXPECT_EQ(buffer[static_cast<std::size_t>(r)][static_cast<std::size_t>(j)], (r + j) % p);
    // Paper 001's Fig. 2: memcopy((P-rank)M), memcopy(rank M), memcopy((P-rank)M), after the
    // own block's copy; rank 0's blocks are in order already (Open MPI skips its rotation).
    ref.copies_of(r) = {m};
    if (r != 0) ref.copies_of(r).insert(ref.copies_of(r).end(), {(p - r) * m, r * m, (p - r) * m});
  }
  return ref;
}

/// Recursive doubling with the fold: 2j+1 gives its block to 2j; virtual ranks exchange
/// everything they hold; 2j returns what 2j+1 lacks. Holdings are tracked as sets.
Reference allgather_recdbl_ref(int p, i64 m) {
  Reference ref(p, equal_items(static_cast<std::size_t>(p), m));
  if (m == 0) return ref;
  const int p2 = floor_pow2(p), rem = p - p2, first = rem > 0 ? 1 : 0;
  auto real = [&](int v) { return v < rem ? 2 * v : v + rem; };
  std::vector<std::set<int>> held(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) held[static_cast<std::size_t>(r)] = {r};
  for (int j = 0; j < rem; ++j) {
    ref.message(2 * j + 1, 2 * j, 0, {2 * j + 1});
    held[static_cast<std::size_t>(2 * j)].insert(2 * j + 1);
  }
  int round = 0;
  for (int mask = 1; mask < p2; mask *= 2, ++round) {
    const auto before = held;
    for (int v = 0; v < p2; ++v) {
      const auto& mine = before[static_cast<std::size_t>(real(v))];
      ref.message(real(v), real(v ^ mask), first + round, {mine.begin(), mine.end()});
      held[static_cast<std::size_t>(real(v ^ mask))].insert(mine.begin(), mine.end());
    }
  }
  for (int j = 0; j < rem; ++j) {
    std::vector<int> lacking;
    for (int b : held[static_cast<std::size_t>(2 * j)])
      if (b != 2 * j + 1) lacking.push_back(b);
    ref.message(2 * j, 2 * j + 1, first + round, lacking);
  }
  return ref;
}

/// Chen et al.'s neighbour exchange: step 0 swaps the own blocks within pairs (2i, 2i+1);
/// step i >= 1 swaps the pair received last with the left neighbour (even ranks on odd
/// steps, odd ranks on even steps) or the right one.
Reference allgather_neighbor_ref(int p, i64 m) {
  Reference ref(p, equal_items(static_cast<std::size_t>(p), m));
  if (m == 0) return ref;
  std::vector<std::vector<int>> last(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) {
    const int partner = r % 2 == 0 ? r + 1 : r - 1;
    ref.message(r, partner, 0, {r});
    last[static_cast<std::size_t>(r)] = {std::min(r, partner), std::max(r, partner)};
  }
  for (int step = 1; step < p / 2; ++step) {
    const auto before = last;
    for (int r = 0; r < p; ++r) {
      const bool left = (r % 2 == 0) == (step % 2 == 1);
      const int to = modp(left ? r - 1 : r + 1, p);
      ref.message(r, to, step, before[static_cast<std::size_t>(r)]);
      last[static_cast<std::size_t>(to)] = before[static_cast<std::size_t>(r)];
    }
  }
  return ref;
}

/// MPICH's MPII_Scatter_for_bcast and ring (MPIR_Bcast_intra_scatter_ring_allgather),
/// transcribed with its curr_size bookkeeping; items are the pieces, numbered relative to
/// the root.
Reference bcast_ref(int p, i64 n, int root) {
  const i64 ss = (n + p - 1) / p;
  std::vector<i64> sizes;
  for (int q = 0; q < p; ++q) sizes.push_back(std::max<i64>(0, std::min(n, (q + 1) * ss) - q * ss));
  Reference ref(p, sizes);
  ref.root = root;
  if (n == 0) return ref;
  const int k = steps_to_cover(p);
  auto real = [&](i64 vr) { return static_cast<int>((vr + root) % p); };
  auto pieces = [&](i64 first_byte, i64 bytes) {  // the pieces a byte range covers
    std::vector<int> out;
    for (int q = 0; q < p; ++q)
      if (sizes[static_cast<std::size_t>(q)] > 0 && q * ss >= first_byte &&
          q * ss < first_byte + bytes)
        out.push_back(q);
    return out;
  };
  std::vector<i64> received(static_cast<std::size_t>(p), 0);
  for (int vr = 0; vr < p; ++vr) {
    i64 curr = vr == 0 ? n : received[static_cast<std::size_t>(vr)];
    int mask = 1;
    while (mask < p && (vr & mask) == 0) mask <<= 1;
    for (mask >>= 1; mask > 0; mask >>= 1) {
      if (vr + mask >= p) continue;
      const i64 send = curr - ss * mask;
      if (send <= 0) continue;
      const int tag = k - 1 - std::countr_zero(static_cast<unsigned>(mask));
      ref.message(real(vr), real(vr + mask), tag, pieces((vr + mask) * ss, send));
      received[static_cast<std::size_t>(vr + mask)] = send;
      curr -= send;
    }
  }
  for (int vr = 0; vr < p; ++vr) {
    int j = vr, jnext = modp(vr - 1, p);
    for (int i = 1; i < p; ++i) {
      ref.message(real(vr), real(vr + 1), k + i - 1, {j});
      j = jnext;
      jnext = modp(jnext - 1, p);
    }
  }
  return ref;
}

std::vector<i64> allreduce_chunks(i64 bytes, int parts) {
  std::vector<i64> out(static_cast<std::size_t>(parts), bytes / parts);
  for (i64 i = 0; i < bytes % parts; ++i) ++out[static_cast<std::size_t>(i)];
  return out;
}

i64 scaled(i64 ns, i64 part, i64 whole) {
  return std::llround(static_cast<long double>(ns) * static_cast<long double>(part) /
                      static_cast<long double>(whole));
}

/// MPICH's MPIR_Allreduce_intra_ring: send_rank/recv_rank chunk indices, reduce-scatter then
/// allgather.
Reference allreduce_ring_ref(int p, i64 n, i64 reduce_ns) {
  const auto chunks = allreduce_chunks(n, p);
  Reference ref(p, chunks);
  for (int r = 0; r < p; ++r) {
    const int dst = (r + 1) % p;
    for (int i = 0; i < p - 1; ++i) {
      const int send_chunk = modp(r - i, p), recv_chunk = modp(r - i - 1, p);
      ref.message(r, dst, i, {send_chunk}, Take::Reduce);
      if (chunks[static_cast<std::size_t>(recv_chunk)] > 0)
        ref.calcs_of(r).push_back(
            scaled(reduce_ns, chunks[static_cast<std::size_t>(recv_chunk)], n));
    }
    for (int i = 0; i < p - 1; ++i)
      ref.message(r, dst, p - 1 + i, {modp(r - i + 1, p)}, Take::Replace);
  }
  return ref;
}

/// MPICH's MPIR_Allreduce_intra_reduce_scatter_allgather transcribed (cnts, send_idx,
/// recv_idx, last_idx), with choreo's fold (2j+1 into 2j) instead of MPICH's (2j into 2j+1).
Reference allreduce_rabenseifner_ref(int p, i64 n, i64 reduce_ns) {
  const int pof2 = floor_pow2(p), rem = p - pof2, first = rem > 0 ? 1 : 0;
  const int k = std::countr_zero(static_cast<unsigned>(pof2));
  const auto cnts = allreduce_chunks(n, pof2);
  Reference ref(p, cnts);
  if (n == 0) return ref;
  std::vector<int> all;
  for (int i = 0; i < pof2; ++i) all.push_back(i);
  auto range = [](int from, int to) {
    std::vector<int> out;
    for (int i = from; i < to; ++i) out.push_back(i);
    return out;
  };
  auto sum = [&](int from, int to) {
    i64 s = 0;
    for (int i = from; i < to; ++i) s += cnts[static_cast<std::size_t>(i)];
    return s;
  };
  auto real = [&](int v) { return v < rem ? 2 * v : v + rem; };
  for (int j = 0; j < rem; ++j) {
    ref.message(2 * j + 1, 2 * j, 0, all, Take::Reduce);
    ref.calcs_of(2 * j).push_back(reduce_ns);
  }
  for (int newrank = 0; newrank < pof2; ++newrank) {
    const int rank = real(newrank);
    int mask = 1, send_idx = 0, recv_idx = 0, last_idx = pof2, step = 0;
    while (mask < pof2) {
      const int newdst = newrank ^ mask;
      int send_from = 0, send_to = 0, recv_from = 0, recv_to = 0;
      if (newrank < newdst) {
        send_idx = recv_idx + pof2 / (mask * 2);
        send_from = send_idx, send_to = last_idx, recv_from = recv_idx, recv_to = send_idx;
      } else {
        recv_idx = send_idx + pof2 / (mask * 2);
        send_from = send_idx, send_to = recv_idx, recv_from = recv_idx, recv_to = last_idx;
      }
      ref.message(rank, real(newdst), first + step, range(send_from, send_to), Take::Reduce);
      if (sum(recv_from, recv_to) > 0)
        ref.calcs_of(rank).push_back(scaled(reduce_ns, sum(recv_from, recv_to), n));
      send_idx = recv_idx;
      mask <<= 1;
      if (mask < pof2) last_idx = recv_idx + pof2 / mask;
      ++step;
    }
    for (mask >>= 1; mask > 0; mask >>= 1, ++step) {
      const int newdst = newrank ^ mask;
      int send_from = 0, send_to = 0;
      if (newrank < newdst) {
        if (mask != pof2 / 2) last_idx = last_idx + pof2 / (mask * 2);
        recv_idx = send_idx + pof2 / (mask * 2);
        send_from = send_idx, send_to = recv_idx;
      } else {
        recv_idx = send_idx - pof2 / (mask * 2);
        send_from = send_idx, send_to = last_idx;
      }
      ref.message(rank, real(newdst), first + step, range(send_from, send_to), Take::Replace);
      if (newrank > newdst) send_idx = recv_idx;
    }
  }
  for (int j = 0; j < rem; ++j) ref.message(2 * j, 2 * j + 1, first + 2 * k, all, Take::Replace);
  return ref;
}

/// Open MPI's pairwise alltoall: item s*P + d is s's block for d.
Reference alltoall_pairwise_ref(int p, i64 m) {
  Reference ref(p, equal_items(static_cast<std::size_t>(p) * static_cast<std::size_t>(p), m));
  if (m == 0) return ref;
  for (int r = 0; r < p; ++r) {
    ref.copies_of(r) = {m};
    for (int step = 1; step < p; ++step) {
      const int to = (r + step) % p;
      ref.message(r, to, step - 1, {r * p + to});
    }
  }
  return ref;
}

/// Open MPI's Bruck alltoall on a buffer of blocks per rank: after the rotation block i of
/// rank r is r's block for r + i; step i sends the blocks whose index has bit i set to
/// r + 2^i, which puts them at the same indices.
Reference alltoall_bruck_ref(int p, i64 m) {
  Reference ref(p, equal_items(static_cast<std::size_t>(p) * static_cast<std::size_t>(p), m));
  if (m == 0) return ref;
  std::vector<std::vector<int>> buffer(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) {
    for (int i = 0; i < p; ++i) buffer[static_cast<std::size_t>(r)].push_back(r * p + (r + i) % p);
    ref.copies_of(r) = {p * m};
  }
  int tag = 0;
  for (int distance = 1; distance < p; distance *= 2, ++tag) {
    const auto before = buffer;
    std::vector<int> moved;
    for (int i = 0; i < p; ++i)
      if (i & distance) moved.push_back(i);
    for (int r = 0; r < p; ++r) {
      const int to = (r + distance) % p;
      std::vector<int> out;
      for (int i : moved) {
        out.push_back(before[static_cast<std::size_t>(r)][static_cast<std::size_t>(i)]);
        buffer[static_cast<std::size_t>(to)][static_cast<std::size_t>(i)] = out.back();
      }
      ref.message(r, to, tag, out);
      ref.copies_of(r).push_back(static_cast<i64>(moved.size()) * m);
    }
  }
  for (int r = 0; r < p; ++r) {
    for (int i = 0; i < p; ++i)  // block i came from r - i
      EXPECT_EQ(buffer[static_cast<std::size_t>(r)][static_cast<std::size_t>(i)],
                modp(r - i, p) * p + r);
    ref.copies_of(r).push_back(p * m);
  }
  return ref;
}

// ---------------------------------------------------------------------------------------
// (a) shape: messages per tag, copies and calcs per rank

using Triple = std::tuple<int, int, i64>;  // src, dst, bytes
using PerTag = std::map<int, std::multiset<Triple>>;

struct Shape {
  PerTag sends, recvs;
  std::vector<std::vector<i64>> copies, calcs;
};

Shape shape_of(const Schedule& s) {
  Shape out;
  out.copies.resize(static_cast<std::size_t>(s.ranks));
  out.calcs.resize(static_cast<std::size_t>(s.ranks));
  for (int r = 0; r < s.ranks; ++r) {
    for (const Op& op : s.programs[static_cast<std::size_t>(r)].ops) {
      switch (op.kind) {
        case OpKind::Send:
          out.sends[op.tag].insert({r, op.peer, op.bytes});
          break;
        case OpKind::Recv:
          out.recvs[op.tag].insert({op.peer, r, op.bytes});
          break;
        case OpKind::Copy:
          out.copies[static_cast<std::size_t>(r)].push_back(op.bytes);
          break;
        case OpKind::Calc:
          out.calcs[static_cast<std::size_t>(r)].push_back(op.nanoseconds);
          break;
        case OpKind::Delay:
          ADD_FAILURE() << "a delay on rank " << r;
          break;
      }
    }
  }
  return out;
}

PerTag per_tag(const Reference& ref) {
  PerTag out;
  for (const Message& m : ref.messages) out[m.tag].insert({m.src, m.dst, m.bytes});
  return out;
}

// ---------------------------------------------------------------------------------------
// (c) data replay

class Replay {
 public:
  Replay(const Schedule& s, const Reference& ref, Data data) : s_(s), ref_(ref), data_(data) {
    for (const Message& m : ref.messages) {
      const bool fresh = content_.emplace(std::tuple{m.src, m.dst, m.tag}, &m).second;
      EXPECT_TRUE(fresh) << "the reference has two messages " << m.src << " -> " << m.dst << " tag "
                         << m.tag;
    }
    const auto p = static_cast<std::size_t>(s.ranks), items = ref.item_bytes.size();
    held_.assign(p, std::vector<std::vector<int>>(items));
    incoming_.assign(p, std::vector<std::vector<int>>(items));
    for (std::size_t r = 0; r < p; ++r) {
      for (std::size_t i = 0; i < items; ++i) {
        auto& h = held_[r][i];
        switch (data) {
          case Data::Gather:
            h = {i == r ? 1 : 0};
            break;
          case Data::Broadcast:
            h = {static_cast<int>(r) == ref.root ? 1 : 0};
            break;
          case Data::Exchange:
            h = {i / p == r ? 1 : 0};
            break;
          case Data::Reduce:
            h.assign(p, 0);
            h[r] = 1;
            break;
        }
      }
    }
  }

  /// Runs every op; returns the first problem, or "" if the collective came out right.
  std::string run() {
    const auto p = static_cast<std::size_t>(s_.ranks);
    std::vector<std::vector<int>> waiting(p);
    std::vector<std::vector<std::vector<std::size_t>>> dependents(p);
    std::vector<std::pair<int, std::size_t>> sends, locals, recvs;
    auto push = [&](int r, std::size_t i) {
      const OpKind kind = s_.programs[static_cast<std::size_t>(r)].ops[i].kind;
      (kind == OpKind::Send ? sends : kind == OpKind::Recv ? recvs : locals).emplace_back(r, i);
    };
    for (std::size_t r = 0; r < p; ++r) {
      const auto& ops = s_.programs[r].ops;
      waiting[r].assign(ops.size(), 0);
      dependents[r].resize(ops.size());
      for (std::size_t i = 0; i < ops.size(); ++i) {
        if (!ops[i].requires_started.empty()) return "an irequires dependency";
        for (i64 d : ops[i].requires_completed) {
          ++waiting[r][i];
          dependents[r][static_cast<std::size_t>(d)].push_back(i);
        }
      }
      for (std::size_t i = 0; i < ops.size(); ++i)
        if (waiting[r][i] == 0) push(static_cast<int>(r), i);
    }
    std::size_t done = 0, total = 0;
    for (const auto& program : s_.programs) total += program.ops.size();
    for (;;) {
      std::optional<std::pair<int, std::size_t>> next;
      if (!sends.empty()) {
        next = sends.back();
        sends.pop_back();
      } else if (!locals.empty()) {
        next = locals.back();
        locals.pop_back();
      } else {
        for (std::size_t j = 0; j < recvs.size() && !next; ++j) {
          const auto [r, i] = recvs[j];
          const Op& op = s_.programs[static_cast<std::size_t>(r)].ops[i];
          const auto it = channels_.find({op.peer, r, op.tag});
          if (it == channels_.end() || it->second.empty()) continue;
          next = recvs[j];
          recvs.erase(recvs.begin() + static_cast<std::ptrdiff_t>(j));
        }
      }
      if (!next) break;
      const auto [r, i] = *next;
      if (std::string problem = execute(r, s_.programs[static_cast<std::size_t>(r)].ops[i]);
          !problem.empty())
        return "rank " + std::to_string(r) + " op " + std::to_string(i) + ": " + problem;
      ++done;
      for (std::size_t d : dependents[static_cast<std::size_t>(r)][i])
        if (--waiting[static_cast<std::size_t>(r)][d] == 0) push(r, d);
    }
    if (done != total) return std::to_string(total - done) + " ops never ran";
    return final_state();
  }

 private:
  using Payload = std::vector<std::vector<int>>;  // per item of the message

  std::string execute(int rank, const Op& op) {
    const auto r = static_cast<std::size_t>(rank);
    if (op.kind == OpKind::Calc) {
      for (std::size_t item = 0; item < incoming_[r].size(); ++item) {
        auto& in = incoming_[r][item];
        for (std::size_t c = 0; c < in.size(); ++c) held_[r][item][c] += in[c];
        in.clear();
      }
      return "";
    }
    if (!op.is_message()) return "";
    const int src = op.kind == OpKind::Send ? rank : op.peer;
    const int dst = op.kind == OpKind::Send ? op.peer : rank;
    const auto it = content_.find({src, dst, op.tag});
    if (it == content_.end()) return "a message the reference does not have";
    const Message& m = *it->second;
    if (op.kind == OpKind::Send) {
      Payload payload;
      for (int item : m.items) {
        auto& h = held_[r][static_cast<std::size_t>(item)];
        if (data_ != Data::Reduce && h[0] == 0)
          return "sends item " + std::to_string(item) + " before it holds it";
        payload.push_back(h);
        if (data_ == Data::Exchange) h[0] = 0;  // the block moves on
      }
      channels_[{src, dst, op.tag}].push_back(std::move(payload));
      return "";
    }
    auto& queue = channels_[{src, dst, op.tag}];
    const Payload payload = std::move(queue.front());
    queue.erase(queue.begin());
    for (std::size_t j = 0; j < m.items.size(); ++j) {
      const auto item = static_cast<std::size_t>(m.items[j]);
      auto& h = held_[r][item];
      switch (m.take) {
        case Take::Add:
          if (data_ == Data::Broadcast)
            h[0] = 1;  // MPICH's ring also delivers pieces a rank has from the scatter
          else
            h[0] += payload[j][0];
          break;
        case Take::Replace:
          h = payload[j];
          break;
        case Take::Reduce:
          if (!incoming_[r][item].empty())
            return "receives item " + std::to_string(item) + " over one not yet reduced";
          incoming_[r][item] = payload[j];
          break;
      }
    }
    return "";
  }

  std::string final_state() const {
    const auto p = static_cast<std::size_t>(s_.ranks);
    for (std::size_t r = 0; r < p; ++r) {
      for (std::size_t item = 0; item < ref_.item_bytes.size(); ++item) {
        if (ref_.item_bytes[item] == 0) continue;  // no data: nothing to check
        if (!incoming_[r][item].empty()) return "an unreduced receive at the end";
        std::vector<int> want;
        if (data_ == Data::Reduce)
          want.assign(p, 1);
        else if (data_ == Data::Exchange)
          want = {item % p == r ? 1 : 0};
        else
          want = {1};
        if (held_[r][item] != want) {
          std::ostringstream out;
          out << "rank " << r << " ends with item " << item << " as {";
          for (int c : held_[r][item]) out << c << ' ';
          out << "}";
          return out.str();
        }
      }
    }
    return "";
  }

  const Schedule& s_;
  const Reference& ref_;
  Data data_;
  std::map<std::tuple<int, int, int>, const Message*> content_;
  std::map<std::tuple<int, int, int>, std::vector<Payload>> channels_;
  std::vector<std::vector<std::vector<int>>> held_, incoming_;  // [rank][item]
};

// ---------------------------------------------------------------------------------------
// Copies: the dependencies the algorithm needs, over the transitive `requires` closure.

class Order {
 public:
  explicit Order(const Program& program) : ops_(program.ops) {
    const std::size_t n = ops_.size();
    before_.assign(n, std::vector<bool>(n, false));
    // Generators emit dependencies on earlier ops only; one forward pass closes them.
    for (std::size_t i = 0; i < n; ++i) {
      for (i64 d : ops_[i].requires_completed) {
        const auto j = static_cast<std::size_t>(d);
        EXPECT_LT(j, i) << "a dependency on a later op";
        if (j >= i) continue;
        before_[i][j] = true;
        for (std::size_t k = 0; k < n; ++k)
          if (before_[j][k]) before_[i][k] = true;
      }
    }
  }
  /// Whether op b (transitively) requires op a.
  bool before(std::size_t a, std::size_t b) const { return before_[b][a]; }
  std::vector<std::size_t> of(OpKind kind, int tag = -1) const {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < ops_.size(); ++i)
      if (ops_[i].kind == kind && (tag < 0 || ops_[i].tag == tag)) out.push_back(i);
    return out;
  }
  std::vector<std::size_t> messages() const {
    auto out = of(OpKind::Send);
    const auto recvs = of(OpKind::Recv);
    out.insert(out.end(), recvs.begin(), recvs.end());
    return out;
  }

 private:
  const std::vector<Op>& ops_;
  std::vector<std::vector<bool>> before_;
};

using CopyRules = std::function<void(const Schedule&, int p)>;

/// Bruck allgather: the own block's copy precedes every send; the rotation follows every
/// message, its three copies in order.
void bruck_allgather_copies(const Schedule& s, int) {
  for (int r = 0; r < s.ranks; ++r) {
    const Order o(s.programs[static_cast<std::size_t>(r)]);
    const auto copies = o.of(OpKind::Copy);
    if (copies.empty()) continue;
    for (std::size_t send : o.of(OpKind::Send)) EXPECT_TRUE(o.before(copies[0], send)) << r;
    for (std::size_t c = 1; c < copies.size(); ++c) {
      EXPECT_TRUE(o.before(copies[c - 1], copies[c])) << "rank " << r << " copy " << c;
      for (std::size_t m : o.messages()) EXPECT_TRUE(o.before(m, copies[c])) << "rank " << r;
    }
  }
}

/// Bruck alltoall: the rotation precedes every send; copy-back i follows step i's send (it
/// overwrites what was sent) and receive (it reads what arrived), and precedes step i+1; the
/// inverse rotation comes last.
void bruck_alltoall_copies(const Schedule& s, int p) {
  const int steps = steps_to_cover(p);
  for (int r = 0; r < s.ranks; ++r) {
    const Order o(s.programs[static_cast<std::size_t>(r)]);
    const auto copies = o.of(OpKind::Copy);
    if (copies.empty()) continue;
    ASSERT_EQ(copies.size(), static_cast<std::size_t>(steps) + 2);
    for (std::size_t send : o.of(OpKind::Send)) EXPECT_TRUE(o.before(copies[0], send));
    for (int i = 0; i < steps; ++i) {
      const std::size_t back = copies[static_cast<std::size_t>(i) + 1];
      for (std::size_t m : o.of(OpKind::Send, i)) EXPECT_TRUE(o.before(m, back)) << r << " " << i;
      for (std::size_t m : o.of(OpKind::Recv, i)) EXPECT_TRUE(o.before(m, back)) << r << " " << i;
      for (std::size_t m : o.of(OpKind::Send, i + 1)) EXPECT_TRUE(o.before(back, m));
      for (std::size_t m : o.of(OpKind::Recv, i + 1)) EXPECT_TRUE(o.before(back, m));
    }
    for (std::size_t c = 0; c + 1 < copies.size(); ++c)
      EXPECT_TRUE(o.before(copies[c], copies.back()));
    for (std::size_t m : o.messages()) EXPECT_TRUE(o.before(m, copies.back()));
  }
}

// ---------------------------------------------------------------------------------------
// The cases

struct Case {
  std::string name;
  Data data;
  std::function<CompactSchedule(int, i64)> build;
  std::function<Reference(int, i64)> reference;
  std::function<i64(int, i64)> total_bytes;  ///< closed form of all bytes sent
  CopyRules copy_rules;
  bool even_ranks_only = false;
};

i64 all_pairs(int p, i64 m) { return i64{p} * (p - 1) * m; }

i64 bcast_total(int p, i64 n) {
  // Piece q (relative) travels popcount(q) hops down the binomial tree and P-1 round the
  // ring.
  if (n == 0) return 0;
  const i64 ss = (n + p - 1) / p;
  i64 total = 0;
  for (int q = 0; q < p; ++q) {
    const i64 size = std::max<i64>(0, std::min(n, (q + 1) * ss) - q * ss);
    total += size * (std::popcount(static_cast<unsigned>(q)) + p - 1);
  }
  return total;
}

std::vector<Case> cases() {
  constexpr i64 kReduceNs = 1000;
  std::vector<Case> out = {
      {"allgather_bruck", Data::Gather, coll::allgather_bruck, allgather_bruck_ref, all_pairs,
       bruck_allgather_copies},
      {"allgather_recdbl", Data::Gather, coll::allgather_recursive_doubling, allgather_recdbl_ref,
       all_pairs, nullptr},
      {"allgather_neighbor", Data::Gather, coll::allgather_neighbor_exchange,
       allgather_neighbor_ref, all_pairs, nullptr, true},
      {"allreduce_ring", Data::Reduce,
       [](int p, i64 n) { return coll::allreduce_ring(p, n, kReduceNs); },
       [](int p, i64 n) { return allreduce_ring_ref(p, n, kReduceNs); },
       [](int p, i64 n) { return 2 * (p - 1) * n; }, nullptr},
      {"allreduce_rabenseifner", Data::Reduce,
       [](int p, i64 n) { return coll::allreduce_rabenseifner(p, n, kReduceNs); },
       [](int p, i64 n) { return allreduce_rabenseifner_ref(p, n, kReduceNs); },
       [](int p, i64 n) {
         const int p2 = floor_pow2(p);
         return 2 * (p2 - 1) * n + 2 * (p - p2) * n;
       },
       nullptr},
      {"alltoall_pairwise", Data::Exchange, coll::alltoall_pairwise, alltoall_pairwise_ref,
       all_pairs, nullptr},
      {"alltoall_bruck", Data::Exchange, coll::alltoall_bruck, alltoall_bruck_ref,
       [](int p, i64 m) {
         i64 blocks = 0;
         for (int j = 1; j < p; ++j) blocks += std::popcount(static_cast<unsigned>(j));
         return p * blocks * m;
       },
       bruck_alltoall_copies},
  };
  for (const char* root : {"first", "middle", "last"}) {
    auto pick = [root = std::string(root)](int p) {
      return root == "first" ? 0 : root == "middle" ? p / 2 : p - 1;
    };
    out.push_back({std::string("bcast_scatter_allgather_root_") + root, Data::Broadcast,
                   [pick](int p, i64 n) { return coll::bcast_scatter_allgather(p, n, pick(p)); },
                   [pick](int p, i64 n) { return bcast_ref(p, n, pick(p)); }, bcast_total,
                   nullptr});
  }
  return out;
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const Case& c : cases()) names.push_back(c.name);
  return names;
}

const Case& case_named(const std::string& name) {
  static const std::vector<Case> all = cases();
  for (const Case& c : all)
    if (c.name == name) return c;
  throw Error("no case " + name);
}

class CollGenerator : public ::testing::TestWithParam<std::string> {};

TEST_P(CollGenerator, MatchesReferenceAndMovesEveryBlockOnce) {
  const Case& c = case_named(GetParam());
  for (int p : rank_counts()) {
    if (c.even_ranks_only && p % 2 != 0) continue;
    for (i64 bytes : kByteCounts) {
      SCOPED_TRACE(c.name + " P=" + std::to_string(p) + " bytes=" + std::to_string(bytes));
      const Schedule s = choreo::expand(c.build(p, bytes));
      const Reference ref = c.reference(p, bytes);
      ASSERT_EQ(s.ranks, p);
      // (a)
      const Shape got = shape_of(s);
      const PerTag want = per_tag(ref);
      EXPECT_EQ(got.sends, want);
      EXPECT_EQ(got.recvs, want);
      EXPECT_EQ(got.copies, ref.copies);
      EXPECT_EQ(got.calcs, ref.calcs);
      // (d)
      EXPECT_EQ(s.message_bytes(), c.total_bytes(p, bytes));
      // (c)
      EXPECT_EQ(Replay(s, ref, c.data).run(), "");
      if (c.copy_rules) c.copy_rules(s, p);
      if (::testing::Test::HasFailure()) return;  // one failing (P, bytes) is enough to read
    }
  }
}

// (b)
TEST_P(CollGenerator, ValidatesAndSimulatesEagerAndRendezvous) {
  const Case& c = case_named(GetParam());
  for (int p : rank_counts()) {
    if (c.even_ranks_only && p % 2 != 0) continue;
    for (i64 bytes : kByteCounts) {
      SCOPED_TRACE(c.name + " P=" + std::to_string(p) + " bytes=" + std::to_string(bytes));
      const CompactSchedule compact = c.build(p, bytes);
      EXPECT_NO_THROW(validate(choreo::expand(compact)));
      for (i64 eager_limit : {i64{65535}, i64{0}}) {  // S = 0: every message is rendezvous
        sim::SimOptions options;
        options.params.S = eager_limit;
        sim::SimResult result;
        EXPECT_NO_THROW(result = sim::simulate(compact, options)) << "S = " << eager_limit;
        if (compact.op_count() > 0 && bytes > 0 && p > 1) {
          EXPECT_GT(result.makespan, 0);
        }
      }
      if (::testing::Test::HasFailure()) return;
    }
  }
}

std::string test_name(const ::testing::TestParamInfo<std::string>& case_info) {
  return case_info.param;
}

INSTANTIATE_TEST_SUITE_P(All, CollGenerator, ::testing::ValuesIn(case_names()), test_name);

// ---------------------------------------------------------------------------------------
// Shapes by hand, as the papers draw them

TEST(CollGeneratorShape, BruckAllgatherMatchesPaperFigure2) {
  // P = 6, M = 10: steps of 1, 2 and min(4, 2) = 2 blocks; rank 1 copies 10, 50, 10, 50
  // (paper 001 times rank 1's copies: M and two of (P-1)M).
  const Schedule s = choreo::expand(coll::allgather_bruck(6, 10));
  std::vector<std::tuple<OpKind, int, i64, int>> ops;  // kind, peer, bytes, tag
  for (const Op& op : s.programs[1].ops)
    ops.emplace_back(op.kind, op.is_message() ? op.peer : -1, op.bytes,
                     op.is_message() ? op.tag : -1);
  using T = std::tuple<OpKind, int, i64, int>;
  const auto S = OpKind::Send, R = OpKind::Recv, C = OpKind::Copy;
  EXPECT_THAT(
      ops, ::testing::ElementsAre(T{C, -1, 10, -1}, T{S, 0, 10, 0}, T{R, 2, 10, 0}, T{S, 5, 20, 1},
                                  T{R, 3, 20, 1}, T{S, 3, 20, 2}, T{R, 5, 20, 2}, T{C, -1, 50, -1},
                                  T{C, -1, 10, -1}, T{C, -1, 50, -1}));
}

TEST(CollGeneratorShape, BcastPiecesShortenAtTheEnd) {
  // 10 bytes on 4 ranks: pieces of 3, 3, 3, 1. Root 0 sends pieces 2-3 (4 B) to 2, piece 1
  // (3 B) to 1; 2 sends piece 3 (1 B) to 3. Then the ring of pieces.
  const Schedule s = choreo::expand(coll::bcast_scatter_allgather(4, 10));
  std::multiset<Triple> scatter;
  for (int r = 0; r < 4; ++r)
    for (const Op& op : s.programs[static_cast<std::size_t>(r)].ops)
      if (op.kind == OpKind::Send && op.tag < 2) scatter.insert({r, op.peer, op.bytes});
  EXPECT_EQ(scatter, (std::multiset<Triple>{{0, 2, 4}, {0, 1, 3}, {2, 3, 1}}));
  // 2 bytes on 4 ranks: pieces 1, 1, 0, 0: nothing goes to 2 or 3 in the scatter.
  const Schedule t = choreo::expand(coll::bcast_scatter_allgather(4, 2));
  EXPECT_TRUE(t.programs[3].ops.empty() ||
              std::ranges::none_of(t.programs[3].ops, [](const Op& op) { return op.tag < 2; }));
}

TEST(CollGeneratorShape, AllreduceCalcsScaleWithTheChunk) {
  // 10 bytes on 4 ranks: chunks 3, 3, 2, 2; reduce_ns 1000 per full vector: 300 or 200 ns.
  const Schedule s = choreo::expand(coll::allreduce_ring(4, 10, 1000));
  std::vector<i64> calcs;
  for (const Op& op : s.programs[0].ops)
    if (op.kind == OpKind::Calc) calcs.push_back(op.nanoseconds);
  // Rank 0 receives chunks 3, 2, 1 in the reduce-scatter.
  EXPECT_THAT(calcs, ::testing::ElementsAre(200, 200, 300));
  // Rabenseifner on 5 ranks: rank 0 stands in for 1 and reduces the whole vector first.
  const Schedule t = choreo::expand(coll::allreduce_rabenseifner(5, 10, 1000));
  ASSERT_GE(t.programs[0].ops.size(), 2u);
  EXPECT_EQ(t.programs[0].ops[1].kind, OpKind::Calc);
  EXPECT_EQ(t.programs[0].ops[1].nanoseconds, 1000);
}

TEST(CollGeneratorShape, ZeroBytesMoveNothing) {
  for (const std::string& name : case_names()) {
    const auto schedule = case_named(name).build(4, 0);
    EXPECT_EQ(schedule.op_count(), 0u) << name;
    EXPECT_EQ(schedule.ranks(), 4);
  }
}

TEST(CollGeneratorShape, RecursiveDoublingAllgatherKeepsItsPowerOfTwoShape) {
  // Unchanged for powers of two: round i, tag i, 2^i blocks, both ops requiring recv_{i-1}.
  const Schedule s = choreo::expand(coll::allgather_recursive_doubling(8, 4));
  const auto& ops = s.programs[5].ops;
  ASSERT_EQ(ops.size(), 6u);
  for (int i = 0; i < 3; ++i) {
    const auto& send = ops[static_cast<std::size_t>(2 * i)];
    const auto& recv = ops[static_cast<std::size_t>(2 * i + 1)];
    EXPECT_EQ(send.peer, 5 ^ (1 << i));
    EXPECT_EQ(send.tag, i);
    EXPECT_EQ(send.bytes, 4 << i);
    EXPECT_EQ(recv.bytes, 4 << i);
    if (i > 0) {
      EXPECT_THAT(send.requires_completed, ::testing::ElementsAre(2 * i - 1));
      EXPECT_THAT(recv.requires_completed, ::testing::ElementsAre(2 * i - 1));
    }
  }
}

// ---------------------------------------------------------------------------------------
// Bad input

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(CollGeneratorErrors, RejectBadRanksAndBytes) {
  for (const std::string& name : case_names()) {
    const Case& c = case_named(name);
    EXPECT_THAT(error_of([&] { c.build(0, 8); }), HasSubstr("ranks must be at least 1, not 0"))
        << name;
    EXPECT_THAT(error_of([&] { c.build(4, -1); }), HasSubstr("must be 0 or more, not -1")) << name;
  }
  EXPECT_THAT(error_of([] { coll::allreduce_ring(4, 8, -1); }),
              HasSubstr("reduce_ns must be 0 or more"));
  EXPECT_THAT(error_of([] { coll::allreduce_rabenseifner(4, 8, -1); }),
              HasSubstr("reduce_ns must be 0 or more"));
  EXPECT_THAT(error_of([] { coll::bcast_scatter_allgather(4, 8, 4); }),
              HasSubstr("root 4 is not a rank of 0..3"));
  EXPECT_THAT(error_of([] { coll::bcast_scatter_allgather(4, 8, -1); }),
              HasSubstr("root -1 is not a rank of 0..3"));
}

TEST(CollGeneratorErrors, NeighborExchangeNeedsEvenRanks) {
  for (int p : {1, 3, 5, 17, 33}) {
    const std::string e = error_of([p] { coll::allgather_neighbor_exchange(p, 8); });
    EXPECT_THAT(e,
                HasSubstr("neighbor exchange needs an even number of ranks; use allgather:ring"));
    EXPECT_THAT(e, HasSubstr(std::to_string(p) + " ranks"));
  }
}

TEST(CollGeneratorErrors, RejectOverflowAndTooManyOps) {
  const i64 huge = i64{1} << 62;
  EXPECT_THAT(error_of([&] { coll::allgather_bruck(8, huge); }), HasSubstr("overflows"));
  EXPECT_THAT(error_of([&] { coll::allgather_recursive_doubling(6, huge); }),
              HasSubstr("overflows"));
  EXPECT_THAT(error_of([&] { coll::allgather_neighbor_exchange(4, huge); }),
              HasSubstr("overflows"));
  EXPECT_THAT(error_of([&] { coll::alltoall_pairwise(8, huge); }), HasSubstr("overflows"));
  EXPECT_THAT(error_of([&] { coll::alltoall_bruck(8, huge); }), HasSubstr("overflows"));
  EXPECT_THAT(error_of([] { coll::bcast_scatter_allgather(8, INT64_MAX); }),
              HasSubstr("too large"));
  // P^2 ops: 2^17 ranks need about 2^35.
  for (auto f :
       {+[] { coll::alltoall_pairwise(1 << 17, 8); }, +[] { coll::allreduce_ring(1 << 17, 8); },
        +[] { coll::bcast_scatter_allgather(1 << 17, 8); },
        +[] { coll::allgather_neighbor_exchange(1 << 17, 8); }})
    EXPECT_THAT(error_of(f), HasSubstr("more than the"));
}

// ---------------------------------------------------------------------------------------
// Registry

TEST(CollGeneratorRegistry, SpecsBuildTheGenerators) {
  auto same = [](const std::string& spec, const CompactSchedule& direct) {
    EXPECT_EQ(choreo::expand(coll::generate(spec)), choreo::expand(direct)) << spec;
  };
  same("allgather:bruck:ranks=7:bytes=100", coll::allgather_bruck(7, 100));
  same("allgather:recdbl:ranks=6:bytes=100", coll::allgather_recursive_doubling(6, 100));
  same("allgather:neighbor:ranks=6:bytes=100", coll::allgather_neighbor_exchange(6, 100));
  same("bcast:scatter_allgather:ranks=5:bytes=1001:root=3",
       coll::bcast_scatter_allgather(5, 1001, 3));
  same("bcast:scatter_allgather:ranks=5:bytes=1001", coll::bcast_scatter_allgather(5, 1001, 0));
  same("allreduce:ring:ranks=5:bytes=1001:reduce_ns=70", coll::allreduce_ring(5, 1001, 70));
  same("allreduce:ring:ranks=5:bytes=1001", coll::allreduce_ring(5, 1001, 0));
  same("allreduce:rabenseifner:ranks=7:bytes=1001:reduce_ns=70",
       coll::allreduce_rabenseifner(7, 1001, 70));
  same("alltoall:pairwise:ranks=5:bytes=64", coll::alltoall_pairwise(5, 64));
  same("alltoall:bruck:ranks=5:bytes=64", coll::alltoall_bruck(5, 64));
}

TEST(CollGeneratorRegistry, NamesEveryGenerator) {
  EXPECT_THAT(
      coll::generator_names(),
      ::testing::IsSupersetOf({"allgather:bruck", "allgather:recdbl", "allgather:neighbor",
                               "bcast:scatter_allgather", "allreduce:ring",
                               "allreduce:rabenseifner", "alltoall:pairwise", "alltoall:bruck"}));
  EXPECT_EQ(coll::generate("allgather:neighbor:ranks=4:bytes=1").ranks(), 4);
  EXPECT_THAT(error_of([] { coll::generate("allgather:neighbor:ranks=5:bytes=1"); }),
              HasSubstr("needs an even number of ranks"));
  EXPECT_THAT(error_of([] { coll::generate("alltoall:ring:ranks=5:bytes=1"); }),
              HasSubstr("known: pairwise or bruck"));
}

}  // namespace
}  // namespace choreo
