// Machine profiles (choreo.profile/1): JSON reading with one clear line per problem, writing
// one size per line, the confidence interval of the median behind the calibration's stopping
// rule, and the Hockney and LogGP fits (docs/calibration.md explains both).
#include "choreo/model/profile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>

#include "../core/json_read.hpp"
#include "../core/stats.hpp"
#include "choreo/core/error.hpp"
#include "choreo/core/io.hpp"

namespace choreo {
namespace {

using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;

const json& field(const json& object, const std::string& path, const char* key) {
  auto it = object.find(key);
  if (it == object.end()) throw Error(fmt::format("{}: missing \"{}\"", path, key));
  return *it;
}

const json& object_field(const json& object, const std::string& path, const char* key) {
  const json& v = field(object, path, key);
  if (!v.is_object())
    throw Error(fmt::format("{}: \"{}\" must be a JSON object, not {}", path, key, v.dump()));
  return v;
}

const json& array_field(const json& object, const std::string& path, const char* key) {
  const json& v = field(object, path, key);
  if (!v.is_array())
    throw Error(fmt::format("{}: \"{}\" must be an array, not {}", path, key, v.dump()));
  return v;
}

std::string get_string(const json& object, const std::string& path, const char* key) {
  const json& v = field(object, path, key);
  if (!v.is_string())
    throw Error(fmt::format("{}: \"{}\" must be a string, not {}", path, key, v.dump()));
  return v.get<std::string>();
}

std::int64_t get_int(const json& object, const std::string& path, const char* key,
                     std::int64_t min) {
  const json& v = field(object, path, key);
  if (!v.is_number_integer())
    throw Error(fmt::format("{}: \"{}\" must be an integer, not {}", path, key, v.dump()));
  if (v.is_number_unsigned() &&
      v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    throw Error(fmt::format("{}: \"{}\" = {} is out of range", path, key, v.dump()));
  const auto value = v.get<std::int64_t>();
  if (value < min)
    throw Error(fmt::format("{}: \"{}\" is {}; it must be at least {}", path, key, value, min));
  return value;
}

int get_small_int(const json& object, const std::string& path, const char* key, int min) {
  const std::int64_t value = get_int(object, path, key, min);
  if (value > std::numeric_limits<int>::max())
    throw Error(fmt::format("{}: \"{}\" = {} is out of range", path, key, value));
  return static_cast<int>(value);
}

/// A finite number >= 0 (times and fitted parameters).
double get_seconds(const json& v, const std::string& where) {
  if (!v.is_number())
    throw Error(fmt::format("{} is {}, not a number of seconds", where, v.dump()));
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < 0)
    throw Error(fmt::format("{} is {}; it must be finite and >= 0", where, v.dump()));
  return x;
}

double get_number(const json& object, const std::string& path, const char* key) {
  return get_seconds(field(object, path, key), fmt::format("{}: \"{}\"", path, key));
}

/// bytes, batch and seconds of one size (in `object`, which may hold other keys too).
SizeSamples parse_samples(const json& object, const std::string& path) {
  SizeSamples s;
  s.bytes = get_int(object, path, "bytes", 1);
  s.batch = get_int(object, path, "batch", 1);
  const std::string where = fmt::format("{} ({} B)", path, s.bytes);
  const json& seconds = array_field(object, where, "seconds");
  if (seconds.empty())
    throw Error(
        fmt::format("{}: \"seconds\" is empty; every size needs at least one sample", where));
  s.seconds.reserve(seconds.size());
  for (std::size_t i = 0; i < seconds.size(); ++i)
    s.seconds.push_back(get_seconds(seconds[i], fmt::format("{}: seconds[{}]", where, i)));
  return s;
}

/// A list of sizes: non-empty, strictly ascending.
std::vector<SizeSamples> parse_series(const json& doc, const std::string& path, const char* key) {
  const json& list = array_field(doc, path, key);
  if (list.empty())
    throw Error(fmt::format("{}: \"{}\" is empty; it needs at least one size", path, key));
  std::vector<SizeSamples> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string where = fmt::format("{}[{}]", key, i);
    if (!list[i].is_object())
      throw Error(
          fmt::format("{}: must be a JSON object {{\"bytes\", \"batch\", \"seconds\"}}", where));
    check_keys(list[i], where, {"bytes", "batch", "seconds"});
    out.push_back(parse_samples(list[i], where));
    if (i > 0 && out[i].bytes <= out[i - 1].bytes)
      throw Error(fmt::format(
          "{}: {} B does not follow {} B; sizes must be strictly ascending (sort the entries)",
          where, out[i].bytes, out[i - 1].bytes));
  }
  return out;
}

void check_among(const std::vector<SizeSamples>& pingpong, std::int64_t bytes,
                 const std::string& where) {
  for (const auto& s : pingpong)
    if (s.bytes == bytes) return;
  throw Error(
      fmt::format("{}: {} B is not among the ping-pong sizes; the LogGP fit needs the "
                  "ping-pong time at every size it uses",
                  where, bytes));
}

constexpr std::int64_t kLargeBurst = 64 * 1024;

const SizeSamples& at_size(const std::vector<SizeSamples>& series, std::int64_t bytes,
                           const char* what) {
  for (const auto& s : series)
    if (s.bytes == bytes) {
      if (s.seconds.empty()) throw Error(fmt::format("{} at {} B has no samples", what, bytes));
      return s;
    }
  throw Error(
      fmt::format("fit_loggp: no ping-pong samples at {} B, which the {} uses", bytes, what));
}

std::string samples_line(const SizeSamples& s) {
  return ordered_json{{"bytes", s.bytes}, {"batch", s.batch}, {"seconds", s.seconds}}.dump();
}

std::string series_text(const std::vector<SizeSamples>& series) {
  std::string out = "[";
  for (std::size_t i = 0; i < series.size(); ++i)
    out += fmt::format("{}\n  {}", i ? "," : "", samples_line(series[i]));
  return out + "]";
}

ordered_json intervals_json(const FitIntervals& ci) {
  const auto pair = [](const Interval& i) { return ordered_json::array({i.low, i.high}); };
  return {{"L", pair(ci.L)},          {"o", pair(ci.o)},         {"g", pair(ci.g)},
          {"G", pair(ci.G)},          {"alpha", pair(ci.alpha)}, {"beta", pair(ci.beta)},
          {"resamples", ci.resamples}};
}

ordered_json measured_on_json(const MeasuredOn& m) {
  return {{"load_average", {m.load_start, m.load_end}}, {"cpus", m.cpus}, {"hosts", m.hosts}};
}

FitIntervals parse_intervals(const json& doc) {
  const json& ci = object_field(doc, "top level", "ci95");
  check_keys(ci, "ci95", {"L", "o", "g", "G", "alpha", "beta", "resamples"});
  const auto interval = [&](const char* key) {
    const json& v = field(ci, "ci95", key);
    if (!v.is_array() || v.size() != 2)
      throw Error(
          fmt::format("ci95: \"{}\" is {}; an interval is [low, high] in seconds", key, v.dump()));
    const std::string where = fmt::format("ci95: \"{}\"", key);
    const Interval i{get_seconds(v[0], where + "[0]"), get_seconds(v[1], where + "[1]")};
    if (i.low > i.high)
      throw Error(
          fmt::format("{} is {}; its low end must not exceed its high end", where, v.dump()));
    return i;
  };
  FitIntervals out{interval("L"),
                   interval("o"),
                   interval("g"),
                   interval("G"),
                   interval("alpha"),
                   interval("beta"),
                   0};
  out.resamples = get_small_int(ci, "ci95", "resamples", 1);
  return out;
}

MeasuredOn parse_measured_on(const json& doc, int ranks) {
  const json& m = object_field(doc, "top level", "measured_on");
  check_keys(m, "measured_on", {"load_average", "cpus", "hosts"});
  MeasuredOn out;
  const json& load = array_field(m, "measured_on", "load_average");
  if (load.size() != 2)
    throw Error(
        fmt::format("measured_on: \"load_average\" is {}; it is [before, after], e.g. [0.1, 0.3]",
                    load.dump()));
  out.load_start = get_seconds(load[0], "measured_on: load_average[0]");
  out.load_end = get_seconds(load[1], "measured_on: load_average[1]");
  out.cpus = get_small_int(m, "measured_on", "cpus", 0);
  const json& hosts = array_field(m, "measured_on", "hosts");
  if (hosts.size() != static_cast<std::size_t>(ranks))
    throw Error(fmt::format("measured_on: \"hosts\" names {} ranks; the profile has {}",
                            hosts.size(), ranks));
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    if (!hosts[i].is_string())
      throw Error(fmt::format("measured_on: hosts[{}] is {}, not a host name", i, hosts[i].dump()));
    out.hosts.push_back(hosts[i].get<std::string>());
  }
  return out;
}

}  // namespace

