#pragma once
// The simulator's event queue. Event times never decrease (every new event is at or after
// the one being processed), so a radix heap orders them: O(1) push and amortised O(log T)
// pop, with no comparisons of whole events. Events of equal time come out in the order they
// were first queued, which LogGOPSim's semantics need: pop_batch() hands out all events of
// the next time sorted by that order, and events queued for the current time while the
// batch runs are appended to it (they are the newest).
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <vector>

#include "../core/huge_pages.hpp"

namespace choreo::sim {

template <typename Event>  // Event has std::int64_t time and std::uint64_t order
class EventQueue {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  std::size_t peak() const { return peak_; }

  void push(const Event& e) {
    ++size_;
    peak_ = std::max(peak_, size_);
    if (in_batch_ && e.time == now_) {
      batch_.push_back(e);
    } else {
      buckets_[bucket_of(e.time)].push_back(e);
    }
  }

  /// Moves the events of the earliest time into `batch()`, sorted by order. False when
  /// the queue is empty.
  bool next_batch() {
    size_ -= batch_.size();
    batch_.clear();
    in_batch_ = false;
    if (size_ == 0) return false;
    if (buckets_[0].empty()) refill_lowest();
    batch_.swap(buckets_[0]);
    std::sort(batch_.begin(), batch_.end(),
              [](const Event& a, const Event& b) { return a.order < b.order; });
    in_batch_ = true;
    return true;
  }
  /// The current batch; it may grow while it is processed (index it, don't iterate it).
  BigVector<Event>& batch() { return batch_; }
  std::int64_t now() const { return now_; }

 private:
  std::size_t bucket_of(std::int64_t time) const {
    auto diff = static_cast<std::uint64_t>(time) ^ static_cast<std::uint64_t>(now_);
    return diff == 0 ? 0 : static_cast<std::size_t>(64 - std::countl_zero(diff));
  }

  /// Takes the first non-empty bucket, makes its earliest time the new `now`, and spreads
  /// its events into lower buckets; those of time `now` land in bucket 0.
  void refill_lowest() {
    std::size_t i = 1;
    while (buckets_[i].empty()) ++i;
    auto& from = buckets_[i];
    now_ = std::min_element(from.begin(), from.end(), [](const Event& a, const Event& b) {
             return a.time < b.time;
           })->time;
    for (const Event& e : from) buckets_[bucket_of(e.time)].push_back(e);
    from.clear();
  }

  std::array<BigVector<Event>, 65> buckets_;
  BigVector<Event> batch_;
  std::int64_t now_ = 0;
  bool in_batch_ = false;
  std::size_t size_ = 0, peak_ = 0;
};

}  // namespace choreo::sim
