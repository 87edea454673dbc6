#pragma once
// Index triplets [l:u:s] (Fortran array-section notation, 0-based, upper bound inclusive) and
// their intersection in closed form (paper 002, sec. 2.1 and 2.3).
//
// A triplet is kept canonical so that equal sets compare equal: `upper` is the last element the
// progression reaches, a single element has stride 1, and every empty triplet is [0:-1:1].
#include <cstdint>
#include <string>
#include <vector>

namespace choreo::redist {

struct Triplet {
  std::int64_t lower = 0;
  std::int64_t upper = -1;  ///< the last element (inclusive); empty when upper < lower
  std::int64_t stride = 1;  ///< >= 1

  bool empty() const { return upper < lower; }
  std::int64_t count() const { return empty() ? 0 : (upper - lower) / stride + 1; }
  friend bool operator==(const Triplet&, const Triplet&) = default;
};

/// The canonical triplet of the progression lower, lower + stride, ... <= upper.
/// Throws choreo::Error when stride < 1.
Triplet make_triplet(std::int64_t lower, std::int64_t upper, std::int64_t stride);

/// The elements in both a and b, as one triplet (the intersection of two progressions is a
/// progression). Solved by the Chinese remainder theorem with the extended gcd of the strides:
/// O(log stride), however many elements the triplets hold.
Triplet intersect(const Triplet& a, const Triplet& b);

/// The elements of t within [lo, hi].
Triplet clip(const Triplet& t, std::int64_t lo, std::int64_t hi);

/// Sorts pairwise disjoint triplets by lower bound, drops empty ones and merges each triplet
/// into the one before it when together they are one progression ([0:4:2] and [6:8:2] become
/// [0:8:2]; two single elements always merge). Greedy, so short but not always the shortest.
void compact(std::vector<Triplet>& triplets);

/// Rewrites triplets that are ascending and apart (each one's last element below the next one's
/// first) as the unique greedy decomposition of their elements: from the smallest element, each
/// triplet runs as far as its first step continues. Equal sets then give equal lists, whatever
/// pieces they were computed from. O(triplets): a piece whose stride differs from the triplet
/// being extended takes at most two steps.
void normalize_ascending(std::vector<Triplet>& triplets);

/// "[l:u:s]" as the paper writes it.
std::string to_string(const Triplet& t);

/// A triplet with a processor index: which processor owns, sends or receives those indices.
struct OwnedTriplet {
  Triplet indices;
  int proc = 0;
  friend bool operator==(const OwnedTriplet&, const OwnedTriplet&) = default;
};

}  // namespace choreo::redist
