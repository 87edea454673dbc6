#pragma once
// Argument checks and small integer helpers shared by the generators in src/coll (private).
#include <cstdint>

namespace choreo::coll::detail {

/// Marks "no dependency" where an op handle is expected.
inline constexpr std::uint32_t kNoOp = 0xFFFFFFFFu;

/// Throws unless ranks >= 1.
void check_ranks(const char* generator, int ranks);
/// Throws unless value >= 0; `name` is the argument's name in the message.
void check_non_negative(const char* generator, const char* name, std::int64_t value);
/// Returns ops as the builder's expected_ops, or throws if the simulator cannot index that
/// many ops (its op indices are 32-bit).
std::size_t checked_op_count(const char* generator, int ranks, std::uint64_t ops);
/// Throws unless root is one of the ranks 0..ranks-1.
void check_root(const char* generator, int ranks, int root);
/// The checks of a collective whose every rank contributes bytes_per_rank: ranks >= 1,
/// bytes_per_rank >= 0, and the bytes of all ranks together fit 64 bits (what the generators
/// that move P blocks of bytes_per_rank need to count their bytes without overflow).
void check_per_rank_bytes(const char* generator, int ranks, std::int64_t bytes_per_rank);

constexpr bool is_power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }
/// Largest power of two <= n, for n >= 1.
constexpr int floor_power_of_two(int n) {
  int p = 1;
  while (p <= n / 2) p *= 2;
  return p;
}
/// log2 of a power of two.
constexpr int log2_exact(int power_of_two) {
  int k = 0;
  while ((1 << k) < power_of_two) ++k;
  return k;
}

}  // namespace choreo::coll::detail
