#pragma once
// The model's choice of algorithm and segment size for a persistent collective whose caller
// left Options::algorithm empty (private, MPI-free). Closed forms of Hockney's model with one
// port per rank (a rank's sends leave one after the other, its receives overlap them): O(1)
// per candidate whatever P, so init stays within its budget at 2^16 ranks and more. The
// forms are checked against choreo sim's event simulation of the generated schedules
// (tests/unit/test_persist_choice.cpp); docs/persistent.md "Choice by model" gives them.
#include <cstdint>
#include <string>
#include <vector>

#include "choreo/persist/options.hpp"
#include "plans.hpp"

namespace choreo::persist::detail {

/// Hockney's model: a message of m bytes costs alpha + m beta.
struct Hockney {
  double alpha = 0, beta = 0;
};

/// One candidate and its predicted time.
struct Candidate {
  BcastShape shape;
  double seconds = 0;
};

/// What the model considered and what it took (chosen = the fastest candidate; ties go to
/// the earlier, simpler one).
struct BcastChoice {
  BcastShape chosen;
  std::vector<Candidate> considered;
  Hockney model;
};

/// Predicted time of a broadcast of shape on `ranks` ranks (closed form, see the .cpp).
double predict_bcast(const BcastShape& shape, int ranks, const Hockney& model);

/// The broadcast the model predicts fastest among binomial, the chain (k-ary pipeline of
/// arity 1), the binary pipeline and the multitree (options' parts), each pipeline cut by
/// Hockney's segment rule unless options.segment_bytes is set; options.arity, when set,
/// replaces the pipelines' arities. Throws choreo::Error on bad options as bcast_shape does.
BcastChoice choose_bcast(std::int64_t bytes, int root, int ranks, const Options& options);

/// One line for describe() and CHOREO_REPORT: the choice, its predicted time and the others'.
std::string describe_choice(const BcastChoice& choice);

}  // namespace choreo::persist::detail
