#include "cli/sim_compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

#include "../../src/core/stats.hpp"
#include "choreo/core/error.hpp"
#include "cli/common.hpp"
#include "cli/gnuplot.hpp"
#include "cli/sim_model_options.hpp"

namespace choreo::cli {
namespace {

/// "NAME=OPTIONS" when the text before the first '=' is one word that is not an option;
/// otherwise the whole text is the options and names the setting.
std::pair<std::string, std::string> split_setting(const std::string& text) {
  const std::size_t eq = text.find('=');
  if (eq != std::string::npos && eq > 0 && text[0] != '-' && text.find_first_of(" \t") > eq)
    return {text.substr(0, eq), text.substr(eq + 1)};
  return {text.empty() ? "defaults" : text, text};
}

CompareSetting parse_setting(const std::string& text, int trials) {
  CompareSetting setting;
  std::tie(setting.name, setting.options) = split_setting(text);
  CLI::App app{"a setting of choreo compare"};
  app.set_help_flag();  // --help in a setting is an unknown option, not a request
  SimModelArgs model;
  add_sim_model_options(app, model);
  try {
    app.parse(setting.options, false);
    note_tcp_options(app, model);
    setting.sim = sim_options_of(model);
  } catch (const CLI::ParseError& e) {
    throw Error(
        fmt::format("setting '{}': {} (a setting takes `choreo sim`'s model options, "
                    "e.g. \"fair=--network switch:64 --sharing fair\")",
                    setting.name, e.what()));
  } catch (const Error& e) {
    throw Error(fmt::format("setting '{}': {}", setting.name, e.what()));
  }
  const sim::NoiseSpec& noise = setting.sim.noise;
  const bool noisy = noise.os != sim::NoiseSpec::Os::None || noise.net_period > 0;
  setting.trials = noisy ? trials : 1;
  return setting;
}

/// A CSV field: quoted, its quotes doubled, where it holds a comma, a quote or a line break.
std::string csv_text(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (const char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

/// One schedule under one setting, over its trials.
struct Summary {
  double median = 0, least = 0, greatest = 0;
  int trials = 0;
};

/// The time unit a panel's axis reads best in, for its largest value (ns): its name and ns.
std::pair<const char*, double> time_unit(double largest_ns) {
  if (largest_ns >= 1e9) return {"s", 1e9};
  if (largest_ns >= 1e6) return {"ms", 1e6};
  if (largest_ns >= 1e3) return {"us", 1e3};
  return {"ns", 1.0};
}

/// Small multiples: a panel per schedule (up to three a row), a bar per setting.
void draw(const ComparePlan& plan, const std::vector<std::vector<Summary>>& summary,
          const std::string& png) {
  const std::size_t panels = plan.schedules.size();
  const std::size_t columns = std::min<std::size_t>(3, panels);
  const std::size_t rows = (panels + columns - 1) / columns;
  std::string script = fmt::format(
      "set terminal pngcairo size {},{} noenhanced font 'sans,10'\nset output {}\n"
      "set multiplot layout {},{} title 'choreo compare: simulated makespan per setting (bar: "
      "median; whiskers: least to greatest over the trials)'\n"
      "set style fill solid 0.6 border -1\nset boxwidth 0.6\nset yrange [0:*]\n"
      "set xtics rotate by -30 left\nset grid ytics\nset bmargin 6\n",
      420 * columns, 80 + 360 * rows, gnuplot_quoted(png), rows, columns);
  for (std::size_t d = 0; d < panels; ++d) {
    double largest = 0;
    for (const Summary& m : summary[d]) largest = std::max(largest, m.greatest);
    const auto [unit, ns] = time_unit(largest);
    script += fmt::format("$d{} << EOD\n", d);
    for (std::size_t k = 0; k < plan.settings.size(); ++k) {
      const Summary& m = summary[d][k];
      std::string label = plan.settings[k].name;  // a data column in double quotes
      std::ranges::replace(label, '"', '\'');
      std::ranges::replace(label, '\n', ' ');
      script += fmt::format("{} {:.6g} {:.6g} {:.6g} \"{}\"\n", k, m.median / ns, m.least / ns,
                            m.greatest / ns, label);
    }
    script += fmt::format(
        "EOD\nset title {}\nset ylabel 'makespan ({})'\nset xrange [-0.6:{}]\n"
        "plot $d{} using 1:2:3:4:(0.6):xtic(5) with boxerrorbars lc rgb '#4878cf' notitle\n",
        gnuplot_quoted(CompareRunner::name_of(plan.schedules[d])), unit,
        static_cast<double>(plan.settings.size()) - 0.4, d);
  }
  script += "unset multiplot\n";
  run_gnuplot(script, png);
}

}  // namespace

void add_sim_compare_options(CLI::App& cmd, SimCompareArgs& a) {
  cmd.add_option("FILE", a.files, "Schedules (.json, .goal or .cbs)");
  cmd.add_option("--generate", a.generate,
                 "A generated collective to compare too, repeatable, e.g. "
                 "allreduce:recdbl:ranks=4096:bytes=8");
  cmd.add_option("--setting", a.settings,
                 "A setting, repeatable: [NAME=]OPTIONS, OPTIONS being `choreo sim`'s model "
                 "options (--network, --sharing, --placement, --L/--o/--g/--G/--O/--S, "
                 "--link-G, --hop-latency, tcp's --switch-buffer/--mss/--initial-window/--rto, "
                 "--noise, --dma-receive), e.g. \"tcp=--network switch:64 --sharing tcp\"; "
                 "default: one setting of the defaults")
      ->allow_extra_args(false);
  cmd.add_option("--trials", a.trials,
                 "Runs of each setting with noise, noise seeds seed, seed+1, ... (default 1; "
                 "a setting without noise runs once)")
      ->check(CLI::Range(1, 1000000));
  cmd.add_flag("--no-validate", a.no_validate,
               "Skip `choreo validate`'s checks of the FILEs (faster for huge files)");
  cmd.add_option("--csv", a.csv, "Write a row per simulation to this CSV");
  cmd.add_option("--plot", a.plot,
                 "Draw the comparison into this PNG (gnuplot): a panel per schedule, a bar per "
                 "setting at its median makespan, whiskers from the least to the greatest");
}

ComparePlan plan_compare(const SimCompareArgs& a) {
  ComparePlan plan;
  for (const std::string& file : a.files) {
    SimSource s;
    s.file = file;
    s.no_validate = a.no_validate;
    plan.schedules.push_back(s);
  }
  for (const std::string& spec : a.generate) {
    SimSource s;
    s.generate = spec;
    plan.schedules.push_back(s);
  }
  if (plan.schedules.empty())
    throw Error("give the schedules to compare: FILEs, --generate SPEC, or both (see --help)");
  for (const std::string& text : a.settings.empty() ? std::vector<std::string>{""} : a.settings)
    plan.settings.push_back(parse_setting(text, a.trials));
  for (std::size_t k = 0; k < plan.settings.size(); ++k)
    for (std::size_t j = 0; j < k; ++j)
      if (plan.settings[j].name == plan.settings[k].name)
        throw Error(fmt::format("two settings are named '{}': name them apart (NAME=OPTIONS)",
                                plan.settings[k].name));
  for (std::size_t s = 0; s < plan.schedules.size(); ++s)
    for (std::size_t k = 0; k < plan.settings.size(); ++k)
      for (int t = 0; t < plan.settings[k].trials; ++t) plan.parts.push_back({s, k, t});
  return plan;
}

std::string CompareRunner::name_of(const SimSource& source) {
  return source.file.empty() ? source.generate : source.file;
}

PartResult CompareRunner::run(const ComparePart& part) {
  if (loaded_ != part.schedule) {
    schedule_ = SimSchedule{};  // one schedule in memory at a time
    schedule_ = load_for_sim(plan_.schedules[part.schedule]);
    loaded_ = part.schedule;
  }
  sim::SimOptions options = plan_.settings[part.setting].sim;
  options.noise.seed += static_cast<std::uint64_t>(part.trial);
  const sim::SimResult r = schedule_.shaped ? sim::simulate(*schedule_.shaped, options)
                                            : sim::simulate(schedule_.compact, options);
  return {r.makespan, static_cast<std::int64_t>(r.events)};
}

CompareOutput::CompareOutput(const SimCompareArgs& args, const ComparePlan& plan)
    : plan_(plan), plot_(args.plot) {
  if (!plot_.empty()) {
    gnuplot_quoted(plot_);  // a path gnuplot cannot take fails now, not after the work
    if (!std::ofstream(plot_)) throw Error(fmt::format("cannot write {}", plot_));
  }
  if (args.csv.empty()) return;
  csv_.open(args.csv);
  if (!csv_) throw Error(fmt::format("cannot write {}", args.csv));
}

void CompareOutput::finish(const std::vector<PartResult>& results, bool json) {
  if (results.size() != plan_.parts.size())
    throw Error("internal error: the comparison's results do not match its parts");
  if (csv_.is_open()) {
    csv_ << "schedule,setting,options,trial,seed,makespan_ns,events\n";
    for (std::size_t i = 0; i < results.size(); ++i) {
      const ComparePart& p = plan_.parts[i];
      const CompareSetting& s = plan_.settings[p.setting];
      csv_ << fmt::format("{},{},{},{},{},{},{}\n",
                          csv_text(CompareRunner::name_of(plan_.schedules[p.schedule])),
                          csv_text(s.name), csv_text(s.options), p.trial,
                          s.sim.noise.seed + static_cast<std::uint64_t>(p.trial),
                          results[i].makespan, results[i].events);
    }
    csv_.flush();
    if (!csv_) throw Error("cannot write the CSV (disk full?)");
  }
  // Per schedule and setting, over the trials (parts are in plan order: trials consecutive).
  std::vector<std::vector<Summary>> summary(plan_.schedules.size(),
                                            std::vector<Summary>(plan_.settings.size()));
  for (std::size_t i = 0; i < results.size();) {
    const ComparePart& p = plan_.parts[i];
    std::vector<double> makespans;
    for (; i < results.size() && plan_.parts[i].schedule == p.schedule &&
           plan_.parts[i].setting == p.setting;
         ++i)
      makespans.push_back(static_cast<double>(results[i].makespan));
    summary[p.schedule][p.setting] = {
        stats::median(makespans), *std::ranges::min_element(makespans),
        *std::ranges::max_element(makespans), static_cast<int>(makespans.size())};
  }
  if (!plot_.empty()) draw(plan_, summary, plot_);
  // The median against the first setting's; none where that took no time (a schedule of no
  // message).
  const auto ratio = [&](std::size_t schedule, std::size_t setting) -> std::optional<double> {
    const double first = summary[schedule][0].median;
    if (first <= 0) return std::nullopt;
    return summary[schedule][setting].median / first;
  };
  if (json) {
    nlohmann::json out{{"settings", nlohmann::json::array()}, {"results", nlohmann::json::array()}};
    for (const CompareSetting& s : plan_.settings)
      out["settings"].push_back({{"name", s.name}, {"options", s.options}, {"trials", s.trials}});
    for (std::size_t d = 0; d < plan_.schedules.size(); ++d)
      for (std::size_t k = 0; k < plan_.settings.size(); ++k) {
        const Summary& m = summary[d][k];
        out["results"].push_back(
            {{"schedule", CompareRunner::name_of(plan_.schedules[d])},
             {"setting", plan_.settings[k].name},
             {"trials", m.trials},
             {"median_ns", m.median},
             {"min_ns", m.least},
             {"max_ns", m.greatest},
             {"vs_first_setting", ratio(d, k) ? nlohmann::json(*ratio(d, k)) : nlohmann::json()}});
      }
    return print_json(out);
  }
  std::size_t width = 8;  // the settings' column fits the longest name
  for (const CompareSetting& s : plan_.settings) width = std::max(width, s.name.size());
  for (std::size_t d = 0; d < plan_.schedules.size(); ++d) {
    fmt::print("{}\n", CompareRunner::name_of(plan_.schedules[d]));
    fmt::print("  {:<{}} {:>6}  {:>12}  {:>25}  {:>8}\n", "setting", width, "trials", "makespan",
               "[min, max]", "vs first");
    for (std::size_t k = 0; k < plan_.settings.size(); ++k) {
      const Summary& m = summary[d][k];
      const std::optional<double> r = ratio(d, k);
      fmt::print(
          "  {:<{}} {:>6}  {:>12}  {:>25}  {:>8}\n", plan_.settings[k].name, width, m.trials,
          human_seconds(m.median * 1e-9),
          fmt::format("[{}, {}]", human_seconds(m.least * 1e-9), human_seconds(m.greatest * 1e-9)),
          r ? fmt::format("{:.3f}x", *r) : std::string("-"));
    }
  }
}

}  // namespace choreo::cli
