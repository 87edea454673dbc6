// Per-op outputs of the simulator: the CSV holds the times worked out by hand for a
// ping-pong (docs/sim-model.md), and the Chrome trace is JSON with one track per rank.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "choreo/error.hpp"
#include "choreo/sim/trace.hpp"
#include "schedule_builder.hpp"

namespace choreo::sim {
namespace {

CompactSchedule ping_pong() {
  test::Builder b(2);
  b.send(0, 0, 1, 1).recv(0, 1, 1, 1);
  b.recv(1, 0, 0, 1).send(1, 1, 0, 1).after({0});
  return compact(b.build());
}

TEST(SimTrace, CsvHoldsTheWorkedExampleTimes) {
  CompactSchedule s = ping_pong();
  SimOptions o;
  o.record_ops = true;
  SimResult r = simulate(s, o);
  EXPECT_EQ(ops_csv(s, r),
            "rank,op,kind,peer,tag,amount,start_ns,end_ns\n"
            "0,0,send,1,0,1,0,1500\n"
            "0,1,recv,1,0,1,0,11000\n"
            "1,0,recv,0,0,1,0,5500\n"
            "1,1,send,0,0,1,5500,7000\n");
}

TEST(SimTrace, ChromeTraceHasATrackPerRankAndAnEventPerOp) {
  CompactSchedule s = ping_pong();
  SimOptions o;
  o.record_ops = true;
  auto trace = nlohmann::json::parse(chrome_trace(s, simulate(s, o)));
  int tracks = 0, ops = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "M") ++tracks;
    if (e["ph"] == "X") {
      ++ops;
      EXPECT_GE(e["dur"].get<double>(), 0);
    }
  }
  EXPECT_EQ(tracks, 2);
  EXPECT_EQ(ops, 4);
}

TEST(SimTrace, NeedsRecordedTimes) {
  CompactSchedule s = ping_pong();
  EXPECT_THROW(ops_csv(s, simulate(s, {})), Error);
}

}  // namespace
}  // namespace choreo::sim
