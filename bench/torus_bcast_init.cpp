// choreo::persist::bcast_init told the torus (Options::torus) against MPI_Bcast, under SimGrid
// SMPI on that torus: built in the SMPI sub-build with libchoreo_pmpi's archive, which holds
// choreo::persist (bench/CMakeLists.txt), run by bench/persist_bcast_init_smpi.sh. Subjects are
// Options::algorithm values ("default": none, so the default decides: the torus trees from
// kTorusTreesFromBytes, measured against the library's own). Each repetition: a barrier,
// start..wait (or the blocking call), the slowest rank's simulated time (MPI_Wtime). Prints per
// size a CSV line per subject: bytes, subject, median seconds, ratio to MPI_Bcast, and what ran;
// every broadcast's bytes are checked at every rank.
//   smpirun ... torus_bcast_init AxBxC MIN_BYTES MAX_BYTES REPS SUBJECT...
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../src/core/stats.hpp"
#include "choreo/core/error.hpp"
#include "choreo/persist/collectives.hpp"
#include "choreo/topo/platform.hpp"

namespace {

int g_rank = 0;

double slowest_since(double start) {
  double mine = MPI_Wtime() - start, slowest = 0;
  MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

unsigned char byte_of(int i, int round) {
  return static_cast<unsigned char>((i * 7 + round) % 251);
}

void fill(std::vector<unsigned char>& buf, int bytes, int round) {
  for (int i = 0; i < bytes; ++i)
    buf[static_cast<std::size_t>(i)] = g_rank == 0 ? byte_of(i, round) : 0;
}

/// Wrong bytes over all ranks (0 expected).
int wrong_bytes(const std::vector<unsigned char>& buf, int bytes, int round) {
  int wrong = 0, total = 0;
  for (int i = 0; i < bytes; ++i) wrong += buf[static_cast<std::size_t>(i)] != byte_of(i, round);
  MPI_Allreduce(&wrong, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  int failures = 0;
  try {
    if (argc < 6)
      throw choreo::Error("usage: torus_bcast_init AxBxC MIN_BYTES MAX_BYTES REPS SUBJECT...");
    const std::vector<int> dims = choreo::parse_torus_dims(argv[1]);
    if (dims.size() != 3) throw choreo::Error("torus_bcast_init: give three dimensions, AxBxC");
    const int min_bytes = std::atoi(argv[2]), max_bytes = std::atoi(argv[3]);
    const int reps = std::atoi(argv[4]);
    if (min_bytes < 1 || max_bytes < min_bytes || reps < 1)
      throw choreo::Error("torus_bcast_init: MIN_BYTES >= 1, MAX_BYTES >= MIN_BYTES, REPS >= 1");
    std::vector<unsigned char> buf(static_cast<std::size_t>(max_bytes));
    std::vector<double> times(static_cast<std::size_t>(reps));
    if (g_rank == 0) std::printf("bytes,subject,median_seconds,over_mpi_bcast,runs\n");
    for (int bytes = min_bytes; bytes <= max_bytes; bytes *= 4) {
      for (int rep = -1; rep < reps; ++rep) {
        fill(buf, bytes, rep + 2);
        MPI_Barrier(MPI_COMM_WORLD);
        const double start = MPI_Wtime();
        MPI_Bcast(buf.data(), bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
        const double seconds = slowest_since(start);
        if (rep >= 0) times[static_cast<std::size_t>(rep)] = seconds;
        failures += wrong_bytes(buf, bytes, rep + 2);
      }
      const double reference = choreo::stats::median(times);
      if (g_rank == 0) std::printf("%d,MPI_Bcast,%.9f,1.000,MPI_Bcast\n", bytes, reference);
      for (int s = 5; s < argc; ++s) {
        choreo::persist::Options options;
        options.torus = {dims[0], dims[1], dims[2]};
        if (std::string(argv[s]) != "default") options.algorithm = argv[s];
        choreo::persist::Request request =
            choreo::persist::bcast_init(buf.data(), bytes, MPI_BYTE, 0, MPI_COMM_WORLD, options);
        // 11 untimed starts: past the default's measurement against the library's own.
        for (int rep = -11; rep < reps; ++rep) {
          fill(buf, bytes, rep + 20);
          MPI_Barrier(MPI_COMM_WORLD);
          const double start = MPI_Wtime();
          request.start();
          request.wait();
          const double seconds = slowest_since(start);
          if (rep >= 0) times[static_cast<std::size_t>(rep)] = seconds;
          failures += wrong_bytes(buf, bytes, rep + 20);
        }
        const double t = choreo::stats::median(times);
        if (g_rank == 0)
          std::printf("%d,%s,%.9f,%.3f,\"%s\"\n", bytes, argv[s], t, t / reference,
                      request.describe().c_str());
        std::fflush(stdout);
      }
    }
  } catch (const choreo::Error& e) {
    if (g_rank == 0) std::fprintf(stderr, "%s\n", e.what());
    MPI_Finalize();
    return 2;
  }
  if (g_rank == 0 && failures) std::printf("# FAILED: %d wrong bytes\n", failures);
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
