#pragma once
// choreo's limits, one set for every reader, generator and engine (docs/formats.md, "Limits").
// They keep every sum and product of sizes, offsets and times that choreo forms far from a
// 64-bit overflow, keep times exact through JSON's seconds, and keep a tiny file from
// allocating gigabytes. Each check throws choreo::Error naming the value, what it is and the
// limit.
#include <cstdint>
#include <span>
#include <string_view>

namespace choreo::limits {

/// Ranks of a schedule, pattern, platform or generated collective: 1 to 2^24.
inline constexpr std::int64_t kMaxRanks = std::int64_t{1} << 24;
/// Ops of one schedule over all ranks (the simulator indexes them with 32 bits), and messages
/// of one pattern.
inline constexpr std::int64_t kMaxOps = (std::int64_t{1} << 32) - 2;
/// Bytes of one message, copy or buffer region, offset included: 2^50 (1 PiB). Sums of a few
/// such values still fit a double exactly, and 2^13 - 1 of them fit 64 bits.
inline constexpr std::int64_t kMaxBytes = std::int64_t{1} << 50;
/// Elements of one distributed array (choreo redist): 2^50. With elements of at most
/// kMaxElementBytes bytes, the array's bytes and every count of them fit 64 bits.
inline constexpr std::int64_t kMaxElements = std::int64_t{1} << 50;
/// Bytes of one array element: 1 KiB.
inline constexpr std::int64_t kMaxElementBytes = 1024;
/// Nanoseconds of one delay, calc, gap or latency: 10^15 (10^6 s, 11.6 days). Below 2^50, so
/// seconds written as a double read back to the same nanosecond.
inline constexpr std::int64_t kMaxNanoseconds = 1'000'000'000'000'000;
/// A simulated clock beyond this (2^62 ns, 146 years) is an error: adding one op's time or a
/// message's transfer to it can then never overflow.
inline constexpr std::int64_t kMaxSimulatedTime = std::int64_t{1} << 62;

/// Returns `ranks` as an int, or throws unless 1 <= ranks <= kMaxRanks. `what` names the value
/// ("\"ranks\"", "--ranks", "num_ranks").
int check_ranks(std::int64_t ranks, std::string_view what);
/// Returns `bytes`, or throws unless 0 <= bytes <= kMaxBytes.
std::int64_t check_bytes(std::int64_t bytes, std::string_view what);
/// Returns `nanoseconds`, or throws unless 0 <= nanoseconds <= kMaxNanoseconds.
std::int64_t check_nanoseconds(std::int64_t nanoseconds, std::string_view what);
/// The product of `extents` (an array's shape), or throws unless every extent is >= 0 and the
/// product is at most kMaxElements.
std::int64_t check_elements(std::span<const std::int64_t> extents, std::string_view what);
/// Throws unless `bytes` of memory could be allocated on this machine: at most its physical
/// memory. `what` names the allocation ("rank 3: its buffers take": "...: 93 GiB (...), more
/// than this machine's 24 GiB of memory").
void check_allocation(std::int64_t bytes, std::string_view what);
/// Returns `ops`, or throws unless ops <= kMaxOps.
std::int64_t check_ops(std::int64_t ops, std::string_view what);

}  // namespace choreo::limits
