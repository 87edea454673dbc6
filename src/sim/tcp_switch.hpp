#pragma once
// The `tcp` sharing rule: a lossy switch. Messages between nodes cross the switch as TCP
// segments on one connection per ordered pair of nodes (as MPI's TCP transports keep them).
// Each of the switch's output ports (the ejection link towards a node) has a FIFO buffer of
// `port_buffer` bytes, counting the segment it is sending; a segment that arrives to a full
// buffer is dropped. Senders follow NewReno: a window of segments (slow start from the
// initial window, then one segment per window's worth of ACKs), fast retransmit on the third
// duplicate ACK with the window halved, and a retransmission timeout of `rto_min` doubled per
// consecutive timeout, after which the window is one segment and sending goes back to the
// first unacknowledged segment. The receiver keeps out-of-order segments and acknowledges
// every segment at once. ACKs take the one-way latency back and are never queued or lost.
// docs/sim-model.md states every rule and the defaults' sources.
#include <cstdint>
#include <deque>
#include <set>
#include <unordered_map>
#include <vector>

#include "../topo/links.hpp"
#include "choreo/core/compact_schedule.hpp"
#include "choreo/sim/engine.hpp"

namespace choreo::sim {

class TcpSwitch {
 public:
  /// `latency`: the one-way latency node to node (LogGOPS L), split between the injection
  /// and the ejection link; `hop_latency` is added per link; `link_G` ns per byte per link.
  TcpSwitch(Links& links, const TcpSpec& spec, double link_G, std::int64_t latency,
            std::int64_t hop_latency);

  /// An internal event (a segment reaching the switch or a node, an ACK, a timer) that the
  /// engine queues at `time` and hands back to handle().
  struct Wakeup {
    std::int64_t time;
    std::uint32_t id;
  };
  /// A message whose every byte reached its receiver, in order, at `time`.
  struct Delivered {
    OpIndex send_op;
    std::int64_t time;
  };

  /// Sends `bytes` of `send_op` from `src_rank`'s node to `dst_rank`'s, entering the
  /// network at `now`; false if both ranks share a node (no network is crossed).
  bool start(OpIndex send_op, int src_rank, int dst_rank, std::int64_t bytes, std::int64_t now,
             std::vector<Wakeup>& wakeups);
  void handle(std::uint32_t id, std::int64_t now, std::vector<Wakeup>& wakeups,
              std::vector<Delivered>& delivered);

  bool carries(OpIndex send_op) const { return arrived_.contains(send_op); }
  /// When the message's last byte reached its receiver; -1 while it has not.
  std::int64_t arrived(OpIndex send_op) const { return arrived_.at(send_op); }
  /// Forgets a delivered message once the engine has used it.
  void forget(OpIndex send_op) { arrived_.erase(send_op); }

  const TcpStats& stats() const { return stats_; }
  std::size_t memory_bytes() const;

 private:
  struct Message {
    OpIndex send_op;
    std::uint64_t first, end;  ///< its segments [first, end) on the connection
    std::int64_t bytes;
  };
  struct Connection {
    int src_node = 0, dst_node = 0;
    std::deque<Message> messages;  ///< not yet acknowledged, in order
    std::uint64_t queued = 0;      ///< segments handed to the connection so far
    // sender
    std::uint64_t una = 0, next = 0, highest = 0;  ///< highest: one past the highest sent
    double window = 0, threshold = 0;
    int duplicates = 0;
    bool recovering = false;
    std::uint64_t recover = 0;  ///< NewReno: recovery ends when this is acknowledged
    std::int64_t rto = 0, last_activity = 0;
    std::uint32_t timer_version = 0;
    bool timer_running = false;
    // receiver
    std::uint64_t expected = 0;  ///< next in-order segment
    std::set<std::uint64_t> out_of_order;
    std::size_t delivered = 0;  ///< messages[0, delivered) are delivered
  };
  struct Port {  ///< a switch output port: segments accepted and when each leaves it
    std::int64_t free = 0, queued_bytes = 0;
    std::vector<std::pair<std::int64_t, std::int64_t>> leaving;  ///< (end, bytes), FIFO
    std::size_t head = 0;
  };
  enum class Kind : std::uint8_t { AtSwitch, AtReceiver, Ack, Timeout };
  struct Pending {
    Kind kind;
    std::uint32_t connection;
    std::uint64_t value;  ///< the segment, the ACK's number or the timer's version
    std::int64_t bytes;   ///< a segment's payload (it may be acknowledged while in flight)
  };

  std::uint32_t connection(int src_node, int dst_node);
  std::int64_t segment_bytes(const Connection& c, std::uint64_t segment) const;
  std::uint32_t schedule(std::int64_t time, Pending p, std::vector<Wakeup>& wakeups);
  void transmit(std::uint32_t c, std::uint64_t segment, std::int64_t now,
                std::vector<Wakeup>& wakeups);
  void send_window(std::uint32_t c, std::int64_t now, std::vector<Wakeup>& wakeups);
  void arm_timer(std::uint32_t c, std::int64_t now, std::vector<Wakeup>& wakeups);
  void at_switch(std::uint32_t c, std::uint64_t segment, std::int64_t bytes, std::int64_t now,
                 std::vector<Wakeup>& wakeups);
  void at_receiver(std::uint32_t c, std::uint64_t segment, std::int64_t now,
                   std::vector<Wakeup>& wakeups, std::vector<Delivered>& delivered);
  void ack(std::uint32_t c, std::uint64_t number, std::int64_t now, std::vector<Wakeup>& wakeups);
  void timeout(std::uint32_t c, std::uint64_t version, std::int64_t now,
               std::vector<Wakeup>& wakeups);

  Links& links_;
  const TcpSpec spec_;
  const double link_G_;
  const std::int64_t to_switch_, from_switch_, ack_delay_;  ///< propagation, ns
  std::vector<Connection> connections_;
  std::unordered_map<std::uint64_t, std::uint32_t> connection_of_;  ///< by node pair
  std::vector<std::int64_t> injection_free_;                        ///< per node
  std::vector<Port> ports_;                                         ///< per node
  std::vector<Pending> pending_;
  std::vector<std::uint32_t> free_ids_;
  std::unordered_map<OpIndex, std::int64_t> arrived_;  ///< messages in the network
  TcpStats stats_;
};

}  // namespace choreo::sim
