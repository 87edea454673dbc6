// The copy loops of the pack path and the local copy (message_layout.hpp): pack, unpack and
// copy_between. They run on every execute, so they are built for speed on the common case, a
// matrix (two dimensions) cut into block-cyclic pieces of a few elements each.
#include <array>
#include <cstring>
#include <span>
#include <utility>

#include "choreo/core/error.hpp"
#include "choreo/redist/message_layout.hpp"
#include "run_join.hpp"

namespace choreo::redist {
namespace {

bool is_empty(const LocalSection& s) {
  if (s.dims.empty()) return true;
  for (const auto& list : s.dims) {
    bool any = false;
    for (const LocalTriplet& t : list) any = any || t.count > 0;
    if (!any) return true;
  }
  return false;
}

/// Dimension 0's runs of `s` into `out`, joined where they continue one another; offsets are
/// relative to the position of the outer dimensions.
void inner_runs(const LocalSection& s, std::vector<Run>& out) {
  out.clear();
  for (const LocalTriplet& t : s.dims[0]) {
    if (t.count == 0) continue;
    const Run r{t.start, t.count == 1 ? 1 : t.stride, t.count};
    if (out.empty() || !detail::join(out.back(), r)) out.push_back(r);
  }
}

template <std::size_t Bytes>
void copy_strided(const char* from, std::int64_t from_stride, char* to, std::int64_t to_stride,
                  std::int64_t count) {
  for (std::int64_t k = 0; k < count; ++k, from += from_stride, to += to_stride)
    std::memcpy(to, from, Bytes);
}

/// Copies `count` elements `from_stride` and `to_stride` bytes apart.
void copy_elements(const char* from, std::int64_t from_stride, char* to, std::int64_t to_stride,
                   std::int64_t count, std::int64_t bytes) {
  if (from_stride == bytes && to_stride == bytes)
    return static_cast<void>(std::memcpy(to, from, static_cast<std::size_t>(count * bytes)));
  switch (bytes) {  // fixed sizes let the compiler copy with one load and store
    case 4:
      return copy_strided<4>(from, from_stride, to, to_stride, count);
    case 8:
      return copy_strided<8>(from, from_stride, to, to_stride, count);
    case 16:
      return copy_strided<16>(from, from_stride, to, to_stride, count);
    default:
      for (std::int64_t k = 0; k < count; ++k, from += from_stride, to += to_stride)
        std::memcpy(to, from, static_cast<std::size_t>(bytes));
  }
}

/// The runs of a section list in element order for the copy loops. Dimension 0's runs are
/// worked out once per section and replayed at each position of the outer dimensions, so a
/// run costs a few instructions: RunCursor, which joins across positions in general (for
/// shape_of), took ~9 ns a run, 80% of packing cyclic(7)->cyclic(5). Whole columns that
/// follow each other in memory are still joined into one run.
class ColumnRuns {
 public:
  explicit ColumnRuns(std::span<const LocalSection> sections) : sections_(sections) {}

  bool next(Run& run) {
    while (k_ >= inner_.size())
      if (!advance()) return false;
    run = inner_[k_++];
    run.offset += position_;
    if (!whole_) return true;
    // One contiguous run per position: take the positions that continue it.
    while (advance()) {
      if (!whole_ || position_ + inner_[0].offset != run.offset + run.count) return true;
      run.count += inner_[0].count;
      k_ = 1;
    }
    return true;
  }

 private:
  /// The next position of the outer odometer, or the first of the next non-empty section;
  /// false after the last. Leaves k_ at the position's first run.
  bool advance() {
    k_ = 0;
    if (started_) {
      const LocalSection& s = sections_[section_];
      for (std::size_t d = 1; d < s.dims.size(); ++d) {
        const std::vector<LocalTriplet>& list = s.dims[d];
        if (static_cast<std::int64_t>(++element_[d]) < list[triplet_[d]].count) {
          position_ = offset_of(s);
          return true;
        }
        element_[d] = 0;
        if ((triplet_[d] = first_nonempty(list, triplet_[d] + 1)) < list.size()) {
          position_ = offset_of(s);
          return true;
        }
        triplet_[d] = first_nonempty(list, 0);  // wraps: the next dimension moves on
      }
      ++section_;
      started_ = false;
    }
    for (; section_ < sections_.size(); ++section_) {
      const LocalSection& s = sections_[section_];
      if (!load(s)) continue;
      started_ = true;
      position_ = offset_of(s);
      return true;
    }
    inner_.clear();
    return false;
  }

