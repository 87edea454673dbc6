// choreo import's matching (include/choreo/replay/import.hpp): against the true pairing of random
// message sets and against a naive reference, then import_traces on hand-made traces for
// wildcards, communicators and non-overtaking order.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "choreo/core/error.hpp"
#include "choreo/replay/import.hpp"
#include "error_of.hpp"

namespace replay_match_test {

using namespace choreo;
using namespace choreo::replay;

/// The naive reference: each receive, in posting order, takes the earliest send of its
/// channel not yet taken, by scanning the sender's whole list.
std::vector<std::vector<std::size_t>> naive(const std::vector<std::vector<SendKey>>& sends,
                                            const std::vector<std::vector<RecvKey>>& recvs) {
  std::vector<std::vector<bool>> taken;
  for (const auto& s : sends) taken.emplace_back(s.size(), false);
  std::vector<std::vector<std::size_t>> out(recvs.size());
  for (std::size_t dst = 0; dst < recvs.size(); ++dst)
    for (const RecvKey& r : recvs[dst]) {
      const auto& list = sends[static_cast<std::size_t>(r.src)];
      for (std::size_t k = 0; k < list.size(); ++k)
        if (!taken[static_cast<std::size_t>(r.src)][k] && list[k].comm == r.comm &&
            list[k].dst == static_cast<int>(dst) && list[k].tag == r.tag) {
          taken[static_cast<std::size_t>(r.src)][k] = true;
          out[dst].push_back(k);
          break;
        }
    }
  return out;
}

TEST(ReplayMatch, RandomMessageSetsPairAsPostedAndAsTheNaiveReference) {
  std::mt19937 random(19);
  for (int trial = 0; trial < 300; ++trial) {
    const int ranks = 2 + trial % 4;
    struct Message {
      int src, dst, comm, tag;
    };
    std::vector<Message> messages;
    const int count = 1 + static_cast<int>(random() % 40);
    for (int m = 0; m < count; ++m) {
      const int src = static_cast<int>(random() % ranks);
      int dst = static_cast<int>(random() % (ranks - 1));
      if (dst >= src) ++dst;
      messages.push_back(
          {src, dst, static_cast<int>(random() % 3), static_cast<int>(random() % 3)});
    }
    std::vector<std::vector<SendKey>> sends(static_cast<std::size_t>(ranks));
    std::vector<std::size_t> send_index(messages.size());
    for (std::size_t m = 0; m < messages.size(); ++m) {
      auto& list = sends[static_cast<std::size_t>(messages[m].src)];
      send_index[m] = list.size();
      list.push_back({messages[m].comm, messages[m].dst, messages[m].tag});
    }
    // Each receiver posts its messages in a random order that keeps every channel's order
    // (what MPI's non-overtaking rule lets a receiver see): sort by a random key, then restore
    // the order within each channel.
    std::vector<std::vector<RecvKey>> recvs(static_cast<std::size_t>(ranks));
    std::vector<std::vector<std::size_t>> truth(static_cast<std::size_t>(ranks));
    for (int dst = 0; dst < ranks; ++dst) {
      std::vector<std::size_t> mine;
      for (std::size_t m = 0; m < messages.size(); ++m)
        if (messages[m].dst == dst) mine.push_back(m);
      std::vector<std::size_t> order = mine;
      std::shuffle(order.begin(), order.end(), random);
      // Slots of each channel in the shuffled order get the channel's messages in send order.
      for (std::size_t i = 0; i < order.size(); ++i) {
        const Message& slot = messages[order[i]];
        for (std::size_t m : mine) {
          const Message& candidate = messages[m];
          if (candidate.src == slot.src && candidate.comm == slot.comm &&
              candidate.tag == slot.tag &&
              std::find(order.begin(), order.begin() + static_cast<long>(i), m) ==
                  order.begin() + static_cast<long>(i)) {
            order[i] = m;
            break;
          }
        }
      }
      for (std::size_t m : order) {
        recvs[static_cast<std::size_t>(dst)].push_back(
            {messages[m].comm, messages[m].src, messages[m].tag});
        truth[static_cast<std::size_t>(dst)].push_back(send_index[m]);
      }
    }
    const auto matched = match_messages(sends, recvs);
    EXPECT_EQ(matched, truth) << "trial " << trial;
    EXPECT_EQ(matched, naive(sends, recvs)) << "trial " << trial;
  }
}

TEST(ReplayMatch, UnmatchedSendsAndReceivesAreNamed) {
  try {
    match_messages({{{0, 1, 5}}, {}}, {{}, {{0, 0, 6}}});
    FAIL() << "a receive of the wrong tag was matched";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rank 1's receive #0 (from rank 0, tag 6"),
              std::string::npos)
        << e.what();
  }
  try {
    match_messages({{{0, 1, 5}}, {}}, {{}, {}});
    FAIL() << "a send without a receive was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rank 0's send #0 (to rank 1, tag 5"), std::string::npos)
        << e.what();
  }
}

