// rules_probe: calls one MPI collective at the given sizes and checks every received byte, so
// rules_proof.sh can watch (gdb breakpoints in the MPI library) which algorithm each call ran.
//
//   rules_probe --library ompi|mpich --collective allgather|allreduce|alltoall|bcast
//               --bytes N[,N...] [--comm-size P]
//
// With --comm-size P the collective runs on a communicator of the first P ranks (split from
// MPI_COMM_WORLD, created before the first call); the other ranks only take part in the
// barriers. Without it, on MPI_COMM_WORLD.
//
// N is choreo's `bytes` (docs/selection.md): allgather bytes per rank, allreduce vector bytes,
// alltoall bytes per destination, bcast message bytes. Data are MPI_BYTE (allreduce: MPI_BXOR,
// so any byte count works and a block reduced twice would show). Rank 0 prints
//   rules_probe: call COLL N B
//   rules_probe: done COLL N B, every byte checked
// around each call, the first after a barrier, the second as soon as rank 0's call returns
// (before the next barrier), so the breakpoint output of rank 0 that lies between the two lines
// belongs to that call and to nothing else: MPICH's stock barrier (MPIR_Barrier_intra_smp, on
// ranks that share a node) ends with a 1-byte MPIR_Bcast. The probe refuses to run on a library
// other than --library, so a test never proves one library's behaviour with the other's.
#include <mpi.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace {

int rank = 0, ranks = 1;
MPI_Comm comm = MPI_COMM_WORLD;  // where the collective runs; ranks: its size

/// The byte rank r contributes at position i (for destination d, for alltoall).
unsigned char pattern(int r, std::int64_t i, int d = 0) {
  return static_cast<unsigned char>((r * 131 + d * 31 + i * 7 + (i >> 8)) & 0xff);
}

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "rules_probe: rank %d: %s\n", rank, message.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

int count_of(std::int64_t bytes) {
  if (bytes < 0 || bytes > 0x7fffffff) fail("bytes must be 0 to 2^31-1");
  return static_cast<int>(bytes);
}

