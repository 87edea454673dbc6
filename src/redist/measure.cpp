#include "choreo/redist/measure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "../mpi/timed_runs.hpp"
#include "choreo/core/limits.hpp"
#include "choreo/redist/local_array.hpp"

namespace choreo::redist {

LocalArrays make_arrays(const ArrayDistribution& from, const ArrayDistribution& to, int rank) {
  const std::int64_t elements = std::max<std::int64_t>(1, local_storage(from, rank)) +
                                std::max<std::int64_t>(1, local_storage(to, rank));
  limits::check_allocation(
      elements * static_cast<std::int64_t>(sizeof(double)),
      fmt::format("rank {}: its parts of the source and target arrays take", rank));
  LocalArrays arrays;
  arrays.source.assign(
      static_cast<std::size_t>(std::max<std::int64_t>(1, local_storage(from, rank))), 0.0);
  arrays.target.assign(static_cast<std::size_t>(std::max<std::int64_t>(1, local_storage(to, rank))),
                       0.0);
  fill_local(from, rank, arrays.source.data());
  return arrays;
}

RunResult time_verified(MPI_Comm comm, const ArrayDistribution& to, LocalArrays& arrays,
                        const mpi::RunOptions& options, const std::function<void()>& execute) {
  mpi::detail::check_options(options);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  mpi::detail::TimedBody body;
  body.prepare = [&] { std::fill(arrays.target.begin(), arrays.target.end(), -1.0); };
  body.execute = [&](mpi::detail::FaultWatch&) { execute(); };
  body.verify = [&](int, std::int64_t& checked) {
    std::int64_t elements = 0;
    std::string problem = check_local(to, rank, arrays.target.data(), elements);
    checked += elements * static_cast<std::int64_t>(sizeof(double));
    return problem;
  };
  return mpi::detail::time_iterations(comm, options, body);
}

void warm_up_transport(MPI_Comm comm, std::int64_t bytes) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int count = static_cast<int>(std::max<std::int64_t>(1, bytes / 16));
  std::vector<double> out(2 * static_cast<std::size_t>(count), 1.0), in(out.size(), 0.0);
  MPI_Datatype strided = MPI_DATATYPE_NULL;
  MPI_Type_vector(count, 1, 2, MPI_DOUBLE, &strided);
  MPI_Type_commit(&strided);
  for (int shift = 0; shift < size; ++shift) {
    const int to = (rank + shift) % size, from = (rank - shift + size) % size;
    MPI_Sendrecv(out.data(), count, MPI_DOUBLE, to, 0, in.data(), count, MPI_DOUBLE, from, 0, comm,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(out.data(), 1, strided, to, 1, in.data(), 1, strided, from, 1, comm,
                 MPI_STATUS_IGNORE);
  }
  MPI_Type_free(&strided);
}

std::int64_t max_over(MPI_Comm comm, std::int64_t value) {
  std::int64_t out = 0;
  MPI_Allreduce(&value, &out, 1, MPI_INT64_T, MPI_MAX, comm);
  return out;
}

double max_over(MPI_Comm comm, double value) {
  double out = 0;
  MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_MAX, comm);
  return out;
}

}  // namespace choreo::redist
