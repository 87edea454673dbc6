// What the exchange planner knows of the machine (ExchangeModel), and the algorithms' names.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "choreo/core/error.hpp"
#include "choreo/sched/exchange_plan.hpp"

namespace choreo {
namespace {

constexpr std::array<std::pair<ExchangeAlgorithm, std::string_view>, 6> kAlgorithmNames{{
    {ExchangeAlgorithm::Auto, "auto"},
    {ExchangeAlgorithm::Direct, "direct"},
    {ExchangeAlgorithm::Ring, "ring"},
    {ExchangeAlgorithm::Delay, "delay"},
    {ExchangeAlgorithm::Optimal, "optimal"},
    {ExchangeAlgorithm::OptimalPaced, "optimal-paced"},
}};

/// Seconds of a profile's fit as whole nanoseconds; throws if it is no time at all.
std::int64_t fitted_ns(double seconds, const char* name) {
  if (!std::isfinite(seconds) || seconds < 0)
    throw Error(
        fmt::format("the profile's LogGP {} is {} s; a fit is finite and >= 0: calibrate again "
                    "(choreo-mpi calibrate)",
                    name, seconds));
  return std::llround(seconds * 1e9);
}

}  // namespace

ExchangeAlgorithm exchange_algorithm_from_string(std::string_view name) {
  for (const auto& [algorithm, spelling] : kAlgorithmNames)
    if (spelling == name) return algorithm;
  throw Error(fmt::format(
      "unknown exchange algorithm '{}'; use auto, direct, ring, delay, optimal or optimal-paced",
      name));
}

std::string_view to_string(ExchangeAlgorithm algorithm) {
  for (const auto& [value, spelling] : kAlgorithmNames)
    if (value == algorithm) return spelling;
  throw Error(fmt::format("unknown exchange algorithm {}; use a value of choreo::ExchangeAlgorithm",
                          static_cast<int>(algorithm)));
}

ExchangeModel ExchangeModel::defaults() { return ExchangeModel{}; }

ExchangeModel ExchangeModel::from_profile(const MachineProfile& profile) {
  const LogGPFit& fit = profile.loggp;
  ExchangeModel model;
  model.params.L = fitted_ns(fit.L, "L");
  model.params.o = fitted_ns(fit.o, "o");
  model.params.g = fitted_ns(fit.g, "g");
  if (!std::isfinite(fit.G) || fit.G < 0)
    throw Error(
        fmt::format("the profile's LogGP G is {} s/B; a fit is finite and >= 0: calibrate again "
                    "(choreo-mpi calibrate)",
                    fit.G));
  model.params.G = fit.G * 1e9;
  model.params.O = 0;  // LogGP has no per-byte CPU cost; S stays LogGOPSim's eager limit
  if (model.params.o == 0 && model.params.g == 0 && model.params.G == 0)
    throw Error(
        "the profile has no LogGP fit (o, g and G are 0): fit it (choreo::fit_profile) or "
        "calibrate again (choreo-mpi calibrate)");
  return model;
}

std::int64_t ExchangeModel::slot_ns(std::int64_t bytes) const {
  // Paper 000's I(k) = o + (k-1)G, the time from the start of a send until the next one can
  // start. choreo sim starts a rank's sends max(o + (k-1)O, g + (k-1)G) apart: where g > o or
  // O > G that is longer, and slots of the paper's length would run ahead of the sends.
  const double per_byte = std::max(params.G, params.O);
  return std::max(params.o, params.g) +
         std::llround(static_cast<double>(std::max<std::int64_t>(bytes - 1, 0)) * per_byte);
}

}  // namespace choreo
