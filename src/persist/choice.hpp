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

/// Seconds a reduction takes per byte (MPI_Reduce_local, MPI_SUM of doubles, 1 MiB, medians of
/// 500, 2026-11-28 here): MPICH 4.0.2 0.17 ns/B, Open MPI 4.1.4 0.064 ns/B; the slower.
inline constexpr double kReduceSecondsPerByte = 0.17e-9;

/// The model's allreduce: recursive doubling ("recdbl") or the ring, whichever it predicts
/// faster (ties to recdbl, the fewer messages). With n bytes on P ranks, P' the largest power
/// of two not above P and gamma kReduceSecondsPerByte:
///   recdbl  (log2 P' + 2 f) T(n) + (log2 P' + f) c gamma n, f = 1 when P > P' (the fold: a
///           rank past P' hands its vector in, then gets the result back), c = 1.8 there
///           (ranks out of step wait for each other's reductions; fitted to choreo sim) and
///           1 on a power of two, where the form is exact;
///   ring    2 (P - 1) T(n / P) + (P - 1) gamma n / P (reduce-scatter, then allgather).
struct AllreduceChoice {
  std::string algorithm;
  double recdbl_seconds = 0, ring_seconds = 0;
  Hockney model;
};
double predict_allreduce(const std::string& algorithm, std::int64_t bytes, int ranks,
                         const Hockney& model);
AllreduceChoice choose_allreduce(std::int64_t bytes, int ranks, const Options& options);
std::string describe_choice(const AllreduceChoice& choice);

}  // namespace choreo::persist::detail
