// A recording's directory: one rank-<r>.ctr per rank, read and checked against each other.
#include <fmt/format.h>

#include "choreo/core/error.hpp"
#include "choreo/core/io.hpp"
#include "choreo/replay/trace_format.hpp"

namespace choreo::trace {

std::vector<RankTrace> read_directory(const std::filesystem::path& dir) {
  if (!std::filesystem::is_directory(dir))
    throw Error(
        fmt::format("{} is not a directory; pass the DIR a run with CHOREO_RECORD=DIR "
                    "wrote its rank-<r>.ctr files to",
                    dir.string()));
  const auto read_rank = [&](int rank) {
    const std::filesystem::path path = dir / file_name(rank);
    if (!std::filesystem::exists(path))
      throw Error(
          fmt::format("{} is missing: every rank of the recorded run writes one; record "
                      "again (did rank {} crash?)",
                      path.string(), rank));
    return decode(read_text_file(path), path.string());
  };
  std::vector<RankTrace> traces;
  traces.push_back(read_rank(0));
  const Header& first = traces[0].header;
  if (first.rank != 0)
    throw Error(
        fmt::format("{}: the header says rank {}; files must keep the names the "
                    "recorder gave them",
                    (dir / file_name(0)).string(), first.rank));
  for (int rank = 1; rank < first.size; ++rank) {
    traces.push_back(read_rank(rank));
    const Header& h = traces.back().header;
    if (h.rank != rank || h.size != first.size)
      throw Error(fmt::format(
          "{}: the header says rank {} of {} where rank {} of {} was "
          "expected; are files of two recordings mixed in {}?",
          (dir / file_name(rank)).string(), h.rank, h.size, rank, first.size, dir.string()));
  }
  return traces;
}

}  // namespace choreo::trace
