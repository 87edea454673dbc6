// The C API of choreo::persist (include/choreo/persist/): persistent collectives.
#include <fmt/format.h>

#include <string>
#include <utility>

#include "boundary.hpp"
#include "choreo/persist/collectives.hpp"

struct choreo_request {
  choreo::persist::Request request;
  std::string algorithm;  ///< kept here: the C caller gets a NUL-terminated string
};

namespace {

using choreo::capi::guarded;
using choreo::capi::on_handle;
using choreo::capi::require;
namespace persist = choreo::persist;

persist::Engine engine_of(int engine) {
  switch (engine) {
    case CHOREO_ENGINE_COMMANDS:
      return persist::Engine::Commands;
    case CHOREO_ENGINE_THREAD:
      return persist::Engine::Thread;
    case CHOREO_ENGINE_INLINE:
      return persist::Engine::Inline;
    default:
      throw choreo::Error(
          fmt::format("options->engine = {} is not an engine; use CHOREO_ENGINE_COMMANDS, "
                      "CHOREO_ENGINE_THREAD or CHOREO_ENGINE_INLINE",
                      engine));
  }
}

persist::Options persist_options_of(const choreo_persist_options_t& options) {
  persist::Options out;
  out.engine = engine_of(options.engine);
  out.algorithm = options.algorithm != nullptr ? options.algorithm : "";
  out.segment_bytes = options.segment_bytes;
  out.arity = options.arity;
  out.parts = options.parts;
  out.alpha = options.alpha;
  out.beta = options.beta;
  out.allow_serialized = options.allow_serialized != 0;
  return out;
}

/// What every *_init shares: the local checks agreed on by all ranks, then `init(options)`
/// (the C++ call, which checks the rest collectively) wrapped in a new handle.
template <typename Init>
int make_request(const char* function, MPI_Comm comm, const choreo_persist_options_t* options,
                 choreo_request_t** request, Init&& init) noexcept {
  return guarded(function, CHOREO_ERR_ARG, [&] {
    if (request != nullptr) *request = nullptr;
    choreo::capi::require_communicator(comm);
    persist::Options cpp_options;
    choreo::capi::on_every_rank(comm, [&] {
      require(request, "request (where the handle goes)");
      if (options != nullptr) cpp_options = persist_options_of(*options);
    });
    persist::Request made = init(cpp_options);
    std::string algorithm(made.algorithm());
    *request = new choreo_request{std::move(made), std::move(algorithm)};
  });
}

}  // namespace

extern "C" {

void choreo_persist_options_init(choreo_persist_options_t* options) noexcept {
  if (options == nullptr) return;
  const persist::Options defaults;
  options->engine = CHOREO_ENGINE_COMMANDS;
  options->algorithm = nullptr;
  options->segment_bytes = defaults.segment_bytes;
  options->arity = defaults.arity;
  options->parts = defaults.parts;
  options->alpha = defaults.alpha;
  options->beta = defaults.beta;
  options->allow_serialized = defaults.allow_serialized ? 1 : 0;
}

int choreo_bcast_init(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
                      const choreo_persist_options_t* options,
                      choreo_request_t** request) noexcept {
  return make_request("choreo_bcast_init", comm, options, request, [&](const persist::Options& o) {
    return persist::bcast_init(buf, count, type, root, comm, o);
  });
}

int choreo_allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                          MPI_Op op, MPI_Comm comm, const choreo_persist_options_t* options,
                          choreo_request_t** request) noexcept {
  return make_request("choreo_allreduce_init", comm, options, request,
                      [&](const persist::Options& o) {
                        return persist::allreduce_init(sendbuf, recvbuf, count, type, op, comm, o);
                      });
}

int choreo_allgather_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                          MPI_Comm comm, const choreo_persist_options_t* options,
                          choreo_request_t** request) noexcept {
  return make_request("choreo_allgather_init", comm, options, request,
                      [&](const persist::Options& o) {
                        return persist::allgather_init(sendbuf, recvbuf, count, type, comm, o);
                      });
}

int choreo_alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                          MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                          const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                          const choreo_persist_options_t* options,
                          choreo_request_t** request) noexcept {
  return make_request(
      "choreo_alltoallv_init", comm, options, request, [&](const persist::Options& o) {
        return persist::alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                       rdispls, recvtype, comm, o);
      });
}

int choreo_request_start(choreo_request_t* request) noexcept {
  return on_handle("choreo_request_start", CHOREO_ERR_STATE, request, "request",
                   [](choreo_request& r) { r.request.start(); });
}

int choreo_request_wait(choreo_request_t* request) noexcept {
  return on_handle("choreo_request_wait", CHOREO_ERR_STATE, request, "request",
                   [](choreo_request& r) { r.request.wait(); });
}

int choreo_request_test(choreo_request_t* request, int* done) noexcept {
  return on_handle("choreo_request_test", CHOREO_ERR_STATE, request, "request",
                   [&](choreo_request& r) {
                     require(done, "done");
                     *done = r.request.test() ? 1 : 0;
                   });
}

int choreo_request_algorithm(const choreo_request_t* request, const char** name) noexcept {
  return on_handle("choreo_request_algorithm", CHOREO_ERR_ARG, request, "request",
                   [&](const choreo_request& r) {
                     require(name, "name");
                     *name = r.algorithm.c_str();
                   });
}

int choreo_request_free(choreo_request_t** request) noexcept {
  return choreo::capi::free_handle("choreo_request_free", request,
                                   [](choreo_request& handle) { handle.request.free(); });
}

}  // extern "C"
