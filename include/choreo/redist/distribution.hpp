#pragma once
// HPF distributions of an array over a processor grid (paper 002), and where each process's
// piece lives in memory.
//
// Per dimension: `block` (HPF: cyclic(ceil(N/p))), `cyclic` (cyclic(1)), `cyclic(n)`, or `*`
// (not distributed: every process of the grid holds the whole extent). Indices are 0-based.
// Along a distributed dimension of extent N over p processors with block size m, global index
// i lives on processor (i / m + first_proc) mod p at local index (i / (m p)) m + i mod m.
//
// The grid has one dimension per distributed (non-`*`) array dimension, in order, as in HPF's
// DISTRIBUTE ... ONTO: `*,cyclic(50)@4` puts array dimension 1 on a 1-D grid of 4. A
// distribution with no distributed dimension lives on one process (grid size 1).
// Grid positions map to ranks column-major (first grid index fastest, as the paper and HPF
// do) or row-major (as BLACS's default "Row" order), then through `first_rank` or an explicit
// rank list, so the source and target of a redistribution may be different subsets of one
// communicator with different shapes and sizes.
//
// Text form (the command line's): DIST[,DIST...][@GRID[:OPTION...]], GRID = AxBx..., OPTION =
// `row` | `col` | `first=R` | `ranks=R,R,...` | `src=AxB...` (the grid coordinates of the
// first block per grid dimension, ScaLAPACK's RSRC/CSRC). Examples: `cyclic,cyclic@2x2`,
// `cyclic(50),block@2x3:row:first=4`, `*,cyclic(50)@4`.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace choreo::redist {

enum class DimKind {
  Collapsed,  ///< `*`: not distributed
  Block,      ///< HPF block: cyclic(ceil(N/p))
  Cyclic,     ///< cyclic(block_size); `cyclic` is cyclic(1)
};

struct DimDistribution {
  DimKind kind = DimKind::Collapsed;
  std::int64_t block_size = 1;  ///< Cyclic only: the n of cyclic(n), >= 1
  /// Distributed only: the grid coordinate holding the first block (ScaLAPACK's RSRC/CSRC).
  /// HPF distributions start at 0.
  int first_proc = 0;

  static DimDistribution collapsed() { return {}; }
  static DimDistribution block() { return {DimKind::Block, 1, 0}; }
  static DimDistribution cyclic(std::int64_t n = 1) { return {DimKind::Cyclic, n, 0}; }
  friend bool operator==(const DimDistribution&, const DimDistribution&) = default;
};

enum class GridOrder {
  ColumnMajor,  ///< first grid index fastest (HPF, the paper, BLACS "Col")
  RowMajor,     ///< last grid index fastest (BLACS "Row", its default)
};

/// How one process stores its piece: column-major (first index fastest). The first dimension
/// is padded to `leading_dim` elements (ScaLAPACK's LLD; 0: no padding, each process's own
/// local extent, at least 1); higher dimensions are not padded.
struct LocalLayout {
  std::int64_t leading_dim = 0;
  friend bool operator==(const LocalLayout&, const LocalLayout&) = default;
};

struct ArrayDistribution {
  std::vector<std::int64_t> shape;    ///< global extent of each dimension, >= 0
  std::vector<DimDistribution> dims;  ///< one per dimension of shape
  std::vector<int> grid;              ///< one extent per distributed dimension, >= 1
  GridOrder order = GridOrder::ColumnMajor;
  int first_rank = 0;      ///< grid position k is rank first_rank + k ...
  std::vector<int> ranks;  ///< ... unless this lists the rank of every grid position
  LocalLayout layout;
  friend bool operator==(const ArrayDistribution&, const ArrayDistribution&) = default;
};

/// One dimension resolved: N elements in blocks of `block` dealt to `procs` processors
/// round-robin, starting at `first_proc`. A `*` dimension is one block on one processor.
struct BlockCyclicDim {
  std::int64_t extent = 0;
  std::int64_t block = 1;
  int procs = 1;
  int first_proc = 0;

  int owner(std::int64_t global) const;
  std::int64_t local_index(std::int64_t global) const;
  /// The global index at local index `local` of processor `proc` (the inverse of owner and
  /// local_index).
  std::int64_t global_index(int proc, std::int64_t local) const;
  /// How many indices processor `proc` holds (ScaLAPACK's NUMROC).
  std::int64_t local_extent(int proc) const;
};

/// Throws choreo::Error naming the first problem and its fix: shape and dims of different
/// lengths, a negative extent, block size < 1, grid extents not matching the distributed
/// dimensions, first_proc outside the grid, a rank list of the wrong length, negative or
/// repeated ranks, a leading dimension smaller than a local extent, and, when `comm_size` is
/// given, a grid that needs ranks the communicator does not have.
void validate(const ArrayDistribution& dist, std::optional<int> comm_size = std::nullopt);

/// How many processes the grid has (1 when no dimension is distributed).
int grid_size(const ArrayDistribution& dist);
/// The rank at grid position `position` (0 <= position < grid_size).
int rank_at(const ArrayDistribution& dist, int position);
/// The processor index along every array dimension (0 for `*`) of grid position `position`.
std::vector<int> proc_coords(const ArrayDistribution& dist, int position);
/// Array dimension `dim` resolved, `block` made cyclic(ceil(N/p)). A block larger than the
/// extent is clamped to the extent (it puts everything on one processor either way).
BlockCyclicDim resolve_dim(const ArrayDistribution& dist, std::size_t dim);
/// The local extent of every dimension on grid position `position`.
std::vector<std::int64_t> local_extents(const ArrayDistribution& dist, int position);
/// Elements between neighbours along each dimension of that position's local array
/// (1, leading dimension, then products of local extents).
std::vector<std::int64_t> local_strides(const ArrayDistribution& dist, int position);

/// "2000x2000" -> {2000, 2000}. Throws choreo::Error on anything else.
std::vector<std::int64_t> parse_shape(std::string_view text);
/// The text form (see the top of this file) for an array of `shape`, validated (with
/// `comm_size` when given). Throws choreo::Error naming the problem and the fix.
ArrayDistribution parse_distribution(std::string_view text, std::vector<std::int64_t> shape,
                                     std::optional<int> comm_size = std::nullopt);
/// The text form of dist (without the shape and the layout, which it has no words for);
/// parse_distribution reads it back.
std::string to_string(const ArrayDistribution& dist);

}  // namespace choreo::redist
