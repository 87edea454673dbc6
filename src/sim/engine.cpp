// The event loop. It follows LogGOPSim's LogGP mode rule for rule, so that both give the
// same times on the same GOAL file: per host, the next time its CPU (o) and its NIC's send
// and receive gaps (g) are free; events ordered by time, then by when they were first
// queued; ops released by an event queued after it, by host, sends before receives before
// local ops. docs/sim-model.md states the rules.
#include "choreo/sim/engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "../core/huge_pages.hpp"
#include "../topo/links.hpp"
#include "choreo/core/checked.hpp"
#include "choreo/core/error.hpp"
#include "choreo/core/limits.hpp"
#include "event_queue.hpp"
#include "flows.hpp"
#include "tcp_switch.hpp"

namespace choreo::sim {
namespace {

enum class EventType : std::uint8_t {
  Send = 1,
  Recv = 2,
  Local = 3,
  Message = 4,
  FlowEnd = 5,
  Landed = 6,
  Net = 7  ///< the tcp switch's own: a segment, an ACK or a timer (op: its id)
};

struct Event {
  std::int64_t time;
  std::uint64_t order;  ///< first-queued order: breaks ties between equal times
  OpIndex op;           ///< the op; for a Message, the send; for a FlowEnd, the flow
  std::uint32_t host;   ///< where it happens; for a Message, the receiver; FlowEnd: version
  EventType type;
};

/// A posted receive waiting for its message (receive queue), or a message that arrived
/// before its receive (unexpected queue).
struct Pending {
  OpIndex op;  ///< the receive, or the message's send
  std::int32_t source;
  std::int32_t tag;
  std::int64_t landed = 0;  ///< an unexpected message: when its last byte is in memory
};

bool matches(std::int32_t wanted_source, std::int32_t wanted_tag, const Pending& p) {
  return (wanted_source == kAny || p.source == kAny || p.source == wanted_source) &&
         (wanted_tag == kAny || p.tag == kAny || p.tag == wanted_tag);
}

/// Removes and returns the first matching entry, in queue order (MPI's matching order).
bool take_match(std::vector<Pending>& queue, std::int32_t source, std::int32_t tag, Pending& out) {
  for (auto it = queue.begin(); it != queue.end(); ++it)
    if (matches(source, tag, *it)) {
      out = *it;
      queue.erase(it);
      return true;
    }
  return false;
}

/// Runs a CompactSchedule or a ShapedSchedule: the same rules over either's ops. Counter holds
/// each op's dependencies still to meet: one byte where no op has more than 255 (every
/// generated collective), which at 2^23 ranks is 1.7 GB less than four bytes.
template <class Schedule, class Counter>
class Engine {
 public:
  Engine(const Schedule& s, const SimOptions& options)
      : s_(s),
        p_(options.params),
        links_(options.network, s.ranks()),
        link_G_(options.network.link_G < 0 ? options.params.G : options.network.link_G),
        hop_latency_(options.network.hop_latency),
        noise_(options.noise, s.ranks()),
        fair_(!links_.ideal() && options.network.sharing == NetworkSpec::Sharing::Fair),
        tcp_on_(!links_.ideal() && options.network.sharing == NetworkSpec::Sharing::Tcp),
        dma_receive_(options.dma_receive),
        flows_(links_, link_G_),
        tcp_(links_, options.network.tcp, link_G_, options.params.L, hop_latency_),
        hosts_(static_cast<std::size_t>(s.ranks())),
        cpus_(static_cast<std::size_t>(s.cpus())),
        nics_(static_cast<std::size_t>(s.nics())),
        next_o_(hosts_ * cpus_, 0),
        next_gs_(hosts_ * nics_, 0),
        next_gr_(hosts_ * nics_, 0),
        waiting_(s.op_count()),
        receives_(hosts_),
        unexpected_(hosts_),
        owner_(s.op_count()) {
    for (OpIndex i = 0; i < s.op_count(); ++i)
      waiting_[i] = static_cast<Counter>(s.dependency_count(i));
    // One flag per op, only when some op has a first-of group: set while the group waits for
    // its first member.
    if (s.has_any_groups()) {
      any_open_.assign(s.op_count(), 0);
      for (OpIndex i = 0; i < s.op_count(); ++i)
        s.for_each_any_dependent(i, [&](OpIndex d) { any_open_[d] = 1; });
    }
    last_landed_.assign(hosts_, 0);
    for (int r = 0; r < s.ranks(); ++r)
      std::fill(owner_.begin() + s.first_op(r), owner_.begin() + s.first_op(r + 1),
                static_cast<std::uint32_t>(r));
    if (options.record_ops) {
      result_.op_start.assign(s.op_count(), -1);
      result_.op_end.assign(s.op_count(), -1);
      result_.matched_receive.assign(s.op_count(), kUnmatched);
    }
  }

