// Algorithm selection from the step model (include/choreo/select/select.hpp).
#include "choreo/select/select.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <random>
#include <utility>

#include "choreo/coll/generators.hpp"
#include "choreo/core/error.hpp"
#include "choreo/select/profile_quality.hpp"

namespace choreo::select {

std::vector<std::string> algorithms_of(std::string_view collective) {
  std::vector<std::string> out;
  for (const std::string& name : coll::generator_names()) {
    const auto colon = name.find(':');
    if (name.substr(0, colon) == collective) out.push_back(name.substr(colon + 1));
  }
  return out;
}

namespace {

CompactSchedule schedule_of(const Request& request, const std::string& algorithm,
                            std::int64_t bytes) {
  return coll::generate(
      fmt::format("{}:{}:ranks={}:bytes={}", request.collective, algorithm, request.ranks, bytes));
}

}  // namespace

double predict_algorithm(const Request& request, const std::string& algorithm, std::int64_t bytes) {
  return model::predict(schedule_of(request, algorithm, bytes), request.tables, request.network,
                        request.collisions)
      .seconds;
}

namespace {

// The fastest algorithm at `bytes` among those that run; ties go to the first listed.
std::string winner_at(const Request& request, const std::vector<Curve>& curves,
                      std::int64_t bytes) {
  std::string best;
  double best_seconds = std::numeric_limits<double>::infinity();
  for (const Curve& c : curves) {
    if (!c.unavailable.empty()) continue;
    try {
      const double t = predict_algorithm(request, c.algorithm, bytes);
      if (t < best_seconds) best_seconds = t, best = c.algorithm;
    } catch (const Error&) {
    }
  }
  return best;
}

}  // namespace

namespace {

std::vector<double> confidence_of(const Request& request, const Selection& s) {
  std::vector<double> confidence;
  if (request.table_draws.empty()) return confidence;
  const auto draws = static_cast<double>(request.table_draws.size());
  for (std::size_t i = 0; i < s.sizes.size(); ++i) {
    // A schedule does not depend on the tables: generate each candidate's once per size and
    // time it on every draw.
    std::vector<std::pair<std::string, CompactSchedule>> candidates;
    for (const Curve& c : s.curves)
      if (c.seconds[i])
        candidates.emplace_back(c.algorithm, schedule_of(request, c.algorithm, s.sizes[i]));
    int wins = 0;
    for (const model::CostTables& tables : request.table_draws) {
      const std::string* best = nullptr;
      double best_seconds = std::numeric_limits<double>::infinity();
      for (const auto& [algorithm, schedule] : candidates) {
        const double t =
            model::predict(schedule, tables, request.network, request.collisions).seconds;
        if (t < best_seconds) best_seconds = t, best = &algorithm;
      }
      wins += best != nullptr && *best == s.fastest[i];
    }
    confidence.push_back(static_cast<double>(wins) / draws);
  }
  return confidence;
}

/// The decision per size and the crossovers between decisions: a new algorithm takes over
/// where it is fastest with confidence; the exact size by bisection on the median tables,
/// between the size before and that one, for the smallest size it is fastest at.
void decide(const Request& request, Selection& s) {
  std::string decision = s.fastest.front();
  for (std::size_t i = 0; i < s.sizes.size(); ++i) {
    const bool confident = s.confidence.empty() || s.confidence[i] >= request.confidence;
    if (i > 0 && confident && s.fastest[i] != decision) {
      std::int64_t low = s.sizes[i - 1], high = s.sizes[i];  // low: not the new one; high: it
      while (high - low > 1) {
        const std::int64_t mid = low + (high - low) / 2;
        if (winner_at(request, s.curves, mid) == s.fastest[i])
          high = mid;
        else
          low = mid;
      }
      s.crossovers.push_back({decision, s.fastest[i], high});
      decision = s.fastest[i];
    }
    s.winners.push_back(decision);
  }
}

}  // namespace

Selection select_algorithms(const Request& request) {
  auto names = algorithms_of(request.collective);
  if (names.empty()) {
    std::string known;
    for (const auto& n : coll::generator_names())
      if (known.find(n.substr(0, n.find(':'))) == std::string::npos)
        known += (known.empty() ? "" : ", ") + n.substr(0, n.find(':'));
    throw Error(fmt::format("no algorithms for collective '{}': choose one of {}",
                            request.collective, known));
  }
  if (!request.only.empty()) {
    for (const std::string& wanted : request.only)
      if (std::find(names.begin(), names.end(), wanted) == names.end())
        throw Error(fmt::format("{} has no algorithm '{}': choose from {}", request.collective,
                                wanted, fmt::join(names, ", ")));
    names = request.only;
  }
  if (request.sizes.empty()) throw Error("no message sizes to predict");
  if (!std::is_sorted(request.sizes.begin(), request.sizes.end()))
    throw Error("message sizes must be ascending");

  Selection s;
  s.sizes = request.sizes;
  for (const std::string& name : names) {
    Curve c{name, {}, {}};
    std::string last_error;
    for (std::int64_t bytes : request.sizes) {
      try {
        c.seconds.push_back(predict_algorithm(request, name, bytes));
      } catch (const Error& e) {
        c.seconds.push_back(std::nullopt);
        last_error = e.what();
      }
    }
    if (std::none_of(c.seconds.begin(), c.seconds.end(),
                     [](const auto& t) { return t.has_value(); }))
      c.unavailable = last_error;
    s.curves.push_back(std::move(c));
  }
  for (std::size_t i = 0; i < request.sizes.size(); ++i) {
    std::string best;
    double best_seconds = std::numeric_limits<double>::infinity();
    for (const Curve& c : s.curves)
      if (c.seconds[i] && *c.seconds[i] < best_seconds)
        best_seconds = *c.seconds[i], best = c.algorithm;
    if (best.empty()) {
      std::string reasons;
      for (const Curve& c : s.curves)
        if (!c.unavailable.empty())
          reasons +=
              fmt::format("{}{}: {}", reasons.empty() ? "" : "; ", c.algorithm, c.unavailable);
      throw Error(fmt::format("no {} algorithm runs on {} ranks{}{}", request.collective,
                              request.ranks, reasons.empty() ? "" : ": ", reasons));
    }
    s.fastest.push_back(best);
  }
  s.confidence = confidence_of(request, s);
  decide(request, s);
  return s;
}

ModelTables parse_model_tables(std::string_view text) {
  if (text == "auto") return ModelTables::Automatic;
  if (text == "collective") return ModelTables::Collective;
  if (text == "paper") return ModelTables::Paper;
  throw Error(fmt::format("'{}' names no model tables: write auto, collective or paper", text));
}

model::CostTables tables_from_profile(const MachineProfile& profile, ModelTables tables) {
  auto medians = [](const std::vector<SizeSamples>& samples) {
    std::vector<std::pair<std::int64_t, double>> points;
    for (const auto& s : samples) points.emplace_back(s.bytes, s.median());
    return points;
  };
  const bool has_collective = !profile.collective.empty();
  if (tables == ModelTables::Collective && !has_collective)
    throw Error(
        "the profile has no collective tables (it predates them): calibrate again with "
        "`choreo-mpi calibrate`, or use paper 001's tables (--tables paper)");
  model::CostTables t;
  if (tables == ModelTables::Collective || (tables == ModelTables::Automatic && has_collective)) {
    t.message = model::PiecewiseLinear(medians(profile.collective.exchange));
    t.memcpy = model::PiecewiseLinear(medians(profile.collective.memcpy));
    t.source = "collective";
  } else {
    t.message = model::PiecewiseLinear(medians(profile.pingpong));
    t.memcpy = profile.memcpy.empty() ? model::PiecewiseLinear({{0, 0.0}})
                                      : model::PiecewiseLinear(medians(profile.memcpy));
    t.source = "paper";
  }
  if (!profile.pairs.empty()) t.calibrated_pair = profile.pairs.front();
  return t;
}

std::vector<model::CostTables> resampled_tables(const MachineProfile& profile, ModelTables tables,
                                                int draws, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<model::CostTables> out;
  for (int d = 0; d < draws; ++d)
    out.push_back(tables_from_profile(resampled(profile, rng), tables));
  return out;
}

std::int64_t parse_size(std::string_view text) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [rest, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || value < 0)
    throw Error(
        fmt::format("'{}' is not a size: write a number of bytes such as 8, 64K or 64M", text));
  std::string_view unit(rest, static_cast<std::size_t>(end - rest));
  if (!unit.empty() && (unit.back() == 'B' || unit.back() == 'b')) unit.remove_suffix(1);
  if (unit.size() == 2 && unit[1] == 'i') unit.remove_suffix(1);
  int shift = 0;
  if (unit == "K" || unit == "k")
    shift = 10;
  else if (unit == "M" || unit == "m")
    shift = 20;
  else if (unit == "G" || unit == "g")
    shift = 30;
  else if (!unit.empty())
    throw Error(fmt::format("'{}': unknown unit; use K, M or G (powers of 1024)", text));
  if (value > (std::numeric_limits<std::int64_t>::max() >> shift))
    throw Error(fmt::format("'{}' is too large", text));
  return value << shift;
}

