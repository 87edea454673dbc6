#include "tcp_switch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "choreo/core/error.hpp"

namespace choreo::sim {

TcpSwitch::TcpSwitch(Links& links, const TcpSpec& spec, double link_G, std::int64_t latency,
                     std::int64_t hop_latency)
    : links_(links),
      spec_(spec),
      link_G_(link_G),
      to_switch_(latency / 2 + hop_latency),
      from_switch_(latency - latency / 2 + hop_latency),
      ack_delay_(latency + 2 * hop_latency) {}

std::uint32_t TcpSwitch::connection(int src_node, int dst_node) {
  if (ports_.empty()) {
    ports_.resize(static_cast<std::size_t>(links_.nodes()));
    injection_free_.assign(static_cast<std::size_t>(links_.nodes()), 0);
  }
  const auto key =
      (static_cast<std::uint64_t>(src_node) << 32) | static_cast<std::uint32_t>(dst_node);
  auto [it, added] =
      connection_of_.try_emplace(key, static_cast<std::uint32_t>(connections_.size()));
  if (added) {
    Connection c;
    c.src_node = src_node;
    c.dst_node = dst_node;
    c.window = static_cast<double>(spec_.initial_window);
    c.threshold = 1e18;  // no slow-start threshold until the first loss
    c.rto = spec_.rto_min;
    connections_.push_back(std::move(c));
  }
  return it->second;
}

std::int64_t TcpSwitch::segment_bytes(const Connection& c, std::uint64_t segment) const {
  // The message holding the segment: messages are in segment order.
  auto it = std::upper_bound(c.messages.begin(), c.messages.end(), segment,
                             [](std::uint64_t s, const Message& m) { return s < m.end; });
  const auto offset = static_cast<std::int64_t>(segment - it->first) * spec_.mss;
  return std::min(spec_.mss, it->bytes - offset);
}

std::uint32_t TcpSwitch::schedule(std::int64_t time, Pending p, std::vector<Wakeup>& wakeups) {
  std::uint32_t id = 0;
  if (free_ids_.empty()) {
    id = static_cast<std::uint32_t>(pending_.size());
    pending_.push_back(p);
  } else {
    id = free_ids_.back();
    free_ids_.pop_back();
    pending_[id] = p;
  }
  wakeups.push_back({time, id});
  return id;
}

bool TcpSwitch::start(OpIndex send_op, int src_rank, int dst_rank, std::int64_t bytes,
                      std::int64_t now, std::vector<Wakeup>& wakeups) {
  const int src = links_.node_of(src_rank), dst = links_.node_of(dst_rank);
  if (src == dst) return false;
  const std::uint32_t id = connection(src, dst);
  Connection& c = connections_[id];
  // Linux restarts slow start on a connection idle for longer than its RTO
  // (tcp_slow_start_after_idle).
  if (c.una == c.queued && now - c.last_activity > c.rto)
    c.window = std::min(c.window, static_cast<double>(spec_.initial_window));
  // Every segment is simulated: a message of billions of them would run for hours.
  constexpr std::int64_t kMostSegments = std::int64_t{1} << 26;
  if (bytes / spec_.mss >= kMostSegments)
    throw Error(
        fmt::format("a message of {} bytes is {} segments of {} bytes; the tcp rule "
                    "simulates every segment, at most 2^26 a message: use a larger "
                    "--mss, fewer bytes, or --sharing serialize",
                    bytes, bytes / spec_.mss + (bytes % spec_.mss != 0 ? 1 : 0), spec_.mss));
  const auto segments = static_cast<std::uint64_t>(std::max<std::int64_t>(
      1, (bytes + spec_.mss - 1) / spec_.mss));  // an empty message still sends a header
  c.messages.push_back({send_op, c.queued, c.queued + segments, bytes});
  c.queued += segments;
  arrived_[send_op] = -1;
  const auto wire = std::llround(static_cast<double>(bytes) * link_G_);
  links_.record(static_cast<std::uint32_t>(2 * src), wire);
  links_.record(static_cast<std::uint32_t>(2 * dst + 1), wire);
  send_window(id, now, wakeups);
  return true;
}

void TcpSwitch::transmit(std::uint32_t id, std::uint64_t segment, std::int64_t now,
                         std::vector<Wakeup>& wakeups) {
  Connection& c = connections_[id];
  const std::int64_t bytes = segment_bytes(c, segment);
  std::int64_t& link = injection_free_[static_cast<std::size_t>(c.src_node)];
  link = std::max(link, now) + std::llround(static_cast<double>(bytes) * link_G_);
  ++stats_.segments;
  if (segment < c.highest) ++stats_.retransmissions;
  c.highest = std::max(c.highest, segment + 1);
  c.last_activity = now;
  schedule(link + to_switch_, {Kind::AtSwitch, id, segment, bytes}, wakeups);
  if (!c.timer_running) arm_timer(id, now, wakeups);
}

/// Sends what the window allows, from `next` on.
void TcpSwitch::send_window(std::uint32_t id, std::int64_t now, std::vector<Wakeup>& wakeups) {
  Connection& c = connections_[id];
  while (c.next < c.queued && static_cast<double>(c.next - c.una) < std::floor(c.window)) {
    const std::uint64_t segment = c.next++;
    transmit(id, segment, now, wakeups);
  }
}

void TcpSwitch::arm_timer(std::uint32_t id, std::int64_t now, std::vector<Wakeup>& wakeups) {
  Connection& c = connections_[id];
  c.timer_running = true;
  schedule(now + c.rto, {Kind::Timeout, id, ++c.timer_version, 0}, wakeups);
}

/// A segment reaches the output port towards its receiver: queued behind what the port
/// holds, or dropped if that leaves no room for it.
void TcpSwitch::at_switch(std::uint32_t id, std::uint64_t segment, std::int64_t bytes,
                          std::int64_t now, std::vector<Wakeup>& wakeups) {
  const Connection& c = connections_[id];
  Port& port = ports_[static_cast<std::size_t>(c.dst_node)];
  while (port.head < port.leaving.size() && port.leaving[port.head].first <= now)
    port.queued_bytes -= port.leaving[port.head++].second;
  if (port.head > 1024 && port.head * 2 > port.leaving.size()) {
    port.leaving.erase(port.leaving.begin(),
                       port.leaving.begin() + static_cast<std::ptrdiff_t>(port.head));
    port.head = 0;
  }
  if (port.queued_bytes + bytes > spec_.port_buffer) {
    ++stats_.drops;
    return;
  }
  port.free = std::max(port.free, now) + std::llround(static_cast<double>(bytes) * link_G_);
  port.queued_bytes += bytes;
  port.leaving.emplace_back(port.free, bytes);
  stats_.fullest_port = std::max(stats_.fullest_port, port.queued_bytes);
  schedule(port.free + from_switch_, {Kind::AtReceiver, id, segment, 0}, wakeups);
}

/// The receiver keeps the segment, delivers the messages it completes in order, and
/// acknowledges at once with the next segment it expects.
void TcpSwitch::at_receiver(std::uint32_t id, std::uint64_t segment, std::int64_t now,
                            std::vector<Wakeup>& wakeups, std::vector<Delivered>& delivered) {
  Connection& c = connections_[id];
  if (segment == c.expected) {
    ++c.expected;
    while (!c.out_of_order.empty() && *c.out_of_order.begin() == c.expected) {
      c.out_of_order.erase(c.out_of_order.begin());
      ++c.expected;
    }
    while (c.delivered < c.messages.size() && c.messages[c.delivered].end <= c.expected) {
      const OpIndex op = c.messages[c.delivered++].send_op;
      arrived_.at(op) = now;
      delivered.push_back({op, now});
    }
  } else if (segment > c.expected) {
    c.out_of_order.insert(segment);
  }
  schedule(now + ack_delay_, {Kind::Ack, id, c.expected, 0}, wakeups);
}

void TcpSwitch::ack(std::uint32_t id, std::uint64_t number, std::int64_t now,
                    std::vector<Wakeup>& wakeups) {
  Connection& c = connections_[id];
  c.last_activity = now;
  if (number > c.una) {
    const auto acked = static_cast<double>(number - c.una);
    if (c.recovering && number < c.recover) {
      // NewReno's partial ACK: the next hole is lost too; resend it at once.
      c.window = std::max(1.0, c.window - acked + 1);
      c.una = number;
      c.next = std::max(c.next, c.una);
      ++stats_.fast_retransmits;
      transmit(id, c.una, now, wakeups);
    } else {
      if (c.recovering) {
        c.recovering = false;
        c.window = c.threshold;
      } else if (c.window < c.threshold) {
        c.window += acked;  // slow start
      } else {
        c.window += acked / c.window;  // congestion avoidance
      }
      c.una = number;
      c.next = std::max(c.next, c.una);
    }
    c.duplicates = 0;
    c.rto = spec_.rto_min;
    while (!c.messages.empty() && c.messages.front().end <= c.una) {
      c.messages.pop_front();
      --c.delivered;
    }
    // The timer restarts with each new ACK while data is out (RFC 6298, 5.3).
    ++c.timer_version;
    c.timer_running = false;
    if (c.una < c.highest) arm_timer(id, now, wakeups);
  } else if (number == c.una && c.una < c.highest) {
    ++c.duplicates;
    if (c.recovering) {
      c.window += 1;  // each duplicate: a segment has left the network
    } else if (c.duplicates == 3 && c.una >= c.recover) {
      c.threshold = std::max(2.0, static_cast<double>(c.highest - c.una) / 2);
      c.window = c.threshold + 3;
      c.recovering = true;
      c.recover = c.highest;
      ++stats_.fast_retransmits;
      transmit(id, c.una, now, wakeups);
    }
  }
  send_window(id, now, wakeups);
}

/// No ACK for an RTO: everything unacknowledged is taken as lost; one segment at a time
/// from the first of them, the RTO doubled until an ACK comes.
void TcpSwitch::timeout(std::uint32_t id, std::uint64_t version, std::int64_t now,
                        std::vector<Wakeup>& wakeups) {
  Connection& c = connections_[id];
  if (version != c.timer_version || !c.timer_running) return;  // restarted or stopped since
  c.timer_running = false;
  if (c.una >= c.highest) return;
  ++stats_.timeouts;
  c.threshold = std::max(2.0, static_cast<double>(c.highest - c.una) / 2);
  c.window = 1;
  c.recovering = false;
  c.duplicates = 0;
  c.recover = c.highest;
  c.next = c.una;
  c.rto = std::min(spec_.rto_max, 2 * c.rto);
  send_window(id, now, wakeups);  // resends `una`, which arms the timer with the new RTO
}

void TcpSwitch::handle(std::uint32_t id, std::int64_t now, std::vector<Wakeup>& wakeups,
                       std::vector<Delivered>& delivered) {
  const Pending p = pending_[id];
  free_ids_.push_back(id);
  switch (p.kind) {
    case Kind::AtSwitch:
      return at_switch(p.connection, p.value, p.bytes, now, wakeups);
    case Kind::AtReceiver:
      return at_receiver(p.connection, p.value, now, wakeups, delivered);
    case Kind::Ack:
      return ack(p.connection, p.value, now, wakeups);
    case Kind::Timeout:
      return timeout(p.connection, p.value, now, wakeups);
  }
}

std::size_t TcpSwitch::memory_bytes() const {
  std::size_t bytes = connections_.size() * sizeof(Connection) + pending_.size() * sizeof(Pending) +
                      ports_.size() * sizeof(Port) + injection_free_.size() * sizeof(std::int64_t);
  for (const auto& p : ports_) bytes += p.leaving.capacity() * sizeof(p.leaving[0]);
  return bytes;
}

}  // namespace choreo::sim