  /// Dimension 0's runs of `s`, joined; false if `s` holds no element.
  bool load(const LocalSection& s) {
    if (is_empty(s)) return false;
    inner_runs(s, inner_);
    whole_ = inner_.size() == 1 && (inner_[0].stride == 1 || inner_[0].count == 1);
    triplet_.assign(s.dims.size(), 0);
    element_.assign(s.dims.size(), 0);
    for (std::size_t d = 1; d < s.dims.size(); ++d) triplet_[d] = first_nonempty(s.dims[d], 0);
    return true;
  }

  static std::size_t first_nonempty(const std::vector<LocalTriplet>& list, std::size_t from) {
    while (from < list.size() && list[from].count == 0) ++from;
    return from;
  }

  std::int64_t offset_of(const LocalSection& s) const {
    std::int64_t offset = 0;
    for (std::size_t d = 1; d < s.dims.size(); ++d) {
      const LocalTriplet& t = s.dims[d][triplet_[d]];
      offset += t.start + static_cast<std::int64_t>(element_[d]) * t.stride;
    }
    return offset;
  }

  std::span<const LocalSection> sections_;
  std::size_t section_ = 0;
  bool started_ = false;
  std::vector<Run> inner_;
  std::size_t k_ = 0;
  bool whole_ = false;
  std::int64_t position_ = 0;
  std::vector<std::size_t> triplet_, element_;
};

/// `n` pieces of `Bytes` contiguous bytes, piece i from `from + i * from_step` to
/// `to + i * to_step`. A size known at compile time copies with a few moves, where memcpy's
/// size dispatch costs more than the copy (pieces of 1-8 doubles).
template <std::size_t Bytes>
void copy_pieces(const char* from, std::int64_t from_step, char* to, std::int64_t to_step,
                 std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i, from += from_step, to += to_step)
    std::memcpy(to, from, Bytes);
}

using PieceCopy = void (*)(const char*, std::int64_t, char*, std::int64_t, std::int64_t);
constexpr std::size_t kPieceUnit = 4, kLargestPiece = 64;

template <std::size_t... Units>
constexpr std::array<PieceCopy, sizeof...(Units)> piece_copies(std::index_sequence<Units...>) {
  return {&copy_pieces<(Units + 1) * kPieceUnit>...};
}
constexpr auto kPieceCopies = piece_copies(std::make_index_sequence<kLargestPiece / kPieceUnit>{});

/// The fixed-size copy for pieces of `bytes`, or nullptr.
PieceCopy piece_copy(std::int64_t bytes) {
  if (bytes <= 0 || bytes > static_cast<std::int64_t>(kLargestPiece) || bytes % kPieceUnit != 0)
    return nullptr;
  return kPieceCopies[static_cast<std::size_t>(bytes) / kPieceUnit - 1];
}

/// Columns copied together: for each run of dimension 0, every column of a tile in turn, so
/// that a run's size is fixed over the inner loop (no branch mispredicted per piece) while the
/// tile's cache lines stay in L1 from one run to the next.
constexpr std::int64_t kTileColumns = 64;

/// Where one end of a copy reads or writes: a piece's byte offset, the step to the next
/// column's piece, and the bytes between a piece's elements.
struct End {
  std::int64_t at = 0, step = 0, stride = 0;
};

/// Packs (Packing: `from` is the array, `to` the buffer) or unpacks (the reverse) a
/// two-dimensional section; the buffer holds its elements in canonical order, first
/// dimension fastest. Returns the elements.
template <bool Packing>
std::int64_t copy_matrix_section(const LocalSection& s, const char* from, char* to,
                                 std::int64_t bytes, std::vector<Run>& inner,
                                 std::vector<std::int64_t>& prefix) {
  inner_runs(s, inner);
  prefix.assign(inner.size(), 0);
  std::int64_t per_column = 0;
  for (std::size_t r = 0; r < inner.size(); ++r)
    prefix[r] = per_column, per_column += inner[r].count;
  std::int64_t column = 0;  // columns of the section before the current triplet
  for (const LocalTriplet& t : s.dims[1]) {
    for (std::int64_t first = 0; first < t.count; first += kTileColumns) {
      const std::int64_t n = std::min(kTileColumns, t.count - first);
      for (std::size_t r = 0; r < inner.size(); ++r) {
        const Run& run = inner[r];
        const End array{(t.start + first * t.stride + run.offset) * bytes, t.stride * bytes,
                        run.stride * bytes};
        const End buffer{((column + first) * per_column + prefix[r]) * bytes, per_column * bytes,
                         bytes};
        const End& source = Packing ? array : buffer;
        const End& target = Packing ? buffer : array;
        const PieceCopy fixed = run.stride == 1 ? piece_copy(run.count * bytes) : nullptr;
        if (fixed != nullptr) {
          fixed(from + source.at, source.step, to + target.at, target.step, n);
          continue;
        }
        for (std::int64_t i = 0; i < n; ++i)
          copy_elements(from + source.at + i * source.step, source.stride,
                        to + target.at + i * target.step, target.stride, run.count, bytes);
      }
    }
    column += t.count;
  }
  return column * per_column;
}

/// Pack (Packing: `from` is the array, `to` the buffer) or unpack of a section list:
/// matrices by copy_matrix_section, anything else run by run. Returns the buffer's bytes.
template <bool Packing>
std::int64_t copy_sections(const std::vector<LocalSection>& sections, const char* from, char* to,
                           std::int64_t bytes) {
  std::vector<Run> inner;
  std::vector<std::int64_t> prefix;
  std::int64_t done = 0;  // bytes of the buffer so far
  for (const LocalSection& s : sections) {
    if (is_empty(s)) continue;
    const char* source = Packing ? from : from + done;
    char* target = Packing ? to + done : to;
    if (s.dims.size() == 2) {
      done += bytes * copy_matrix_section<Packing>(s, source, target, bytes, inner, prefix);
      continue;
    }
    ColumnRuns cursor(std::span<const LocalSection>(&s, 1));
    Run run;
    for (std::int64_t packed = 0; cursor.next(run); packed += run.count * bytes) {
      const std::int64_t at = run.offset * bytes, stride = run.stride * bytes;
      if constexpr (Packing)
        copy_elements(source + at, stride, target + packed, bytes, run.count, bytes);
      else
        copy_elements(source + packed, bytes, target + at, stride, run.count, bytes);
    }
    done += s.elements() * bytes;
  }
  return done;
}

/// `n` pieces of `Bytes` contiguous bytes, piece i from `from + from_at[i]` to `to + to_at[i]`.
template <std::size_t Bytes>
void copy_listed_pieces(const char* from, const std::int64_t* from_at, char* to,
                        const std::int64_t* to_at, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) std::memcpy(to + to_at[i], from + from_at[i], Bytes);
}

