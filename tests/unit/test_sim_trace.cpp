// Per-op outputs of the simulator: the CSV holds the times worked out by hand for a
// ping-pong (docs/sim-model.md), and the Chrome trace keeps the format's rules on real runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "choreo/coll/resilient.hpp"
#include "choreo/core/error.hpp"
#include "choreo/core/pattern.hpp"
#include "choreo/sched/schedulers.hpp"
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

TEST(SimTrace, ChromeTraceHasAProcessPerRankAThreadPerKindAndAFlowPerMessage) {
  CompactSchedule s = ping_pong();
  SimOptions o;
  o.record_ops = true;
  auto trace = nlohmann::json::parse(chrome_trace(s, simulate(s, o)));
  std::vector<std::string> processes, threads;
  int slices = 0, flows = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["name"] == "process_name") processes.push_back(e["args"]["name"]);
    if (e["name"] == "thread_name") threads.push_back(e["args"]["name"]);
    slices += e["ph"] == "X" ? 1 : 0;
    flows += e["ph"] == "s" ? 1 : 0;
  }
  EXPECT_EQ(processes, (std::vector<std::string>{"rank 0", "rank 1"}));
  EXPECT_EQ(threads, (std::vector<std::string>{"send", "recv", "send", "recv"}));
  EXPECT_EQ(slices, 4);
  EXPECT_EQ(flows, 2);
}

// The flows follow the simulator's matching: posted receives in the order they were posted,
// wildcards included, and each send's message to the first one it fits.
TEST(SimTrace, SimulatorRecordsTheReceiveEachSendMatched) {
  test::Builder b(3);
  b.send(0, 0, 1, 8).send(0, 1, 1, 8);
  b.recv(1, 0, kAny, 8).recv(1, 1, 0, 8).recv(1, 2, 2, 8, 5);
  b.send(2, 0, 1, 8, 5);
  SimOptions o;
  o.record_ops = true;
  const SimResult r = simulate(compact(b.build()), o);
  // Ops over all ranks: rank 0's sends 0, 1; rank 1's receives 2, 3, 4; rank 2's send 5.
  EXPECT_EQ(r.matched_receive, (std::vector<OpIndex>{2, 3, kUnmatched, kUnmatched, kUnmatched, 4}));
}

TEST(SimTrace, NeedsRecordedTimes) {
  CompactSchedule s = ping_pong();
  EXPECT_THROW(ops_csv(s, simulate(s, {})), Error);
}

// ---- the trace format's rules, on real runs ---------------------------------------------
// Checked here from the JSON alone, as a viewer reads it, without the writer's own code:
// every slice well formed and with its arguments, slices nesting on every track (Perfetto
// drops or misdraws slices that overlap without nesting), and one flow per message, from a
// slice on the sender's track to a slice on the receiver's.

using nlohmann::json;

/// A time in the trace (µs) in whole ns, rounded as Perfetto's importer does.
std::int64_t trace_ns(const json& microseconds) {
  return std::llround(microseconds.get<double>() * 1000.0);
}

struct TraceSlice {
  std::int64_t start = 0, end = 0;
  const json* event = nullptr;
};
using TrackKey = std::pair<std::int64_t, std::int64_t>;  // (pid, tid)

