// Phase 4 of the calibration (detail.hpp): the exchange and the memcpy of fresh data, on every
// rank at once, timed as a collective call meets them.
#include <fmt/core.h>
#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "../mpi/timed_runs.hpp"  // agree_on_failure
#include "detail.hpp"

namespace choreo::calibration::detail {
namespace {

/// The byte rank `rank` sends in sample `sample` (not 0, so a missing byte shows).
char exchange_byte(int rank, int sample) {
  return static_cast<char>(1 + (rank * 31 + sample) % 251);
}

}  // namespace

CollectiveSamples sample_collective(MPI_Comm comm, const std::vector<std::int64_t>& sizes,
                                    Rule rule, Budget& budget, const Reporter& progress,
                                    bool copies_timed, std::vector<char>& out,
                                    std::vector<char>& in) {
  int rank = 0, ranks = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const int right = (rank + 1) % ranks, left = (rank + ranks - 1) % ranks;
  constexpr int kTag = 7;
  CollectiveSamples collective{ranks, {}, {}};
  std::string problem;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::int64_t bytes = sizes[i];
    const auto n = static_cast<std::size_t>(bytes);
    const auto fresh = [&](int sample) {
      std::memset(out.data(), exchange_byte(rank, sample), n);
      std::memset(in.data(), 0, n);
    };
    const auto received = [&](char expected) {
      const auto wrong = std::find_if(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(n),
                                      [&](char c) { return c != expected; });
      return wrong - in.begin();
    };
    if (rank == 0) {
      progress.step("collective", i, sizes.size(), bytes);
      rule.size_budget = budget.next();
    }
    auto exchange = sample_all_ranks(
        comm, bytes, rule, fresh,
        [&] {
          MPI_Request requests[2];
          MPI_Isend(out.data(), static_cast<int>(bytes), MPI_BYTE, right, kTag, comm, &requests[0]);
          MPI_Irecv(in.data(), static_cast<int>(bytes), MPI_BYTE, left, kTag, comm, &requests[1]);
          MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
        },
        [&](int sample) {
          const auto at = received(exchange_byte(left, sample));
          return at == bytes ? std::string()
                             : fmt::format(
                                   "exchange of {} B: rank {} received a wrong byte at offset {} "
                                   "from rank {}; the MPI library lost or corrupted data",
                                   bytes, rank, at, left);
        },
        problem);
    SizeSamples copy{bytes, 1, std::vector<double>(static_cast<std::size_t>(rule.min_reps), 0.0)};
    if (copies_timed)
      copy = sample_all_ranks(
          comm, bytes, rule, fresh, [&] { std::memcpy(in.data(), out.data(), n); },
          [&](int sample) {
            const auto at = received(exchange_byte(rank, sample));
            return at == bytes ? std::string()
                               : fmt::format("memcpy of {} B on rank {}: wrong byte at offset {}",
                                             bytes, rank, at);
          },
          problem);
    if (rank == 0) {
      collective.exchange.push_back(std::move(exchange));
      collective.memcpy.push_back(std::move(copy));
    }
  }
  mpi::detail::agree_on_failure(problem, comm);
  progress.done("collective", collective.exchange);
  return collective;
}

}  // namespace choreo::calibration::detail
