// The model's choice of broadcast. Hockney's model with one port per rank: a message of m
// bytes costs T(m) = alpha + m beta, a rank's sends leave one after the other, and receiving
// overlaps sending (full duplex). With n bytes on P ranks:
//   binomial          ceil(log2 P) T(n): every round sends the whole buffer;
//   k-ary pipeline    c (S alpha + n beta) + (d - 1) c T(s): S segments of s bytes down a tree
//                     of depth d whose ranks forward each segment to c = min(k, P - 1)
//                     children in turn; the root's last message leaves after it sent c
//                     copies of every segment, and the last segment then crosses d - 1
//                     levels more;
//   multitree         c (t S alpha + n beta) + (d - 1) c T(s): t parts of n / t bytes, S
//                     segments each; the root has c children in each of the t trees, so it
//                     sends c copies of every byte (k n bytes in all), the bottleneck on one
//                     port.
// The chain (arity 1) sends n bytes from every rank and wins for large n when its latency
// term (P - 2) T(s) is small; the binary tree halves the depth at twice the root's bytes;
// binomial has the fewest messages and wins for small n. The multitree's gain needs links
// that work in parallel (a torus, paper 003); on one port per rank it never wins, and the
// model says so rather than hiding it.
#include "choice.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>

#include "../core/human.hpp"
#include "choreo/coll/pipeline.hpp"

namespace choreo::persist::detail {

namespace {

double message(const Hockney& model, double bytes) { return model.alpha + model.beta * bytes; }

int ceil_log2(int ranks) {
  return ranks <= 1 ? 0 : std::bit_width(static_cast<unsigned>(ranks - 1));
}

std::int64_t segments_of(std::int64_t bytes, std::int64_t segment) {
  return segment <= 0 ? 0 : (bytes + segment - 1) / segment;
}

std::string label(const BcastShape& shape) {
  if (shape.algorithm == "binomial") return "binomial";
  if (shape.algorithm == "multitree")
    return fmt::format("multitree {}x{}", shape.parts, shape.arity);
  if (shape.arity == 1) return "chain";
  return fmt::format("{}-ary pipeline", shape.arity);
}

}  // namespace

double predict_bcast(const BcastShape& shape, int ranks, const Hockney& model) {
  if (ranks <= 1 || shape.bytes == 0) return 0;
  const auto n = static_cast<double>(shape.bytes);
  if (shape.algorithm == "binomial") return ceil_log2(ranks) * message(model, n);
  const int depth = coll::multitree_depth(ranks, shape.arity, shape.parts);
  const int children = std::min(shape.arity, ranks - 1);
  // Parts as Segmentation cuts them: the first ones a byte longer, none empty that counts.
  const std::int64_t parts = std::min<std::int64_t>(shape.parts, shape.bytes);
  const std::int64_t part = (shape.bytes + shape.parts - 1) / shape.parts;
  const auto messages = static_cast<double>(parts * segments_of(part, shape.segment_bytes));
  const double segment =
      std::min(static_cast<double>(shape.segment_bytes), n / static_cast<double>(parts));
  // The root sends every byte to each of its children, one message per segment and child;
  // then the last segment crosses the remaining levels.
  const double root = children * (messages * model.alpha + n * model.beta);
  return root + (depth - 1) * children * message(model, segment);
}

BcastChoice choose_bcast(std::int64_t bytes, int root, int ranks, const Options& options) {
  BcastChoice out;
  out.model = {options.alpha, options.beta};
  auto consider = [&](const std::string& algorithm, int arity) {
    Options with = options;
    with.arity = options.arity != 0 ? options.arity : arity;
    BcastShape shape = bcast_shape(algorithm, bytes, root, ranks, with);
    out.considered.push_back({shape, predict_bcast(shape, ranks, out.model)});
  };
  // Past INT_MAX bytes no MPI message holds the whole buffer (MPI's int count): then only
  // the pipelines, whose segments do, are candidates, on 2 ranks too (a chain of segments).
  const bool whole_buffer_fits = bytes <= INT_MAX;
  if (whole_buffer_fits) consider("binomial", 0);
  if (ranks >= 3 || !whole_buffer_fits) consider("kary_pipeline", 1);
  if (ranks >= 3) {  // on 2 ranks every broadcast is one message: binomial sends it whole
    consider("kary_pipeline", 2);
    if (options.parts >= 1 && options.parts <= std::max(options.arity, 3))
      consider("multitree", std::max(options.arity, 3));
  }
  const auto best = std::ranges::min_element(
      out.considered, [](const Candidate& a, const Candidate& b) { return a.seconds < b.seconds; });
  out.chosen = best->shape;
  return out;
}

std::string describe_choice(const BcastChoice& choice) {
  // Candidates differ by algorithm and arity (the pipelines' segments follow from those).
  auto is_chosen = [&](const Candidate& c) {
    return c.shape.algorithm == choice.chosen.algorithm && c.shape.arity == choice.chosen.arity;
  };
  std::string others;
  for (const Candidate& candidate : choice.considered)
    if (!is_chosen(candidate))
      others += fmt::format("{}{} {}", others.empty() ? "" : ", ", label(candidate.shape),
                            human_seconds(candidate.seconds));
  const auto chosen = std::ranges::find_if(choice.considered, is_chosen);
  std::string segments;
  if (choice.chosen.algorithm != "binomial")
    segments =
        fmt::format(", {} segments", human_bytes(static_cast<double>(choice.chosen.segment_bytes)));
  return fmt::format(
      "{}{}: predicted {}{}{} (Hockney alpha {}, beta {:.3g} ns/B, one port per rank)",
      label(choice.chosen), segments, human_seconds(chosen->seconds), others.empty() ? "" : "; ",
      others, human_seconds(choice.model.alpha), choice.model.beta * 1e9);
}

}  // namespace choreo::persist::detail
