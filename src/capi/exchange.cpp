// The C API of choreo::NeighborExchange (include/choreo/mpi/neighbor_exchange.hpp).
#include <type_traits>

#include "boundary.hpp"
#include "choreo/model/profile.hpp"
#include "choreo/mpi/neighbor_exchange.hpp"

// The C constants are the C++ enumerators' values, so options pass through unchanged and
// NeighborExchange itself rejects (on every rank alike) a value it does not know.
static_assert(CHOREO_EXCHANGE_AUTO == static_cast<int>(choreo::ExchangeAlgorithm::Auto));
static_assert(CHOREO_EXCHANGE_DIRECT == static_cast<int>(choreo::ExchangeAlgorithm::Direct));
static_assert(CHOREO_EXCHANGE_RING == static_cast<int>(choreo::ExchangeAlgorithm::Ring));
static_assert(CHOREO_EXCHANGE_DELAY == static_cast<int>(choreo::ExchangeAlgorithm::Delay));
static_assert(CHOREO_EXCHANGE_OPTIMAL == static_cast<int>(choreo::ExchangeAlgorithm::Optimal));
static_assert(CHOREO_EXCHANGE_OPTIMAL_PACED ==
              static_cast<int>(choreo::ExchangeAlgorithm::OptimalPaced));
static_assert(std::is_same_v<std::underlying_type_t<choreo::ExchangeAlgorithm>, int>);

struct choreo_exchange {
  choreo::NeighborExchange exchange;
};

namespace {

using choreo::capi::guarded;
using choreo::capi::on_handle;
using choreo::capi::require;

choreo::NeighborExchangeOptions exchange_options_of(const choreo_exchange_options_t& options) {
  choreo::NeighborExchangeOptions out;
  out.algorithm = static_cast<choreo::ExchangeAlgorithm>(options.algorithm);
  if (options.profile != nullptr)
    out.model = choreo::ExchangeModel::from_profile(choreo::read_profile(options.profile));
  out.tag = options.tag;
  return out;
}

}  // namespace

extern "C" {

void choreo_exchange_options_init(choreo_exchange_options_t* options) noexcept {
  if (options == nullptr) return;
  const choreo::NeighborExchangeOptions defaults;
  options->algorithm = static_cast<int>(defaults.algorithm);
  options->profile = nullptr;
  options->tag = defaults.tag;
}

int choreo_exchange_create(MPI_Comm comm, const void* sendbuf, const int sendcounts[],
                           const int sdispls[], MPI_Datatype sendtype, void* recvbuf,
                           const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                           const choreo_exchange_options_t* options,
                           choreo_exchange_t** exchange) noexcept {
  return guarded("choreo_exchange_create", CHOREO_ERR_ARG, [&] {
    if (exchange != nullptr) *exchange = nullptr;
    choreo::capi::require_communicator(comm);
    choreo::NeighborExchangeOptions cpp_options;
    choreo::capi::on_every_rank(comm, [&] {
      require(exchange, "exchange (where the handle goes)");
      if (options != nullptr) cpp_options = exchange_options_of(*options);
    });
    // Counts, displacements and datatypes are checked by NeighborExchange, on every rank alike.
    *exchange = new choreo_exchange{choreo::NeighborExchange(comm, sendbuf, sendcounts, sdispls,
                                                             sendtype, recvbuf, recvcounts, rdispls,
                                                             recvtype, cpp_options)};
  });
}

int choreo_exchange_start(choreo_exchange_t* exchange) noexcept {
  return on_handle("choreo_exchange_start", CHOREO_ERR_STATE, exchange, "exchange",
                   [](choreo_exchange& x) { x.exchange.start(); });
}

int choreo_exchange_wait(choreo_exchange_t* exchange) noexcept {
  return on_handle("choreo_exchange_wait", CHOREO_ERR_STATE, exchange, "exchange",
                   [](choreo_exchange& x) { x.exchange.wait(); });
}

int choreo_exchange_test(choreo_exchange_t* exchange, int* done) noexcept {
  return on_handle("choreo_exchange_test", CHOREO_ERR_STATE, exchange, "exchange",
                   [&](choreo_exchange& x) {
                     require(done, "done");
                     *done = x.exchange.test() ? 1 : 0;
                   });
}

int choreo_exchange_algorithm(const choreo_exchange_t* exchange, const char** name) noexcept {
  return on_handle("choreo_exchange_algorithm", CHOREO_ERR_ARG, exchange, "exchange",
                   [&](const choreo_exchange& x) {
                     require(name, "name");
                     // A view of a string literal: terminated, and lives for the program.
                     *name = x.exchange.algorithm().data();
                   });
}

int choreo_exchange_report(const choreo_exchange_t* exchange,
                           choreo_plan_report_t* report) noexcept {
  return on_handle("choreo_exchange_report", CHOREO_ERR_ARG, exchange, "exchange",
                   [&](const choreo_exchange& x) {
                     require(report, "report");
                     const choreo::ExchangeReport& plan = x.exchange.report();
                     report->slots = plan.slots;
                     report->delays = plan.delays;
                     report->degree_bound = plan.degree_bound;
                     report->predicted_ns = plan.predicted_ns;
                     report->direct_ns = plan.direct_ns;
                     report->slot_ns = plan.delta_ns;
                   });
}

int choreo_exchange_free(choreo_exchange_t** exchange) noexcept {
  return choreo::capi::free_handle("choreo_exchange_free", exchange, [](choreo_exchange&) {});
}

}  // extern "C"