int MeasuredOn::nodes() const {
  std::vector<std::string> distinct = hosts;
  std::sort(distinct.begin(), distinct.end());
  return static_cast<int>(std::unique(distinct.begin(), distinct.end()) - distinct.begin());
}

bool MeasuredOn::same_node(int a, int b) const {
  const auto n = static_cast<int>(hosts.size());
  return a >= 0 && b >= 0 && a < n && b < n &&
         hosts[static_cast<std::size_t>(a)] == hosts[static_cast<std::size_t>(b)];
}

double SizeSamples::median() const { return seconds.empty() ? 0 : stats::median(seconds); }

Interval median_ci95(std::vector<double> samples) {
  const stats::Bounds b = stats::median_interval(std::move(samples), 0.95);
  return {b.low, b.high};
}

double relative_ci_half_width(const std::vector<double>& samples) {
  const Interval ci = median_ci95(samples);
  if (!std::isfinite(ci.low) || !std::isfinite(ci.high))
    return std::numeric_limits<double>::infinity();
  const double median = samples.empty() ? 0 : stats::median(samples);
  if (median <= 0) return std::numeric_limits<double>::infinity();
  return (ci.high - ci.low) / 2 / median;
}

HockneyFit fit_hockney(const std::vector<SizeSamples>& samples) {
  if (samples.size() < 2)
    throw Error(
        fmt::format("the Hockney fit needs samples at 2 sizes or more, not {}", samples.size()));
  // Weighted least squares, weights 1/t^2, on centred values (stable for sizes spanning
  // eight orders of magnitude).
  // All zero: a clock that does not see the work (memcpy under SMPI without simulated
  // computation). The fit is then exact: no latency, no cost per byte.
  if (std::all_of(samples.begin(), samples.end(), [](const auto& s) { return s.median() == 0; }))
    return {0, 0};
  std::vector<double> x, y, w;
  for (const auto& s : samples) {
    const double t = s.median();
    if (!(t > 0))
      throw Error(
          fmt::format("the Hockney fit needs positive times; {} B has median {}", s.bytes, t));
    x.push_back(static_cast<double>(s.bytes));
    y.push_back(t);
    w.push_back(1 / (t * t));
  }
  if (std::adjacent_find(x.begin(), x.end(), std::not_equal_to<>()) == x.end())
    throw Error("the Hockney fit needs at least two different sizes");
  const stats::Line line = stats::weighted_least_squares(x, y, w);
  return {std::max(0.0, line.intercept), std::max(0.0, line.slope)};
}