/// Every rule the trace breaks, one line each (at most a few of each kind).
/// `slots`: each op's slot (op_slots), or empty when the trace was given none.
std::vector<std::string> trace_rule_violations(const json& trace, const CompactSchedule& s,
                                               std::span<const int> slots) {
  std::vector<std::string> problems;
  std::map<std::string, int> reported;
  const auto fail = [&](const std::string& rule, const std::string& detail) {
    if (reported[rule]++ < 3) problems.push_back(rule + ": " + detail);
  };
  if (trace.value("displayTimeUnit", "") != "ns") fail("displayTimeUnit", "not \"ns\"");
  std::map<TrackKey, std::vector<TraceSlice>> tracks;
  std::map<std::string, std::vector<const json*>> flow_starts, flow_ends;  // by id
  std::map<std::int64_t, std::string> process_names;
  std::size_t slices = 0;
  for (const json& e : trace.at("traceEvents")) {
    const std::string phase = e.at("ph");
    if (phase == "M" && e.at("name") == "process_name")
      process_names[e.at("pid").get<std::int64_t>()] = e.at("args").at("name");
    if (phase == "s") flow_starts[e.at("id").dump()].push_back(&e);
    if (phase == "f") flow_ends[e.at("id").dump()].push_back(&e);
    if (phase != "X") continue;
    ++slices;
    const std::string text = e.dump();
    if (!e.contains("ts") || !e.contains("dur") || !e.at("ts").is_number() ||
        !e.at("dur").is_number()) {
      fail("slice times", text);
      continue;
    }
    const std::int64_t start = trace_ns(e.at("ts")), length = trace_ns(e.at("dur"));
    if (start < 0 || length < 0) fail("ts >= 0 and dur >= 0", text);
    tracks[{e.at("pid").get<std::int64_t>(), e.at("tid").get<std::int64_t>()}].push_back(
        {start, start + length, &e});
    const json args = e.value("args", json::object());
    const std::string kind = e.value("cat", "");
    std::vector<std::string> wanted{"op"};
    if (kind == "send" || kind == "recv") wanted.insert(wanted.end(), {"bytes", "peer", "tag"});
    if (kind == "copy") wanted.emplace_back("bytes");
    if (kind == "delay" || kind == "calc") wanted.emplace_back("ns");
    for (const auto& key : wanted)
      if (!args.contains(key))
        fail("args of a " + kind + " slice", "no \"" + key + "\" in " + text);
  }
  // Every op once, on its rank's process, with its slot if it has one.
  std::map<std::pair<std::string, std::int64_t>, int> seen;  // (process, op) -> slices
  for (const auto& [key, list] : tracks)
    for (const TraceSlice& slice : list) {
      const json args = slice.event->value("args", json::object());
      const auto process = process_names.find(key.first);
      if (process == process_names.end() || !args.contains("op")) {
        fail("a slice names its rank and op", slice.event->dump());
        continue;
      }
      ++seen[{process->second, args.at("op").get<std::int64_t>()}];
      const int rank = std::stoi(process->second.substr(process->second.find(' ') + 1));
      const OpIndex op = s.first_op(rank) + args.at("op").get<OpIndex>();
      const int slot = slots.empty() ? kNoSlot : slots[op];
      if (args.value("slot", kNoSlot) != slot)
        fail("a slice carries its op's slot", slice.event->dump());
      if (slice.event->value("cat", "") != to_string(s.kind(op)))
        fail("a slice is its op's kind", slice.event->dump());
    }
  for (const auto& [op, count] : seen)
    if (count != 1) fail("one slice per op", op.first + " op " + std::to_string(op.second));
  if (slices != s.op_count())
    fail("a slice per op",
         std::to_string(slices) + " slices, " + std::to_string(s.op_count()) + " ops");

  // Nesting, checked naively: by start (longest first at equal starts), every slice lies
  // inside the innermost slice still open or starts at or after its end.
  std::size_t overlaps = 0;
  for (auto& [key, list] : tracks) {
    std::sort(list.begin(), list.end(), [](const TraceSlice& a, const TraceSlice& b) {
      return a.start != b.start ? a.start < b.start : a.end > b.end;
    });
    std::vector<const TraceSlice*> open;
    for (const TraceSlice& slice : list) {
      while (!open.empty() && open.back()->end <= slice.start) open.pop_back();
      if (!open.empty() && slice.end > open.back()->end) {
        ++overlaps;
        fail("nesting", open.back()->event->dump() + " and " + slice.event->dump() +
                            " overlap on pid " + std::to_string(key.first) + " tid " +
                            std::to_string(key.second));
      }
      open.push_back(&slice);
    }
  }
  if (overlaps > 0) fail("overlaps", std::to_string(overlaps) + " slices overlap their track");

  // Flows: each start has one end; both lie inside a slice of their own track, the start in a
  // send and the end in a receive of the rank the send names.
  const auto slice_at = [&](const json& point, const std::string& kind) -> const TraceSlice* {
    if (!point.contains("ts") || !point.contains("pid") || !point.contains("tid")) return nullptr;
    const auto found =
        tracks.find({point.at("pid").get<std::int64_t>(), point.at("tid").get<std::int64_t>()});
    if (found == tracks.end()) return nullptr;
    const std::int64_t t = trace_ns(point.at("ts"));
    for (const TraceSlice& slice : found->second)
      if (slice.start <= t && t <= slice.end && slice.event->value("cat", "") == kind)
        return &slice;
    return nullptr;
  };
  std::size_t sends = 0;
  for (OpIndex i = 0; i < s.op_count(); ++i) sends += s.kind(i) == OpKind::Send ? 1 : 0;
  if (flow_starts.size() != sends)
    fail("a flow per message",
         std::to_string(flow_starts.size()) + " flows, " + std::to_string(sends) + " sends");
  for (const auto& [id, starts] : flow_starts) {
    const auto ends = flow_ends.find(id);
    if (starts.size() != 1 || ends == flow_ends.end() || ends->second.size() != 1) {
      fail("one start and one end per flow", "flow " + id);
      continue;
    }
    const json& from = *starts.front();
    const json& to = *ends->second.front();
    if (to.value("bp", "") != "e") fail("flow ends bind to their enclosing slice", to.dump());
    if (from.value("cat", "") != to.value("cat", "") ||
        from.value("name", "") != to.value("name", ""))
      fail("a flow's start and end share cat and name", from.dump() + " " + to.dump());
    const TraceSlice* send = slice_at(from, "send");
    const TraceSlice* recv = slice_at(to, "recv");
    if (send == nullptr) fail("a flow starts inside a send on its track", from.dump());
    if (recv == nullptr) fail("a flow ends inside a receive on its track", to.dump());
    if (send == nullptr || recv == nullptr) continue;
    const json& sent = send->event->at("args");
    const json& received = recv->event->at("args");
    const auto receiver = process_names.find(to.at("pid").get<std::int64_t>());
    if (receiver == process_names.end() ||
        receiver->second != "rank " + std::to_string(sent.at("peer").get<int>()))
      fail("a flow ends at the rank its send names", from.dump() + " " + to.dump());
    if (received.at("tag") != kAny && received.at("tag") != sent.at("tag"))
      fail("a flow joins a send and a receive of one tag", from.dump() + " " + to.dump());
  }
  for (const auto& [id, ends] : flow_ends)
    if (!flow_starts.contains(id)) fail("every flow end has a start", ends.front()->dump());
  return problems;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out;
}

