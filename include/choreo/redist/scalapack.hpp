#pragma once
// ScaLAPACK's view of a distributed matrix: a 9-integer array descriptor on a BLACS process
// grid, read as an ArrayDistribution, so ScaLAPACK's own redistribution (p?gemr2d) can be the
// baseline for choreo's and both can describe the same matrices.
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "choreo/redist/distribution.hpp"

namespace choreo::redist {

/// Positions in a dense matrix descriptor (DTYPE_ = 1), 0-based.
enum ScalapackDescField : std::size_t {
  kDescDtype = 0,  ///< descriptor type, 1 for dense matrices
  kDescCtxt,       ///< BLACS context (not interpreted here: the grid is given separately)
  kDescM,          ///< global rows
  kDescN,          ///< global columns
  kDescMb,         ///< row block size
  kDescNb,         ///< column block size
  kDescRsrc,       ///< process row holding the first row block
  kDescCsrc,       ///< process column holding the first column block
  kDescLld,        ///< leading dimension of the local (column-major) array
};
using ScalapackDesc = std::array<std::int64_t, 9>;

/// The BLACS grid a descriptor's context stands for.
struct BlacsGrid {
  int nprow = 1;
  int npcol = 1;
  /// Cblacs_gridinit's "Row" (its default; rank = prow * npcol + pcol) or "Col"
  /// (rank = pcol * nprow + prow).
  GridOrder order = GridOrder::RowMajor;
  int first_rank = 0;  ///< the rank of grid position 0 when `ranks` is empty
  /// Cblacs_gridmap's usermap, one rank per grid position in `order` (column-major for a
  /// usermap): leave empty for consecutive ranks from first_rank.
  std::vector<int> ranks;
};

/// The matrix the descriptor describes: 2-D, cyclic(MB) over the process rows starting at
/// RSRC, cyclic(NB) over the process columns starting at CSRC, each process's piece stored
/// column-major with leading dimension LLD. Every process is taken to use the descriptor's
/// LLD, so it must cover the process row with the most rows. Throws choreo::Error naming
/// the bad field and its valid range.
ArrayDistribution from_scalapack(const ScalapackDesc& desc, const BlacsGrid& grid);

/// The text form of a descriptor on a BLACS grid, for the command line:
/// `desc:M,N,MB,NB,RSRC,CSRC,LLD@PxQ[:row|:col][:first=R|:ranks=R,...]` (BLACS "Row" order
/// unless `:col`). Checked by from_scalapack, and against `comm_size` when given. Throws
/// choreo::Error naming the bad field.
ArrayDistribution parse_scalapack(std::string_view text,
                                  std::optional<int> comm_size = std::nullopt);

/// Either text form of a distribution: a descriptor (`desc:...`, parse_scalapack, whose extents
/// are its own M and N) or parse_distribution's form for an array of `shape`.
ArrayDistribution parse_any_distribution(std::string_view text, std::vector<std::int64_t> shape,
                                         std::optional<int> comm_size = std::nullopt);

/// ScaLAPACK's NUMROC: how many of n rows (or columns) in blocks of nb process iproc of nprocs
/// holds when process isrcproc holds the first block.
std::int64_t numroc(std::int64_t n, std::int64_t nb, int iproc, int isrcproc, int nprocs);

}  // namespace choreo::redist