  SimResult run() {
    auto wall_start = std::chrono::steady_clock::now();
    for (int r = 0; r < s_.ranks(); ++r) {
      for (OpIndex i = s_.first_op(r); i < s_.first_op(r + 1); ++i)
        if (waiting_[i] == 0) released_.push_back(i);
      queue_released(/*at_start=*/true);
    }
    while (queue_.next_batch()) {
      auto& batch = queue_.batch();
      for (std::size_t i = 0; i < batch.size(); ++i) {  // the batch grows as events queue
        Event e = batch[i];
        process(e);
        queue_released(false);
      }
    }
    result_.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    check_everything_ran();
    result_.finish.resize(hosts_);
    for (std::size_t h = 0; h < hosts_; ++h) {
      auto first = next_o_.begin() + static_cast<std::ptrdiff_t>(h * cpus_);
      result_.finish[h] = std::max(
          *std::max_element(first, first + static_cast<std::ptrdiff_t>(cpus_)), last_landed_[h]);
      result_.makespan = std::max(result_.makespan, result_.finish[h]);
    }
    result_.schedule_bytes = s_.memory_bytes();
    result_.links = links_.loads();
    result_.tcp = tcp_.stats();
    result_.state_bytes =
        queue_.peak() * sizeof(Event) +
        (next_o_.size() + next_gs_.size() + next_gr_.size()) * sizeof(std::int64_t) +
        waiting_.size() * sizeof(Counter) + owner_.size() * sizeof(std::uint32_t) +
        any_open_.size() + (receives_.size() + unexpected_.size()) * sizeof(receives_[0]) +
        (result_.op_start.size() + result_.op_end.size()) * sizeof(std::int64_t) +
        result_.matched_receive.size() * sizeof(OpIndex) + tcp_.memory_bytes();
    return std::move(result_);
  }

 private:
  std::int64_t& cpu_free(std::uint32_t host, OpIndex op) {
    return next_o_[host * cpus_ + s_.cpu(op)];
  }
  std::int64_t& send_gap_free(std::uint32_t host, OpIndex op) {
    return next_gs_[host * nics_ + s_.nic(op)];
  }
  std::int64_t& recv_gap_free(std::uint32_t host, OpIndex op) {
    return next_gr_[host * nics_ + s_.nic(op)];
  }
  /// (bytes - 1) x rate in whole ns. Beyond 10^15 ns (the longest op choreo takes) it is an
  /// error, so that adding it to a clock below kMaxSimulatedTime cannot overflow.
  std::int64_t per_byte(double rate, std::int64_t bytes) const {
    if (bytes <= 1) return 0;
    const double ns = rate * static_cast<double>(bytes - 1);
    if (!(ns <= static_cast<double>(limits::kMaxNanoseconds)))
      throw Error(
          fmt::format("a message of {} bytes at {} ns per byte takes {:.3g} ns, more than "
                      "the 10^15 ns choreo simulates per step; use smaller sizes or rates",
                      bytes, rate, ns));
    return std::llround(ns);
  }

  /// Queues a new event: ops and messages are what LogGOPSim counts as events. Every time
  /// the engine forms is an event's time plus at most a few op lengths, gaps or transfers
  /// (each at most 10^15 ns), so bounding event times keeps all of them far from overflow.
  void push(std::int64_t time, std::uint64_t order, OpIndex op, std::uint32_t host,
            EventType type) {
    check_clock(time);
    queue_.push(Event{time, order, op, host, type});
    ++result_.events;
  }

  void started(OpIndex op, std::int64_t time) {
    if (!result_.op_start.empty()) result_.op_start[op] = time;
    s_.for_each_started_dependent(op, [&](OpIndex d) { release(d); });
  }
  void completed(OpIndex op, std::int64_t time) {
    if (!result_.op_end.empty()) result_.op_end[op] = time;
    ++completed_;
    s_.for_each_completed_dependent(op, [&](OpIndex d) { release(d); });
    s_.for_each_any_dependent(op, [&](OpIndex d) {
      if (any_open_[d] == 0) return;  // an earlier member met the group
      any_open_[d] = 0;
      release(d);
    });
  }
  void matched(OpIndex send_op, OpIndex receive_op) {
    if (!result_.matched_receive.empty()) result_.matched_receive[send_op] = receive_op;
  }
  void release(OpIndex op) {
    if (--waiting_[op] == 0) released_.push_back(op);
  }

