// profile_check FILE: reads a machine profile written by `choreo-mpi calibrate` through the
// library's reader, checks that its stored fits are what the samples give, and prints them.
#include <fmt/core.h>

#include "choreo/core/error.hpp"
#include "choreo/model/profile.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    fmt::print(stderr, "usage: profile_check FILE\n");
    return 2;
  }
  try {
    const choreo::MachineProfile p = choreo::read_profile(argv[1]);
    choreo::MachineProfile refit = p;
    choreo::fit_profile(refit);
    if (!(refit.loggp == p.loggp) || !(refit.hockney == p.hockney) ||
        !(refit.memcpy_hockney == p.memcpy_hockney)) {
      fmt::print(stderr,
                 "profile_check: {}: the stored fits differ from the samples': L {} o {} g {} G {} "
                 "alpha {} beta {} stored, L {} o {} g {} G {} alpha {} beta {} refitted\n",
                 argv[1], p.loggp.L, p.loggp.o, p.loggp.g, p.loggp.G, p.hockney.alpha,
                 p.hockney.beta, refit.loggp.L, refit.loggp.o, refit.loggp.g, refit.loggp.G,
                 refit.hockney.alpha, refit.hockney.beta);
      return 1;
    }
    // calibrate records the fits' intervals and where it ran; each fitted value lies in its
    // interval (a bootstrap of the same samples), and every rank has its node.
    if (!p.ci95 || p.measured_on.hosts.size() != static_cast<std::size_t>(p.ranks)) {
      fmt::print(stderr, "profile_check: {}: no ci95, or measured_on does not name {} ranks\n",
                 argv[1], p.ranks);
      return 1;
    }
    const auto inside = [](const choreo::Interval& i, double x) {
      return i.low <= x && x <= i.high;
    };
    if (!inside(p.ci95->L, p.loggp.L) || !inside(p.ci95->o, p.loggp.o) ||
        !inside(p.ci95->g, p.loggp.g) || !inside(p.ci95->G, p.loggp.G) ||
        !inside(p.ci95->alpha, p.hockney.alpha) || !inside(p.ci95->beta, p.hockney.beta)) {
      fmt::print(stderr, "profile_check: {}: a fitted parameter lies outside its interval\n",
                 argv[1]);
      return 1;
    }
    fmt::print(
        "profile OK: {} ping-pong sizes up to {} B, {} memcpy sizes, {} burst sizes; "
        "L {:.3g} s, o {:.3g} s, g {:.3g} s, G {:.3g} s/B; alpha {:.3g} s, beta {:.3g} s/B\n",
        p.pingpong.size(), p.pingpong.back().bytes, p.memcpy.size(), p.burst.sizes.size(),
        p.loggp.L, p.loggp.o, p.loggp.g, p.loggp.G, p.hockney.alpha, p.hockney.beta);
    return 0;
  } catch (const choreo::Error& e) {
    fmt::print(stderr, "profile_check: {}\n", e.what());
    return 1;
  }
}
