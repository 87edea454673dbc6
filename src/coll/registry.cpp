// generate(): text specs ("allgather:ring:ranks=24:bytes=1048576") to generator calls, so
// tools and benchmarks name a collective algorithm with one string.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <functional>
#include <limits>
#include <map>
#include <string_view>

#include "../core/text.hpp"
#include "choreo/coll/generators.hpp"
#include "choreo/coll/pipeline.hpp"
#include "choreo/coll/resilient.hpp"
#include "choreo/core/error.hpp"
#include "choreo/core/limits.hpp"

namespace choreo::coll {

namespace {

using Values = std::map<std::string, std::int64_t, std::less<>>;

struct Generator {
  std::string_view collective, algorithm;
  std::vector<std::string_view> required, optional;
  CompactSchedule (*build)(const Values&);
  /// The same as a ShapedSchedule, where the generator builds one.
  ShapedSchedule (*shaped)(const Values&) = nullptr;
};

int as_int(const Values& values, std::string_view key, int fallback = 0) {
  const auto it = values.find(key);
  if (it == values.end()) return fallback;
  if (it->second < std::numeric_limits<int>::min() || it->second > std::numeric_limits<int>::max())
    throw Error(fmt::format("{}={} is out of range: it must fit a 32-bit int", key, it->second));
  return static_cast<int>(it->second);
}

std::int64_t value_or(const Values& values, std::string_view key, std::int64_t fallback) {
  const auto it = values.find(key);
  return it == values.end() ? fallback : it->second;
}

/// bcast:multitree, or with x=A:y=B:z=C its three trees mapped onto that torus.
CompactSchedule multitree(const Values& v) {
  const int ranks = as_int(v, "ranks"), root = as_int(v, "root", 0);
  const std::int64_t segment = value_or(v, "segment", 0);
  if (!v.contains("x") && !v.contains("y") && !v.contains("z"))
    return bcast_multitree(ranks, v.at("bytes"), root, as_int(v, "parts", 3), as_int(v, "arity", 3),
                           segment);
  if (v.contains("parts") || v.contains("arity"))
    throw Error(
        "bcast:multitree on a torus (x=, y=, z=) always has three trees; drop parts= "
        "and arity=");
  const std::array<int, 3> dims{as_int(v, "x", 1), as_int(v, "y", 1), as_int(v, "z", 1)};
  if (std::int64_t{dims[0]} * dims[1] * dims[2] != ranks)
    throw Error(
        fmt::format("bcast:multitree: ranks={} but the torus x={} y={} z={} has {} nodes; "
                    "pass ranks=x*y*z",
                    ranks, dims[0], dims[1], dims[2], std::int64_t{dims[0]} * dims[1] * dims[2]));
  return bcast_multitree_torus(dims, v.at("bytes"), root, segment);
}

const std::vector<Generator>& generators() {
  static const std::vector<Generator> table = {
      {"allreduce",
       "recdbl",
       {"ranks", "bytes"},
       {"reduce_ns"},
       [](const Values& v) {
         return allreduce_recursive_doubling(as_int(v, "ranks"), v.at("bytes"),
                                             value_or(v, "reduce_ns", 0));
       },
       [](const Values& v) {
         return allreduce_recursive_doubling_shaped(as_int(v, "ranks"), v.at("bytes"),
                                                    value_or(v, "reduce_ns", 0));
       }},
      {"allreduce",
       "ring",
       {"ranks", "bytes"},
       {"reduce_ns"},
       [](const Values& v) {
         return allreduce_ring(as_int(v, "ranks"), v.at("bytes"), value_or(v, "reduce_ns", 0));
       }},
      {"allreduce",
       "rabenseifner",
       {"ranks", "bytes"},
       {"reduce_ns"},
       [](const Values& v) {
         return allreduce_rabenseifner(as_int(v, "ranks"), v.at("bytes"),
                                       value_or(v, "reduce_ns", 0));
       }},
      {"allreduce",
       "resilient",
       {"ranks", "bytes", "T"},
       {"reduce_ns"},
       [](const Values& v) {
         return allreduce_resilient(as_int(v, "ranks"), v.at("bytes"), as_int(v, "T"),
                                    value_or(v, "reduce_ns", 0));
       }},
      {"bcast",
       "binomial",
       {"ranks", "bytes"},
       {"root"},
       [](const Values& v) {
         return bcast_binomial(as_int(v, "ranks"), v.at("bytes"), as_int(v, "root", 0));
       }},
      {"bcast",
       "split_bintree",
       {"ranks", "bytes"},
       {"root", "segment"},
       [](const Values& v) {
         return bcast_split_bintree(as_int(v, "ranks"), v.at("bytes"), as_int(v, "root", 0),
                                    value_or(v, "segment", 1024));
       }},
      {"bcast",
       "scatter_allgather",
       {"ranks", "bytes"},
       {"root"},
       [](const Values& v) {
         return bcast_scatter_allgather(as_int(v, "ranks"), v.at("bytes"), as_int(v, "root", 0));
       }},
      {"bcast",
       "kary_pipeline",
       {"ranks", "bytes"},
       {"root", "arity", "segment"},
       [](const Values& v) {
         return bcast_kary_pipeline(as_int(v, "ranks"), v.at("bytes"), as_int(v, "root", 0),
                                    as_int(v, "arity", 2), value_or(v, "segment", 0));
       }},
      {"bcast",
       "multitree",
       {"ranks", "bytes"},
       {"root", "parts", "arity", "segment", "x", "y", "z"},
       multitree},
      {"allgather",
       "ring",
       {"ranks", "bytes"},
       {},
       [](const Values& v) { return allgather_ring(as_int(v, "ranks"), v.at("bytes")); }},
      {"allgather",
       "recdbl",
       {"ranks", "bytes"},
       {},
       [](const Values& v) {
         return allgather_recursive_doubling(as_int(v, "ranks"), v.at("bytes"));
       }},
      {"allgather",
       "bruck",
       {"ranks", "bytes"},
       {},
       [](const Values& v) { return allgather_bruck(as_int(v, "ranks"), v.at("bytes")); }},
      {"allgather",
       "neighbor",
       {"ranks", "bytes"},
       {},
       [](const Values& v) {
         return allgather_neighbor_exchange(as_int(v, "ranks"), v.at("bytes"));
       }},
      {"alltoall",
       "pairwise",
       {"ranks", "bytes"},
       {},
       [](const Values& v) { return alltoall_pairwise(as_int(v, "ranks"), v.at("bytes")); }},
      {"alltoall",
       "bruck",
       {"ranks", "bytes"},
       {},
       [](const Values& v) { return alltoall_bruck(as_int(v, "ranks"), v.at("bytes")); }},
      {"barrier",
       "dissemination",
       {"ranks"},
       {},
       [](const Values& v) { return barrier_dissemination(as_int(v, "ranks")); }},
      {"reduce",
       "binomial",
       {"ranks", "bytes"},
       {"root", "reduce_ns"},
       [](const Values& v) {
         return reduce_binomial(as_int(v, "ranks"), v.at("bytes"), as_int(v, "root", 0),
                                value_or(v, "reduce_ns", 0));
       }},
      {"gather",
       "binomial",
       {"ranks", "bytes"},
       {"root"},
       [](const Values& v) {
         return gather_binomial(as_int(v, "ranks"), v.at("bytes"), as_int(v, "root", 0));
       }},
      {"gather",
       "linear_sync",
       {"ranks", "bytes"},
       {"root", "first_segment"},
       [](const Values& v) {
         return gather_linear_sync(as_int(v, "ranks"), v.at("bytes"), as_int(v, "root", 0),
                                   value_or(v, "first_segment", 1024));
       }},
      {"scatter",
       "binomial",
       {"ranks", "bytes"},
       {"root"},
       [](const Values& v) {
         return scatter_binomial(as_int(v, "ranks"), v.at("bytes"), as_int(v, "root", 0));
       }},
      {"scatter",
       "linear",
       {"ranks", "bytes"},
       {"root"},
       [](const Values& v) {
         return scatter_linear(as_int(v, "ranks"), v.at("bytes"), as_int(v, "root", 0));
       }},
  };
  return table;
}

/// "a, b or c" for error messages.
std::string list(const std::vector<std::string_view>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? " or " : ", ";
    out += items[i];
  }
  return out;
}

const Generator& find_generator(std::string_view collective, std::string_view algorithm,
                                const std::string& spec) {
  std::vector<std::string_view> collectives, algorithms;
  for (const Generator& g : generators()) {
    if (g.collective == collective) {
      if (g.algorithm == algorithm) return g;
      algorithms.push_back(g.algorithm);
    } else if (collectives.empty() || collectives.back() != g.collective) {
      collectives.push_back(g.collective);
    }
  }
  if (algorithms.empty())
    throw Error(fmt::format("unknown collective '{}' in generator spec '{}'; known: {}", collective,
                            spec, list(collectives)));
  throw Error(fmt::format("unknown {} algorithm '{}' in generator spec '{}'; known: {}", collective,
                          algorithm, spec, list(algorithms)));
}

std::int64_t parse_integer(std::string_view key, std::string_view text, const std::string& spec) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, status] = std::from_chars(text.data(), end, value);
  if (status == std::errc::result_out_of_range)
    throw Error(
        fmt::format("{}={} in generator spec '{}' is out of the 64-bit range", key, text, spec));
  if (status != std::errc() || stop != end || text.empty())
    throw Error(
        fmt::format("{}='{}' in generator spec '{}' is not a decimal integer", key, text, spec));
  return value;
}

