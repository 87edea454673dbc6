// The model's allreduce (choice.hpp): recursive doubling against the ring, in closed form.
#include <fmt/format.h>

#include <bit>

#include "../core/human.hpp"
#include "choice.hpp"

namespace choreo::persist::detail {

namespace {
/// The fold's reductions against the critical path's (above), fitted to choreo sim.
constexpr double kFoldReductionFactor = 1.8;
}  // namespace

double predict_allreduce(const std::string& algorithm, std::int64_t bytes, int ranks,
                         const Hockney& model) {
  if (ranks <= 1 || bytes == 0) return 0;
  const auto n = static_cast<double>(bytes);
  const auto p = static_cast<double>(ranks);
  const auto message = [&](double m) { return model.alpha + model.beta * m; };
  if (algorithm == "ring")
    return 2 * (p - 1) * message(n / p) + (p - 1) * kReduceSecondsPerByte * n / p;
  const int power = std::bit_width(static_cast<unsigned>(ranks)) - 1;  // log2 P'
  const int fold = (ranks & (ranks - 1)) != 0 ? 1 : 0;
  // Past a power of two the ranks out of step (those that folded, those that did not) wait
  // for each other's reductions: choreo sim's schedules take 1.2-1.9 times the reductions the
  // critical path alone has (2.45 of 2 on 3 ranks, 9.4 of 5 on 27, 17.1 of 10 on 1000).
  const double reductions = (power + fold) * (fold != 0 ? kFoldReductionFactor : 1.0);
  return (power + 2 * fold) * message(n) + reductions * kReduceSecondsPerByte * n;
}

AllreduceChoice choose_allreduce(std::int64_t bytes, int ranks, const Options& options) {
  AllreduceChoice choice;
  choice.model = {options.alpha, options.beta};
  choice.recdbl_seconds = predict_allreduce("recdbl", bytes, ranks, choice.model);
  choice.ring_seconds = predict_allreduce("ring", bytes, ranks, choice.model);
  choice.algorithm = choice.ring_seconds < choice.recdbl_seconds ? "ring" : "recdbl";
  return choice;
}

std::string describe_choice(const AllreduceChoice& choice) {
  const bool ring = choice.algorithm == "ring";
  return fmt::format(
      "{}: predicted {}; {} {} (Hockney alpha {}, beta {:.3g} ns/B, reduction {:.3g} ns/B)",
      choice.algorithm, human_seconds(ring ? choice.ring_seconds : choice.recdbl_seconds),
      ring ? "recdbl" : "ring", human_seconds(ring ? choice.recdbl_seconds : choice.ring_seconds),
      human_seconds(choice.model.alpha), choice.model.beta * 1e9, kReduceSecondsPerByte * 1e9);
}

}  // namespace choreo::persist::detail
