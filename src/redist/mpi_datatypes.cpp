// Array sections to MPI derived datatypes (paper 002, sec. 3.3), in compact forms.
#include <fmt/format.h>

#include <climits>
#include <utility>

#include "choreo/core/error.hpp"
#include "choreo/redist/mpi.hpp"

namespace choreo::redist {
namespace {

void check(int status, const char* call) {
  if (status != MPI_SUCCESS)
    throw Error(fmt::format("{} failed (MPI error {}) while building a redistribution datatype",
                            call, status));
}

int to_int(std::int64_t value, const char* what) {
  if (value < 0 || value > INT_MAX)
    throw Error(
        fmt::format("a section's {} is {}, which MPI's int counts cannot hold; split the "
                    "array or use a larger base datatype",
                    what, value));
  return static_cast<int>(value);
}

/// Builds types bottom-up and frees the intermediate ones (MPI keeps what a committed type
/// needs), except the result.
class Builder {
 public:
  Builder(MPI_Datatype base, MPI_Aint extent) : base_(base), extent_(extent) {}
  ~Builder() {
    for (MPI_Datatype& t : made_) MPI_Type_free(&t);
  }
  Builder(const Builder&) = delete;
  Builder& operator=(const Builder&) = delete;

  MPI_Datatype base() const { return base_; }
  MPI_Aint bytes(std::int64_t elements) const { return static_cast<MPI_Aint>(elements) * extent_; }
  int constructors() const { return constructors_; }

  MPI_Datatype keep(MPI_Datatype t) {
    made_.push_back(t);
    ++constructors_;
    return t;
  }
  /// Takes `t` out of the types freed at the end: the caller owns it now.
  MPI_Datatype release(MPI_Datatype t) {
    for (auto it = made_.begin(); it != made_.end(); ++it)
      if (*it == t) {
        made_.erase(it);
        return t;
      }
    MPI_Datatype copy = MPI_DATATYPE_NULL;  // not made here (the base itself): a type of our own
    check(MPI_Type_contiguous(1, t, &copy), "MPI_Type_contiguous");
    ++constructors_;
    return copy;
  }

