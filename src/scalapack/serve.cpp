#include "serve.hpp"

#include <fmt/format.h>

#include <climits>

#include "choreo/core/error.hpp"
#include "context_state.hpp"
#include "grid_record.hpp"
#include "runtime.hpp"

namespace choreo::scalapack {
namespace {

constexpr std::size_t kGridsCached = 8, kPlansCached = 16;
constexpr int kTag = 0x5ca1;

constexpr const char* kFieldNames[kSideFields] = {"grid",  "grid",  "grid rows",  "grid columns",
                                                  "M_",    "N_",    "MB_",        "NB_",
                                                  "RSRC_", "CSRC_", "row offset", "column offset"};
constexpr const char* kCallFieldNames[kCallFields] = {"M", "N", "element type", "UPLO", "DIAG"};

/// The fields every process knows: m, n, the element type and the trapezoid.
std::array<std::int64_t, kCallFields> call_fields(const Call& call, const redist::Region& r) {
  return {call.m, call.n, static_cast<std::int64_t>(call.element),
          static_cast<std::int64_t>(r.part), r.diagonal ? 1 : 0};
}

GlobalKey local_key(const Side& a, const Side& b, const std::array<std::int64_t, kCallFields>& c) {
  GlobalKey key{};
  std::copy(a.fields.begin(), a.fields.end(), key.begin());
  std::copy(b.fields.begin(), b.fields.end(), key.begin() + kSideFields);
  std::copy(c.begin(), c.end(), key.begin() + 2 * kSideFields);
  return key;
}

/// Where some process is outside a grid, the processes tell each other what they know: one
/// allreduce of the fields and their negations (maxima of both give maximum and minimum), so
/// that a process outside A learns A's descriptor and every disagreement is found.
GlobalKey agree(const ContextState& state, const Call& call, const Side& a, const Side& b,
                const std::array<std::int64_t, kCallFields>& c) {
  constexpr std::size_t n = std::tuple_size_v<GlobalKey>;
  std::array<std::int64_t, 2 * n> mine{}, largest{};
  const GlobalKey known = local_key(a, b, c);
  for (std::size_t k = 0; k < n; ++k) {
    const bool unknown = (k < kSideFields && !a.grid.mine()) ||
                         (k >= kSideFields && k < 2 * kSideFields && !b.grid.mine());
    mine[k] = unknown ? LLONG_MIN : known[k];
    mine[n + k] = unknown ? LLONG_MIN : -known[k];
  }
  MPI_Allreduce(mine.data(), largest.data(), static_cast<int>(2 * n), MPI_INT64_T, MPI_MAX,
                state.comm);
  GlobalKey agreed{};
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t side = k / kSideFields;
    const char* matrix = side == 0 ? "A" : "B";
    if (largest[k] == LLONG_MIN)
      throw Error(fmt::format(
          "{}: no process of ICTXT says it is in {}'s grid; pass DESC{}(CTXT_) = {}'s context on "
          "its processes (and -1 on the others)",
          call.name(), matrix, matrix, matrix));
    if (largest[k] != -largest[n + k]) {
      if (side < 2)
        throw Error(fmt::format(
            "{}: the processes of {}'s grid pass different {} ({} to {}); every process of a grid "
            "must pass the same descriptor and submatrix",
            call.name(), matrix, kFieldNames[k % kSideFields], -largest[n + k], largest[k]));
      throw Error(fmt::format(
          "{}: the processes pass different {} ({} to {}); every process of "
          "ICTXT must pass the same",
          call.name(), kCallFieldNames[k - 2 * kSideFields], -largest[n + k], largest[k]));
    }
    agreed[k] = largest[k];
  }
  return agreed;
}

/// Grid positions (row + col * nprow) -> context ranks, from the grid's record (this process
/// is in the grid).
std::vector<int> ranks_from_record(const ContextState& state, const Call& call, const Side& side,
                                   int context, const char* matrix) {
  const GridRecord& record = grid_record(context, side.grid);
  MPI_Group world = MPI_GROUP_NULL, mine = MPI_GROUP_NULL;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Comm_group(state.comm, &mine);
  std::vector<int> row_major(record.world_ranks.size());
  MPI_Group_translate_ranks(world, static_cast<int>(row_major.size()), record.world_ranks.data(),
                            mine, row_major.data());
  MPI_Group_free(&world);
  MPI_Group_free(&mine);
  std::vector<int> ranks(row_major.size());
  for (int row = 0; row < record.nprow; ++row)
    for (int col = 0; col < record.npcol; ++col) {
      const int rank = row_major[static_cast<std::size_t>(row * record.npcol + col)];
      if (rank == MPI_UNDEFINED)
        throw Error(
            fmt::format("{}: process ({},{}) of {}'s grid is not in ICTXT; pass a context "
                        "that includes every process of both grids",
                        call.name(), row, col, matrix));
      ranks[static_cast<std::size_t>(row + col * record.nprow)] = rank;
    }
  return ranks;
}

/// Grid positions -> context ranks for both grids, from every process's own position (one
/// allgather; where some process is outside a grid, only the grid's processes know it).
void ranks_by_allgather(const ContextState& state, const Call& call, const Side& a, const Side& b,
                        const GlobalKey& key, GridsEntry& entry) {
  const auto position = [](const Side& s) {
    return s.grid.mine() ? s.grid.my_row + s.grid.my_col * s.grid.nprow : -1;
  };
  const int mine[2] = {position(a), position(b)};
  std::vector<int> all(2 * static_cast<std::size_t>(state.size));
  MPI_Allgather(mine, 2, MPI_INT, all.data(), 2, MPI_INT, state.comm);
  for (std::size_t side = 0; side < 2; ++side) {
    const std::int64_t nprow = key[side * kSideFields + kNprow];
    const std::int64_t npcol = key[side * kSideFields + kNpcol];
    std::vector<int>& ranks = side == 0 ? entry.a_ranks : entry.b_ranks;
    ranks.assign(static_cast<std::size_t>(nprow * npcol), -1);
    for (int rank = 0; rank < state.size; ++rank) {
      const int p = all[2 * static_cast<std::size_t>(rank) + side];
      if (p >= 0) ranks[static_cast<std::size_t>(p)] = rank;
    }
    for (std::size_t p = 0; p < ranks.size(); ++p)
      if (ranks[p] < 0)
        throw Error(
            fmt::format("{}: process ({},{}) of {}'s grid is not in ICTXT; pass a context "
                        "that includes every process of both grids",
                        call.name(), p % static_cast<std::size_t>(nprow),
                        p / static_cast<std::size_t>(nprow), side == 0 ? "A" : "B"));
  }
}

Side with_fields(Side side, const GlobalKey& key, std::size_t first) {
  std::copy(key.begin() + static_cast<std::ptrdiff_t>(first),
            key.begin() + static_cast<std::ptrdiff_t>(first + kSideFields), side.fields.begin());
  return side;
}

}  // namespace

