#include "choreo/redist/triplet.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "choreo/core/error.hpp"

namespace choreo::redist {
namespace {

// lcm(s1, s2) and the products of the CRT step can pass 2^63 even when every index fits in
// 64 bits; 128-bit intermediates keep the closed form exact.
__extension__ typedef __int128 Wide;

struct Bezout {
  std::int64_t gcd, x, y;  // a*x + b*y = gcd
};

Bezout extended_gcd(std::int64_t a, std::int64_t b) {
  std::int64_t old_r = a, r = b, old_x = 1, x = 0, old_y = 0, y = 1;
  while (r != 0) {
    const std::int64_t q = old_r / r;
    old_r = std::exchange(r, old_r - q * r);
    old_x = std::exchange(x, old_x - q * x);
    old_y = std::exchange(y, old_y - q * y);
  }
  return {old_r, old_x, old_y};
}

Wide floor_mod(Wide a, Wide m) { return ((a % m) + m) % m; }

Triplet last_fixed(std::int64_t lower, std::int64_t upper, std::int64_t stride) {
  if (upper < lower) return Triplet{};
  const std::int64_t last = lower + (upper - lower) / stride * stride;
  return Triplet{lower, last, last == lower ? 1 : stride};
}

}  // namespace

Triplet make_triplet(std::int64_t lower, std::int64_t upper, std::int64_t stride) {
  if (stride < 1)
    throw Error(fmt::format("triplet [{}:{}:{}] has stride {}; strides must be at least 1", lower,
                            upper, stride, stride));
  return last_fixed(lower, upper, stride);
}

Triplet intersect(const Triplet& a, const Triplet& b) {
  if (a.empty() || b.empty()) return Triplet{};
  // x = a.lower (mod a.stride) and x = b.lower (mod b.stride) has a solution iff the gcd of
  // the strides divides the difference of the lower bounds; the solutions then repeat every
  // lcm of the strides.
  const Bezout bz = extended_gcd(a.stride, b.stride);
  const Wide diff = Wide{b.lower} - a.lower;
  if (diff % bz.gcd != 0) return Triplet{};
  const Wide b_reduced = b.stride / bz.gcd;
  const Wide lcm = Wide{a.stride} * b_reduced;
  // a.stride * x = gcd (mod b.stride), so k = (diff / gcd) * x steps of a.stride from
  // a.lower reach b's residue class.
  const Wide k =
      floor_mod(floor_mod(diff / bz.gcd, b_reduced) * floor_mod(bz.x, b_reduced), b_reduced);
  const Wide solution = Wide{a.lower} + Wide{a.stride} * k;
  const std::int64_t lo = std::max(a.lower, b.lower);
  const std::int64_t hi = std::min(a.upper, b.upper);
  const Wide first = lo + floor_mod(solution - lo, lcm);
  if (first > hi) return Triplet{};
  const auto first64 = static_cast<std::int64_t>(first);
  // A period beyond the range (it may not even fit in 64 bits) leaves one element.
  if (lcm > Wide{hi} - first64) return Triplet{first64, first64, 1};
  return last_fixed(first64, hi, static_cast<std::int64_t>(lcm));
}

Triplet clip(const Triplet& t, std::int64_t lo, std::int64_t hi) {
  if (t.empty()) return Triplet{};
  std::int64_t first = t.lower;
  if (first < lo) first += (lo - first + t.stride - 1) / t.stride * t.stride;
  return last_fixed(first, std::min(t.upper, hi), t.stride);
}

void compact(std::vector<Triplet>& triplets) {
  std::erase_if(triplets, [](const Triplet& t) { return t.empty(); });
  std::sort(triplets.begin(), triplets.end(),
            [](const Triplet& x, const Triplet& y) { return x.lower < y.lower; });
  std::vector<Triplet> merged;
  merged.reserve(triplets.size());
  for (const Triplet& t : triplets) {
    if (!merged.empty()) {
      Triplet& before = merged.back();
      const std::int64_t gap = t.lower - before.upper;
      // The step that would join them, if each side is already a progression with its own.
      const bool before_single = before.count() == 1, t_single = t.count() == 1;
      const std::int64_t step = before_single ? (t_single ? gap : t.stride) : before.stride;
      const bool joins = gap > 0 && gap == step && (t_single || t.stride == step);
      if (joins) {
        before = Triplet{before.lower, t.upper, step};
        continue;
      }
    }
    merged.push_back(t);
  }
  triplets = std::move(merged);
}

void normalize_ascending(std::vector<Triplet>& triplets) {
  std::vector<Triplet> out;
  out.reserve(triplets.size());
  // The triplet being extended: [lower : last : step], step 0 while it holds one element.
  std::int64_t lower = 0, last = 0, step = 0;
  bool open = false;
  const auto close = [&] { out.push_back(Triplet{lower, last, step == 0 ? 1 : step}); };
  for (const Triplet& t : triplets) {
    std::int64_t next = t.lower, left = t.count();
    while (left > 0) {
      if (!open) {
        lower = last = next, step = 0, open = true;
      } else if (step == 0) {
        step = next - last, last = next;
      } else if (next == last + step) {
        // The rest of t continues the progression only if t has the same stride.
        const std::int64_t take = t.stride == step ? left : 1;
        last = next + (take - 1) * t.stride;
        next += take * t.stride, left -= take;
        continue;
      } else {
        close();
        lower = last = next, step = 0;
      }
      next += t.stride, --left;
    }
  }
  if (open) close();
  triplets = std::move(out);
}

std::string to_string(const Triplet& t) {
  return fmt::format("[{}:{}:{}]", t.lower, t.upper, t.stride);
}

}  // namespace choreo::redist
