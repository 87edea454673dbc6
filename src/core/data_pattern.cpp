#include "choreo/core/data_pattern.hpp"

namespace choreo {
namespace {

/// SplitMix64's finaliser: a cheap bijective mixer with good avalanche.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::uint64_t message_key(int src, int dst, int tag) {
  auto u = [](int v) { return static_cast<std::uint64_t>(static_cast<std::uint32_t>(v)); };
  return mix(mix(mix(u(src)) ^ u(dst)) ^ u(tag));
}

/// Eight bytes of the message at once: word w covers offsets 8w .. 8w+7.
std::uint64_t message_word(std::uint64_t key, std::uint64_t w) {
  return mix(key ^ (w * 0xd6e8feb86659fd93ULL));
}

std::uint8_t byte_of(std::uint64_t word, std::int64_t offset) {
  return static_cast<std::uint8_t>(word >> (8 * (offset & 7)));
}

template <typename Visit>
void for_each_expected(std::size_t size, int src, int dst, int tag, Visit&& visit) {
  const std::uint64_t key = message_key(src, dst, tag);
  std::uint64_t word = 0;
  for (std::size_t i = 0; i < size; ++i) {
    if ((i & 7) == 0) word = message_word(key, i >> 3);
    visit(i, byte_of(word, static_cast<std::int64_t>(i)));
  }
}

}  // namespace

std::uint8_t message_byte(int src, int dst, int tag, std::int64_t offset) {
  return byte_of(message_word(message_key(src, dst, tag), static_cast<std::uint64_t>(offset) >> 3),
                 offset);
}

void fill_message(std::span<std::byte> out, int src, int dst, int tag) {
  for_each_expected(out.size(), src, dst, tag,
                    [&](std::size_t i, std::uint8_t b) { out[i] = static_cast<std::byte>(b); });
}

void poison_message(std::span<std::byte> out, int src, int dst, int tag) {
  for_each_expected(out.size(), src, dst, tag, [&](std::size_t i, std::uint8_t b) {
    out[i] = static_cast<std::byte>(static_cast<std::uint8_t>(~b));
  });
}

ByteMismatch check_message(std::span<const std::byte> data, int src, int dst, int tag) {
  ByteMismatch result;
  for_each_expected(data.size(), src, dst, tag, [&](std::size_t i, std::uint8_t expected) {
    auto got = static_cast<std::uint8_t>(data[i]);
    if (got == expected) return;
    if (result.count++ == 0) {
      result.first = static_cast<std::int64_t>(i);
      result.got = got;
      result.expected = expected;
    }
  });
  return result;
}

}  // namespace choreo
