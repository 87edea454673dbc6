#pragma once
// One trial of an allreduce under paper 004's noise model, as an event-per-stage recurrence:
// each stage updates every rank's time from its own and its partner's, O(P) per stage.
// P need not be a power of two: with p2 the largest power of two <= P and rem = P - p2, rank
// 2j+1 (j < rem) first sends its vector to rank 2j, which reduces it and stands in for both
// in the power-of-two algorithm, then sends 2j+1 the result (the MPICH fold, as in choreo's
// allreduce_recursive_doubling generator).
#include <cstdint>
#include <vector>

#include "choreo/jitter/noise.hpp"
#include "choreo/jitter/params.hpp"

namespace choreo::jitter {

/// log2 of the butterfly inside an allreduce on `ranks` ranks: floor(log2(ranks)).
int butterfly_stages(std::int64_t ranks);

/// Butterfly allreduce followed by up to `max_redundant` redundant exchanges with the
/// partners of the first stages (stage j: rank v ^ 2^j), each rank keeping the first copy of
/// the result to arrive. Element T of the result is the allreduce's completion time (the last
/// rank's) with T redundant exchanges, T = 0 .. max_redundant; element 0 is the plain
/// butterfly. One run serves every T because exchange j draws its noise after exchange j-1.
/// Throws choreo::Error unless 0 <= max_redundant <= butterfly_stages(ranks).
std::vector<double> butterfly_times(const JitterParams& p, std::int64_t ranks, int max_redundant,
                                    Trial& trial);

/// Ring allreduce (reduce-scatter then allgather, 2(P-1) steps of N/P bytes). O(P^2) per
/// trial, so it throws choreo::Error above kMaxRingRanks.
double ring_time(const JitterParams& p, std::int64_t ranks, Trial& trial);
inline constexpr std::int64_t kMaxRingRanks = 4096;
/// Throws choreo::Error when ring_time would refuse `ranks` (above kMaxRingRanks).
void check_ring_ranks(std::int64_t ranks);

/// Rabenseifner allreduce: recursive-halving reduce-scatter, recursive-doubling allgather.
double rabenseifner_time(const JitterParams& p, std::int64_t ranks, Trial& trial);

}  // namespace choreo::jitter