  static EventType type_of(OpKind kind) {
    switch (kind) {
      case OpKind::Send:
        return EventType::Send;
      case OpKind::Recv:
        return EventType::Recv;
      default:
        return EventType::Local;
    }
  }

  /// Queues the ops that became ready, as LogGOPSim does after each event: hosts in order,
  /// and within a host sends, then receives, then local ops, each in program order. An op
  /// is queued for when its host's resources are next free.
  void queue_released(bool at_start) {
    if (released_.empty()) return;
    std::sort(released_.begin(), released_.end(), [&](OpIndex a, OpIndex b) {
      auto key = [&](OpIndex x) { return std::tuple(owner_[x], type_of(s_.kind(x)), x); };
      return key(a) < key(b);
    });
    for (OpIndex op : released_) {
      std::uint32_t host = owner_[op];
      EventType type = type_of(s_.kind(op));
      std::int64_t time = 0;
      if (!at_start) {
        time = cpu_free(host, op);
        if (type == EventType::Send) time = std::max(time, send_gap_free(host, op));
      }
      push(time, next_order_++, op, host, type);
    }
    released_.clear();
  }

  void process(Event& e) {
    switch (e.type) {
      case EventType::Local:
        return local_op(e);
      case EventType::Send:
        return send(e);
      case EventType::Recv:
        return post_receive(e);
      case EventType::Message:
        return arrive(e);
      case EventType::FlowEnd:
        return flow_end(e);
      case EventType::Landed:
        return land(e);
      case EventType::Net:
        return net_event(e);
    }
  }

  /// calc, delay and copy hold the CPU for their time (a copy costs nothing yet).
  void local_op(Event& e) {
    std::int64_t& cpu = cpu_free(e.host, e.op);
    if (cpu > e.time) return retry(e, cpu);
    std::int64_t length = s_.kind(e.op) == OpKind::Copy ? 0 : s_.amount(e.op);
    cpu = noise_.cpu_end(static_cast<int>(e.host), e.time, length);
    started(e.op, e.time);
    completed(e.op, cpu);
  }

  /// The CPU pays o + (s-1)O and the NIC g + (s-1)G; the first byte reaches the receiver
  /// after o + L. Eager messages complete at once; rendezvous ones when matched.
  void send(Event& e) {
    std::int64_t& cpu = cpu_free(e.host, e.op);
    std::int64_t& nic = send_gap_free(e.host, e.op);
    if (std::max(cpu, nic) > e.time) return retry(e, std::max(cpu, nic));
    const std::int64_t bytes = s_.amount(e.op);
    started(e.op, e.time);
    cpu = noise_.cpu_end(static_cast<int>(e.host), e.time, p_.o + per_byte(p_.O, bytes));
    nic = e.time + p_.g + per_byte(p_.G, bytes);
    const std::int64_t enters = noise_.network_ready(static_cast<int>(e.host), e.time + p_.o);
    push(arrival(e.host, e.op, enters), next_order_++, e.op,
         static_cast<std::uint32_t>(s_.peer(e.op)), EventType::Message);
    if (bytes <= p_.S) completed(e.op, cpu);
  }

  /// When the first byte reaches the receiver: L after it enters the network, later if a
  /// link on its route is taken (the route is then held for bytes x link_G).
  std::int64_t arrival(std::uint32_t host, OpIndex send_op, std::int64_t enters) {
    if (links_.ideal()) return enters + p_.L;
    if (fair_) {
      auto flow = flows_.start(send_op, static_cast<int>(host), s_.peer(send_op),
                               s_.amount(send_op), enters, ends_);
      queue_flow_ends();
      return enters + p_.L + hop_delay(flows_.hops(flow));
    }
    if (tcp_on_) {
      if (!tcp_.start(send_op, static_cast<int>(host), s_.peer(send_op), s_.amount(send_op), enters,
                      wakeups_))
        return enters + p_.L;  // within a node
      queue_wakeups();
      return enters + p_.L + hop_delay(2);
    }
    const auto hold = per_byte(link_G_, s_.amount(send_op) + 1);  // bytes x link_G
    auto r = links_.reserve(static_cast<int>(host), s_.peer(send_op), enters, hold);
    check_clock(r.start);
    return r.start + p_.L + hop_delay(r.hops);
  }

