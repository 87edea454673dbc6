// The .ctr trace format (include/choreo/replay/trace_format.hpp): every record kind survives
// encoding, and a file cut anywhere, or not a trace, or of a newer format, gives one clear line.
#include <gtest/gtest.h>

#include <string>

#include "choreo/core/error.hpp"
#include "choreo/replay/trace_format.hpp"

namespace trace_format_test {

using namespace choreo::trace;

std::vector<Event> one_of_each() {
  std::vector<Event> events;
  auto add = [&](Kind kind) -> Event& {
    Event& e = events.emplace_back();
    e.kind = kind;
    e.gap_ns = 1234567 + static_cast<std::int64_t>(events.size());
    e.duration_ns = 89;
    return e;
  };
  Event& send = add(Kind::Send);
  send.comm = 3;
  send.peer = 2;
  send.tag = 77;
  send.bytes = 1 << 20;
  Event& recv = add(Kind::Recv);
  recv.peer = kAnySource;
  recv.tag = kAnyTag;
  recv.bytes = 4096;
  recv.status = {1, 9, 1000};
  for (Kind kind : {Kind::Isend, Kind::Irecv, Kind::SendInit, Kind::RecvInit}) {
    Event& e = add(kind);
    e.peer = kProcNull;
    e.request = 1ULL << 40;
  }
  Event& sendrecv = add(Kind::Sendrecv);
  sendrecv.recv_peer = 4;
  sendrecv.recv_tag = 5;
  sendrecv.recv_bytes = 6;
  sendrecv.status = {4, 5, 6};
  add(Kind::Start).requests = {1, 2, 300};
  Event& complete = add(Kind::Complete);
  complete.completed = {{7, false, {}}, {8, true, {0, 3, 12}}};
  Event& alltoallv = add(Kind::Collective);
  alltoallv.collective = Collective::Alltoallv;
  alltoallv.send_bytes = {0, 10, 1 << 30};
  Event& bcast = add(Kind::Collective);
  bcast.collective = Collective::Bcast;
  bcast.root = 3;
  bcast.collective_bytes = 100;
  Event& split = add(Kind::CommCreate);
  split.comm = kWorld;
  split.new_comm = 2;
  split.members = {1, 3};
  Event& met = add(Kind::CommCreate);
  met.comm = kNoParent;
  met.new_comm = 3;
  met.members = {0};
  add(Kind::RequestFree).request = 5;
  return events;
}

std::string file_of(const std::vector<Event>& events, Header header = {}) {
  header.writer = "choreo test";
  header.rank = 1;
  header.size = 4;
  header.clock = "steady_clock ns";
  header.start_ns = -5;
  header.mpi_library = "MPICH Version: 4.0.2";
  std::string bytes;
  encode(header, bytes);
  for (const Event& e : events) encode(e, bytes);
  Event end;
  end.kind = Kind::End;
  end.gap_ns = 42;
  end.records = events.size();
  encode(end, bytes);
  return bytes;
}

std::string error_of(std::string_view bytes) {
  try {
    decode(bytes, "rank-1.ctr");
  } catch (const choreo::Error& e) {
    return e.what();
  }
  return "";
}

TEST(TraceFormat, EveryKindRoundTrips) {
  const std::vector<Event> events = one_of_each();
  const RankTrace trace = decode(file_of(events), "rank-1.ctr");
  EXPECT_EQ(trace.header.rank, 1);
  EXPECT_EQ(trace.header.size, 4);
  EXPECT_EQ(trace.header.start_ns, -5);
  EXPECT_EQ(trace.header.mpi_library, "MPICH Version: 4.0.2");
  EXPECT_EQ(trace.events, events);
  EXPECT_EQ(trace.final_gap_ns, 42);
}

TEST(TraceFormat, APointToPointCallTakesAboutTenBytes) {
  Event send;
  send.kind = Kind::Send;
  send.gap_ns = 20000;
  send.duration_ns = 900;
  send.peer = 63;
  send.tag = 7;
  send.bytes = 8192;
  std::string bytes;
  encode(send, bytes);
  EXPECT_LE(bytes.size(), 12u);
}

TEST(TraceFormat, EveryCutGivesOneClearLine) {
  const std::string whole = file_of(one_of_each());
  for (std::size_t length = 0; length < whole.size(); ++length) {
    const std::string message = error_of(std::string_view(whole).substr(0, length));
    ASSERT_FALSE(message.empty()) << "a trace cut at " << length << " bytes was accepted";
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_EQ(message.rfind("rank-1.ctr: ", 0), 0u) << message;
    const bool clear = message.find("cut short") != std::string::npos ||
                       message.find("not a choreo trace") != std::string::npos;
    EXPECT_TRUE(clear) << length << ": " << message;
  }
}

TEST(TraceFormat, ForeignNewerAndCorruptFilesAreNamed) {
  EXPECT_NE(error_of("GOAL text").find("not a choreo trace"), std::string::npos);
  Header newer;
  newer.format_version = kFormatVersion + 1;
  EXPECT_NE(error_of(file_of({}, newer)).find("newer than this choreo reads"), std::string::npos);
  std::string bad_kind = file_of({});
  bad_kind.insert(bad_kind.size() - 4, "\x63\x00\x00", 3);  // kind 99 before the End record
  EXPECT_NE(error_of(bad_kind).find("unknown record kind 99"), std::string::npos);
  std::string extra = file_of({}) + "x";
  EXPECT_NE(error_of(extra).find("bytes after the end record"), std::string::npos);
}

}  // namespace trace_format_test