using ListedCopy = void (*)(const char*, const std::int64_t*, char*, const std::int64_t*,
                            std::int64_t);

template <std::size_t... Units>
constexpr std::array<ListedCopy, sizeof...(Units)> listed_copies(std::index_sequence<Units...>) {
  return {&copy_listed_pieces<(Units + 1) * kPieceUnit>...};
}
constexpr auto kListedCopies =
    listed_copies(std::make_index_sequence<kLargestPiece / kPieceUnit>{});

/// The byte offsets of a matrix section's columns, in order.
void column_offsets(const LocalSection& s, std::int64_t bytes, std::vector<std::int64_t>& out) {
  out.clear();
  for (const LocalTriplet& t : s.dims[1])
    for (std::int64_t k = 0; k < t.count; ++k) out.push_back((t.start + k * t.stride) * bytes);
}

/// Dimension 0's runs of `s` as contiguous runs: a strided run (two elements of a block-cyclic
/// section a block apart) becomes a run per element.
void unit_runs(const LocalSection& s, std::vector<Run>& out) {
  std::vector<Run> runs;
  inner_runs(s, runs);
  out.clear();
  for (const Run& r : runs) {
    if (r.stride == 1 || r.count == 1) {
      out.push_back({r.offset, 1, r.count});
      continue;
    }
    for (std::int64_t k = 0; k < r.count; ++k) out.push_back({r.offset + k * r.stride, 1, 1});
  }
}

/// A piece of a column both sides hold contiguously: `count` elements from `from` to `to`
/// (element offsets within the column).
struct JointRun {
  std::int64_t from = 0, to = 0, count = 0;
};

/// Elements of a section's dimension `d`.
std::int64_t extent_of(const LocalSection& s, std::size_t d) {
  std::int64_t n = 0;
  for (const LocalTriplet& t : s.dims[d]) n += t.count;
  return n;
}