  void post_receive(Event& e) {
    started(e.op, e.time);
    Pending message{};
    if (take_match(unexpected_[e.host], s_.peer(e.op), s_.tag(e.op), message)) {
      matched(message.op, e.op);
      finish_rendezvous(message.op, e.time);
      completed(e.op, std::max(e.time, message.landed));
    } else {
      receives_[e.host].push_back({e.op, s_.peer(e.op), s_.tag(e.op)});
    }
  }

  /// The receiver's CPU pays o + max((s-1)O, (s-1)G) and its NIC g + (s-1)G, when both
  /// are free; then the message completes a posted receive or waits for one.
  void arrive(Event& e) {
    std::int64_t& cpu = cpu_free(e.host, e.op);
    std::int64_t& nic = recv_gap_free(e.host, e.op);
    // With DMA the NIC takes the bytes even while the CPU computes or sleeps (a paced
    // schedule's clock); the CPU pays its o when it is next free.
    const std::int64_t busy = dma_receive_ ? nic : std::max(cpu, nic);
    if (busy > e.time) return retry(e, busy);
    const std::int64_t bytes = s_.amount(e.op);
    const std::int64_t cpu_bytes = dma_receive_
                                       ? per_byte(p_.O, bytes)
                                       : std::max(per_byte(p_.O, bytes), per_byte(p_.G, bytes));
    cpu = noise_.cpu_end(static_cast<int>(e.host), std::max(cpu, e.time), p_.o + cpu_bytes);
    nic = e.time + p_.g + per_byte(p_.G, bytes);
    // With DMA the CPU is free before the bytes are all in; the receive is done when they are.
    const std::int64_t landed = dma_receive_ ? std::max(cpu, nic) : cpu;
    if (fair_ || (tcp_on_ && tcp_.carries(e.op))) {
      // The receiver took the bytes as the LogGP receive says; a flow slowed by sharing also
      // needs its lag: its last byte lands no earlier than `span` (the receive on a free
      // receiver) after its unshared first-byte time plus its whole lag, known at its end.
      landing_[e.op] = {landed, landed - e.time};
      return push(e.time, next_order_++, e.op, e.host, EventType::Landed);
    }
    deliver(e, landed);
  }

  /// Fair sharing and tcp: the second half of an arrival, once the message's lag is final.
  void land(Event& e) {
    if (tcp_on_) return land_tcp(e);
    const auto flow = flows_.flow_of(e.op);
    if (flows_.active(flow)) return retry(e, std::max(e.time, flows_.projected_end(flow)));
    const auto latency = p_.L + hop_delay(flows_.hops(flow));
    const auto [landed, span] = landing_.at(e.op);
    landing_.erase(e.op);
    deliver(e, std::max(landed, flows_.unshared_due(flow, latency) + flows_.lag(flow) + span));
  }

  /// As land() for a message of the tcp switch: it waits until the switch has delivered
  /// its last byte, and is received no earlier than that nor than the LogGP receive ends.
  void land_tcp(Event& e) {
    const std::int64_t arrived = tcp_.arrived(e.op);
    if (arrived < 0) {
      parked_.emplace(e.op, e);
      return;
    }
    const std::int64_t landed = landing_.at(e.op).first;
    landing_.erase(e.op);
    tcp_.forget(e.op);
    deliver(e, std::max(landed, arrived));
  }

  void net_event(Event& e) {
    tcp_.handle(e.op, e.time, wakeups_, delivered_);
    queue_wakeups();
    for (const auto& d : delivered_)
      if (auto it = parked_.find(d.send_op); it != parked_.end()) {
        Event landed = it->second;
        parked_.erase(it);
        landed.time = d.time;
        queue_.push(landed);  // keeps its order among events at this time
      }
    delivered_.clear();
  }

  /// The tcp switch's events are the simulator's own, like flow ends: not LogGOPSim's.
  void queue_wakeups() {
    for (const auto& w : wakeups_) {
      check_clock(w.time);
      queue_.push(Event{w.time, next_order_++, w.id, 0, EventType::Net});
    }
    wakeups_.clear();
  }

