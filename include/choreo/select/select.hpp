#pragma once
// Algorithm selection (paper 001 §VII-B): predict every algorithm of a collective over a
// range of sizes with the step model, name the winner at each size and the sizes where the
// winner changes (crossovers), found exactly by bisection between the sampled sizes.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "choreo/model/profile.hpp"
#include "choreo/model/step_model.hpp"
#include "choreo/topo/network.hpp"

namespace choreo::select {

struct Request {
  std::string collective;  ///< allgather, bcast, allreduce, alltoall (any generator's)
  int ranks = 0;
  NetworkSpec network;  ///< where the ranks sit (ideal: no collisions possible)
  model::CostTables tables;
  bool collisions = true;
  std::vector<std::int64_t> sizes;  ///< the generators' `bytes`, ascending
  std::vector<std::string> only;    ///< compare only these algorithms (empty: all)
  /// The tables drawn again from the profile's samples (resampled_tables). With them the
  /// decision changes only where the new fastest algorithm wins in at least `confidence` of
  /// the draws; elsewhere the difference is within the calibration's noise.
  std::vector<model::CostTables> table_draws;
  double confidence = 0.95;
};

struct Curve {
  std::string algorithm;                       ///< e.g. "bruck"
  std::vector<std::optional<double>> seconds;  ///< per size; empty where it cannot run
  std::string unavailable;                     ///< why not, when it cannot run at all
};

struct Crossover {
  std::string from, to;  ///< winner below, winner from `bytes` on
  std::int64_t bytes = 0;
};

struct Selection {
  std::vector<std::int64_t> sizes;
  std::vector<Curve> curves;
  /// Per size, the decision: the fastest algorithm where it is confident (or no draws were
  /// given), else the decision of the size before (a noise-level lead does not flip it).
  std::vector<std::string> winners;
  std::vector<std::string> fastest;   ///< per size, the fastest on the median tables
  std::vector<double> confidence;     ///< per size, the share of draws it wins; empty: no draws
  std::vector<Crossover> crossovers;  ///< where the decision changes
};

/// Throws choreo::Error for an unknown collective, no sizes, or when no algorithm can run.
Selection select_algorithms(const Request& request);

/// Predicted time of one algorithm at one size (the generator's spec is
/// "collective:algorithm:ranks=..:bytes=.."). Throws choreo::Error when it cannot run.
double predict_algorithm(const Request& request, const std::string& algorithm, std::int64_t bytes);

/// The algorithms choreo generates for `collective`, e.g. {"ring", "recdbl", "bruck"}.
std::vector<std::string> algorithms_of(std::string_view collective);

/// Which of a profile's tables the model reads.
enum class ModelTables {
  Automatic,   ///< Collective when the profile has those tables, else Paper
  Collective,  ///< the simultaneous exchange and the memcpy of fresh data (beyond the paper)
  Paper,       ///< paper 001's ping-pong (one way) and cache-defeating memcpy
};

/// "auto", "collective" or "paper"; throws choreo::Error naming the choices otherwise.
ModelTables parse_model_tables(std::string_view text);

/// The medians of a calibrated profile as the model's tables; the calibrated pair is the
/// profile's first. Throws choreo::Error when `tables` is Collective and the profile has no
/// collective tables.
model::CostTables tables_from_profile(const MachineProfile& profile,
                                      ModelTables tables = ModelTables::Automatic);

/// `draws` bootstrap draws of the tables tables_from_profile reads: every size's samples drawn
/// again with replacement (resampled in profile_quality.hpp), deterministic for a seed.
std::vector<model::CostTables> resampled_tables(const MachineProfile& profile, ModelTables tables,
                                                int draws, std::uint64_t seed = 1);

/// Where a prediction on `profile` goes beyond what it measured, one sentence each: message
/// sizes past its largest, more ranks than took part, a network it did not cross (its pair
/// shared a node), a machine under load, a fit that is not physical. Empty: none.
std::vector<std::string> extrapolation_notes(const MachineProfile& profile, const Request& request);

/// "8", "64K", "64KiB", "64M", "1G" (powers of 1024; a trailing B is optional).
std::int64_t parse_size(std::string_view text);
/// "MIN:MAX": MIN, MIN*factor, ... up to MAX (MAX itself always included).
std::vector<std::int64_t> size_range(std::string_view text, double factor = 2);

}  // namespace choreo::select
