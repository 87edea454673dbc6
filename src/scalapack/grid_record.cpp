#include "grid_record.hpp"

#include <fmt/format.h>

#include <memory>
#include <numeric>

#include "choreo/core/error.hpp"

namespace choreo::scalapack {
namespace {

int delete_record(MPI_Comm, int, void* value, void*) {
  delete static_cast<GridRecord*>(value);
  return MPI_SUCCESS;
}

int record_keyval() {
  static const int keyval = [] {
    int k = MPI_KEYVAL_INVALID;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_record, &k, nullptr);
    return k;
  }();
  return keyval;
}

/// A 63-bit hash (the sign bit clear, so that a negated hash never overflows).
std::int64_t hash(const std::vector<int>& values, std::uint64_t seed, std::uint64_t multiplier) {
  std::uint64_t h = seed;
  for (int v : values) {
    h ^= static_cast<std::uint32_t>(v);
    h *= multiplier;
    h ^= h >> 29;
  }
  return static_cast<std::int64_t>(h >> 1);
}

}  // namespace

const GridRecord& grid_record(int context, const GridInfo& info) {
  const MPI_Comm comm = communicator_of(context);
  void* value = nullptr;
  int found = 0;
  MPI_Comm_get_attr(comm, record_keyval(), &value, &found);
  if (found != 0) return *static_cast<GridRecord*>(value);
  auto record = std::make_unique<GridRecord>();
  record->nprow = info.nprow;
  record->npcol = info.npcol;
  MPI_Group grid = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
  MPI_Comm_group(comm, &grid);
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int size = 0;
  MPI_Group_size(grid, &size);
  if (size != info.size())
    throw Error(
        fmt::format("BLACS context {} is a {}x{} grid but its communicator has {} "
                    "processes; is this ScaLAPACK's own BLACS?",
                    context, info.nprow, info.npcol, size));
  std::vector<int> positions(static_cast<std::size_t>(size));
  std::iota(positions.begin(), positions.end(), 0);
  record->world_ranks.resize(positions.size());
  MPI_Group_translate_ranks(grid, size, positions.data(), world, record->world_ranks.data());
  MPI_Group_free(&grid);
  MPI_Group_free(&world);
  std::vector<int> words{info.nprow, info.npcol};
  words.insert(words.end(), record->world_ranks.begin(), record->world_ranks.end());
  record->identity = {hash(words, 0xcbf29ce484222325ULL, 0x100000001b3ULL),
                      hash(words, 0x9e3779b97f4a7c15ULL, 0xbf58476d1ce4e5b9ULL)};
  MPI_Comm_set_attr(comm, record_keyval(), record.get());
  return *record.release();
}

}  // namespace choreo::scalapack
