#include "cli/gnuplot.hpp"

#include <fmt/core.h>

#include <cstdio>
#include <fstream>

#include "choreo/error.hpp"

namespace choreo::cli {

std::string gnuplot_quoted(const std::string& path) {
  if (path.find_first_of("'\n\r") != std::string::npos)
    throw Error(
        fmt::format("cannot plot to {}: gnuplot takes no quote or line break in a file "
                    "name; rename it",
                    path));
  return "'" + path + "'";
}

void run_gnuplot(const std::string& script, const std::string& output) {
  if (!std::ofstream(output, std::ios::trunc))
    throw Error(
        fmt::format("cannot write {}: check that its folder exists and is writable", output));
  FILE* gp = popen("gnuplot >/dev/null 2>&1", "w");
  if (gp == nullptr) throw Error("cannot run gnuplot: install it (apt-get install gnuplot)");
  fmt::print(gp, "{}", script);
  if (pclose(gp) != 0)
    throw Error(fmt::format("gnuplot failed to write {} (is gnuplot installed?)", output));
}

}  // namespace choreo::cli