/// Runs `collective` with `bytes` and checks the result; returns the number of bytes checked.
std::int64_t run(std::string_view collective, std::int64_t bytes) {
  const int count = count_of(bytes);
  const auto n = static_cast<std::size_t>(bytes);
  const auto p = static_cast<std::size_t>(ranks);
  std::int64_t checked = 0;
  auto expect = [&](unsigned char got, unsigned char want, const char* what, std::int64_t at) {
    if (got != want)
      fail(std::string(what) + ": wrong byte at " + std::to_string(at) + " after the call");
    ++checked;
  };
  if (collective == "allgather") {
    std::vector<unsigned char> send(n), receive(n * p);
    for (std::size_t i = 0; i < n; ++i) send[i] = pattern(rank, static_cast<std::int64_t>(i));
    MPI_Allgather(send.data(), count, MPI_BYTE, receive.data(), count, MPI_BYTE, comm);
    for (std::size_t r = 0; r < p; ++r)
      for (std::size_t i = 0; i < n; ++i)
        expect(receive[r * n + i], pattern(static_cast<int>(r), static_cast<std::int64_t>(i)),
               "allgather", static_cast<std::int64_t>(r * n + i));
  } else if (collective == "alltoall") {
    std::vector<unsigned char> send(n * p), receive(n * p);
    for (std::size_t d = 0; d < p; ++d)
      for (std::size_t i = 0; i < n; ++i)
        send[d * n + i] = pattern(rank, static_cast<std::int64_t>(i), static_cast<int>(d));
    MPI_Alltoall(send.data(), count, MPI_BYTE, receive.data(), count, MPI_BYTE, comm);
    for (std::size_t r = 0; r < p; ++r)
      for (std::size_t i = 0; i < n; ++i)
        expect(receive[r * n + i], pattern(static_cast<int>(r), static_cast<std::int64_t>(i), rank),
               "alltoall", static_cast<std::int64_t>(r * n + i));
  } else if (collective == "bcast") {
    std::vector<unsigned char> buffer(n);
    for (std::size_t i = 0; i < n; ++i)
      buffer[i] = rank == 0 ? pattern(0, static_cast<std::int64_t>(i)) : 0;
    MPI_Bcast(buffer.data(), count, MPI_BYTE, 0, comm);
    for (std::size_t i = 0; i < n; ++i)
      expect(buffer[i], pattern(0, static_cast<std::int64_t>(i)), "bcast",
             static_cast<std::int64_t>(i));
  } else if (collective == "allreduce") {
    std::vector<unsigned char> send(n), receive(n);
    for (std::size_t i = 0; i < n; ++i) send[i] = pattern(rank, static_cast<std::int64_t>(i));
    MPI_Allreduce(send.data(), receive.data(), count, MPI_BYTE, MPI_BXOR, comm);
    for (std::size_t i = 0; i < n; ++i) {
      unsigned char want = 0;
      for (int r = 0; r < ranks; ++r) want ^= pattern(r, static_cast<std::int64_t>(i));
      expect(receive[i], want, "allreduce", static_cast<std::int64_t>(i));
    }
  } else {
    fail("--collective must be allgather, allreduce, alltoall or bcast, not '" +
         std::string(collective) + "'");
  }
  return checked;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);

  std::string library, collective;
  std::vector<std::int64_t> sizes;
  int comm_size = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view key = argv[i], value = argv[i + 1];
    if (key == "--library") {
      library = value;
    } else if (key == "--collective") {
      collective = value;
    } else if (key == "--comm-size") {
      const auto [stop, status] =
          std::from_chars(value.data(), value.data() + value.size(), comm_size);
      if (status != std::errc() || stop != value.data() + value.size() || comm_size < 1)
        fail("--comm-size takes a positive number of ranks");
    } else if (key == "--bytes") {
      for (std::size_t start = 0; start <= value.size();) {
        const std::size_t end = std::min(value.find(',', start), value.size());
        std::int64_t bytes = -1;
        const auto [stop, status] =
            std::from_chars(value.data() + start, value.data() + end, bytes);
        if (status != std::errc() || stop != value.data() + end || bytes < 0)
          fail("--bytes takes non-negative integers separated by commas");
        sizes.push_back(bytes);
        start = end + 1;
      }
    } else {
      fail("unknown argument '" + std::string(key) + "'");
    }
  }
  if (argc % 2 == 0 || library.empty() || collective.empty() || sizes.empty())
    fail(
        "usage: rules_probe --library ompi|mpich --collective C --bytes N[,N...] "
        "[--comm-size P]");

  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(version, &length);
  const std::string_view running(version, static_cast<std::size_t>(length));
  const bool ompi = running.find("Open MPI") != std::string_view::npos;
  const bool mpich = running.find("MPICH") != std::string_view::npos;
  if ((library == "ompi" && !ompi) || (library == "mpich" && !mpich) ||
      (library != "ompi" && library != "mpich"))
    fail("--library " + library +
         " but this program runs on: " + std::string(running.substr(0, running.find('\n'))));
  if (comm_size > 0) {
    if (comm_size > ranks)
      fail("--comm-size " + std::to_string(comm_size) + " but only " + std::to_string(ranks) +
           " ranks");
    // The first comm_size ranks, in order: their rank in comm is their rank in MPI_COMM_WORLD.
    MPI_Comm_split(MPI_COMM_WORLD, rank < comm_size ? 0 : MPI_UNDEFINED, rank, &comm);
    ranks = comm_size;
  }
  if (rank == 0) {
    std::printf("rules_probe: %d ranks on %s\n", ranks,
                std::string(running.substr(0, running.find_first_of(",\n"))).c_str());
    std::fflush(stdout);
  }

  for (const std::int64_t bytes : sizes) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      std::printf("rules_probe: call %s %lld B\n", collective.c_str(),
                  static_cast<long long>(bytes));
      std::fflush(stdout);
    }
    const std::int64_t checked = comm == MPI_COMM_NULL ? 0 : run(collective, bytes);
    if (rank == 0) {
      std::printf("rules_probe: done %s %lld B, every byte checked (%lld on rank 0)\n",
                  collective.c_str(), static_cast<long long>(bytes),
                  static_cast<long long>(checked));
      std::fflush(stdout);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (comm != MPI_COMM_WORLD && comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  MPI_Finalize();
  return 0;
}
