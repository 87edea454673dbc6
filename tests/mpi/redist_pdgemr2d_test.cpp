// choreo's redistribution against ScaLAPACK's pdgemr2d on 2-D cases (2 or 4 ranks): both run
// on the same arrays and grids, both results are checked element by element against the
// function of the global index the source held, and against each other.
//
// Prints "redist_pdgemr2d: N cases OK" on rank 0 and exits 0 only when every element agreed.
#include <fmt/format.h>
#include <mpi.h>

#include <string>
#include <vector>

#include "choreo/core/error.hpp"
#include "choreo/redist/local_array.hpp"
#include "choreo/redist/measure.hpp"
#include "choreo/redist/mpi.hpp"
#include "redist_cases.hpp"
#include "scalapack/pdgemr2d.hpp"

namespace {

using namespace choreo::redist;

constexpr testing::NamedCase kCases[] = {
    {2, "300x200", "cyclic,cyclic@1x2", "block,block@1x2"},
    {2, "300x200", "cyclic,cyclic@2x1", "cyclic(50),cyclic(50)@1x2"},
    {2, "301x203", "*,cyclic@2", "*,block@2"},
    {2, "301x203", "*,cyclic@2", "*,cyclic(50)@2"},
    {2, "77x91", "cyclic(4),cyclic(3)@2x1:src=1x0", "cyclic(7),block@1x1:first=1"},
    {4, "300x200", "cyclic,cyclic@2x2", "block,block@2x2"},
    {4, "300x200", "cyclic,cyclic@2x2:row", "cyclic(50),cyclic(50)@2x2"},
    {4, "301x203", "*,cyclic@4", "*,block@4"},
    {4, "301x203", "*,cyclic@4", "*,cyclic(50)@4"},
    {4, "64x97", "cyclic(5),cyclic(2)@2x2:src=1x1", "block,cyclic(9)@1x2:ranks=3,1"},
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0, failures = 0, cases = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  auto fail = [&](const std::string& what) {
    ++failures;
    fmt::print(stderr, "redist_pdgemr2d: rank {}: FAILED: {}\n", rank, what);
  };
  try {
    for (const testing::NamedCase& c : kCases) {
      if (c.ranks != size) continue;
      const auto [name, from, to] = testing::parse_case(c, size);
      LocalArrays arrays = make_arrays(from, to, rank);
      std::vector<double> scalapack(arrays.target.size(), -1.0);
      RedistPlan plan(MPI_COMM_WORLD, from, to, MPI_DOUBLE);
      plan.execute(arrays.source.data(), arrays.target.data());
      choreo::bench::Pdgemr2d baseline(from, to);
      baseline.execute(arrays.source.data(), scalapack.data());
      std::int64_t checked = 0;
      for (const auto& [who, data] :
           {std::pair{"choreo", &arrays.target}, std::pair{"pdgemr2d", &scalapack}}) {
        const std::string problem = check_local(to, rank, data->data(), checked);
        if (!problem.empty()) fail(fmt::format("{} ({}): {}", name, who, problem));
      }
      std::int64_t differ = 0;
      for_each_local_element(to, rank, [&](std::int64_t offset, std::int64_t) {
        differ += arrays.target[static_cast<std::size_t>(offset)] !=
                  scalapack[static_cast<std::size_t>(offset)];
      });
      if (differ > 0)
        fail(fmt::format("{}: {} elements differ between choreo and pdgemr2d", name, differ));
      if (checked != 2 * local_storage(to, rank))
        fail(fmt::format("{}: not every element checked", name));
      ++cases;
    }
  } catch (const choreo::Error& e) {
    fail(fmt::format("unexpected error: {}", e.what()));
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && total == 0 && cases > 0) fmt::print("redist_pdgemr2d: {} cases OK\n", cases);
  MPI_Finalize();
  return total == 0 && cases > 0 ? 0 : 1;
}
