#include "choreo/sim/noise.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <random>
#include <sstream>

#include "choreo/core/error.hpp"
#include "choreo/core/io.hpp"
#include "choreo/topo/platform.hpp"

namespace choreo::sim {
namespace {

constexpr const char* kForms =
    "use os:period=T,duration=T[,phase=random|same|T], trace:PATH[,phase=random|same|T], "
    "net:period=T,duration=T or seed=N (T: ns, or with a unit: 50us)";

/// Nanoseconds, bare ("50000") or with a unit ("50us", "1ms"), as every time option takes them.
std::int64_t parse_ns(std::string_view value, std::string_view key) {
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec == std::errc() && end == value.data() + value.size() && v >= 0) return v;
  double seconds = -1;
  try {
    seconds = parse_latency(value);
  } catch (const Error&) {
  }
  if (!(seconds >= 0) || seconds * 1e9 > 9e18)
    throw Error(
        fmt::format("noise: {}={} must be a time >= 0: whole nanoseconds or with a unit, e.g. 50us",
                    key, value));
  return std::llround(seconds * 1e9);
}

/// Splits "a=1,b=2" into pairs.
std::vector<std::pair<std::string, std::string>> options(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> out;
  while (!text.empty()) {
    auto comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    auto eq = item.find('=');
    if (eq == std::string_view::npos)
      throw Error(fmt::format("noise: '{}' is not key=value; {}", item, kForms));
    out.emplace_back(std::string(item.substr(0, eq)), std::string(item.substr(eq + 1)));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

/// phase=random (each rank its own), same (one random phase for all) or a number of ns
/// (all ranks with that phase).
void parse_phase(NoiseSpec& spec, const std::string& value) {
  spec.in_phase = value != "random";
  spec.fixed_phase = -1;
  if (value == "same" || value == "random") return;
  try {
    spec.fixed_phase = parse_ns(value, "phase");
  } catch (const Error&) {
    throw Error(fmt::format("noise: phase={} must be random, same or a time in ns", value));
  }
}

/// SplitMix64: a small, seedable generator for the per-rank Poisson processes.
std::uint64_t next_random(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

void add_noise(NoiseSpec& spec, const std::string& text) {
  auto colon = text.find(':');
  std::string kind = text.substr(0, colon);
  std::string rest = colon == std::string::npos ? "" : text.substr(colon + 1);
  if (kind.starts_with("seed=")) {
    std::string_view digits = std::string_view(text).substr(5);
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), spec.seed);
    if (ec != std::errc() || end != digits.data() + digits.size())
      throw Error(fmt::format("noise: '{}': the seed must be a non-negative integer", text));
    return;
  }
  if (kind == "os" || kind == "net") {
    std::int64_t period = -1, duration = -1;
    for (const auto& [key, value] : options(rest)) {
      if (key == "period")
        period = parse_ns(value, key);
      else if (key == "duration")
        duration = parse_ns(value, key);
      else if (key == "phase" && kind == "os")
        parse_phase(spec, value);
      else
        throw Error(fmt::format("noise: unknown key '{}' in '{}'; {}", key, text, kForms));
    }
    if (period <= 0 || duration < 0)
      throw Error(fmt::format("noise: '{}' needs period=NS > 0 and duration=NS", text));
    if (kind == "os") {
      if (duration >= period)
        throw Error(
            fmt::format("noise: '{}': a detour as long as its period leaves no CPU time", text));
      spec.os = NoiseSpec::Os::Periodic;
      spec.os_period = period;
      spec.os_duration = duration;
    } else {
      spec.net_period = period;
      spec.net_duration = duration;
    }
    return;
  }
  if (kind == "trace" && !rest.empty()) {
    auto comma = rest.find(',');
    for (const auto& [key, value] :
         options(comma == std::string::npos ? "" : rest.substr(comma + 1))) {
      if (key != "phase") throw Error(fmt::format("noise: unknown key '{}' in '{}'", key, text));
      parse_phase(spec, value);
    }
    std::string path = rest.substr(0, comma);
    try {
      spec.trace = read_noise_trace(read_text_file(path));
    } catch (const Error& e) {
      throw Error(fmt::format("noise trace {}: {}", path, e.what()));
    }
    spec.os = NoiseSpec::Os::Trace;
    return;
  }
  throw Error(fmt::format("noise: cannot read '{}'; {}", text, kForms));
}

std::vector<Detour> read_noise_trace(const std::string& text) {
  std::vector<Detour> out;
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    double start = 0, duration = 0;
    if (!(fields >> start >> duration) || start < 0 || duration < 0)
      throw Error(
          fmt::format("line {}: expected \"start<TAB>duration\" in ns, got \"{}\"", number, line));
    Detour d{std::llround(start), std::llround(duration)};
    if (!out.empty() && d.start < out.back().start + out.back().duration)
      throw Error(
          fmt::format("line {}: detours must be in time order and must not overlap", number));
    out.push_back(d);
  }
  if (out.size() < 2) throw Error("a noise trace needs at least two detours");
  return out;
}

Noise::Noise(const NoiseSpec& spec, int ranks) : spec_(spec) {
  std::mt19937_64 rng(spec.seed);
  if (spec.os == NoiseSpec::Os::Trace) {
    // The trace repeats with the period of its last detour's start, as in LogGOPSim.
    trace_length_ = spec.trace.back().start;
    if (trace_length_ <= 0) throw Error("a noise trace must span some time");
  }
  const std::int64_t span = spec.os == NoiseSpec::Os::Periodic ? spec.os_period : trace_length_;
  if (span > 0) {
    std::uniform_int_distribution<std::int64_t> pick(0, span - 1);
    const std::int64_t shared = spec.fixed_phase >= 0 ? spec.fixed_phase % span : pick(rng);
    for (int r = 0; r < ranks; ++r) phase_.push_back(spec.in_phase ? shared : pick(rng));
  }
  if (spec.net_period > 0) {
    net_.resize(static_cast<std::size_t>(ranks));
    for (auto& p : net_) p.state = rng();
  }
}

std::int64_t Noise::cpu_end(int rank, std::int64_t start, std::int64_t work) const {
  switch (spec_.os) {
    case NoiseSpec::Os::None:
      return start + work;
    case NoiseSpec::Os::Periodic:
      return periodic_end(rank, start, work);
    case NoiseSpec::Os::Trace:
      return trace_end(rank, start, work);
  }
  return start + work;
}

// Detours at phase + k*period, each `duration` long. Work starting inside a detour waits for
// its end; each period then offers period - duration of CPU time.
std::int64_t Noise::periodic_end(int rank, std::int64_t start, std::int64_t work) const {
  const std::int64_t period = spec_.os_period, detour = spec_.os_duration;
  const std::int64_t phase = phase_[static_cast<std::size_t>(rank)];
  std::int64_t into = ((start - phase) % period + period) % period;  // time since a detour began
  std::int64_t t = start;
  if (into < detour) {
    t += detour - into;
    into = detour;
  }
  const std::int64_t free_now = period - into;
  if (work <= free_now) return t + work;
  work -= free_now;
  t += free_now;  // at the start of the next detour
  const std::int64_t per_period = period - detour;
  const std::int64_t whole = (work - 1) / per_period;  // full periods before the last
  return t + whole * period + detour + (work - whole * per_period);
}

// The same walk over the trace's detours, shifted by the rank's offset and repeated.
std::int64_t Noise::trace_end(int rank, std::int64_t start, std::int64_t work) const {
  const auto& detours = spec_.trace;
  const std::int64_t length = trace_length_;
  const std::int64_t offset = phase_[static_cast<std::size_t>(rank)];
  // Position in the trace, and the trace-time origin of the current repetition.
  std::int64_t local = (start + offset) % length;
  std::int64_t base = start - local;
  std::size_t i = static_cast<std::size_t>(
      std::upper_bound(detours.begin(), detours.end(), local,
                       [](std::int64_t v, const Detour& d) { return v < d.start; }) -
      detours.begin());
  // A detour that began before `local` may still be running.
  std::int64_t t = start;
  if (i > 0 && detours[i - 1].start + detours[i - 1].duration > local) {
    t = base + detours[i - 1].start + detours[i - 1].duration;
  }
  while (true) {
    if (i == detours.size() - 1) {  // the last entry only marks the repetition
      base += length;
      i = 0;
    }
    const std::int64_t next = base + detours[i].start;
    if (t + work <= next) return t + work;
    work -= std::max<std::int64_t>(0, next - t);
    t = std::max(t, next) + detours[i].duration;
    ++i;
  }
}

std::int64_t Noise::network_ready(int rank, std::int64_t time) {
  if (spec_.net_period == 0) return time;
  Poisson& p = net_[static_cast<std::size_t>(rank)];
  const double mean_gap = static_cast<double>(spec_.net_period);
  while (p.end <= time) {
    // Exponential gaps from the end of the previous event: a Poisson process of starts.
    const double u = (static_cast<double>(next_random(p.state) >> 11) + 0.5) * 0x1.0p-53;
    const std::int64_t gap = std::llround(-std::log(u) * mean_gap);
    p.start = std::max<std::int64_t>(p.end, 0) + gap;
    p.end = p.start + spec_.net_duration;
  }
  return time >= p.start ? p.end : time;
}

}  // namespace choreo::sim