std::vector<std::int64_t> size_range(std::string_view text, double factor) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos)
    throw Error(fmt::format("'{}': give sizes as MIN:MAX, e.g. 8:64M", text));
  const std::int64_t low = parse_size(text.substr(0, colon)),
                     high = parse_size(text.substr(colon + 1));
  if (low < 1 || high < low) throw Error(fmt::format("'{}': need 1 <= MIN <= MAX", text));
  if (!(factor > 1) || !std::isfinite(factor))
    throw Error(fmt::format("the size factor must be > 1, not {}", factor));
  // Every size costs a prediction of every algorithm: a factor near 1 would ask for
  // millions (1.0000001 over 8:64M, 1.6e8) and never finish.
  constexpr double kMaxSizes = 1000;
  const double steps =
      std::log(static_cast<double>(high) / static_cast<double>(low)) / std::log(factor);
  if (steps + 1 > kMaxSizes)
    throw Error(fmt::format(
        "a factor of {} gives {:.3g} sizes from {} to {} B; choreo predicts at most {:.0f}: use "
        "a factor of at least {:.6g}",
        factor, std::ceil(steps) + 1, low, high, kMaxSizes,
        std::pow(static_cast<double>(high) / static_cast<double>(low), 1 / (kMaxSizes - 1)) *
            (1 + 1e-9)));
  std::vector<std::int64_t> sizes;
  for (double b = static_cast<double>(low); b < static_cast<double>(high); b *= factor) {
    const auto rounded = static_cast<std::int64_t>(std::llround(b));
    if (sizes.empty() || rounded > sizes.back()) sizes.push_back(rounded);
  }
  if (sizes.empty() || sizes.back() != high) sizes.push_back(high);
  return sizes;
}

}  // namespace choreo::select
