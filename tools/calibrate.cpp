// choreo-mpi calibrate: the options (calibrate.hpp), rank 0's progress on stderr, the profile
// written, and its summary printed as a table or as JSON. What is measured, and how, is the
// library's (src/calibrate/calibrate.hpp; docs/calibration.md).
#include "calibrate.hpp"

#include <fmt/core.h>
#include <fmt/ranges.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <system_error>
#include <vector>

#include "../src/core/human.hpp"
#include "../src/mpi/timed_runs.hpp"  // agree_on_failure
#include "choreo/model/profile.hpp"

namespace choreo::tools {
namespace {

/// Rank 0's progress on stderr: one updating line on a terminal, one line per phase else.
class ProgressPrinter {
 public:
  ProgressPrinter() : tty_(isatty(fileno(stderr)) != 0) {}
  void operator()(const calibration::CalibrationEvent& e) const {
    using Kind = calibration::CalibrationEvent::Kind;
    switch (e.kind) {
      case Kind::Size:
        if (tty_)
          fmt::print(stderr, "\rcalibrate: {:<10} {:>3}/{:<3} {:>10}   ", e.phase, e.index + 1,
                     e.count, human_bytes(static_cast<double>(e.bytes)));
        break;
      case Kind::PhaseDone:
        fmt::print(stderr, "{}calibrate: {:<10} {} sizes, {} samples, {:.1f} s elapsed\n",
                   tty_ ? "\r" : "", e.phase, e.count, e.samples, e.elapsed);
        break;
      case Kind::Busy:
        fmt::print(stderr,
                   "calibrate: note: load average {:.1f} on {} CPUs; other processes will "
                   "disturb the timings (the fit is checked, and measured again if it is not "
                   "physical)\n",
                   e.load, e.cpus);
        break;
      case Kind::Retry:
        fmt::print(stderr, "calibrate: attempt {} of {}: {}; measuring again\n", e.attempt,
                   e.attempts, fmt::join(e.problems, "; "));
        break;
    }
  }

