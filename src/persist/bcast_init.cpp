// bcast_init: binomial, k-ary pipeline and multitree broadcasts as persistent requests (the
// plans: bcast_plan.cpp).
#include <fmt/format.h>

#include <climits>
#include <span>
#include <tuple>
#include <utility>

#include "choice.hpp"
#include "choreo/core/error.hpp"
#include "choreo/persist/collectives.hpp"
#include "init_common.hpp"
#include "plans.hpp"

namespace choreo::persist {

namespace {

constexpr const char* kBcastInitCall = "bcast_init";

/// The broadcast to run and why: the caller's algorithm, or the model's choice when none
/// was named (the same on every rank: a function of arguments all ranks agree on).
std::pair<detail::BcastShape, std::string> shape_of(MPI_Count count, MPI_Datatype type, int root,
                                                    int ranks, const Options& options) {
  const std::int64_t bytes =
      detail::checked_bytes(kBcastInitCall, count, detail::element_size(kBcastInitCall, type));
  detail::check_root(kBcastInitCall, root, ranks);
  const bool torus_known = options.torus != std::array<int, 3>{0, 0, 0};
  if (options.algorithm.empty() && torus_known && ranks >= 3 && bytes >= kTorusTreesFromBytes)
    return {
        detail::bcast_shape("multitree_torus", bytes, root, ranks, options),
        fmt::format("the default on the {}x{}x{} torus from {} bytes: the torus-mapped trees "
                    "(measured under SMPI, docs/BENCHMARKS.md)",
                    options.torus[0], options.torus[1], options.torus[2], kTorusTreesFromBytes)};
  if (options.algorithm.empty()) {
    const detail::BcastChoice choice = detail::choose_bcast(bytes, root, ranks, options);
    return {choice.chosen, "chosen by the model: " + detail::describe_choice(choice)};
  }
  const std::string algorithm = detail::chosen_algorithm(
      kBcastInitCall, options, "",
      {"binomial", "kary_pipeline", "multitree", "multitree_torus", "mpi"});
  if (algorithm == "mpi") {
    if (count > INT_MAX)
      throw Error(
          fmt::format("{}: the MPI library's own broadcast (\"mpi\") takes an int count "
                      "here, not {}; name \"kary_pipeline\" or \"multitree\", or none",
                      kBcastInitCall, count));
    detail::BcastShape library;
    library.algorithm = "mpi";
    library.bytes = bytes;
    library.root = root;
    return {library, "named by the caller"};
  }
  return {detail::bcast_shape(algorithm, bytes, root, ranks, options), "named by the caller"};
}

}  // namespace

Request bcast_init(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
                   const Options& options) {
  return bcast_init_c(buf, count, type, root, comm, options);
}

Request bcast_init_c(void* buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
                     const Options& options) {
  const detail::Ranks me = detail::ranks_of(comm);
  const int rank = me.rank, ranks = me.size;
  detail::BcastShape shape;
  std::string choice;
  detail::Layout layout;
  detail::on_every_rank(comm, [&] {
    detail::check_thread_level(kBcastInitCall, options);
    std::tie(shape, choice) = shape_of(count, type, root, ranks, options);
    layout = detail::layout_of(kBcastInitCall, type, count, rank == root, rank != root);
  });
  detail::agree_between_ranks(
      kBcastInitCall, comm,
      {{"count x type size", shape.bytes},
       {"root", shape.root},
       {"algorithm", detail::name_fingerprint(shape.algorithm)},
       {"arity", shape.arity},
       {"parts", shape.parts},
       {"segment size", shape.segment_bytes},
       {"torus x", shape.torus[0]},
       {"torus y", shape.torus[1]},
       {"torus z", shape.torus[2]},
       {"torus placement", detail::fingerprint(std::as_bytes(std::span(shape.node_of_rank)))}});
  // The library's own broadcast takes an int count here (MPICH 4.0.2's MPI_Ibcast_c and
  // MPI_Bcast_init_c fail past one: "Invalid communicator"), so a larger one is not measured.
  const bool library_takes_it = count <= INT_MAX;
  const detail::LibraryFactory library = [&](MPI_Comm own) {
    return detail::library_bcast(buf, static_cast<int>(count), type, root, own);
  };
  if (shape.algorithm == "mpi") {
    detail::Plan named;
    named.algorithm = fmt::format("bcast:mpi ({})", detail::library_bcast_name());
    named.choice = std::move(choice);
    return detail::make_library_request(std::move(named), comm, library);
  }
  detail::Plan plan;
  detail::on_every_rank(comm, [&] {
    plan = detail::bcast_plan(shape, ranks, rank);
    plan.choice = std::move(choice);
    detail::check_tags(kBcastInitCall, plan, comm);
  });
  // The model's tree and the MPI library's own broadcast: the default engine with no
  // algorithm named measures both over the first starts and keeps the faster (LibraryTrial).
  const bool measured = options.algorithm.empty() && options.engine == Engine::Commands &&
                        library_takes_it &&
                        ranks > 1;  // one rank moves no message: nothing to measure
  return detail::make_request(std::move(plan), {buf, nullptr, layout}, comm, MPI_BYTE, MPI_OP_NULL,
                              options, measured ? library : detail::LibraryFactory{});
}

}  // namespace choreo::persist
