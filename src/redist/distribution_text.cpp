// The text form of distributions and shapes (the command line's), read and written.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>

#include "choreo/core/error.hpp"
#include "choreo/redist/distribution.hpp"

namespace choreo::redist {
namespace {

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (;;) {
    const std::size_t at = text.find(separator);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + 1);
  }
}

template <typename Int>
std::optional<Int> parse_int(std::string_view text) {
  Int value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

DimDistribution parse_dim(std::string_view token, std::size_t dim) {
  if (token == "*") return DimDistribution::collapsed();
  if (token == "block") return DimDistribution::block();
  if (token == "cyclic") return DimDistribution::cyclic(1);
  constexpr std::string_view kCyclicOpen = "cyclic(";
  if (token.starts_with(kCyclicOpen) && token.ends_with(")")) {
    const std::string_view inside =
        token.substr(kCyclicOpen.size(), token.size() - kCyclicOpen.size() - 1);
    const std::optional<std::int64_t> n = parse_int<std::int64_t>(inside);
    if (!n)
      throw Error(
          fmt::format("'{}' in dimension {}: the block size must be a whole number, "
                      "e.g. cyclic(50)",
                      token, dim));
    if (*n < 1)
      throw Error(
          fmt::format("'{}' in dimension {}: the block size must be at least 1; write "
                      "e.g. cyclic(4), or cyclic for cyclic(1)",
                      token, dim));
    return DimDistribution::cyclic(*n);
  }
  if (token.empty())
    throw Error(
        fmt::format("dimension {} has no distribution; write block, cyclic, cyclic(n) "
                    "or * for every dimension, separated by commas",
                    dim));
  throw Error(
      fmt::format("unknown distribution '{}' in dimension {}; use block, cyclic, "
                  "cyclic(n) or * (not distributed)",
                  token, dim));
}

std::vector<int> parse_extents(std::string_view text, std::string_view what) {
  std::vector<int> extents;
  for (std::string_view part : split(text, 'x')) {
    const std::optional<int> value = parse_int<int>(part);
    if (!value)
      throw Error(
          fmt::format("{} '{}': '{}' is not a whole number; write whole numbers "
                      "separated by x, e.g. 2x3",
                      what, text, part));
    extents.push_back(*value);
  }
  return extents;
}

void parse_grid_option(std::string_view option, ArrayDistribution& dist) {
  if (option == "row") {
    dist.order = GridOrder::RowMajor;
  } else if (option == "col") {
    dist.order = GridOrder::ColumnMajor;
  } else if (option.starts_with("first=")) {
    const std::optional<int> first = parse_int<int>(option.substr(6));
    if (!first) throw Error(fmt::format("'{}': the first rank must be a whole number", option));
    dist.first_rank = *first;
  } else if (option.starts_with("ranks=")) {
    for (std::string_view part : split(option.substr(6), ',')) {
      const std::optional<int> rank = parse_int<int>(part);
      if (!rank)
        throw Error(
            fmt::format("'{}': '{}' is not a rank; list whole numbers separated by "
                        "commas, e.g. ranks=3,1,0,2",
                        option, part));
      dist.ranks.push_back(*rank);
    }
  } else if (option.starts_with("src=")) {
    const std::vector<int> firsts = parse_extents(option.substr(4), "src");
    std::size_t next = 0;
    for (DimDistribution& dd : dist.dims) {
      if (dd.kind == DimKind::Collapsed) continue;
      if (next == firsts.size()) break;
      dd.first_proc = firsts[next++];
    }
    if (firsts.size() != dist.grid.size())
      throw Error(
          fmt::format("'{}' gives {} grid coordinates for a {}-dimensional grid; give "
                      "one per grid dimension",
                      option, firsts.size(), dist.grid.size()));
  } else {
    throw Error(
        fmt::format("unknown grid option '{}'; use row, col, first=R, ranks=R,R,... or "
                    "src=AxB",
                    option));
  }
}

ArrayDistribution parse_unchecked(std::string_view text, std::vector<std::int64_t> shape) {
  ArrayDistribution dist;
  dist.shape = std::move(shape);
  const std::size_t at = text.find('@');
  const std::vector<std::string_view> dims = split(text.substr(0, at), ',');
  for (std::size_t d = 0; d < dims.size(); ++d) dist.dims.push_back(parse_dim(dims[d], d));
  if (dist.dims.size() != dist.shape.size())
    throw Error(
        fmt::format("{} distributions for an array of {} dimensions (shape {}); give "
                    "one distribution per dimension",
                    dist.dims.size(), dist.shape.size(), fmt::join(dist.shape, "x")));
  const bool any_distributed = std::any_of(dist.dims.begin(), dist.dims.end(),
                                           [](auto& d) { return d.kind != DimKind::Collapsed; });
  if (at == std::string_view::npos) {
    if (any_distributed)
      throw Error(
          "no processor grid; add one grid extent per distributed (non-*) dimension "
          "after @, e.g. @2x2");
    return dist;
  }
  const std::vector<std::string_view> grid_and_options = split(text.substr(at + 1), ':');
  dist.grid = parse_extents(grid_and_options[0], "grid");
  // With nothing distributed the grid is one process, which may be written @1 so that
  // options such as first=R have somewhere to go.
  if (!any_distributed && dist.grid == std::vector<int>{1}) dist.grid.clear();
  // Options need the grid's dimensions checked first (src= counts them).
  validate(dist);
  for (std::size_t k = 1; k < grid_and_options.size(); ++k)
    parse_grid_option(grid_and_options[k], dist);
  return dist;
}

}  // namespace

