// bcast_init: binomial, k-ary pipeline and multitree broadcasts as persistent requests (the
// plans: bcast_plan.cpp).
#include <fmt/format.h>

#include "choreo/error.hpp"
#include "choreo/persist/collectives.hpp"
#include "init_common.hpp"
#include "plans.hpp"

namespace choreo::persist {

namespace {

constexpr const char* kBcastInitCall = "bcast_init";

detail::BcastShape shape_of(int count, MPI_Datatype type, int root, int ranks,
                            const Options& options) {
  const std::string algorithm = detail::chosen_algorithm(
      kBcastInitCall, options, "multitree", {"binomial", "kary_pipeline", "multitree"});
  const std::int64_t bytes =
      detail::checked_bytes(kBcastInitCall, count, detail::contiguous_size(kBcastInitCall, type));
  if (root < 0 || root >= ranks)
    throw Error(fmt::format("{}: root {} is not a rank of the communicator (0..{})", kBcastInitCall,
                            root, ranks - 1));
  return detail::bcast_shape(algorithm, bytes, root, ranks, options);
}

}  // namespace

Request bcast_init(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
                   const Options& options) {
  const detail::Ranks me = detail::ranks_of(comm);
  const int rank = me.rank, ranks = me.size;
  detail::BcastShape shape;
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
    plan = detail::bcast_plan(shape, ranks, rank);
    detail::check_tags(kBcastInitCall, plan, comm);
  });
  return detail::make_request(std::move(plan), {buf, nullptr}, comm, type, MPI_OP_NULL, options);
}

}  // namespace choreo::persist