 private:
  MPI_Datatype base_;
  MPI_Aint extent_;
  std::vector<MPI_Datatype> made_;
  int constructors_ = 0;
};

/// Merges neighbours of the list (in its order, which is the order of the elements) that
/// continue one progression in memory: [0:49:1] then [50:99:1] become [0:99:1].
std::vector<LocalTriplet> merge(const std::vector<LocalTriplet>& list) {
  std::vector<LocalTriplet> out;
  for (const LocalTriplet& t : list) {
    if (t.count == 0) continue;
    if (!out.empty()) {
      LocalTriplet& last = out.back();
      const std::int64_t gap = t.start - (last.start + (last.count - 1) * last.stride);
      const bool last_single = last.count == 1, next_single = t.count == 1;
      if (gap > 0 && (last_single || gap == last.stride) && (next_single || t.stride == gap)) {
        last.stride = last_single ? gap : last.stride;
        last.count += t.count;
        continue;
      }
    }
    out.push_back(t);
  }
  return out;
}

/// One triplet of `inner`s, the first at displacement 0.
MPI_Datatype one_triplet(Builder& b, const LocalTriplet& t, MPI_Datatype inner) {
  if (t.count == 1) return inner;
  MPI_Datatype out = MPI_DATATYPE_NULL;
  const int count = to_int(t.count, "triplet length");
  if (inner == b.base() && t.stride == 1) {
    check(MPI_Type_contiguous(count, inner, &out), "MPI_Type_contiguous");
  } else if (inner == b.base() && t.stride <= INT_MAX) {
    check(MPI_Type_vector(count, 1, static_cast<int>(t.stride), inner, &out), "MPI_Type_vector");
  } else {
    check(MPI_Type_create_hvector(count, 1, b.bytes(t.stride), inner, &out),
          "MPI_Type_create_hvector");
  }
  return b.keep(out);
}

/// list[first, first + n) of `inner`s, displaced from list[first].start.
MPI_Datatype group(Builder& b, const std::vector<LocalTriplet>& list, std::size_t first,
                   std::size_t n, MPI_Datatype inner) {
  if (n == 1) return one_triplet(b, list[first], inner);
  bool same_shape = true;
  std::vector<MPI_Aint> displacements;
  for (std::size_t k = first; k < first + n; ++k) {
    displacements.push_back(b.bytes(list[k].start - list[first].start));
    same_shape = same_shape && list[k].count == list[first].count &&
                 (list[k].count == 1 || list[k].stride == list[first].stride);
  }
  MPI_Datatype out = MPI_DATATYPE_NULL;
  const int count = to_int(static_cast<std::int64_t>(n), "number of triplets");
  if (same_shape) {
    // Equal triplets: one type, at every displacement.
    check(MPI_Type_create_hindexed_block(count, 1, displacements.data(),
                                         one_triplet(b, list[first], inner), &out),
          "MPI_Type_create_hindexed_block");
  } else {
    std::vector<MPI_Datatype> types;
    for (std::size_t k = first; k < first + n; ++k) types.push_back(one_triplet(b, list[k], inner));
    const std::vector<int> ones(n, 1);
    check(MPI_Type_create_struct(count, ones.data(), displacements.data(), types.data(), &out),
          "MPI_Type_create_struct");
  }
  return b.keep(out);
}

/// The shortest k such that list[i + k] is list[i] moved by the same distance for every i: the
/// expansion of a period-reduced comm set repeats that way.
std::size_t repeat_length(const std::vector<LocalTriplet>& list) {
  const std::size_t n = list.size();
  for (std::size_t k = 1; k <= n / 2; ++k) {
    const std::int64_t shift = list[k].start - list[0].start;
    bool repeats = true;
    for (std::size_t i = k; i < n && repeats; ++i)
      repeats = list[i].count == list[i - k].count && list[i].stride == list[i - k].stride &&
                list[i].start - list[i - k].start == shift;
    if (repeats) return k;
  }
  return n;
}

/// One dimension's list of `inner`s, displaced from its first triplet's start.
MPI_Datatype dimension(Builder& b, const std::vector<LocalTriplet>& list, MPI_Datatype inner) {
  const std::size_t k = repeat_length(list);
  if (k == list.size()) return group(b, list, 0, k, inner);
  const std::size_t reps = list.size() / k, rest = list.size() % k;
  MPI_Datatype run = group(b, list, 0, k, inner), repeated = MPI_DATATYPE_NULL;
  check(MPI_Type_create_hvector(to_int(static_cast<std::int64_t>(reps), "repeat count"), 1,
                                b.bytes(list[k].start - list[0].start), run, &repeated),
        "MPI_Type_create_hvector");
  b.keep(repeated);
  if (rest == 0) return repeated;
  MPI_Datatype types[2] = {repeated, group(b, list, 0, rest, inner)}, out = MPI_DATATYPE_NULL;
  const MPI_Aint displacements[2] = {0, b.bytes(list[reps * k].start - list[0].start)};
  const int ones[2] = {1, 1};
  check(MPI_Type_create_struct(2, ones, displacements, types, &out), "MPI_Type_create_struct");
  return b.keep(out);
}

}  // namespace

SectionType::SectionType(MPI_Datatype type, MPI_Aint offset_bytes, int constructors)
    : type_(type), offset_(offset_bytes), constructors_(constructors) {}

SectionType::~SectionType() {
  if (type_ != MPI_DATATYPE_NULL) MPI_Type_free(&type_);
}

SectionType::SectionType(SectionType&& other) noexcept
    : type_(std::exchange(other.type_, MPI_DATATYPE_NULL)),
      offset_(other.offset_),
      constructors_(other.constructors_) {}

SectionType& SectionType::operator=(SectionType&& other) noexcept {
  if (this != &other) {
    if (type_ != MPI_DATATYPE_NULL) MPI_Type_free(&type_);
    type_ = std::exchange(other.type_, MPI_DATATYPE_NULL);
    offset_ = other.offset_;
    constructors_ = other.constructors_;
  }
  return *this;
}

SectionType section_type(const std::vector<std::vector<LocalTriplet>>& dims, MPI_Datatype base) {
  MPI_Aint lower = 0, extent = 0;
  check(MPI_Type_get_extent(base, &lower, &extent), "MPI_Type_get_extent");
  Builder b(base, extent);
  MPI_Datatype type = base;
  std::int64_t origin = 0, elements = 1;
  for (const std::vector<LocalTriplet>& raw : dims) {
    const std::vector<LocalTriplet> list = merge(raw);
    if (list.empty())
      throw Error(
          "a section has a dimension with no elements; build types for non-empty "
          "transfers only");
    origin += list.front().start;
    std::int64_t count = 0;
    for (const LocalTriplet& t : list) count += t.count;
    elements *= count;
    type = dimension(b, list, type);
  }
  type = b.release(type);
  check(MPI_Type_commit(&type), "MPI_Type_commit");
  SectionType out(type, b.bytes(origin), b.constructors());
  MPI_Count base_size = 0, size = 0;
  check(MPI_Type_size_x(base, &base_size), "MPI_Type_size_x");
  check(MPI_Type_size_x(type, &size), "MPI_Type_size_x");
  if (static_cast<std::int64_t>(size) != elements * base_size)
    throw Error(
        fmt::format("internal error: a section of {} elements made a datatype of {} "
                    "bytes (please report it)",
                    elements, size));
  return out;
}

SectionType section_type(const Transfer& transfer, bool source, MPI_Datatype base) {
  std::vector<std::vector<LocalTriplet>> dims;
  for (const DimTransfer& d : transfer.dims)
    dims.push_back(source ? d.source_local : d.target_local);
  return section_type(dims, base);
}

SectionType layout_type(const std::vector<LocalSection>& sections, MPI_Datatype base) {
  if (sections.empty())
    throw Error("a message with no sections; build types for non-empty messages only");
  if (sections.size() == 1) return section_type(sections.front().dims, base);
  // A trapezoid's sections, each typed alone, joined by a struct in element order.
  std::vector<SectionType> parts;
  std::vector<MPI_Datatype> types;
  std::vector<MPI_Aint> displacements;
  int constructors = 1;
  for (const LocalSection& s : sections) {
    parts.push_back(section_type(s.dims, base));
    types.push_back(parts.back().type());
    displacements.push_back(parts.back().offset_bytes() - parts.front().offset_bytes());
    constructors += parts.back().constructors();
  }
  const std::vector<int> ones(parts.size(), 1);
  MPI_Datatype joined = MPI_DATATYPE_NULL;
  check(MPI_Type_create_struct(to_int(static_cast<std::int64_t>(parts.size()), "section count"),
                               ones.data(), displacements.data(), types.data(), &joined),
        "MPI_Type_create_struct");
  check(MPI_Type_commit(&joined), "MPI_Type_commit");
  return SectionType(joined, parts.front().offset_bytes(), constructors);
}

const char* to_string(Method method) {
  switch (method) {
    case Method::Auto:
      return "auto";
    case Method::Datatype:
      return "datatype";
    case Method::Pack:
      return "pack";
    case Method::Shared:
      return "shared";
  }
  return "?";
}

}  // namespace choreo::redist
