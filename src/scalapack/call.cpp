#include "call.hpp"

#include <fmt/format.h>

#include <cctype>

#include "choreo/core/error.hpp"
#include "grid_record.hpp"

namespace choreo::scalapack {
namespace {

// Descriptor entries (ScaLAPACK's DTYPE_ .. LLD_, 0-based here).
enum DescField : std::size_t {
  kDtype,
  kCtxt,
  kDescM,
  kDescN,
  kDescMb,
  kDescNb,
  kDescRsrc,
  kDescCsrc,
  kDescLld
};

std::int64_t rows_of(std::int64_t n, std::int64_t nb, int proc, int first, int procs) {
  return redist::BlockCyclicDim{n, nb, procs, first}.local_extent(proc);
}

}  // namespace

MPI_Datatype mpi_type(Element element) {
  switch (element) {
    case Element::Float:
      return MPI_FLOAT;
    case Element::Double:
      return MPI_DOUBLE;
    case Element::ComplexFloat:
      return MPI_C_FLOAT_COMPLEX;
    case Element::ComplexDouble:
      return MPI_C_DOUBLE_COMPLEX;
    case Element::Int:
      return MPI_INT;
  }
  return MPI_DATATYPE_NULL;
}

std::int64_t element_bytes(Element element) {
  switch (element) {
    case Element::Float:
      return 4;
    case Element::Double:
      return 8;
    case Element::ComplexFloat:
      return 8;
    case Element::ComplexDouble:
      return 16;
    case Element::Int:
      return static_cast<std::int64_t>(sizeof(int));
  }
  return 0;
}

redist::Region region_of(const Call& call) {
  if (!call.trapezoid) return {};
  if (call.uplo == nullptr || call.diag == nullptr)
    throw Error(
        fmt::format("{}: UPLO or DIAG is a null pointer; pass \"U\" or \"L\", and \"U\" "
                    "or \"N\"",
                    call.name()));
  const char uplo = static_cast<char>(std::toupper(static_cast<unsigned char>(*call.uplo)));
  const char diag = static_cast<char>(std::toupper(static_cast<unsigned char>(*call.diag)));
  if (uplo != 'U' && uplo != 'L')
    throw Error(fmt::format("{}: UPLO is '{}'; pass 'U' (upper trapezoid) or 'L' (lower)",
                            call.name(), *call.uplo));
  if (diag != 'U' && diag != 'N')
    throw Error(fmt::format("{}: DIAG is '{}'; pass 'N' (copy the diagonal) or 'U' (leave it)",
                            call.name(), *call.diag));
  return {uplo == 'U' ? redist::Part::Upper : redist::Part::Lower, diag == 'N'};
}

Side read_side(const Call& call, bool first) {
  const char* matrix = first ? "A" : "B";
  const int* desc = first ? call.desca : call.descb;
  const int i = first ? call.ia : call.ib, j = first ? call.ja : call.jb;
  Side side;
  if (desc == nullptr)
    throw Error(
        fmt::format("{}: DESC{} is a null pointer; pass the descriptor (DESC{}(CTXT_) = "
                    "-1 on processes outside {}'s grid)",
                    call.name(), matrix, matrix, matrix));
  side.grid = grid_info(desc[kCtxt]);
  if (!side.grid.mine()) return side;
  const auto bad = [&](const char* field, int position, const std::string& rule) {
    return Error(fmt::format("{}: DESC{}({}) = {} on process ({},{}) of {}'s grid; {}", call.name(),
                             matrix, field, desc[position], side.grid.my_row, side.grid.my_col,
                             matrix, rule));
  };
  if (desc[kDtype] != 1)
    throw bad("DTYPE_", kDtype, "only dense block-cyclic matrices (DTYPE_ = 1) redistribute");
  if (desc[kDescMb] < 1) throw bad("MB_", kDescMb, "the row block size must be at least 1");
  if (desc[kDescNb] < 1) throw bad("NB_", kDescNb, "the column block size must be at least 1");
  if (desc[kDescRsrc] < 0 || desc[kDescRsrc] >= side.grid.nprow)
    throw bad("RSRC_", kDescRsrc,
              fmt::format("the grid has {} process rows, so use 0 to {}", side.grid.nprow,
                          side.grid.nprow - 1));
  if (desc[kDescCsrc] < 0 || desc[kDescCsrc] >= side.grid.npcol)
    throw bad("CSRC_", kDescCsrc,
              fmt::format("the grid has {} process columns, so use 0 to {}", side.grid.npcol,
                          side.grid.npcol - 1));
  const char* corner = first ? "IA, JA" : "IB, JB";
  if (i < 1 || j < 1 || static_cast<std::int64_t>(i) + call.m - 1 > desc[kDescM] ||
      static_cast<std::int64_t>(j) + call.n - 1 > desc[kDescN])
    throw Error(fmt::format(
        "{}: the {}x{} submatrix at ({}) = ({}, {}) leaves {}, which is {}x{} (DESC{}(M_), "
        "DESC{}(N_)); need 1 <= {} and {} + M - 1 <= M_, {} + N - 1 <= N_",
        call.name(), call.m, call.n, corner, i, j, matrix, desc[kDescM], desc[kDescN], matrix,
        matrix, corner, first ? "IA" : "IB", first ? "JA" : "JB"));
  const std::int64_t rows =
      rows_of(desc[kDescM], desc[kDescMb], side.grid.my_row, desc[kDescRsrc], side.grid.nprow);
  if (desc[kDescLld] < rows)
    throw bad("LLD_", kDescLld,
              fmt::format("this process holds {} rows of {}, so its leading dimension must be "
                          "at least {}",
                          rows, matrix, rows));
  const GridRecord& record = grid_record(desc[kCtxt], side.grid);
  side.fields = {record.identity[0], record.identity[1], side.grid.nprow, side.grid.npcol,
                 desc[kDescM],       desc[kDescN],       desc[kDescMb],   desc[kDescNb],
                 desc[kDescRsrc],    desc[kDescCsrc],    i - 1,           j - 1};
  side.lld = desc[kDescLld];
  return side;
}

redist::SideView side_view(const Side& side, std::vector<int> ranks) {
  const SideFields& f = side.fields;
  const int nprow = static_cast<int>(f[kNprow]), npcol = static_cast<int>(f[kNpcol]);
  redist::SideView view;
  view.dims = {{redist::BlockCyclicDim{f[kM], f[kMb], nprow, static_cast<int>(f[kRsrc])}, f[kI]},
               {redist::BlockCyclicDim{f[kN], f[kNb], npcol, static_cast<int>(f[kCsrc])}, f[kJ]}};
  view.grid = redist::GridMap({nprow, npcol}, std::move(ranks));
  if (side.grid.mine()) {
    view.my_coords = {side.grid.my_row, side.grid.my_col};
    view.my_strides = {1, side.lld};
  }
  return view;
}

}  // namespace choreo::scalapack
