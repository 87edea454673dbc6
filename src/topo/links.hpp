#pragma once
// The links of a network and their reservations (the `serialize` sharing rule): a message
// waits until every link on its route is free, then holds all of them for its transfer time.
// Without contention it leaves at once, so times equal the ideal network's.
#include <cstdint>
#include <vector>

#include "choreo/topo/network.hpp"

namespace choreo {

class Links {
 public:
  Links(const NetworkSpec& spec, int ranks);

  bool ideal() const { return spec_.kind == NetworkSpec::Kind::Ideal; }
  int nodes() const { return nodes_; }
  int node_of(int rank) const { return node_of_rank_[static_cast<std::size_t>(rank)]; }

  struct Reservation {
    std::int64_t start = 0;  ///< when the message's data starts to flow
    int hops = 0;            ///< links crossed
  };
  /// Reserves the route from `src_rank` to `dst_rank` for `hold` ns, no earlier than `ready`.
  Reservation reserve(int src_rank, int dst_rank, std::int64_t ready, std::int64_t hold);

  /// The links from `src_rank` to `dst_rank`, appended to `out` (none within a node).
  void route(int src_rank, int dst_rank, std::vector<std::uint32_t>& out) const;
  std::size_t link_count() const { return free_.size(); }
  /// Accounts a message that held `link` for `busy` ns (the fair rule's bookkeeping).
  void record(std::uint32_t link, std::int64_t busy) {
    busy_[link] += busy;
    ++messages_[link];
  }

  /// Every link that carried data, busiest first.
  std::vector<LinkLoad> loads() const;

 private:
  template <typename F>
  void for_each_link(int src_node, int dst_node, F&& f) const;
  std::string link_name(std::size_t link) const;

  NetworkSpec spec_;
  int nodes_ = 0;
  std::vector<int> node_of_rank_;
  std::vector<int> strides_;  ///< torus/mesh: node = sum coordinate[d] * strides_[d]
  std::vector<std::int64_t> free_, busy_, messages_;
};

}  // namespace choreo
