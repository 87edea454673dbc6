#pragma once
// One call of a ScaLAPACK redistribution routine, as the entry points received it, and what
// this process can check of it alone (ScaLAPACK's rules: a process checks the descriptor of
// each grid it is in; M and N are valid everywhere).
#include <mpi.h>

#include <array>
#include <cstdint>
#include <string>

#include "../intercept/config.hpp"
#include "blacs.hpp"
#include "choreo/redist/rank_plan.hpp"

namespace choreo::scalapack {

enum class Element : std::uint8_t { Float, Double, ComplexFloat, ComplexDouble, Int };
MPI_Datatype mpi_type(Element element);
std::int64_t element_bytes(Element element);

struct Call {
  intercept::Function function = intercept::Function::Pdgemr2d;
  Element element = Element::Double;
  bool trapezoid = false;  ///< p?trmr2d: uplo and diag are read
  const char* uplo = nullptr;
  const char* diag = nullptr;
  int m = 0, n = 0;
  const void* a = nullptr;
  int ia = 1, ja = 1;
  const int* desca = nullptr;
  void* b = nullptr;
  int ib = 1, jb = 1;
  const int* descb = nullptr;
  int ictxt = -1;

  /// "pdgemr2d", for messages.
  std::string_view name() const { return intercept::function_name(function); }
};

/// The fields of one side that every process must agree on: the grid's identity and shape,
/// the descriptor's global fields and the submatrix's corner (0-based).
enum SideField : std::size_t { kId1, kId2, kNprow, kNpcol, kM, kN, kMb, kNb, kRsrc, kCsrc, kI, kJ };
inline constexpr std::size_t kSideFields = 12;
using SideFields = std::array<std::int64_t, kSideFields>;

/// What this process knows of one side (A or B).
struct Side {
  GridInfo grid;         ///< my place in the side's grid (grid.mine() false: not in it)
  SideFields fields{};   ///< valid when grid.mine(), until the others have told us
  std::int64_t lld = 0;  ///< my leading dimension (when grid.mine())
};

/// The trapezoid of a p?trmr2d call (All for p?gemr2d). Throws choreo::Error for an UPLO or
/// DIAG that is not U, L / U, N.
redist::Region region_of(const Call& call);

/// Reads side A (`first`) or B of the call for this process, checking its descriptor when the
/// process is in that grid: DTYPE_, block sizes, RSRC_/CSRC_, the submatrix inside the matrix,
/// and LLD_ against this process's own rows. Throws choreo::Error naming the field and the fix.
Side read_side(const Call& call, bool first);

/// The side's view for planning: `ranks` maps grid positions (row + col * nprow) to ranks of
/// the context's communicator.
redist::SideView side_view(const Side& side, std::vector<int> ranks);

}  // namespace choreo::scalapack