bool takes(const Generator& g, std::string_view key) {
  return std::ranges::find(g.required, key) != g.required.end() ||
         std::ranges::find(g.optional, key) != g.optional.end();
}

Values parse_values(const Generator& g, const std::vector<std::string_view>& fields,
                    const std::string& spec) {
  std::vector<std::string_view> accepted = g.required;
  accepted.insert(accepted.end(), g.optional.begin(), g.optional.end());
  Values values;
  for (std::size_t i = 2; i < fields.size(); ++i) {
    const std::size_t equals = fields[i].find('=');
    if (equals == std::string_view::npos)
      throw Error(fmt::format("'{}' in generator spec '{}' is not key=value", fields[i], spec));
    const std::string_view key = fields[i].substr(0, equals);
    if (!takes(g, key))
      throw Error(fmt::format("unknown key '{}' for {}:{} in generator spec '{}'; it takes {}", key,
                              g.collective, g.algorithm, spec, list(accepted)));
    if (values.contains(key))
      throw Error(fmt::format("key '{}' appears twice in generator spec '{}'", key, spec));
    const std::int64_t value = parse_integer(key, fields[i].substr(equals + 1), spec);
    // Too small is the generator's to say (it knows its minimum); too large is choreo's limit.
    if ((key == "ranks" && value > limits::kMaxRanks) ||
        (key == "bytes" && value > limits::kMaxBytes))
      throw Error(
          fmt::format("{}={} in generator spec '{}' is out of range: choreo takes at most {} "
                      "(docs/formats.md, Limits)",
                      key, value, spec, key == "ranks" ? "2^24 = 16777216 ranks" : "2^50 bytes"));
    values.emplace(key, value);
  }
  for (std::string_view key : g.required)
    if (!values.contains(key))
      throw Error(fmt::format("generator spec '{}' lacks {}=...; {}:{} needs {}", spec, key,
                              g.collective, g.algorithm, list(g.required)));
  return values;
}

/// The generator a spec names, and its values.
std::pair<const Generator*, Values> parse_spec(const std::string& spec) {
  const std::vector<std::string_view> fields = split(spec, ':');
  if (fields.size() < 2 || fields[0].empty() || fields[1].empty())
    throw Error(
        fmt::format("generator spec '{}' must start with collective:algorithm, e.g. "
                    "allgather:ring:ranks=8:bytes=1024",
                    spec));
  const Generator& g = find_generator(fields[0], fields[1], spec);
  return {&g, parse_values(g, fields, spec)};
}

}  // namespace

CompactSchedule generate(const std::string& spec) {
  const auto [g, values] = parse_spec(spec);
  return g->build(values);
}

std::optional<ShapedSchedule> generate_shaped(const std::string& spec) {
  const auto [g, values] = parse_spec(spec);
  if (g->shaped == nullptr) return std::nullopt;
  return g->shaped(values);
}

std::vector<std::string> generator_names() {
  std::vector<std::string> names;
  for (const Generator& g : generators())
    names.push_back(fmt::format("{}:{}", g.collective, g.algorithm));
  return names;
}

}  // namespace choreo::coll