bool serve(const Call& call) {
  CallRecord record(call.function);
  if (call.m < 0 || call.n < 0)
    throw Error(fmt::format("{}: M = {} and N = {}; the submatrix's size must be 0 or more",
                            call.name(), call.m, call.n));
  // As ScaLAPACK: an empty submatrix returns at once, with no communication.
  if (call.m == 0 || call.n == 0) {
    record.took_choreo();
    return true;
  }
  const redist::Region region = region_of(call);
  const GridInfo context = grid_info(call.ictxt);
  if (!context.mine())
    throw Error(
        fmt::format("{}: ICTXT = {} (the last argument) does not include this process; "
                    "pass a context that spans every process of both grids",
                    call.name(), call.ictxt));
  Runtime& rt = runtime();
  // Made at the context's first call, whatever the settings, so that every process takes part.
  ContextState& state = context_state(call.ictxt, rt.settings_digest);
  int world = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  at_finalize(state.size == world, free_context_states);
  if (!state.settings_agree) {
    static bool said = false;
    if (!said && state.rank == 0)
      say("the processes have different CHOREO_* settings; give every process the same. "
          "Running with ScaLAPACK's own redistribution.");
    said = true;
    record.fell_back(intercept::Fallback::Configuration);
    return false;
  }
  if (auto reason = blanket_reason(call.function)) {
    record.fell_back(*reason);
    return false;
  }
  const Side a = read_side(call, true), b = read_side(call, false);
  const std::array<std::int64_t, kCallFields> fields = call_fields(call, region);
  // Every process in both grids, and both grids the whole context: each process knows
  // everything, so a repeated call needs no message at all.
  const bool everywhere =
      a.grid.mine() && b.grid.mine() && a.grid.size() == state.size && b.grid.size() == state.size;
  const GlobalKey key = everywhere ? local_key(a, b, fields) : agree(state, call, a, b, fields);
  GridsEntry* grids = find(state.grids, key);
  if (grids == nullptr) {
    GridsEntry entry{key, {}, {}};
    if (everywhere) {
      entry.a_ranks = ranks_from_record(state, call, a, call.desca[1], "A");
      entry.b_ranks = ranks_from_record(state, call, b, call.descb[1], "B");
    } else {
      ranks_by_allgather(state, call, a, b, key, entry);
    }
    grids = &remember(state.grids, std::move(entry), kGridsCached);
  }
  PlanEntry* plan = find(state.plans, key);
  const bool same_lld = plan != nullptr && plan->lld_a == a.lld && plan->lld_b == b.lld;
  record.cache(same_lld);
  if (!same_lld) {
    const std::int64_t start = now_ns();
    const redist::RankPlan rank_plan =
        redist::plan_rank(side_view(with_fields(a, key, 0), grids->a_ranks),
                          side_view(with_fields(b, key, kSideFields), grids->b_ranks),
                          {call.m, call.n}, region, state.rank);
    if (plan != nullptr) {
      // Only this process's leading dimensions changed: the others may hit, so the entry
      // stays where it is and its engine keeps its measurement.
      plan->engine->rebuild(rank_plan);
      plan->lld_a = a.lld, plan->lld_b = b.lld;
    } else {
      auto engine = std::make_unique<redist::MeasuredEngine>(
          state.comm, rank_plan, mpi_type(call.element), redist::Method::Auto, kTag);
      plan = &remember(state.plans, PlanEntry{key, a.lld, b.lld, std::move(engine)}, kPlansCached);
    }
    record.planned(now_ns() - start);
  }
  plan->engine->execute(call.a, call.b);
  record.bytes(plan->engine->stats().send_bytes);
  record.took_choreo();
  return true;
}

}  // namespace choreo::scalapack