/// The local copy of one matrix section into another of the same shape (matrix_pair),
/// straight from array to array: the two sides' row runs are cut where either side's run ends
/// (the same cut for every column), then each cut run is copied for a tile of columns at a
/// time, as copy_matrix_section does. One copy where staging through a buffer (pack, then
/// unpack) makes two; copy_between's general walk costs a call per piece.
void copy_matrix_between(const LocalSection& a, const char* from, const LocalSection& b, char* to,
                         std::int64_t bytes) {
  std::vector<Run> ra, rb;
  unit_runs(a, ra);
  unit_runs(b, rb);
  std::vector<JointRun> joint;
  for (std::size_t i = 0, j = 0; i < ra.size() && j < rb.size();) {
    Run& x = ra[i];
    Run& y = rb[j];
    const std::int64_t n = std::min(x.count, y.count);
    joint.push_back({x.offset, y.offset, n});
    x.offset += n, x.count -= n, y.offset += n, y.count -= n;
    i += x.count == 0 ? 1 : 0;
    j += y.count == 0 ? 1 : 0;
  }
  std::vector<std::int64_t> ca, cb;
  column_offsets(a, bytes, ca);
  column_offsets(b, bytes, cb);
  const auto columns = static_cast<std::int64_t>(ca.size());
  for (std::int64_t first = 0; first < columns; first += kTileColumns) {
    const std::int64_t n = std::min(kTileColumns, columns - first);
    const std::int64_t* at_a = ca.data() + first;
    const std::int64_t* at_b = cb.data() + first;
    for (const JointRun& r : joint) {
      const char* source = from + r.from * bytes;
      char* target = to + r.to * bytes;
      const std::int64_t piece = r.count * bytes;
      if (piece <= static_cast<std::int64_t>(kLargestPiece) && piece % kPieceUnit == 0) {
        kListedCopies[static_cast<std::size_t>(piece) / kPieceUnit - 1](source, at_a, target, at_b,
                                                                        n);
        continue;
      }
      for (std::int64_t i = 0; i < n; ++i)
        std::memcpy(target + at_b[i], source + at_a[i], static_cast<std::size_t>(piece));
    }
  }
}

}  // namespace

bool matrix_pair(const std::vector<LocalSection>& from_sections,
                 const std::vector<LocalSection>& to_sections) {
  if (from_sections.size() != 1 || to_sections.size() != 1) return false;
  const LocalSection &a = from_sections[0], &b = to_sections[0];
  return a.dims.size() == 2 && b.dims.size() == 2 && !is_empty(a) && !is_empty(b) &&
         extent_of(a, 0) == extent_of(b, 0) && extent_of(a, 1) == extent_of(b, 1);
}

std::int64_t pack(const std::vector<LocalSection>& sections, const void* from, void* to,
                  std::int64_t element_bytes) {
  return copy_sections<true>(sections, static_cast<const char*>(from), static_cast<char*>(to),
                             element_bytes);
}

std::int64_t unpack(const std::vector<LocalSection>& sections, const void* from, void* to,
                    std::int64_t element_bytes) {
  return copy_sections<false>(sections, static_cast<const char*>(from), static_cast<char*>(to),
                              element_bytes);
}

void copy_between(const std::vector<LocalSection>& from_sections, const void* from,
                  const std::vector<LocalSection>& to_sections, void* to,
                  std::int64_t element_bytes) {
  if (matrix_pair(from_sections, to_sections))
    return copy_matrix_between(from_sections[0], static_cast<const char*>(from), to_sections[0],
                               static_cast<char*>(to), element_bytes);
  ColumnRuns read(from_sections), write(to_sections);
  Run a{}, b{};
  bool have_a = read.next(a), have_b = write.next(b);
  const char* src = static_cast<const char*>(from);
  char* dst = static_cast<char*>(to);
  while (have_a && have_b) {
    const std::int64_t n = std::min(a.count, b.count);
    copy_elements(src + a.offset * element_bytes, a.stride * element_bytes,
                  dst + b.offset * element_bytes, b.stride * element_bytes, n, element_bytes);
    a.offset += n * a.stride, a.count -= n;
    b.offset += n * b.stride, b.count -= n;
    if (a.count == 0) have_a = read.next(a);
    if (b.count == 0) have_b = write.next(b);
  }
  if (have_a || have_b)
    throw Error("internal error: a local copy's two sides hold different element counts");
}

}  // namespace choreo::redist
