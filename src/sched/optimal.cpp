// The shortest contention-free plan: a slot is a colour of the bipartite multigraph senders ->
// receivers, and König's theorem says max degree colours suffice. Each message takes a colour
// free at both ends; when the ends have different free colours a and b, the a/b alternating
// path from the receiver is flipped first, which frees a there (it cannot reach the sender in
// a bipartite graph). Messages are coloured in ring order, so alltoall-like patterns need no
// flips at all.
#include <fmt/format.h>

#include <algorithm>

#include "choreo/error.hpp"
#include "choreo/sched.hpp"

namespace choreo {
namespace {

class EdgeColouring {
 public:
  EdgeColouring(const Pattern& p, int colours)
      : p_(p),
        colours_(static_cast<std::size_t>(colours)),
        n_(static_cast<std::size_t>(p.ranks)),
        at_sender_(n_ * colours_, -1),
        at_receiver_(n_ * colours_, -1),
        hint_sender_(n_, 0),
        hint_receiver_(n_, 0),
        colour_(p.messages.size(), -1) {}

  void colour(int m) {
    const std::size_t u = sender(m), v = receiver(m);
    const std::size_t a = first_free(at_sender_, hint_sender_, u);
    const std::size_t b = first_free(at_receiver_, hint_receiver_, v);
    if (at_receiver_[v * colours_ + a] != -1) {
      if (at_sender_[u * colours_ + b] == -1) {
        assign(m, b);
        return;
      }
      flip(v, a, b);
    }
    assign(m, a);
  }

  int colour_of(int m) const { return colour_[static_cast<std::size_t>(m)]; }

 private:
  std::size_t sender(int m) const {
    return static_cast<std::size_t>(p_.messages[static_cast<std::size_t>(m)].src);
  }
  std::size_t receiver(int m) const {
    return static_cast<std::size_t>(p_.messages[static_cast<std::size_t>(m)].dst);
  }

  /// Smallest colour free at `x`; hint[x] keeps every colour below it used.
  std::size_t first_free(const std::vector<int>& table, std::vector<std::size_t>& hint,
                         std::size_t x) const {
    std::size_t c = hint[x];
    while (c < colours_ && table[x * colours_ + c] != -1) ++c;
    if (c == colours_) throw Error("internal: no free colour; the degree bound was wrong");
    hint[x] = c;
    return c;
  }

  void set(int m, std::size_t c) {
    colour_[static_cast<std::size_t>(m)] = static_cast<int>(c);
    at_sender_[sender(m) * colours_ + c] = m;
    at_receiver_[receiver(m) * colours_ + c] = m;
  }
  void unset(int m) {
    const auto c = static_cast<std::size_t>(colour_[static_cast<std::size_t>(m)]);
    at_sender_[sender(m) * colours_ + c] = -1;
    at_receiver_[receiver(m) * colours_ + c] = -1;
    hint_sender_[sender(m)] = std::min(hint_sender_[sender(m)], c);
    hint_receiver_[receiver(m)] = std::min(hint_receiver_[receiver(m)], c);
  }
  void assign(int m, std::size_t c) { set(m, c); }

  /// Swaps colours a and b along the path that leaves receiver v by colour a.
  void flip(std::size_t v, std::size_t a, std::size_t b) {
    path_.clear();
    bool at_receiver = true;
    std::size_t x = v, c = a;
    while (true) {
      const int m = at_receiver ? at_receiver_[x * colours_ + c] : at_sender_[x * colours_ + c];
      if (m == -1) break;
      path_.push_back(m);
      x = at_receiver ? sender(m) : receiver(m);
      at_receiver = !at_receiver;
      c = c == a ? b : a;
    }
    for (int m : path_) unset(m);
    for (int m : path_)
      set(m, static_cast<std::size_t>(colour_[static_cast<std::size_t>(m)]) == a ? b : a);
  }

  const Pattern& p_;
  const std::size_t colours_, n_;
  std::vector<int> at_sender_, at_receiver_;  ///< [vertex * colours + colour] -> message
  std::vector<std::size_t> hint_sender_, hint_receiver_;
  std::vector<int> colour_;
  std::vector<int> path_;
};

}  // namespace

SlotPlan plan_optimal(const Pattern& pattern) {
  const SlotPlan ring = plan_ring(pattern);  // validates; ring order of every rank's sends
  const auto n = static_cast<std::size_t>(pattern.ranks);
  std::vector<int> out(n, 0), in(n, 0);
  for (const auto& m : pattern.messages) {
    ++out[static_cast<std::size_t>(m.src)];
    ++in[static_cast<std::size_t>(m.dst)];
  }
  int degree = 0;
  for (std::size_t r = 0; r < n; ++r) degree = std::max({degree, out[r], in[r]});
  if (static_cast<double>(n) * degree > 4e9)
    throw Error(
        fmt::format("optimal: {} ranks x {} slots is too large a colouring table", n, degree));

  // Ring order across ranks: all first sends, then all second sends, ...
  std::vector<int> order;
  order.reserve(pattern.messages.size());
  for (std::size_t k = 0, placed = 0; placed < pattern.messages.size(); ++k)
    for (std::size_t r = 0; r < n; ++r)
      if (k < ring.slots[r].size()) {
        order.push_back(ring.slots[r][k]);
        ++placed;
      }
  EdgeColouring colouring(pattern, std::max(degree, 1));
  for (int m : order) colouring.colour(m);

  SlotPlan plan;
  plan.algorithm = "optimal";
  plan.slots.resize(n);
  for (std::size_t m = 0; m < pattern.messages.size(); ++m) {
    auto& slots = plan.slots[static_cast<std::size_t>(pattern.messages[m].src)];
    const auto c = static_cast<std::size_t>(colouring.colour_of(static_cast<int>(m)));
    if (slots.size() <= c) slots.resize(c + 1, kDelaySlot);
    slots[c] = static_cast<int>(m);
  }
  return plan;
}

}  // namespace choreo
