// The command line's text form of a ScaLAPACK descriptor on a BLACS grid.
#include <fmt/format.h>

#include <charconv>
#include <string>
#include <utility>

#include "choreo/core/error.hpp"
#include "choreo/redist/scalapack.hpp"

namespace choreo::redist {

ArrayDistribution parse_scalapack(std::string_view text, std::optional<int> comm_size) {
  constexpr std::string_view kPrefix = "desc:";
  const auto usage = [&](const std::string& problem) {
    return Error(
        fmt::format("descriptor '{}': {}; write desc:M,N,MB,NB,RSRC,CSRC,LLD@PxQ, e.g. "
                    "desc:2000,2000,50,50,0,0,1000@2x2",
                    text, problem));
  };
  if (!text.starts_with(kPrefix)) throw usage("it does not start with desc:");
  const std::size_t at = text.find('@');
  if (at == std::string_view::npos) throw usage("no @PxQ grid");
  std::string_view fields = text.substr(kPrefix.size(), at - kPrefix.size());
  std::vector<std::int64_t> values;
  for (;;) {
    const std::size_t comma = fields.find(',');
    const std::string_view field = fields.substr(0, comma);
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
    if (ec != std::errc{} || end != field.data() + field.size())
      throw usage(fmt::format("'{}' is not a whole number", field));
    values.push_back(value);
    if (comma == std::string_view::npos) break;
    fields.remove_prefix(comma + 1);
  }
  if (values.size() != 7) throw usage(fmt::format("{} fields instead of 7", values.size()));
  // The grid and its options read as a distribution's, then taken over by the BLACS grid.
  const std::string grid_text = std::string(text.substr(at + 1));
  const ArrayDistribution grid_of = parse_distribution(
      "cyclic,cyclic@" + grid_text,
      {std::max<std::int64_t>(0, values[0]), std::max<std::int64_t>(0, values[1])});
  if (grid_of.grid.size() != 2) throw usage("the grid must be PxQ");
  const bool col = grid_text.find(":col") != std::string::npos;
  const BlacsGrid grid{grid_of.grid[0], grid_of.grid[1],
                       col ? GridOrder::ColumnMajor : GridOrder::RowMajor, grid_of.first_rank,
                       grid_of.ranks};
  const ScalapackDesc desc{1,         0,         values[0], values[1], values[2],
                           values[3], values[4], values[5], values[6]};
  ArrayDistribution dist = from_scalapack(desc, grid);
  validate(dist, comm_size);
  return dist;
}

ArrayDistribution parse_any_distribution(std::string_view text, std::vector<std::int64_t> shape,
                                         std::optional<int> comm_size) {
  return text.starts_with("desc:") ? parse_scalapack(text, comm_size)
                                   : parse_distribution(text, std::move(shape), comm_size);
}

}  // namespace choreo::redist