 private:
  bool tty_;
};

/// Where a refused calibration keeps its samples: machine.json -> machine.rejected.json.
std::string rejected_path(const std::string& output) {
  std::filesystem::path path(output);
  const std::string extension = path.extension().string();
  path.replace_extension(".rejected" + (extension.empty() ? std::string(".json") : extension));
  return path.string();
}

/// Fails on every rank unless rank 0 can write the output's folder (before a long run).
void check_output(const std::string& path, int rank) {
  std::string problem;
  if (rank == 0) {
    namespace fs = std::filesystem;
    const fs::path parent = fs::absolute(path).parent_path();
    std::error_code ec;
    if (!fs::is_directory(parent, ec))
      problem = fmt::format("cannot write {}: its folder {} does not exist", path, parent.string());
    else if (access(parent.c_str(), W_OK) != 0)
      problem = fmt::format("cannot write {}: no permission to write in {}", path, parent.string());
  }
  mpi::detail::agree_on_failure(problem, MPI_COMM_WORLD);
}

nlohmann::ordered_json summary_json(const MachineProfile& p, const std::string& output,
                                    double seconds, double rel_ci) {
  using ordered_json = nlohmann::ordered_json;
  const auto series = [&](const std::vector<SizeSamples>& list) {
    ordered_json rows = ordered_json::array();
    for (const auto& s : list)
      rows.push_back({{"bytes", s.bytes},
                      {"median", s.median()},
                      {"samples", s.seconds.size()},
                      {"rel_ci", std::min(relative_ci_half_width(s.seconds), 1e300)}});
    return rows;
  };
  ordered_json pairs = ordered_json::array();
  for (const auto& [a, b] : p.pairs) pairs.push_back({a, b});
  return {{"format", "choreo.calibration/1"},
          {"output", output},
          {"host", p.host},
          {"mpi_library", p.mpi_library},
          {"created", p.created},
          {"ranks", p.ranks},
          {"pairs", pairs},
          {"seconds", seconds},
          {"load_average", p.measured_on.load_start},
          {"load_average_end", p.measured_on.load_end},
          {"cpus", p.measured_on.cpus},
          {"nodes", p.measured_on.nodes()},
          {"hosts", p.measured_on.hosts},
          {"rel_ci_target", rel_ci},
          {"cache_bytes", p.cache_bytes},
          {"memcpy_buffer_bytes", p.memcpy_buffer_bytes},
          {"loggp", {{"L", p.loggp.L}, {"o", p.loggp.o}, {"g", p.loggp.g}, {"G", p.loggp.G}}},
          // The profile's own spelling of the intervals.
          {"ci95", nlohmann::ordered_json::parse(profile_to_json(p))["ci95"]},
          {"hockney", {{"alpha", p.hockney.alpha}, {"beta", p.hockney.beta}}},
          {"memcpy_hockney", {{"alpha", p.memcpy_hockney.alpha}, {"beta", p.memcpy_hockney.beta}}},
          {"send_overhead", p.overhead.send.median()},
          {"recv_overhead", p.overhead.recv.median()},
          {"pingpong", series(p.pingpong)},
          {"collective",
           {{"ranks", p.collective.ranks},
            {"exchange", series(p.collective.exchange)},
            {"memcpy", series(p.collective.memcpy)}}},
          {"memcpy", series(p.memcpy)}};
}

std::string per_byte(double seconds_per_byte) {
  if (seconds_per_byte <= 0) return "0 s/B";
  return fmt::format("{:.4g} ns/B ({:.2f} GB/s)", seconds_per_byte * 1e9, 1e-9 / seconds_per_byte);
}

void print_summary(const MachineProfile& p, const std::string& output, double seconds,
                   double rel_ci) {
  fmt::print("{:>10} {:>12} {:>12} {:>8} {:>8}   {:>12} {:>8}   {:>12} {:>12}\n", "bytes",
             "one-way", "bandwidth", "samples", "CI", "exchange", "CI", "memcpy", "bandwidth");
  const auto bandwidth = [](std::int64_t bytes, double t) {
    return t > 0 ? fmt::format("{:.2f} GB/s", static_cast<double>(bytes) / t * 1e-9)
                 : std::string("-");
  };
  const auto ci = [](const std::vector<double>& samples) {
    const double r = relative_ci_half_width(samples);
    return std::isfinite(r) ? fmt::format("{:.1f}%", 100 * r) : std::string("-");
  };
  std::size_t loose = 0;
  for (const auto& s : p.pingpong) {
    if (relative_ci_half_width(s.seconds) > rel_ci) ++loose;
    std::string exchange = fmt::format("{:>12} {:>8}", "-", "-"), copy;
    for (const auto& x : p.collective.exchange)
      if (x.bytes == s.bytes)
        exchange = fmt::format("{:>12} {:>8}", human_seconds(x.median()), ci(x.seconds));
    for (const auto& m : p.memcpy)
      if (m.bytes == s.bytes)
        copy =
            fmt::format("{:>12} {:>12}", human_seconds(m.median()), bandwidth(m.bytes, m.median()));
    fmt::print("{:>10} {:>12} {:>12} {:>8} {:>8}   {}   {}\n", s.bytes, human_seconds(s.median()),
               bandwidth(s.bytes, s.median()), s.seconds.size(), ci(s.seconds), exchange, copy);
  }
  std::string pairs;
  for (const auto& [a, b] : p.pairs)
    pairs += fmt::format("{}{}-{}", pairs.empty() ? "" : ", ", a, b);
  fmt::print("\nprofile         {} ({}, {} ranks, pairs {})\n", output, p.mpi_library, p.ranks,
             pairs);
  fmt::print(
      "ping-pong       {} sizes, one-way = round trip / 2; {} outside +-{:.1f}% (95% CI "
      "of the median)\n",
      p.pingpong.size(), loose, 100 * rel_ci);
  fmt::print(
      "exchange        {} sizes, all {} ranks at once (to rank + 1, from rank - 1), the slowest "
      "rank's time after a barrier; also a memcpy of fresh data on every rank (profile only)\n",
      p.collective.exchange.size(), p.collective.ranks);
  fmt::print("memcpy          {} sizes, rotating through {} ({:.1f}x the {} last-level cache)\n",
             p.memcpy.size(), human_bytes(static_cast<double>(p.memcpy_buffer_bytes)),
             p.cache_bytes > 0
                 ? static_cast<double>(p.memcpy_buffer_bytes) / static_cast<double>(p.cache_bytes)
                 : 0.0,
             human_bytes(static_cast<double>(p.cache_bytes)));
  const FitIntervals& fit_ci = *p.ci95;
  const auto time_ci = [](const Interval& i) {
    return fmt::format("[{}, {}]", human_seconds(i.low), human_seconds(i.high));
  };
  const auto per_byte_ci = [](const Interval& i) {
    return fmt::format("[{:.4g}, {:.4g}] ns/B", i.low * 1e9, i.high * 1e9);
  };
  fmt::print("LogGP           L {} {}   o {} {} (send {}, receive {})\n", human_seconds(p.loggp.L),
             time_ci(fit_ci.L), human_seconds(p.loggp.o), time_ci(fit_ci.o),
             human_seconds(p.overhead.send.median()), human_seconds(p.overhead.recv.median()));
  fmt::print("                g {} {}   G {} {}   (95% intervals, {} bootstrap resamples)\n",
             human_seconds(p.loggp.g), time_ci(fit_ci.g), per_byte(p.loggp.G),
             per_byte_ci(fit_ci.G), fit_ci.resamples);
  fmt::print("Hockney         alpha {} {}   beta {} {}\n", human_seconds(p.hockney.alpha),
             time_ci(fit_ci.alpha), per_byte(p.hockney.beta), per_byte_ci(fit_ci.beta));
  fmt::print("memcpy Hockney  alpha {}   beta {}\n", human_seconds(p.memcpy_hockney.alpha),
             per_byte(p.memcpy_hockney.beta));
  const MeasuredOn& m = p.measured_on;
  fmt::print(
      "measured on     {} node(s), {} ranks; ping-pong pair {}; load average {:.2f} -> {:.2f} on "
      "{} CPUs\n",
      m.nodes(), p.ranks,
      m.same_node(p.pairs.front().first, p.pairs.front().second)
          ? "on one node (shared memory, not a network)"
          : "on two nodes (the network)",
      m.load_start, m.load_end, m.cpus);
  fmt::print("took            {:.1f} s\n", seconds);
}

}  // namespace

void calibrate(const CalibrateArgs& args, int rank) {
  const double started = MPI_Wtime();
  int ranks = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  calibration::CalibrationOptions options = args.options;
  options.all_pairs = args.pairs == "all";
  calibration::check_options(options, ranks);  // before the output: a bad option comes first
  check_output(args.output, rank);
  auto [p, problems] = calibration::measure_machine(MPI_COMM_WORLD, options, ProgressPrinter());

  std::string refusal;
  if (rank == 0 && !problems.empty()) {
    const std::string kept = rejected_path(args.output);
    write_profile(p, kept);
    refusal = fmt::format(
        "the calibration is not physical after {} attempt(s): {}. Nothing was written to {}; "
        "the samples are in {}. Calibrate on an idle machine (load average {:.1f} -> {:.1f} on "
        "{} CPUs), one rank per core",
        options.attempts, fmt::join(problems, "; "), args.output, kept, p.measured_on.load_start,
        p.measured_on.load_end, p.measured_on.cpus);
  }
  mpi::detail::agree_on_failure(refusal, MPI_COMM_WORLD);
  if (rank != 0) return;

  write_profile(p, args.output);
  const double seconds = MPI_Wtime() - started;
  if (args.json)
    fmt::print("{}\n", summary_json(p, args.output, seconds, options.rel_ci).dump(2));
  else
    print_summary(p, args.output, seconds, options.rel_ci);
}

}  // namespace choreo::tools
