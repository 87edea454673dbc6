#pragma once
// What libchoreo_scalapack.so keeps for each context passed as ICTXT (the one spanning both
// grids): a private duplicate of its communicator for choreo's messages, and two caches.
//  - Grids: by the descriptors' global fields and both grids' identities, where every grid
//    position's rank is (O(P) each, 8 at most).
//  - Plans: by the same and this process's two leading dimensions, the message engine of its
//    plan (16 at most): a repeated call finds its engine and only moves data.
// Kept as an attribute of the context's communicator, so it goes with Cblacs_gridexit.
#include <mpi.h>

#include <array>
#include <cstdint>
#include <list>
#include <memory>
#include <vector>

#include "../redist/measured_engine.hpp"
#include "call.hpp"

namespace choreo::scalapack {

/// Both sides' fields and the call's own (m, n, element type, trapezoid): what every process
/// of the context agrees on.
inline constexpr std::size_t kCallFields = 5;
using GlobalKey = std::array<std::int64_t, 2 * kSideFields + kCallFields>;

struct GridsEntry {
  GlobalKey key{};
  std::vector<int> a_ranks, b_ranks;  ///< grid position (row + col * nprow) -> context rank
};

struct PlanEntry {
  GlobalKey key{};
  std::int64_t lld_a = 0, lld_b = 0;
  std::unique_ptr<redist::MeasuredEngine> engine;
};

struct ContextState {
  MPI_Comm context = MPI_COMM_NULL;  ///< BLACS's communicator of the context (not ours)
  MPI_Comm comm = MPI_COMM_NULL;     ///< private duplicate of it
  int rank = 0, size = 0;
  bool settings_agree = true;   ///< every process read the same CHOREO_* settings
  std::list<GridsEntry> grids;  ///< most recently used first
  std::list<PlanEntry> plans;

  ~ContextState();
};

/// The state of context `ictxt` (this process is in it). Made at the context's first call,
/// collectively over its processes (MPI_Comm_dup, and an allreduce that checks the settings).
ContextState& context_state(int ictxt, std::uint64_t settings_digest);

/// Frees every context state still alive (datatypes, communicators, windows), oldest first: at
/// MPI_Finalize, where BLACS grids the program never exited still hold them.
void free_context_states();

/// The entry of `key`, moved to the front; nullptr when absent.
GridsEntry* find(std::list<GridsEntry>& list, const GlobalKey& key);
/// The entry of `key`, whatever leading dimensions it was built for: keyed on what every
/// process passes alike, so that all processes hit or miss together (redist::MeasuredEngine's
/// agreement is a collective at a given execute of the entry).
PlanEntry* find(std::list<PlanEntry>& list, const GlobalKey& key);
/// Adds an entry at the front, dropping the least recently used beyond `capacity`.
template <typename Entry>
Entry& remember(std::list<Entry>& list, Entry entry, std::size_t capacity) {
  list.push_front(std::move(entry));
  while (list.size() > capacity) list.pop_back();
  return list.front();
}

}  // namespace choreo::scalapack