LogGPFit fit_loggp(const std::vector<SizeSamples>& pingpong, const BurstSamples& burst,
                   const OverheadSamples& overhead) {
  if (pingpong.empty()) throw Error("the LogGP fit needs ping-pong samples");
  if (burst.messages < 2)
    throw Error(
        fmt::format("the LogGP fit needs bursts of 2 messages or more, not {}", burst.messages));
  if (burst.sizes.size() < 2)
    throw Error(fmt::format("the LogGP fit needs burst samples at 2 sizes or more, not {}",
                            burst.sizes.size()));
  const auto one_way = [&](std::int64_t bytes, const char* what) {
    return at_size(pingpong, bytes, what).median();
  };
  // Per-message gap of an s-byte burst.
  std::vector<double> size, gap;
  const double n = burst.messages - 1;
  for (const auto& b : burst.sizes) {
    if (b.seconds.empty()) throw Error(fmt::format("burst at {} B has no samples", b.bytes));
    size.push_back(static_cast<double>(b.bytes));
    gap.push_back((b.median() - 2 * one_way(b.bytes, "burst")) / n);
  }
  // G: the median of the slopes (gap(s) - gap(s0)) / (s - s0) over the large bursts, where
  // the per-byte term dominates and protocol switches are behind; one disturbed size (a gap
  // is the difference of two noisy medians) cannot decide it. Without large bursts, all.
  std::vector<double> slopes;
  for (bool large_only : {true, false}) {
    for (std::size_t i = 1; i < size.size(); ++i)
      if (!large_only || size[i] >= static_cast<double>(kLargeBurst))
        slopes.push_back((gap[i] - gap[0]) / (size[i] - size[0]));
    if (!slopes.empty()) break;
  }
  const double G = std::max(0.0, stats::median(slopes));
  LogGPFit fit;
  fit.G = G;
  fit.g = std::max(0.0, gap[0] - (size[0] - 1) * fit.G);

  if (overhead.send.seconds.empty() || overhead.recv.seconds.empty())
    throw Error("the LogGP fit needs send and receive overhead samples");
  fit.o = (overhead.send.median() + overhead.recv.median()) / 2;

  const SizeSamples& smallest = pingpong.front();
  fit.L = std::max(
      0.0, smallest.median() - 2 * fit.o - (static_cast<double>(smallest.bytes) - 1) * fit.G);
  return fit;
}

