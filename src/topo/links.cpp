#include "links.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "choreo/core/error.hpp"

namespace choreo {

// Link numbering. Switch: node n's injection link is 2n, its ejection link 2n+1.
// Torus/mesh with D dimensions: node n's link towards dimension d, direction + (0) or - (1)
// is n*2D + 2d + dir; injection and ejection links follow all of those: R + 2n, R + 2n + 1.

Links::Links(const NetworkSpec& spec, int ranks) : spec_(spec) {
  using Kind = NetworkSpec::Kind;
  if (spec.kind == Kind::Ideal) return;
  std::size_t router_links = 0;
  if (spec.kind == Kind::Switch) {
    nodes_ = spec.nodes > 0 ? spec.nodes : ranks;
  } else {
    long long product = 1;
    for (int d : spec.dims) {
      strides_.push_back(static_cast<int>(product));
      product *= d;
      if (product > (1 << 26)) throw Error("the torus/mesh has more than 2^26 nodes");
    }
    nodes_ = static_cast<int>(product);
    router_links = static_cast<std::size_t>(nodes_) * 2 * spec.dims.size();
  }
  node_of_rank_ = place_ranks(ranks, nodes_, spec.placement);
  const std::size_t links = router_links + 2 * static_cast<std::size_t>(nodes_);
  free_.assign(links, 0);
  busy_.assign(links, 0);
  messages_.assign(links, 0);
}

template <typename F>
void Links::for_each_link(int src_node, int dst_node, F&& f) const {
  const auto n = [](int node) { return static_cast<std::size_t>(node); };
  if (spec_.kind == NetworkSpec::Kind::Switch) {
    f(2 * n(src_node));
    f(2 * n(dst_node) + 1);
    return;
  }
  const std::size_t dims = spec_.dims.size();
  const std::size_t router_links = n(nodes_) * 2 * dims;
  f(router_links + 2 * n(src_node));
  int at = src_node;
  for (std::size_t d = 0; d < dims; ++d) {
    const int size = spec_.dims[d], stride = strides_[d];
    const int from = (at / stride) % size, to = (dst_node / stride) % size;
    if (from == to) continue;
    int steps = 0, dir = 0;  // dir 0: +, 1: -
    if (spec_.kind == NetworkSpec::Kind::Torus) {
      const int forward = (to - from + size) % size;
      // The short way round. A tie (half way round) goes + except from the middle
      // coordinate size/2, which goes -: SimGrid's TorusZone rule, so that choreo sim, the
      // cost model and SMPI route every message alike.
      const bool tie = 2 * forward == size;
      if (tie ? from != size / 2 : forward < size - forward) {
        steps = forward;
      } else {
        steps = size - forward;
        dir = 1;
      }
    } else {
      steps = std::abs(to - from);
      dir = to > from ? 0 : 1;
    }
    for (int k = 0; k < steps; ++k) {
      f(n(at) * 2 * dims + 2 * d + static_cast<std::size_t>(dir));
      const int coordinate = (at / stride) % size;
      const int next = dir == 0 ? (coordinate + 1) % size : (coordinate + size - 1) % size;
      at += (next - coordinate) * stride;
    }
  }
  f(router_links + 2 * n(dst_node) + 1);
}

Links::Reservation Links::reserve(int src_rank, int dst_rank, std::int64_t ready,
                                  std::int64_t hold) {
  const int src = node_of(src_rank), dst = node_of(dst_rank);
  if (src == dst) return {ready, 0};  // ranks of one node talk through memory
  Reservation r{ready, 0};
  for_each_link(src, dst, [&](std::size_t link) {
    r.start = std::max(r.start, free_[link]);
    ++r.hops;
  });
  for_each_link(src, dst, [&](std::size_t link) {
    free_[link] = r.start + hold;
    busy_[link] += hold;
    ++messages_[link];
  });
  return r;
}

void Links::route(int src_rank, int dst_rank, std::vector<std::uint32_t>& out) const {
  const int src = node_of(src_rank), dst = node_of(dst_rank);
  if (src == dst) return;
  for_each_link(src, dst,
                [&](std::size_t link) { out.push_back(static_cast<std::uint32_t>(link)); });
}

std::string Links::link_name(std::size_t link) const {
  const std::size_t dims = spec_.dims.size();
  const std::size_t router_links = static_cast<std::size_t>(nodes_) * 2 * dims;
  if (link >= router_links) {
    const std::size_t k = link - router_links;
    return fmt::format("node {} {}", k / 2, k % 2 == 0 ? "injection" : "ejection");
  }
  const std::size_t node = link / (2 * dims), d = (link / 2) % dims;
  return fmt::format("node {} {}{}", node, link % 2 == 0 ? '+' : '-',
                     "xyzwvu"[std::min<std::size_t>(d, 5)]);
}

std::vector<LinkLoad> Links::loads() const {
  std::vector<LinkLoad> out;
  for (std::size_t l = 0; l < busy_.size(); ++l)
    if (messages_[l] > 0) out.push_back({link_name(l), busy_[l], messages_[l]});
  std::stable_sort(out.begin(), out.end(),
                   [](const LinkLoad& a, const LinkLoad& b) { return a.busy_ns > b.busy_ns; });
  return out;
}

}  // namespace choreo