// Hand-made traces through import_traces.

trace::Event event(trace::Kind kind) {
  trace::Event e;
  e.kind = kind;
  return e;
}

trace::Event message(trace::Kind kind, std::uint32_t comm, int peer, int tag, std::int64_t bytes,
                     std::uint64_t request = 0) {
  trace::Event e = event(kind);
  e.comm = comm;
  e.peer = peer;
  e.tag = tag;
  e.bytes = bytes;
  e.request = request;
  return e;
}

/// A blocking receive as the recorder writes it: with the status of what it matched.
trace::Event received(std::uint32_t comm, int peer, int tag, std::int64_t bytes) {
  trace::Event e = message(trace::Kind::Recv, comm, peer, tag, 4096);
  e.status = {peer, tag, bytes};
  return e;
}

std::vector<trace::RankTrace> traces_of(std::vector<std::vector<trace::Event>> ranks) {
  std::vector<trace::RankTrace> traces;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    trace::RankTrace t;
    t.header.rank = static_cast<int>(r);
    t.header.size = static_cast<int>(ranks.size());
    t.header.mpi_library = "MPICH Version: 4.0.2";
    t.events = std::move(ranks[r]);
    traces.push_back(std::move(t));
  }
  return traces;
}

TEST(ReplayImport, AnySourceReceivesTakeTheSendersTheirStatusesName) {
  using trace::Kind;
  trace::Event done = event(Kind::Complete);
  done.completed = {{1, true, {1, 5, 10}}, {2, true, {0, 5, 20}}};
  const Schedule s = import_traces(
      traces_of({{message(Kind::Send, trace::kWorld, 2, 5, 20)},
                 {message(Kind::Send, trace::kWorld, 2, 5, 10)},
                 {message(Kind::Irecv, trace::kWorld, trace::kAnySource, trace::kAnyTag, 64, 1),
                  message(Kind::Irecv, trace::kWorld, trace::kAnySource, 5, 64, 2), done}}),
      {});
  const auto& ops = s.programs[2].ops;
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[0].peer, 1);
  EXPECT_EQ(ops[0].bytes, 10);
  EXPECT_EQ(ops[1].peer, 0);
  EXPECT_EQ(ops[1].bytes, 20);
  EXPECT_EQ(ops[1].requires_started, std::vector<std::int64_t>{0});
}

// Found by fuzzing: a gap of 8.7e18 ns became a calc no reader takes back (and beyond int64
// once scaled, undefined behaviour); now an error naming the rank.
TEST(ReplayImport, AComputationBeyondTheLimitIsAnError) {
  trace::Event barrier = event(trace::Kind::Collective);
  barrier.gap_ns = 8714997200177740000;
  EXPECT_THAT(test::error_of([&] { import_traces(traces_of({{barrier}}), {}); }),
              ::testing::HasSubstr("rank 0: a computation of 8.71e+18 ns between two MPI calls"));
  barrier.gap_ns = 1000000000000000;  // 10^15 ns, the limit itself
  EXPECT_EQ(import_traces(traces_of({{barrier}}), {}).programs[0].ops[0].nanoseconds,
            1000000000000000);
  ImportOptions twice;
  twice.calc_scale = 2;
  EXPECT_THAT(test::error_of([&] { import_traces(traces_of({{barrier}}), twice); }),
              ::testing::HasSubstr("times the scale 2"));
}

