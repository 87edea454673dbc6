#pragma once
// What a rank's program is written into (private). The generators write every rank into a
// CompactBuilder; a persistent collective (src/persist) writes only its own rank, straight
// into its command list. The per-rank code of the generators is templated on the builder so
// that both get their ops, tags and dependencies from one definition of each algorithm.
#include <concepts>
#include <cstdint>

namespace choreo::coll::detail {

/// The calls the per-rank code makes: add a send, a receive or a calc to the rank being built
/// (each returns the op's position in the rank's program), and make one op of that rank wait
/// for the completion of another. CompactBuilder is one.
template <typename Builder>
concept ProgramBuilder = requires(Builder& b, int peer, std::int64_t amount, int tag,
                                  std::uint32_t op) {
  { b.send(peer, amount, tag) } -> std::same_as<std::uint32_t>;
  { b.recv(peer, amount, tag) } -> std::same_as<std::uint32_t>;
  { b.calc(amount) } -> std::same_as<std::uint32_t>;
  b.requires_completed(op, op);
};

}  // namespace choreo::coll::detail