/// Simulates `s` and checks its trace against the rules above.
void expect_trace_follows_the_rules(const CompactSchedule& s, SimOptions options = {},
                                    std::span<const int> slots = {}) {
  options.record_ops = true;
  const json trace = json::parse(chrome_trace(s, simulate(s, options), slots));
  const auto problems = trace_rule_violations(trace, s, slots);
  EXPECT_TRUE(problems.empty()) << joined(problems);
}

Pattern uneven_random_pattern(int ranks, std::uint64_t seed) {
  // Sizes from 1 B to 256 KiB: eager and rendezvous messages (S = 65535), long and short.
  return patterns::with_random_sizes(patterns::random_density(ranks, 0.6, 1, seed), 1, 256 * 1024,
                                     seed);
}

TEST(SimTraceRules, OpenShopScheduleOfUnequalSizes) {
  const Pattern p = uneven_random_pattern(10, 7);
  expect_trace_follows_the_rules(compact(schedule_from_timed_plan(p, plan_open_shop(p), 6.0)));
}

TEST(SimTraceRules, DelayScheduleWithNoise) {
  const Pattern p = patterns::random_density(12, 0.5, 8192, 3);
  SimOptions options;
  add_noise(options.noise, "os:period=20000,duration=3000");
  add_noise(options.noise, "net:period=50000,duration=5000");
  const Schedule schedule = schedule_from_plan(p, plan_delay_insertion(p), 40000);
  const std::vector<int> slots = op_slots(schedule);
  ASSERT_TRUE(std::ranges::any_of(slots, [](int slot) { return slot > 0; }));
  expect_trace_follows_the_rules(compact(schedule), options, slots);
}

TEST(SimTraceRules, DirectAlltoall) {
  expect_trace_follows_the_rules(compact(schedule_direct(patterns::alltoall(8, 100000))));
}

TEST(SimTraceRules, FirstOfGroupsOfTheResilientAllreduce) {
  expect_trace_follows_the_rules(coll::allreduce_resilient(8, 4096, 2, 500));
}

}  // namespace
}  // namespace choreo::sim
