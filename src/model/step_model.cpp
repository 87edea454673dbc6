// Paper 001's step model with collisions (include/choreo/model/step_model.hpp).
#include "choreo/model/step_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <unordered_map>

#include "../topo/links.hpp"
#include "choreo/core/error.hpp"

namespace choreo::model {

PiecewiseLinear::PiecewiseLinear(std::vector<std::pair<std::int64_t, double>> samples)
    : samples_(std::move(samples)) {
  if (samples_.empty()) throw Error("a measured table needs at least one sample");
  for (std::size_t i = 0; i < samples_.size(); ++i) {
    const auto [bytes, seconds] = samples_[i];
    if (bytes < 0 || !std::isfinite(seconds) || seconds < 0)
      throw Error(fmt::format("sample {} ({} B, {} s): sizes and times must be >= 0 and finite", i,
                              bytes, seconds));
    if (i > 0 && bytes <= samples_[i - 1].first)
      throw Error(
          fmt::format("sample {} ({} B) is not larger than the one before ({} B): "
                      "sizes must be strictly ascending",
                      i, bytes, samples_[i - 1].first));
  }
}

double PiecewiseLinear::at(std::int64_t bytes) const {
  if (samples_.empty()) throw Error("the measured table is empty");
  if (samples_.size() == 1) return samples_.front().second;
  // The segment whose ends are the two nearest samples (the first or last one outside).
  auto upper =
      std::lower_bound(samples_.begin(), samples_.end(), bytes,
                       [](const auto& sample, std::int64_t b) { return sample.first < b; });
  if (upper == samples_.begin()) ++upper;
  if (upper == samples_.end()) --upper;
  const auto& [x0, y0] = *(upper - 1);
  const auto& [x1, y1] = *upper;
  const double slope = (y1 - y0) / static_cast<double>(x1 - x0);  // alpha_M of eq. 1
  return std::max(0.0, y0 + slope * static_cast<double>(bytes - x0));
}

namespace {

struct StepLoad {
  StepPrediction step;
  std::unordered_map<std::uint32_t, std::pair<int, std::int64_t>> links;  // messages, bytes
};

}  // namespace

Prediction predict(const CompactSchedule& schedule, const CostTables& tables,
                   const NetworkSpec& network, bool collisions) {
  const int ranks = schedule.ranks();
  const bool routed = collisions && network.kind != NetworkSpec::Kind::Ideal;
  std::optional<Links> links;
  if (network.kind != NetworkSpec::Kind::Ideal) links.emplace(network, ranks);
  std::vector<std::uint32_t> route;
  auto hops_between = [&](int src, int dst) {
    route.clear();
    if (links) links->route(src, dst, route);
    return static_cast<int>(route.size());
  };
  const auto [pair_src, pair_dst] = tables.calibrated_pair;
  const int calibrated_hops =
      pair_src < ranks && pair_dst < ranks ? hops_between(pair_src, pair_dst) : 0;

  std::map<int, StepLoad> steps;
  Prediction p;
  for (int r = 0; r < ranks; ++r) {
    double copies = 0, calcs = 0;
    for (OpIndex op = schedule.first_op(r); op < schedule.first_op(r + 1); ++op) {
      switch (schedule.kind(op)) {
        case OpKind::Copy:
          copies += tables.memcpy.at(schedule.amount(op));
          break;
        case OpKind::Calc:
          calcs += static_cast<double>(schedule.amount(op)) * 1e-9;
          break;
        case OpKind::Send: {
          StepLoad& load = steps[schedule.tag(op)];
          const std::int64_t bytes = schedule.amount(op);
          ++load.step.messages;
          load.step.bytes = std::max(load.step.bytes, bytes);
          load.step.hops = std::max(load.step.hops, hops_between(r, schedule.peer(op)));
          if (routed)
            for (std::uint32_t link : route) {
              auto& [count, link_bytes] = load.links[link];
              ++count;
              link_bytes += bytes;
            }
          break;
        }
        default:
          break;
      }
    }
    p.memcpy_seconds = std::max(p.memcpy_seconds, copies);
    p.calc_seconds = std::max(p.calc_seconds, calcs);
  }
  for (auto& [tag, load] : steps) {
    StepPrediction& s = load.step;
    s.tag = tag;
    s.timed_bytes = s.bytes;
    for (const auto& [link, use] : load.links) {
      s.collisions = std::max(s.collisions, use.first);
      s.timed_bytes = std::max(s.timed_bytes, use.second);
    }
    s.seconds = tables.message.at(s.timed_bytes) +
                tables.hop_latency * std::max(0, s.hops - calibrated_hops);
    p.comm_seconds += s.seconds;
    p.steps.push_back(s);
  }
  p.seconds = p.comm_seconds + p.memcpy_seconds + p.calc_seconds;
  return p;
}

}  // namespace choreo::model
