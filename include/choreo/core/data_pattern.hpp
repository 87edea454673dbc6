#pragma once
// The bytes a message carries: a deterministic function of (source, destination, tag,
// offset), so a receiver can check every byte without being told what was sent, and two
// different messages (or a shifted copy of one) do not look alike.
#include <cstddef>
#include <cstdint>
#include <span>

namespace choreo {

std::uint8_t message_byte(int src, int dst, int tag, std::int64_t offset);

/// Writes the message's bytes 0..out.size()-1.
void fill_message(std::span<std::byte> out, int src, int dst, int tag);

/// Writes bytes that differ from the message's at every offset: a receive buffer poisoned
/// this way cannot pass the check unless the message really arrived.
void poison_message(std::span<std::byte> out, int src, int dst, int tag);

struct ByteMismatch {
  std::int64_t count = 0;   ///< bytes that differ; 0 when the data is right
  std::int64_t first = -1;  ///< offset of the first differing byte
  std::uint8_t got = 0;
  std::uint8_t expected = 0;
};

ByteMismatch check_message(std::span<const std::byte> data, int src, int dst, int tag);

}  // namespace choreo
