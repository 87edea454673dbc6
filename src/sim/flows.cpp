#include "flows.hpp"

#include <algorithm>
#include <cmath>

namespace choreo::sim {

double Flows::share(const Flow& f) const {
  std::size_t most = 1;
  for (std::uint32_t k = 0; k < f.links; ++k)
    most = std::max(most, on_link_[route_links_[f.first_link + k]].size());
  return 1.0 / (link_G_ * static_cast<double>(most));
}

void Flows::advance(Flow& f, std::int64_t now) {
  f.remaining = std::max(0.0, f.remaining - f.rate * static_cast<double>(now - f.updated));
  f.updated = now;
}

/// Every flow sharing a link with `changed` gets its new rate and a new end.
void Flows::reshare(const Flow& changed, std::int64_t now, std::vector<EndEvent>& ends) {
  std::vector<std::uint32_t>& touched = touched_;  // kept: reshares come by the thousand
  touched.clear();
  for (std::uint32_t k = 0; k < changed.links; ++k)
    for (std::uint32_t id : on_link_[route_links_[changed.first_link + k]]) touched.push_back(id);
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  for (std::uint32_t id : touched) {
    Flow& f = flows_[id];
    advance(f, now);
    f.rate = share(f);
    ++f.version;
    const auto left = static_cast<std::int64_t>(std::ceil(f.remaining / f.rate - 1e-9));
    ends.push_back({id, f.version, now + std::max<std::int64_t>(0, left)});
  }
}

std::uint32_t Flows::start(OpIndex send_op, int src_rank, int dst_rank, std::int64_t bytes,
                           std::int64_t now, std::vector<EndEvent>& ends) {
  if (on_link_.empty()) on_link_.resize(links_.link_count());
  const auto id = static_cast<std::uint32_t>(flows_.size());
  Flow f;
  f.send_op = send_op;
  f.bytes = f.remaining = static_cast<double>(bytes);
  f.updated = f.started = now;
  f.alone = std::llround(static_cast<double>(bytes) * link_G_);
  f.first_link = static_cast<std::uint32_t>(route_links_.size());
  links_.route(src_rank, dst_rank, route_links_);
  f.links = static_cast<std::uint32_t>(route_links_.size()) - f.first_link;
  f.active = true;
  flows_.push_back(f);
  by_send_[send_op] = id;
  for (std::uint32_t k = 0; k < f.links; ++k)
    on_link_[route_links_[f.first_link + k]].push_back(id);
  if (f.links == 0) {  // within a node: no links, no sharing
    ends.push_back({id, 0, now});
    return id;
  }
  reshare(flows_[id], now, ends);
  return id;
}

bool Flows::finish(std::uint32_t id, std::uint32_t version, std::int64_t now,
                   std::vector<EndEvent>& ends) {
  Flow& f = flows_[id];
  if (!f.active || version != f.version) return false;
  f.active = false;
  f.delay = std::max<std::int64_t>(0, (now - f.started) - f.alone);
  for (std::uint32_t k = 0; k < f.links; ++k) {
    const std::uint32_t link = route_links_[f.first_link + k];
    auto& on = on_link_[link];
    on.erase(std::find(on.begin(), on.end(), id));
    links_.record(link, f.alone);  // the time the link spent on this flow's bytes
  }
  reshare(f, now, ends);
  return true;
}

std::uint32_t Flows::flow_of(OpIndex send_op) const { return by_send_.at(send_op); }

std::uint32_t Flows::hops(std::uint32_t flow) const { return flows_[flow].links; }

std::int64_t Flows::unshared_due(std::uint32_t flow, std::int64_t latency) const {
  return flows_[flow].started + latency;
}

std::int64_t Flows::lag(std::uint32_t flow) const { return flows_[flow].delay; }

std::int64_t Flows::projected_end(std::uint32_t flow) const {
  const Flow& f = flows_[flow];  // `remaining` is as of `updated`
  const auto left = static_cast<std::int64_t>(std::ceil(f.remaining / f.rate - 1e-9));
  return f.updated + std::max<std::int64_t>(0, left);
}

}  // namespace choreo::sim