  /// The message's bytes are all in at `landed`: it completes a posted receive or waits.
  void deliver(Event& e, std::int64_t landed) {
    last_landed_[e.host] = std::max(last_landed_[e.host], landed);  // past the CPU: DMA, lag
    const auto source = static_cast<std::int32_t>(owner_[e.op]);
    Pending receive{};
    if (take_match(receives_[e.host], source, s_.tag(e.op), receive)) {
      matched(e.op, receive.op);
      finish_rendezvous(e.op, e.time);
      completed(receive.op, landed);
    } else {
      unexpected_[e.host].push_back({e.op, source, s_.tag(e.op), landed});
    }
  }

  void flow_end(Event& e) {
    FlowEndInQueue& queued = flow_end_in_queue_[e.op];
    if (e.time == queued.time && e.host == queued.version) {  // the flow's earliest end queued
      queued.time = -1;
      if (queued.held) {  // a later end was held back: queue it now
        queue_.push(queued.deferred);
        queued.time = queued.deferred.time;
        queued.version = queued.deferred.host;
        queued.held = false;
      }
    }
    if (flows_.finish(e.op, e.host, e.time, ends_)) queue_flow_ends();  // else a stale end
  }

  /// Flow ends are the simulator's own events: not counted among LogGOPSim's. Every change of
  /// a link's sharing gives each flow on it a new end (a new version; the older ones go
  /// stale), up to hundreds each for flows into a busy receiver. An end later than one the
  /// flow has queued already is held back, with the order it would have had, and queued when
  /// that earlier one comes up: every valid end is still processed at its time and in its
  /// order, as if it had been queued at once, and the queue carries far fewer stale ones.
  void queue_flow_ends() {
    for (const auto& end : ends_) {
      const Event event{end.time, next_order_++, end.flow, end.version, EventType::FlowEnd};
      if (flow_end_in_queue_.size() <= end.flow) flow_end_in_queue_.resize(end.flow + 1);
      FlowEndInQueue& queued = flow_end_in_queue_[end.flow];
      if (queued.time >= 0 && end.time > queued.time) {
        queued.deferred = event;
        queued.held = true;
        continue;
      }
      queue_.push(event);
      queued.time = end.time;
      queued.version = end.version;
      queued.held = false;  // what was held back is stale now
    }
    ends_.clear();
  }

  /// A rendezvous send completes when its receive is matched; its host's CPU and NIC are
  /// not free before that moment.
  void finish_rendezvous(OpIndex send_op, std::int64_t now) {
    if (s_.amount(send_op) <= p_.S) return;
    std::uint32_t sender = owner_[send_op];
    std::int64_t& cpu = cpu_free(sender, send_op);
    std::int64_t& nic = send_gap_free(sender, send_op);
    cpu = std::max(cpu, now);
    nic = std::max(nic, now);
    completed(send_op, now);
  }

  /// The latency a route of `hops` links adds: at most 10^15 ns, like every step.
  std::int64_t hop_delay(std::size_t hops) const {
    const auto ns =
        checked_mul(static_cast<std::int64_t>(hops), hop_latency_, "hops x hop latency");
    return limits::check_nanoseconds(ns, "the hop latency of one route");
  }

  static void check_clock(std::int64_t time) {
    if (time > limits::kMaxSimulatedTime)
      throw Error(
          fmt::format("the simulated clock passed 2^62 ns ({} ns, 146 years); the "
                      "schedule's times add up to more than choreo simulates",
                      time));
  }

  void retry(Event& e, std::int64_t when) {
    check_clock(when);
    e.time = when;
    queue_.push(e);  // keeps its order: a retry does not lose its place among equal times
    ++result_.retries;
  }

  void check_everything_ran() const {
    if (completed_ == s_.op_count()) return;
    for (OpIndex i = 0; i < s_.op_count(); ++i)
      if (waiting_[i] != 0 || (!result_.op_end.empty() && result_.op_end[i] < 0)) {
        throw Error(fmt::format(
            "the simulation ended with {} of {} ops unfinished, e.g. rank {} "
            "op {} ({} of rank {}); the schedule deadlocks or a message has "
            "no receive: run `choreo validate` on it",
            s_.op_count() - completed_, s_.op_count(), owner_[i],
            i - s_.first_op(static_cast<int>(owner_[i])), to_string(s_.kind(i)), owner_[i]));
      }
    throw Error(
        fmt::format("the simulation ended with {} of {} ops unfinished (a receive or a "
                    "rendezvous send never matched): run `choreo validate` on it",
                    s_.op_count() - completed_, s_.op_count()));
  }