void fit_profile(MachineProfile& p) {
  p.hockney = fit_hockney(p.pingpong);
  p.memcpy_hockney = fit_hockney(p.memcpy);
  p.loggp = fit_loggp(p.pingpong, p.burst, p.overhead);
}

std::string profile_to_json(const MachineProfile& p) {
  ordered_json pairs = ordered_json::array();
  for (const auto& [a, b] : p.pairs) pairs.push_back({a, b});
  const ordered_json loggp{{"L", p.loggp.L}, {"o", p.loggp.o}, {"g", p.loggp.g}, {"G", p.loggp.G}};
  const auto hockney = [](const HockneyFit& h) {
    return ordered_json{{"alpha", h.alpha}, {"beta", h.beta}}.dump();
  };
  std::string out = fmt::format("{{\"format\": {},\n", json(p.format).dump());
  out += fmt::format(" \"host\": {}, \"mpi_library\": {}, \"created\": {},\n", json(p.host).dump(),
                     json(p.mpi_library).dump(), json(p.created).dump());
  out += fmt::format(" \"ranks\": {}, \"pairs\": {},\n", p.ranks, pairs.dump());
  out += fmt::format(" \"cache_bytes\": {}, \"memcpy_buffer_bytes\": {},\n", p.cache_bytes,
                     p.memcpy_buffer_bytes);
  out += fmt::format(" \"loggp\": {},\n \"hockney\": {},\n \"memcpy_hockney\": {},\n", loggp.dump(),
                     hockney(p.hockney), hockney(p.memcpy_hockney));
  out += fmt::format(" \"pingpong\": {},\n", series_text(p.pingpong));
  out += fmt::format(" \"memcpy\": {},\n", series_text(p.memcpy));
  out += fmt::format(" \"burst\": {{\"messages\": {}, \"sizes\": {}}},\n", p.burst.messages,
                     series_text(p.burst.sizes));
  out += fmt::format(
      " \"overhead\": {{\"messages\": {}, \"delay\": {}, \"wait\": {},\n  \"send\": {},\n  "
      "\"recv\": {}}}",
      p.overhead.messages, json(p.overhead.delay).dump(), json(p.overhead.wait).dump(),
      samples_line(p.overhead.send), samples_line(p.overhead.recv));
  if (!p.collective.empty())
    out += fmt::format(
        ",\n \"collective\": {{\"ranks\": {},\n  \"exchange\": {},\n  \"memcpy\": {}}}",
        p.collective.ranks, series_text(p.collective.exchange), series_text(p.collective.memcpy));
  if (p.ci95) out += fmt::format(",\n \"ci95\": {}", intervals_json(*p.ci95).dump());
  if (!p.measured_on.empty())
    out += fmt::format(",\n \"measured_on\": {}", measured_on_json(p.measured_on).dump());
  return out + "}\n";
}

