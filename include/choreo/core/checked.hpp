#pragma once
// Checked integer arithmetic for sizes, offsets, times and counts: an overflow throws
// choreo::Error naming the quantity, never wraps. One place, reused by the library and the
// tools.
#include <concepts>
#include <cstdint>
#include <limits>
#include <string_view>

namespace choreo {

/// Throws choreo::Error: "{what}: {a} {op} {b} overflows {bits}-bit integers".
[[noreturn]] void throw_overflow(std::string_view what, long double a, char op, long double b,
                                 int bits);

template <std::integral T>
T checked_add(T a, T b, std::string_view what) {
  T out;
  if (__builtin_add_overflow(a, b, &out))
    throw_overflow(what, static_cast<long double>(a), '+', static_cast<long double>(b),
                   std::numeric_limits<T>::digits + std::numeric_limits<T>::is_signed);
  return out;
}

template <std::integral T>
T checked_sub(T a, T b, std::string_view what) {
  T out;
  if (__builtin_sub_overflow(a, b, &out))
    throw_overflow(what, static_cast<long double>(a), '-', static_cast<long double>(b),
                   std::numeric_limits<T>::digits + std::numeric_limits<T>::is_signed);
  return out;
}

template <std::integral T>
T checked_mul(T a, T b, std::string_view what) {
  T out;
  if (__builtin_mul_overflow(a, b, &out))
    throw_overflow(what, static_cast<long double>(a), 'x', static_cast<long double>(b),
                   std::numeric_limits<T>::digits + std::numeric_limits<T>::is_signed);
  return out;
}

/// `value` as To, or throws choreo::Error when it does not fit.
template <std::integral To, std::integral From>
To checked_cast(From value, std::string_view what) {
  To out;
  if (__builtin_add_overflow(value, From{0}, &out))
    throw_overflow(what, static_cast<long double>(value), '+', 0,
                   std::numeric_limits<To>::digits + std::numeric_limits<To>::is_signed);
  return out;
}

/// A double rounded to the nearest int64, or throws choreo::Error when it is not finite or does
/// not fit (std::llround's result is unspecified there).
std::int64_t checked_llround(double value, std::string_view what);

}  // namespace choreo
