#pragma once
// Building blocks shared by the butterfly and Rabenseifner simulations: the fold for P not a
// power of two and one pairwise-exchange stage over the power-of-two core.
#include <cstdint>
#include <vector>

#include "choreo/jitter/noise.hpp"
#include "choreo/jitter/params.hpp"

namespace choreo::jitter::detail {

/// P = p2 + rem ranks: virtual rank v < rem is real rank 2v (standing in for 2v+1 too);
/// v >= rem is real rank v + rem.
struct Fold {
  std::int64_t p2 = 1;
  std::int64_t rem = 0;
  int stages = 0;  ///< log2(p2)

  explicit Fold(std::int64_t ranks);
  std::size_t real_rank(std::int64_t virtual_rank) const {
    return static_cast<std::size_t>(virtual_rank < rem ? 2 * virtual_rank : virtual_rank + rem);
  }
};

/// Times of the p2 virtual ranks once the folded ranks' vectors are in: rank 2v receives from
/// 2v+1 (both start at 0) and reduces; the other ranks start at 0.
std::vector<double> fold_in(const JitterParams& p, const Fold& fold, Trial& trial);

/// What a rank does with the data an exchange brings.
enum class OnArrival { Reduce, Keep };

/// One exchange of `message_bytes` with partner v ^ mask; with OnArrival::Reduce a reduction
/// of as many bytes follows, which OS jitter can delay (even when it has no bytes: it waits
/// for a running window), while a kept copy (an allgather step) costs no CPU.
void exchange_stage(const JitterParams& p, const Fold& fold, std::int64_t mask,
                    double message_bytes, OnArrival on_arrival, std::vector<double>& times,
                    std::vector<double>& scratch, Trial& trial);

/// The network delay of each fold-out message (rank 2v to 2v+1, v < rem), drawn once so every
/// T of a resilient run sees the same ones.
std::vector<double> fold_out_delays(const JitterParams& p, const Fold& fold, Trial& trial);

/// Completion time: the latest virtual rank, or folded rank 2v+1 one message after rank 2v.
double completion(const JitterParams& p, const Fold& fold, const std::vector<double>& done,
                  const std::vector<double>& fold_out_delay);

}  // namespace choreo::jitter::detail