MachineProfile profile_from_json(const std::string& text) {
  const json doc = parse_json(text);
  if (!doc.is_object())
    throw Error(fmt::format("expected a JSON object with \"format\": \"{}\"", kProfileFormat));
  auto format = doc.find("format");
  if (format == doc.end() || !format->is_string())
    throw Error(fmt::format("missing \"format\": \"{}\" at the top level", kProfileFormat));
  if (*format != kProfileFormat)
    throw Error(
        fmt::format("\"format\" is {}, not \"{}\"; this file is not a machine profile "
                    "this choreo reads",
                    format->dump(), kProfileFormat));
  const std::string top = "top level";
  check_keys(doc, top,
             {"format", "host", "mpi_library", "created", "ranks", "pairs", "cache_bytes",
              "memcpy_buffer_bytes", "loggp", "hockney", "memcpy_hockney", "pingpong", "memcpy",
              "burst", "overhead", "collective", "ci95", "measured_on", "meta"});
  MachineProfile p;
  p.host = get_string(doc, top, "host");
  p.mpi_library = get_string(doc, top, "mpi_library");
  p.created = get_string(doc, top, "created");
  p.ranks = get_small_int(doc, top, "ranks", 2);
  const json& pairs = array_field(doc, top, "pairs");
  if (pairs.empty()) throw Error("\"pairs\" is empty; name the ping-pong pairs, e.g. [[0, 1]]");
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const json& pair = pairs[i];
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_integer() ||
        !pair[1].is_number_integer())
      throw Error(fmt::format("pairs[{}] is {}; a pair is two ranks, e.g. [0, 1]", i, pair.dump()));
    const auto a = pair[0].get<std::int64_t>(), b = pair[1].get<std::int64_t>();
    if (a < 0 || b < 0 || a >= p.ranks || b >= p.ranks || a == b)
      throw Error(fmt::format("pairs[{}] is {}; its ranks must differ and lie in 0..{}", i,
                              pair.dump(), p.ranks - 1));
    p.pairs.emplace_back(static_cast<int>(a), static_cast<int>(b));
  }
  p.cache_bytes = get_int(doc, top, "cache_bytes", 0);
  p.memcpy_buffer_bytes = get_int(doc, top, "memcpy_buffer_bytes", 0);

  const json& loggp = object_field(doc, top, "loggp");
  check_keys(loggp, "loggp", {"L", "o", "g", "G"});
  p.loggp = {get_number(loggp, "loggp", "L"), get_number(loggp, "loggp", "o"),
             get_number(loggp, "loggp", "g"), get_number(loggp, "loggp", "G")};
  for (const char* key : {"hockney", "memcpy_hockney"}) {
    const json& h = object_field(doc, top, key);
    check_keys(h, key, {"alpha", "beta"});
    (std::string(key) == "hockney" ? p.hockney : p.memcpy_hockney) =
        HockneyFit{get_number(h, key, "alpha"), get_number(h, key, "beta")};
  }

  p.pingpong = parse_series(doc, top, "pingpong");
  p.memcpy = parse_series(doc, top, "memcpy");

  const json& burst = object_field(doc, top, "burst");
  check_keys(burst, "burst", {"messages", "sizes"});
  p.burst.messages = get_small_int(burst, "burst", "messages", 2);
  p.burst.sizes = parse_series(burst, "burst", "sizes");
  for (std::size_t i = 0; i < p.burst.sizes.size(); ++i)
    check_among(p.pingpong, p.burst.sizes[i].bytes, fmt::format("burst.sizes[{}]", i));

  const json& overhead = object_field(doc, top, "overhead");
  check_keys(overhead, "overhead", {"messages", "delay", "wait", "send", "recv"});
  p.overhead.messages = get_small_int(overhead, "overhead", "messages", 1);
  p.overhead.delay = get_number(overhead, "overhead", "delay");
  p.overhead.wait = get_number(overhead, "overhead", "wait");
  for (const char* key : {"send", "recv"}) {
    const std::string where = fmt::format("overhead.{}", key);
    const json& o = object_field(overhead, "overhead", key);
    check_keys(o, where, {"bytes", "batch", "seconds"});
    (std::string(key) == "send" ? p.overhead.send : p.overhead.recv) = parse_samples(o, where);
  }

  if (doc.contains("collective")) {  // optional: profiles before it have none
    const json& collective = object_field(doc, top, "collective");
    check_keys(collective, "collective", {"ranks", "exchange", "memcpy"});
    p.collective.ranks = get_small_int(collective, "collective", "ranks", 2);
    if (p.collective.ranks > p.ranks)
      throw Error(
          fmt::format("collective: \"ranks\" is {}, more than the {} ranks of the calibration run",
                      p.collective.ranks, p.ranks));
    p.collective.exchange = parse_series(collective, "collective", "exchange");
    p.collective.memcpy = parse_series(collective, "collective", "memcpy");
  }
  if (doc.contains("ci95")) p.ci95 = parse_intervals(doc);  // optional: profiles before it
  if (doc.contains("measured_on")) p.measured_on = parse_measured_on(doc, p.ranks);
  return p;
}

MachineProfile read_profile(const std::string& path) {
  if (!std::filesystem::exists(path))
    throw Error(
        fmt::format("cannot read {}: no such file; make a machine profile with "
                    "`mpiexec -n 2 choreo-mpi calibrate -o {}`",
                    path, path));
  const std::string text = read_text_file(path);
  try {
    return profile_from_json(text);
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {} (a fresh profile: `mpiexec -n 2 choreo-mpi calibrate -o {}`)",
                            path, e.what(), path));
  }
}

void write_profile(const MachineProfile& profile, const std::string& path) {
  const std::string text = profile_to_json(profile);
  try {
    profile_from_json(text);  // never write what cannot be read back
  } catch (const Error& e) {
    throw Error(fmt::format("refusing to write {}: the profile is incomplete: {}", path, e.what()));
  }
  write_text_file(path, text);
}

}  // namespace choreo
