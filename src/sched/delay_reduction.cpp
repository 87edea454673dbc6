// Taking delays out of a contention-free plan without making it longer (slot_colouring.hpp).
//
// A rank's delays are the empty slots before its last send, so the delays of a plan are its
// span (over ranks, last slot + 1) minus its messages, and only a rank's last send matters:
// moving it into an empty slot of the rank's ends the rank's plan earlier. The receiver v may
// be busy in that slot x; a Kempe swap frees it: take y, a slot free at v, and swap x and y on
// the path leaving v by x (then y, x, ...). Every vertex inside the path keeps the slots it
// uses; only the far end changes one, x for y. A receiver there costs nothing (only senders
// have delays); a sender's plan may end later (y above its last send) or earlier (x was its
// last and y is below). The path never reaches the moving send's own sender, which is free in
// x and, without that send, in its old slot too. So each candidate (x, y) is priced by walking
// its path, and the cheapest is taken if it lowers the span.
#include <algorithm>
#include <limits>

#include "choreo/core/error.hpp"
#include "slot_colouring.hpp"

namespace choreo::detail {
namespace {

/// Swaps priced for each slot x: those with the lowest free slots y at the receiver. All of
/// them would make a move cost O(Δ^2) walks, and big patterns would get few moves for it.
constexpr int kSwapsPerSlot = 8;

/// Where an unplaced message could go, and what the span would then be, counted as the sum
/// of the last slots of its sender and of the swap's far end (the only ranks that change).
struct Option {
  int slot = -1;  ///< -1: none found
  int swap = -1;  ///< the y of the Kempe swap at the receiver; -1 when it is free already
  std::int64_t cost = std::numeric_limits<std::int64_t>::max();
  std::size_t length = 0;  ///< messages the swap moves

  bool better_than(const Option& other) const {
    return cost < other.cost || (cost == other.cost && length < other.length);
  }
};

/// The cheapest option for `message` (unplaced) among slots below `limit`. Cost: the
/// sender's new last slot, plus the change of the far end's last slot if it is a sender.
Option cheapest(const SlotColouring& c, int message, int limit, std::uint64_t& steps) {
  const Message& m = c.pattern().messages[static_cast<std::size_t>(message)];
  const int sender_last = c.last(m.src);
  Option best;
  for (int x = 0; x < limit; ++x) {
    if (!c.sender_free(m.src, x)) continue;
    const std::int64_t own = std::max(sender_last, x);
    if (c.receiver_free(m.dst, x)) {
      const Option here{x, -1, own, 0};
      if (here.better_than(best)) best = here;
      continue;
    }
    int tried = 0;
    for (int y = 0; y < c.slots() && tried < kSwapsPerSlot; ++y) {
      if (y == x || !c.receiver_free(m.dst, y)) continue;
      ++tried;
      const SlotColouring::PathEnd end = c.walk(m.dst, x, y);
      steps += 1 + end.length;
      std::int64_t cost = own;
      if (end.sender) {  // it gives up x for y
        const int before = c.last(end.rank);
        cost += std::max(c.last_without(end.rank, x), y) - before;
      }
      const Option here{x, y, cost, end.length};
      if (here.better_than(best)) best = here;
    }
  }
  return best;
}

void apply(SlotColouring& c, int message, const Option& option) {
  if (option.swap >= 0)
    c.flip(c.pattern().messages[static_cast<std::size_t>(message)].dst, option.slot, option.swap);
  c.place(message, option.slot);
}

}  // namespace

void place_cheapest(SlotColouring& colouring, int message, std::uint64_t& steps) {
  const Option best = cheapest(colouring, message, colouring.slots(), steps);
  if (best.slot < 0)  // the sender and the receiver each have a free slot: never happens
    throw Error("internal: no slot for a message; the degree bound was wrong");
  apply(colouring, message, best);
}

void reduce_delays(SlotColouring& colouring, std::uint64_t budget) {
  std::uint64_t steps = 0;
  const int ranks = colouring.pattern().ranks;
  for (bool improved = true; improved && steps <= budget;) {
    improved = false;
    for (int u = 0; u < ranks && steps <= budget; ++u)
      while (colouring.last(u) > 0 && steps <= budget) {
        const int last = colouring.last(u);
        const int message = colouring.sent(u, last);
        colouring.remove(message);
        const Option best = cheapest(colouring, message, last, steps);
        if (best.slot < 0 || best.cost >= last) {  // nothing better: back where it was
          colouring.place(message, last);
          break;
        }
        apply(colouring, message, best);
        improved = true;
      }
  }
}

}  // namespace choreo::detail