  const Schedule& s_;
  const LogGOPS p_;
  Links links_;
  const double link_G_;
  const std::int64_t hop_latency_;
  Noise noise_;
  const bool fair_;
  const bool tcp_on_;
  const bool dma_receive_;                 ///< see SimOptions::dma_receive
  std::vector<std::int64_t> last_landed_;  ///< per host: when the last bytes landed
  /// Fair sharing: per message in flight, its LogGP landing time and receive span.
  std::unordered_map<OpIndex, std::pair<std::int64_t, std::int64_t>> landing_;
  Flows flows_;
  std::vector<Flows::EndEvent> ends_;
  TcpSwitch tcp_;
  std::vector<TcpSwitch::Wakeup> wakeups_;
  std::vector<TcpSwitch::Delivered> delivered_;
  std::unordered_map<OpIndex, Event> parked_;  ///< tcp: landings waiting for their delivery
  /// Per flow: its earliest end in the queue (time -1: none) and the latest end held back.
  struct FlowEndInQueue {
    std::int64_t time = -1;
    std::uint32_t version = 0;
    bool held = false;
    Event deferred{};
  };
  std::vector<FlowEndInQueue> flow_end_in_queue_;
  const std::size_t hosts_, cpus_, nics_;
  BigVector<std::int64_t> next_o_, next_gs_, next_gr_;
  BigVector<Counter> waiting_;
  BigVector<std::uint8_t> any_open_;  ///< per op: its first-of group still waits (see above)
  std::vector<std::vector<Pending>> receives_, unexpected_;
  BigVector<std::uint32_t> owner_;
  EventQueue<Event> queue_;
  std::vector<OpIndex> released_;
  std::uint64_t next_order_ = 0;
  std::size_t completed_ = 0;
  SimResult result_;
};

/// The tcp rule needs a switch and a buffer that holds a segment: with less, every segment
/// would be dropped and retransmitted for ever.
void check_tcp(const NetworkSpec& network) {
  if (network.kind != NetworkSpec::Kind::Switch)
    throw Error(
        "the tcp sharing rule models one switch's output-port buffers: use --network switch or "
        "switch:NODES");
  const TcpSpec& t = network.tcp;
  if (t.mss < 1) throw Error("the TCP segment size (--mss) must be at least 1 byte");
  if (t.port_buffer < t.mss)
    throw Error(fmt::format(
        "a switch port buffer of {} B cannot hold one {} B segment, so nothing would get "
        "through: give --switch-buffer of at least --mss",
        t.port_buffer, t.mss));
  if (t.initial_window < 1) throw Error("the TCP initial window must be at least 1 segment");
  if (t.rto_min < 1 || t.rto_max < t.rto_min)
    throw Error(fmt::format("the RTO must be at least 1 ns and at most the largest RTO ({} ns)",
                            t.rto_max));
  limits::check_nanoseconds(t.rto_max, "the largest RTO");
}

void check_parameters(const SimOptions& options) {
  const auto& p = options.params;
  if (p.L < 0 || p.o < 0 || p.g < 0 || p.G < 0 || p.O < 0 || p.S < 0 || !std::isfinite(p.G) ||
      !std::isfinite(p.O))
    throw Error("LogGOPS parameters must be finite and >= 0");
  for (const std::int64_t ns : {p.L, p.o, p.g, options.network.hop_latency})
    limits::check_nanoseconds(ns, "a LogGOPS time (L, o, g or the hop latency)");
  if (options.network.sharing == NetworkSpec::Sharing::Tcp) check_tcp(options.network);
}

std::uint32_t most_dependencies(const CompactSchedule& s) {
  const auto counts = s.arrays().dependency_count;
  return counts.empty() ? 0 : *std::max_element(counts.begin(), counts.end());
}
std::uint32_t most_dependencies(const ShapedSchedule& s) { return s.most_dependencies(); }

template <class Schedule>
SimResult run_engine(const Schedule& schedule, const SimOptions& options) {
  check_parameters(options);
  if (most_dependencies(schedule) <= std::numeric_limits<std::uint8_t>::max())
    return Engine<Schedule, std::uint8_t>(schedule, options).run();
  return Engine<Schedule, std::uint32_t>(schedule, options).run();
}

}  // namespace

SimResult simulate(const CompactSchedule& schedule, const SimOptions& options) {
  return run_engine(schedule, options);
}

SimResult simulate(const ShapedSchedule& schedule, const SimOptions& options) {
  return run_engine(schedule, options);
}

}  // namespace choreo::sim
