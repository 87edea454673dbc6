// Algorithm selection from the step model (include/choreo/select.hpp).
#include "choreo/select.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "choreo/coll.hpp"
#include "choreo/error.hpp"

namespace choreo::select {

std::vector<std::string> algorithms_of(std::string_view collective) {
  std::vector<std::string> out;
  for (const std::string& name : coll::generator_names()) {
    const auto colon = name.find(':');
    if (name.substr(0, colon) == collective) out.push_back(name.substr(colon + 1));
  }
  return out;
}

double predict_algorithm(const Request& request, const std::string& algorithm, std::int64_t bytes) {
  const auto schedule = coll::generate(
      fmt::format("{}:{}:ranks={}:bytes={}", request.collective, algorithm, request.ranks, bytes));
  return model::predict(schedule, request.tables, request.network, request.collisions).seconds;
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
    s.winners.push_back(best);
  }
  // Crossovers: the smallest size where the winner is no longer the previous one, by
  // bisection between neighbouring samples with different winners.
  for (std::size_t i = 1; i < s.sizes.size(); ++i) {
    if (s.winners[i] == s.winners[i - 1]) continue;
    std::int64_t low = s.sizes[i - 1], high = s.sizes[i];  // low: old winner; high: not
    while (high - low > 1) {
      const std::int64_t mid = low + (high - low) / 2;
      if (winner_at(request, s.curves, mid) == s.winners[i - 1])
        low = mid;
      else
        high = mid;
    }
    s.crossovers.push_back({s.winners[i - 1], winner_at(request, s.curves, high), high});
  }
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