std::vector<std::int64_t> parse_shape(std::string_view text) {
  std::vector<std::int64_t> shape;
  for (std::string_view part : split(text, 'x')) {
    const std::optional<std::int64_t> extent = parse_int<std::int64_t>(part);
    if (!extent || *extent < 0)
      throw Error(
          fmt::format("shape '{}': '{}' is not an extent; write extents (0 or more) "
                      "separated by x, e.g. 2000x2000",
                      text, part));
    shape.push_back(*extent);
  }
  return shape;
}

ArrayDistribution parse_distribution(std::string_view text, std::vector<std::int64_t> shape,
                                     std::optional<int> comm_size) {
  try {
    ArrayDistribution dist = parse_unchecked(text, std::move(shape));
    validate(dist, comm_size);
    return dist;
  } catch (const Error& e) {
    throw Error(fmt::format("distribution '{}': {}", text, e.what()));
  }
}

std::string to_string(const ArrayDistribution& dist) {
  std::vector<std::string> dims;
  std::vector<int> firsts;
  bool shifted = false;
  for (const DimDistribution& dd : dist.dims) {
    if (dd.kind == DimKind::Collapsed) {
      dims.emplace_back("*");
      continue;
    }
    dims.push_back(dd.kind == DimKind::Block ? std::string("block")
                   : dd.block_size == 1      ? std::string("cyclic")
                                             : fmt::format("cyclic({})", dd.block_size));
    firsts.push_back(dd.first_proc);
    shifted = shifted || dd.first_proc != 0;
  }
  std::string options;
  if (dist.order == GridOrder::RowMajor) options += ":row";
  if (!dist.ranks.empty()) options += fmt::format(":ranks={}", fmt::join(dist.ranks, ","));
  if (dist.ranks.empty() && dist.first_rank != 0)
    options += fmt::format(":first={}", dist.first_rank);
  if (shifted) options += fmt::format(":src={}", fmt::join(firsts, "x"));
  std::string text = fmt::format("{}", fmt::join(dims, ","));
  if (!dist.grid.empty()) return fmt::format("{}@{}{}", text, fmt::join(dist.grid, "x"), options);
  return options.empty() ? text : fmt::format("{}@1{}", text, options);
}

}  // namespace choreo::redist
