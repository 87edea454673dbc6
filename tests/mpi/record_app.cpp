// A small MPI program for the recorder's tests (tests/mpi/CMakeLists.txt, record.*): 4 ranks,
// every kind of call CHOREO_RECORD records, in a fixed pattern whose imported schedule is
// written out by hand in tests/data/record/. `p2p` (the default) runs the point-to-point
// part and one MPI_Reduce, `all` adds the collectives, `pingpong` is three round trips alone. It
// checks what arrived, so a recorder that disturbs the program fails too.
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <vector>

namespace {

int failures = 0;

void expect(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "record_app: FAILED: %s\n", what);
  ++failures;
}

/// Rank 0 sends 1000 B (tag 7) to rank 1, which receives from any source with any tag and
/// answers with 500 B (tag 8).
void ping_pong(int rank) {
  std::vector<char> buffer(4096, 0);
  if (rank == 0) {
    MPI_Send(buffer.data(), 1000, MPI_CHAR, 1, 7, MPI_COMM_WORLD);
    MPI_Recv(buffer.data(), 500, MPI_CHAR, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (rank == 1) {
    MPI_Status status;
    MPI_Recv(buffer.data(), 4096, MPI_CHAR, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
    int count = 0;
    MPI_Get_count(&status, MPI_CHAR, &count);
    expect(status.MPI_SOURCE == 0 && status.MPI_TAG == 7 && count == 1000, "ping");
    MPI_Send(buffer.data(), 500, MPI_CHAR, 0, 8, MPI_COMM_WORLD);
  }
}

/// A ring: each rank receives 64 B from its left and sends 64 B to its right (tag 1).
void ring(int rank, int size) {
  std::vector<char> in(64), out(64, static_cast<char>(rank));
  MPI_Request requests[2];
  MPI_Irecv(in.data(), 64, MPI_CHAR, (rank + size - 1) % size, 1, MPI_COMM_WORLD, &requests[0]);
  MPI_Isend(out.data(), 64, MPI_CHAR, (rank + 1) % size, 1, MPI_COMM_WORLD, &requests[1]);
  MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
  expect(in[0] == static_cast<char>((rank + size - 1) % size), "ring");
}

/// On the communicator of the ranks of one parity, rank 0 sends 32 B twice through a
/// persistent request (tag 3) and rank 1 receives them through one from any source; then the
/// two swap 16 B in a sendrecv (tag 4).
void pair_exchanges(MPI_Comm pair) {
  int rank = 0;
  MPI_Comm_rank(pair, &rank);
  std::vector<char> buffer(32, 0);
  MPI_Request request;
  if (rank == 0)
    MPI_Send_init(buffer.data(), 32, MPI_CHAR, 1, 3, pair, &request);
  else
    MPI_Recv_init(buffer.data(), 32, MPI_CHAR, MPI_ANY_SOURCE, 3, pair, &request);
  for (int round = 0; round < 2; ++round) {
    MPI_Start(&request);
    MPI_Status status;
    MPI_Wait(&request, &status);
    if (rank == 1) expect(status.MPI_SOURCE == 0, "persistent source");
  }
  MPI_Request_free(&request);
  std::vector<char> mine(16, static_cast<char>(rank)), theirs(16);
  MPI_Sendrecv(mine.data(), 16, MPI_CHAR, 1 - rank, 4, theirs.data(), 16, MPI_CHAR, 1 - rank, 4,
               pair, MPI_STATUS_IGNORE);
  expect(theirs[0] == static_cast<char>(1 - rank), "sendrecv");
}

/// Ranks 0 and 1 only: three round trips of 1000 B, the receives from any source.
void ping_pongs(int rank) {
  std::vector<char> buffer(1000, 0);
  for (int round = 0; round < 3; ++round) {
    if (rank == 0) {
      MPI_Send(buffer.data(), 1000, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buffer.data(), 1000, MPI_CHAR, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(buffer.data(), 1000, MPI_CHAR, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buffer.data(), 1000, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
    }
  }
}

/// Rank 2 sends 10 B (tag 5), 20 B (tag 6), 30 B (tag 5) to rank 3, which receives tag 6,
/// then tag 5, then any tag: MPI's rules give it 20, 10, 30 bytes.
void tags(int rank) {
  std::vector<char> buffer(64, 0);
  if (rank == 2) {
    MPI_Request requests[3];
    MPI_Isend(buffer.data(), 10, MPI_CHAR, 3, 5, MPI_COMM_WORLD, &requests[0]);
    MPI_Isend(buffer.data(), 20, MPI_CHAR, 3, 6, MPI_COMM_WORLD, &requests[1]);
    MPI_Isend(buffer.data(), 30, MPI_CHAR, 3, 5, MPI_COMM_WORLD, &requests[2]);
    MPI_Waitall(3, requests, MPI_STATUSES_IGNORE);
  } else if (rank == 3) {
    const int expected[3] = {20, 10, 30};
    const int asked[3] = {6, 5, MPI_ANY_TAG};
    for (int k = 0; k < 3; ++k) {
      MPI_Status status;
      MPI_Recv(buffer.data(), 64, MPI_CHAR, 2, asked[k], MPI_COMM_WORLD, &status);
      int count = 0;
      MPI_Get_count(&status, MPI_CHAR, &count);
      expect(count == expected[k], "non-overtaking");
    }
  }
}

void collectives(int rank, MPI_Comm pair) {
  MPI_Barrier(MPI_COMM_WORLD);
  double value = rank, sum = 0;
  MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  expect(sum == 6.0, "allreduce");
  std::vector<char> message(100, rank == 1 ? 'x' : 'o');
  MPI_Bcast(message.data(), 100, MPI_CHAR, 1, MPI_COMM_WORLD);
  expect(message[99] == 'x', "bcast");
  std::vector<int> mine(4, rank), all(8, -1);
  MPI_Allgather(mine.data(), 4, MPI_INT, all.data(), 4, MPI_INT, pair);
  expect(all[0] == rank % 2 && all[4] == rank % 2 + 2, "allgather");
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* mode = argc > 1 ? argv[1] : "p2p";
  if (size != 4) {
    if (rank == 0) std::fprintf(stderr, "record_app: run it on 4 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (std::strcmp(mode, "pingpong") == 0) {
    // Nothing else, so that the replay's time is the round trips' alone.
    ping_pongs(rank);
    if (failures == 0 && rank == 0) std::printf("record_app: OK\n");
    MPI_Finalize();
    return failures == 0 ? 0 : 1;
  }
  MPI_Comm pair;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &pair);
  ping_pong(rank);
  ring(rank, size);
  pair_exchanges(pair);
  tags(rank);
  if (std::strcmp(mode, "all") == 0) collectives(rank, pair);
  MPI_Comm_free(&pair);
  int local = failures, total = 0;
  MPI_Reduce(&local, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) std::printf(total == 0 ? "record_app: OK\n" : "record_app: FAILED\n");
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
