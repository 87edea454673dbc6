// JSON spellings of Pattern and Schedule (docs/formats.md). Readers reject what they do
// not understand (unknown ops or keys, wrong types) with the path of the offending value,
// so a typo such as "requries" is an error rather than a silently dropped dependency.
#include "choreo/core/json_io.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "choreo/core/error.hpp"
#include "choreo/core/limits.hpp"
#include "json_read.hpp"

namespace choreo {
namespace {

using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;

constexpr const char* kPatternFormat = "choreo.pattern/1";
constexpr const char* kScheduleFormat = "choreo.schedule/1";

void check_format(const json& doc, const char* expected) {
  if (!doc.is_object())
    throw Error(fmt::format("expected a JSON object with \"format\": \"{}\"", expected));
  auto it = doc.find("format");
  if (it == doc.end() || !it->is_string())
    throw Error(fmt::format("missing \"format\": \"{}\" at the top level", expected));
  std::string format = *it;
  if (format == expected) return;
  if (format == kPatternFormat)
    throw Error("this file is a pattern, not a schedule; make a schedule with `choreo schedule`");
  if (format == kScheduleFormat) throw Error("this file is a schedule, not a pattern");
  throw Error(fmt::format("unsupported format \"{}\"; this choreo reads \"{}\"", format, expected));
}

template <typename Int>
Int get_int(const json& object, const std::string& path, const char* key) {
  return static_cast<Int>(get_integer(object, path, key, std::numeric_limits<Int>::min(),
                                      std::numeric_limits<Int>::max()));
}

template <typename Int>
Int get_int_or(const json& object, const std::string& path, const char* key, Int fallback) {
  return object.contains(key) ? get_int<Int>(object, path, key) : fallback;
}

/// A size or offset in bytes: at most limits::kMaxBytes (negative ones are validate's to
/// report, with the op).
std::int64_t get_bytes(const json& object, const std::string& path, const char* key,
                       std::int64_t fallback) {
  if (!object.contains(key)) return fallback;
  const auto bytes = get_int<std::int64_t>(object, path, key);
  if (bytes > limits::kMaxBytes)
    throw Error(
        fmt::format("{}: \"{}\" = {} is out of range: sizes and offsets are at most 2^50 "
                    "bytes (docs/formats.md, Limits)",
                    path, key, bytes));
  return bytes;
}

std::int64_t get_nanoseconds(const json& object, const std::string& path) {
  auto it = object.find("seconds");
  if (it == object.end()) throw Error(fmt::format("{}: missing \"seconds\"", path));
  if (!it->is_number()) throw Error(fmt::format("{}: \"seconds\" must be a number", path));
  double seconds = it->get<double>();
  constexpr double kMaxSeconds = static_cast<double>(limits::kMaxNanoseconds) / 1e9;
  if (!std::isfinite(seconds) || std::fabs(seconds) > kMaxSeconds)
    throw Error(
        fmt::format("{}: \"seconds\" = {} is out of range: times are at most 10^6 s "
                    "(docs/formats.md, Limits)",
                    path, it->dump()));
  return std::llround(seconds * 1e9);  // choreo's clock ticks in whole nanoseconds
}

std::vector<std::int64_t> get_ids(const json& object, const std::string& path, const char* key) {
  std::vector<std::int64_t> ids;
  auto it = object.find(key);
  if (it == object.end()) return ids;
  if (!it->is_array()) throw Error(fmt::format("{}: \"{}\" must be an array of op ids", path, key));
  for (const auto& v : *it) {
    if (!v.is_number_integer())
      throw Error(fmt::format("{}: \"{}\" holds {}, not an op id", path, key, v.dump()));
    ids.push_back(v.get<std::int64_t>());
  }
  return ids;
}

OpKind parse_kind(const json& object, const std::string& path) {
  auto it = object.find("op");
  if (it == object.end() || !it->is_string()) throw Error(fmt::format("{}: missing \"op\"", path));
  std::string name = *it;
  for (OpKind k : {OpKind::Send, OpKind::Recv, OpKind::Delay, OpKind::Calc, OpKind::Copy})
    if (name == to_string(k)) return k;
  throw Error(
      fmt::format("{}: unknown op \"{}\"; ops are send, recv, delay, calc, copy", path, name));
}

const std::set<std::string>& allowed_keys(OpKind kind) {
  static const std::set<std::string> message{"id",       "op",        "peer",        "bytes", "tag",
                                             "buf",      "offset",    "slot",        "cpu",   "nic",
                                             "requires", "irequires", "requires_any"};
  // GOAL gives a calc a cpu but no nic; so do delay and copy, which travel as calcs.
  static const std::set<std::string> timed{"id",  "op",       "seconds",   "slot",
                                           "cpu", "requires", "irequires", "requires_any"};
  static const std::set<std::string> copy{"id",     "op",       "bytes",      "buf",
                                          "offset", "src_buf",  "src_offset", "slot",
                                          "cpu",    "requires", "irequires",  "requires_any"};
  switch (kind) {
    case OpKind::Send:
    case OpKind::Recv:
      return message;
    case OpKind::Delay:
    case OpKind::Calc:
      return timed;
    case OpKind::Copy:
      return copy;
  }
  return message;
}

Op parse_op(const json& object, const std::string& path) {
  if (!object.is_object()) throw Error(fmt::format("{}: an op must be a JSON object", path));
  Op op;
  op.kind = parse_kind(object, path);
  const std::string where = fmt::format("{} ({})", path, to_string(op.kind));
  check_keys(object, where, allowed_keys(op.kind));
  op.id = get_int<std::int64_t>(object, where, "id");
  if (op.is_message()) {
    op.peer = get_int<int>(object, where, "peer");
    op.tag = get_int_or<int>(object, where, "tag", 0);
  }
  if (op.is_message() || op.kind == OpKind::Copy) {
    if (!object.contains("bytes")) throw Error(fmt::format("{}: missing \"bytes\"", where));
    op.bytes = get_bytes(object, where, "bytes", 0);
    op.region.buffer = get_int_or<int>(object, where, "buf", kAutoBuffer);
    op.region.offset = get_bytes(object, where, "offset", 0);
  }
  if (op.kind == OpKind::Copy) {
    op.source.buffer = get_int_or<int>(object, where, "src_buf", kAutoBuffer);
    op.source.offset = get_bytes(object, where, "src_offset", 0);
  }
  if (op.is_timed()) op.nanoseconds = get_nanoseconds(object, where);
  op.slot = get_int_or<int>(object, where, "slot", kNoSlot);
  op.cpu = get_int_or<int>(object, where, "cpu", 0);
  op.nic = get_int_or<int>(object, where, "nic", 0);
  op.requires_completed = get_ids(object, where, "requires");
  op.requires_started = get_ids(object, where, "irequires");
  op.requires_any = get_ids(object, where, "requires_any");
  return op;
}

ordered_json op_to_json(const Op& op) {
  ordered_json j;
  j["id"] = op.id;
  j["op"] = to_string(op.kind);
  if (op.is_message()) {
    j["peer"] = op.peer;
    j["bytes"] = op.bytes;
    j["tag"] = op.tag;
  }
  if (op.kind == OpKind::Copy) j["bytes"] = op.bytes;
  if (op.is_timed()) j["seconds"] = static_cast<double>(op.nanoseconds) / 1e9;
  if (op.region.buffer != kAutoBuffer || op.region.offset != 0) {
    j["buf"] = op.region.buffer;
    j["offset"] = op.region.offset;
  }
  if (op.kind == OpKind::Copy && (op.source.buffer != kAutoBuffer || op.source.offset != 0)) {
    j["src_buf"] = op.source.buffer;
    j["src_offset"] = op.source.offset;
  }
  if (op.slot != kNoSlot) j["slot"] = op.slot;
  if (op.cpu != 0) j["cpu"] = op.cpu;
  if (op.nic != 0) j["nic"] = op.nic;
  if (!op.requires_completed.empty()) j["requires"] = op.requires_completed;
  if (!op.requires_started.empty()) j["irequires"] = op.requires_started;
  if (!op.requires_any.empty()) j["requires_any"] = op.requires_any;
  return j;
}

int get_ranks(const json& doc) {
  const auto ranks = get_int<std::int64_t>(doc, "top level", "ranks");
  if (ranks < 1) throw Error(fmt::format("\"ranks\" is {}; it must be at least 1", ranks));
  return limits::check_ranks(ranks, "top level: \"ranks\"");
}

}  // namespace

Pattern pattern_from_json(const std::string& text) {
  json doc = parse_json(text);
  check_format(doc, kPatternFormat);
  check_keys(doc, "top level", {"format", "ranks", "messages", "meta"});
  Pattern p;
  p.ranks = get_ranks(doc);
  auto it = doc.find("messages");
  if (it == doc.end() || !it->is_array())
    throw Error("missing \"messages\": [...] at the top level");
  limits::check_ops(static_cast<std::int64_t>(it->size()), "the number of messages");
  p.messages.reserve(it->size());
  for (std::size_t i = 0; i < it->size(); ++i) {
    const json& m = (*it)[i];
    std::string path = fmt::format("messages[{}]", i);
    if (!m.is_object()) throw Error(fmt::format("{}: a message must be a JSON object", path));
    check_keys(m, path, {"src", "dst", "bytes"});
    if (!m.contains("bytes")) throw Error(fmt::format("{}: missing \"bytes\"", path));
    p.messages.push_back({get_int<int>(m, path, "src"), get_int<int>(m, path, "dst"),
                          get_bytes(m, path, "bytes", 0)});
  }
  validate(p);
  return p;
}

std::string pattern_to_json(const Pattern& pattern) {
  std::string out = fmt::format("{{\"format\": \"{}\", \"ranks\": {},\n \"messages\": [",
                                kPatternFormat, pattern.ranks);
  for (std::size_t i = 0; i < pattern.messages.size(); ++i) {
    const Message& m = pattern.messages[i];
    out += fmt::format("{}\n  {{\"src\": {}, \"dst\": {}, \"bytes\": {}}}", i ? "," : "", m.src,
                       m.dst, m.bytes);
  }
  out += "]}\n";
  return out;
}

Schedule schedule_from_json(const std::string& text) {
  json doc = parse_json(text);
  check_format(doc, kScheduleFormat);
  check_keys(doc, "top level", {"format", "ranks", "algorithm", "programs", "meta"});
  Schedule s;
  s.ranks = get_ranks(doc);
  if (auto a = doc.find("algorithm"); a != doc.end()) {
    if (!a->is_string()) throw Error("\"algorithm\" must be a string");
    s.algorithm = *a;
  }
  auto programs = doc.find("programs");
  if (programs == doc.end() || !programs->is_array())
    throw Error("missing \"programs\": [...] at the top level");
  s.programs.resize(static_cast<std::size_t>(s.ranks));
  std::vector<char> seen(s.programs.size(), 0);
  std::int64_t total_ops = 0;
  for (std::size_t i = 0; i < programs->size(); ++i) {
    const json& p = (*programs)[i];
    std::string path = fmt::format("programs[{}]", i);
    if (!p.is_object()) throw Error(fmt::format("{}: a program must be a JSON object", path));
    check_keys(p, path, {"rank", "ops"});
    int rank = get_int<int>(p, path, "rank");
    if (rank < 0 || rank >= s.ranks)
      throw Error(
          fmt::format("{}: rank {} is out of range; ranks are 0..{}", path, rank, s.ranks - 1));
    if (seen[rank])
      throw Error(fmt::format("{}: rank {} has a second program; merge them", path, rank));
    seen[rank] = 1;
    auto ops = p.find("ops");
    if (ops == p.end() || !ops->is_array())
      throw Error(fmt::format("{}: missing \"ops\": [...]", path));
    auto& out = s.programs[rank].ops;
    total_ops += static_cast<std::int64_t>(ops->size());
    limits::check_ops(total_ops, "the number of ops");
    out.reserve(ops->size());
    for (std::size_t k = 0; k < ops->size(); ++k)
      out.push_back(parse_op((*ops)[k], fmt::format("rank {}, ops[{}]", rank, k)));
  }
  return s;
}

std::string schedule_to_json(const Schedule& schedule) {
  // What the reader would refuse, the writer refuses: choreo reads back every file it writes.
  if (schedule.ranks < 1)
    throw Error(
        fmt::format("cannot write the schedule as JSON: it has {} ranks and JSON "
                    "schedules have at least 1 (an empty GOAL file says num_ranks 0)",
                    schedule.ranks));
  if (schedule.programs.size() != static_cast<std::size_t>(schedule.ranks))
    throw Error(
        fmt::format("cannot write the schedule as JSON: it says ranks = {} but has {} "
                    "programs",
                    schedule.ranks, schedule.programs.size()));
  check_writable(schedule, "JSON");
  // One op per line: readable, diffable, and far smaller than fully indented JSON.
  std::string out = fmt::format(
      "{{\"format\": \"{}\", \"ranks\": {}, \"algorithm\": {},\n \"programs\": [", kScheduleFormat,
      schedule.ranks, json_string(schedule.algorithm, "the schedule's algorithm name"));
  for (std::size_t r = 0; r < schedule.programs.size(); ++r) {
    out += fmt::format("{}\n  {{\"rank\": {}, \"ops\": [", r ? "," : "", r);
    const auto& ops = schedule.programs[r].ops;
    for (std::size_t i = 0; i < ops.size(); ++i)
      out += fmt::format("{}\n    {}", i ? "," : "", op_to_json(ops[i]).dump());
    out += "]}";
  }
  out += "]}\n";
  return out;
}

}  // namespace choreo
