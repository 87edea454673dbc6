#pragma once
// The `fair` sharing rule: messages in the network are flows, and every link divides its
// bandwidth (1 / link_G bytes per ns) equally among the flows crossing it; a flow moves at
// the smallest share along its route, and rates change whenever a flow starts or ends. A
// flow's lag (time taken minus the time its bytes would take alone) delays the moment its
// last byte lands; a flow alone has no lag, so contention-free traffic keeps the ideal
// network's times.
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "../topo/links.hpp"
#include "choreo/core/compact_schedule.hpp"

namespace choreo::sim {

class Flows {
 public:
  Flows(Links& links, double link_G) : links_(links), link_G_(link_G) {}

  /// A flow end the engine must queue; stale ones (an older version) are ignored later.
  struct EndEvent {
    std::uint32_t flow;
    std::uint32_t version;
    std::int64_t time;
  };

  /// Starts the flow of `send_op` (bytes from src to dst ranks) at `now`; returns its id.
  /// Ends to (re)queue are appended to `ends`.
  std::uint32_t start(OpIndex send_op, int src_rank, int dst_rank, std::int64_t bytes,
                      std::int64_t now, std::vector<EndEvent>& ends);
  /// Handles an end event; false if it was stale. On true the flow is finished and its
  /// links are released (ends of the flows sharing them are re-queued into `ends`).
  bool finish(std::uint32_t flow, std::uint32_t version, std::int64_t now,
              std::vector<EndEvent>& ends);

  bool active(std::uint32_t flow) const { return flows_[flow].active; }
  std::uint32_t flow_of(OpIndex send_op) const;
  std::uint32_t hops(std::uint32_t flow) const;  ///< links on the flow's route

  /// When the flow's first byte would arrive had it never shared: its start + `latency`.
  std::int64_t unshared_due(std::uint32_t flow, std::int64_t latency) const;
  /// Once the flow has ended: its lag, the time it took minus the time its bytes take alone.
  std::int64_t lag(std::uint32_t flow) const;
  /// While active: when it ends if its rate stays as it is (the engine checks again then).
  std::int64_t projected_end(std::uint32_t flow) const;

 private:
  struct Flow {
    OpIndex send_op = 0;
    double bytes = 0, remaining = 0;
    double rate = 0;                                              ///< bytes per ns
    std::int64_t updated = 0, started = 0, alone = 0, delay = 0;  ///< delay: once ended
    std::uint32_t version = 0;
    std::uint32_t first_link = 0, links = 0;  ///< into route_links_
    bool active = false;
  };

  void advance(Flow& f, std::int64_t now);
  void reshare(const Flow& changed, std::int64_t now, std::vector<EndEvent>& ends);
  double share(const Flow& f) const;

  Links& links_;
  double link_G_;
  std::vector<Flow> flows_;
  std::vector<std::uint32_t> route_links_;
  std::vector<std::vector<std::uint32_t>> on_link_;  ///< active flows per link
  std::unordered_map<OpIndex, std::uint32_t> by_send_;
  std::vector<std::uint32_t> touched_;  ///< reshare's work list
};

}  // namespace choreo::sim
