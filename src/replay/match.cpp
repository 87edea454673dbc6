// MPI's message matching on a recording, whose receives all know what they matched.
#include <fmt/format.h>

#include <deque>
#include <unordered_map>

#include "choreo/core/error.hpp"
#include "choreo/replay/import.hpp"

namespace choreo::replay {
namespace {

/// A channel: communicator, sender, receiver, tag.
struct Channel {
  int comm, src, dst, tag;
  friend bool operator==(const Channel&, const Channel&) = default;
};

struct ChannelHash {
  std::size_t operator()(const Channel& c) const {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (int v : {c.comm, c.src, c.dst, c.tag})
      h = (h ^ static_cast<std::uint32_t>(v)) * 0x100000001b3ULL;
    return static_cast<std::size_t>(h);
  }
};

}  // namespace

std::vector<std::vector<std::size_t>> match_messages(
    const std::vector<std::vector<SendKey>>& sends,
    const std::vector<std::vector<RecvKey>>& recvs) {
  // Each channel's sends in posting order; its receives take them front to back.
  std::unordered_map<Channel, std::deque<std::size_t>, ChannelHash> pending;
  for (std::size_t src = 0; src < sends.size(); ++src)
    for (std::size_t k = 0; k < sends[src].size(); ++k) {
      const SendKey& s = sends[src][k];
      pending[{s.comm, static_cast<int>(src), s.dst, s.tag}].push_back(k);
    }
  std::vector<std::vector<std::size_t>> matched(recvs.size());
  for (std::size_t dst = 0; dst < recvs.size(); ++dst) {
    matched[dst].reserve(recvs[dst].size());
    for (std::size_t k = 0; k < recvs[dst].size(); ++k) {
      const RecvKey& r = recvs[dst][k];
      auto it = pending.find({r.comm, r.src, static_cast<int>(dst), r.tag});
      if (it == pending.end() || it->second.empty())
        throw Error(fmt::format(
            "rank {}'s receive #{} (from rank {}, tag {}, communicator {}) matches no send of "
            "the recording; were the traces of one run, and did every rank reach MPI_Finalize?",
            dst, k, r.src, r.tag, r.comm));
      matched[dst].push_back(it->second.front());
      it->second.pop_front();
    }
  }
  for (const auto& [channel, left] : pending)
    if (!left.empty())
      throw Error(fmt::format(
          "rank {}'s send #{} (to rank {}, tag {}, communicator {}) is never received in the "
          "recording; a replay would leave it unmatched",
          channel.src, left.front(), channel.dst, channel.tag, channel.comm));
  return matched;
}

}  // namespace choreo::replay