TEST(ReplayImport, CommunicatorRanksAreTranslatedAndKeptApart) {
  using trace::Kind;
  // World ranks 0 and 2 split off as {2, 0} (ranks 1, 0); rank 1 gets MPI_COMM_NULL. On it,
  // world 2 (rank 0 there) sends tag 1 to rank 1 (world 0); on the world, world 2 sends
  // tag 1 to world 0 too. World 0 receives the world's message first, then the split's.
  trace::Event split = event(Kind::CommCreate);
  split.comm = trace::kWorld;
  split.new_comm = 2;
  split.members = {2, 0};
  trace::Event no_comm = split;
  no_comm.new_comm = trace::kNoComm;
  no_comm.members = {};
  const Schedule s =
      import_traces(traces_of({{split, received(trace::kWorld, 2, 1, 8), received(2, 0, 1, 100)},
                               {no_comm},
                               {split, message(Kind::Send, 2, 1, 1, 100),
                                message(Kind::Send, trace::kWorld, 0, 1, 8)}}),
                    {});
  const auto& arrived = s.programs[0].ops;
  ASSERT_EQ(arrived.size(), 2u);
  EXPECT_EQ(arrived[0].peer, 2);
  EXPECT_EQ(arrived[0].bytes, 8);  // the world's message, though it was sent second
  EXPECT_EQ(arrived[1].bytes, 100);
  const auto& sent = s.programs[2].ops;
  EXPECT_EQ(sent[0].tag, arrived[1].tag);
  EXPECT_EQ(sent[1].tag, arrived[0].tag);
  EXPECT_NE(sent[0].tag, sent[1].tag);
}

TEST(ReplayImport, AWildcardReceiveThatNeverCompletedIsAnError) {
  using trace::Kind;
  try {
    import_traces(traces_of({{message(Kind::Irecv, trace::kWorld, trace::kAnySource, 0, 8, 1)},
                             {message(Kind::Send, trace::kWorld, 0, 0, 8)}}),
                  {});
    FAIL() << "an unresolved wildcard was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no Wait or Test completed it"), std::string::npos)
        << e.what();
  }
}

TEST(ReplayImport, ComputationBecomesCalcsAndCollectivesTheirAlgorithm) {
  using trace::Kind;
  std::vector<std::vector<trace::Event>> ranks(4);
  for (auto& events : ranks) {
    trace::Event bcast = event(Kind::Collective);
    bcast.collective = trace::Collective::Bcast;
    bcast.collective_bytes = 1024;
    bcast.gap_ns = 5000;
    events.push_back(bcast);
  }
  ImportOptions options;
  options.calc_scale = 2;
  const Schedule s = import_traces(traces_of(ranks), options);
  // calc(10000), then bcast:binomial from 0: rank 0 sends to 2, then to 1.
  const auto& root = s.programs[0].ops;
  ASSERT_EQ(root.size(), 3u);
  EXPECT_EQ(root[0].kind, OpKind::Calc);
  EXPECT_EQ(root[0].nanoseconds, 10000);
  EXPECT_EQ(root[1].peer, 2);
  EXPECT_EQ(root[2].peer, 1);
  EXPECT_EQ(root[1].requires_completed, std::vector<std::int64_t>{0});
  options.algorithms["bcast"] = "nonsense";
  EXPECT_THROW(import_traces(traces_of(ranks), options), Error);
}

}  // namespace replay_match_test
