// bcast_init: binomial, k-ary pipeline and multitree broadcasts as persistent requests.
#include <fmt/format.h>

#include "choreo/coll.hpp"
#include "choreo/coll_pipeline.hpp"
#include "choreo/error.hpp"
#include "choreo/persist/collectives.hpp"
#include "init_common.hpp"
#include "plans.hpp"

namespace choreo::persist {

namespace {

constexpr const char* kBcastInitCall = "bcast_init";

struct BcastShape {
  std::string algorithm;
  std::int64_t bytes = 0;
  int root = 0, arity = 0, parts = 1;
  std::int64_t segment_bytes = 0;  ///< pipelined algorithms only
};

/// The shape of a broadcast of `bytes` (segment size by Hockney's rule unless set).
BcastShape shape_for(const std::string& algorithm, std::int64_t bytes, int root, int ranks,
                     const Options& options) {
  BcastShape shape;
  shape.algorithm = algorithm;
  shape.bytes = bytes;
  shape.root = root;
  if (shape.algorithm == "binomial") return shape;
  const bool multitree = shape.algorithm == "multitree";
  shape.parts = multitree ? options.parts : 1;
  shape.arity = options.arity != 0 ? options.arity : (multitree ? 3 : 2);
  if (options.segment_bytes < 0)
    throw Error(fmt::format("{}: segment_bytes must be 0 (Hockney's rule) or more, not {}",
                            kBcastInitCall, options.segment_bytes));
  const int depth = coll::multitree_tree(ranks, root, shape.arity, shape.parts, 0).depth;
  shape.segment_bytes = options.segment_bytes > 0
                            ? options.segment_bytes
                            : coll::hockney_segment_bytes(shape.bytes / shape.parts, depth,
                                                          options.alpha, options.beta);
  return shape;
}

BcastShape shape_of(int count, MPI_Datatype type, int root, int ranks, const Options& options) {
  const std::string algorithm = detail::chosen_algorithm(
      kBcastInitCall, options, "multitree", {"binomial", "kary_pipeline", "multitree"});
  const std::int64_t bytes =
      detail::checked_bytes(kBcastInitCall, count, detail::contiguous_size(kBcastInitCall, type));
  if (root < 0 || root >= ranks)
    throw Error(fmt::format("{}: root {} is not a rank of the communicator (0..{})", kBcastInitCall,
                            root, ranks - 1));
  return shape_for(algorithm, bytes, root, ranks, options);
}

detail::Plan plan_of(const BcastShape& shape, int ranks, int rank) {
  const std::string name = "bcast:" + shape.algorithm;
  if (shape.algorithm == "binomial") {
    // Every message is the whole buffer.
    return detail::plan_from_schedule(
        coll::bcast_binomial(ranks, shape.bytes, shape.root), rank, 1,
        [](const sim::CompactSchedule&, sim::OpIndex) { return detail::Place{}; }, name);
  }
  // The pipelined generators tag a message with its segment's number.
  const coll::Segmentation segments(shape.bytes, shape.parts, shape.segment_bytes);
  const sim::CompactSchedule schedule = coll::bcast_multitree(
      ranks, shape.bytes, shape.root, shape.parts, shape.arity, shape.segment_bytes);
  return detail::plan_from_schedule(
      schedule, rank, 1,
      [&segments](const sim::CompactSchedule& s, sim::OpIndex op) {
        return detail::Place{detail::BufferId::User, segments[s.tag(op)].offset};
      },
      name);
}

}  // namespace

detail::Plan detail::bcast_plan(const std::string& algorithm, std::int64_t bytes, int root,
                                int ranks, int rank, const Options& options) {
  return plan_of(shape_for(algorithm, bytes, root, ranks, options), ranks, rank);
}

Request bcast_init(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
                   const Options& options) {
  const detail::Ranks me = detail::ranks_of(comm);
  const int rank = me.rank, ranks = me.size;
  BcastShape shape;
  detail::on_every_rank(comm, [&] {
    detail::check_thread_level(kBcastInitCall, options);
    shape = shape_of(count, type, root, ranks, options);
  });
  detail::agree_between_ranks(kBcastInitCall, comm,
                              {{"count x type size", shape.bytes},
                               {"root", shape.root},
                               {"algorithm", detail::name_fingerprint(shape.algorithm)},
                               {"arity", shape.arity},
                               {"parts", shape.parts},
                               {"segment size", shape.segment_bytes}});
  detail::Plan plan;
  detail::on_every_rank(comm, [&] {
    plan = plan_of(shape, ranks, rank);
    detail::check_tags(kBcastInitCall, plan, comm);
  });
  return detail::make_request(std::move(plan), {buf, nullptr}, comm, type, MPI_OP_NULL, options);
}

}  // namespace choreo::persist
