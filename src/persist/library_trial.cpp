#include "library_trial.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "../core/human.hpp"
#include "../core/stats.hpp"

namespace choreo::persist::detail {

LibraryTrial::Side LibraryTrial::begin(MPI_Comm comm) {
  if (decided_) return side_;  // the steady state: no clock, no count
  if (starts_ == kTrialStarts) {
    const auto median = [](const auto& side) { return stats::median({side.begin(), side.end()}); };
    mine_ = {median(samples_[0]), median(samples_[1])};
    MPI_Iallreduce(mine_.data(), seconds_.data(), 2, MPI_DOUBLE, MPI_MAX, comm, &agreement_);
    ++starts_;
    side_ = Side::Library;  // until agreed; this instance is not timed
    return side_;
  }
  side_ = starts_ % 2 == 0 ? Side::Library : Side::Choreo;
  ++starts_;
  began_ = MPI_Wtime();
  return side_;
}

void LibraryTrial::decide() {
  decided_ = true;
  // Ties go to the library: the same speed with one implementation fewer to trust.
  side_ = seconds_[0] < seconds_[1] ? Side::Choreo : Side::Library;
}

void LibraryTrial::finish_agreement() {
  MPI_Wait(&agreement_, MPI_STATUS_IGNORE);
  decide();
}

bool LibraryTrial::try_finish_agreement() {
  int done = 0;
  MPI_Test(&agreement_, &done, MPI_STATUS_IGNORE);
  if (done) decide();
  return done != 0;
}

void LibraryTrial::end() {
  if (decided_ || starts_ > kTrialStarts) return;
  const int round = (starts_ - 1) / 2;  // 0: the side's warm-up start, not timed
  if (round == 0) return;
  samples_[static_cast<std::size_t>(side_)][static_cast<std::size_t>(round - 1)] =
      MPI_Wtime() - began_;
}

std::string LibraryTrial::note() const {
  if (!decided_) return fmt::format("measuring, {} of {} starts", starts_, kTrialStarts);
  return fmt::format("measured over {} starts (slowest rank's median): {} {}, the other {}",
                     kTrialStarts, side_ == Side::Library ? "the MPI library's own" : "choreo's",
                     human_seconds(seconds_[static_cast<std::size_t>(side_)]),
                     human_seconds(seconds_[side_ == Side::Library ? 0 : 1]));
}

}  // namespace choreo::persist::detail
