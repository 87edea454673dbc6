#pragma once
// A message cut into chunks along its outermost dimension, for the shared-memory ring
// (node_exchange.hpp): chunk k holds the k-th run of `per_chunk` indices of that dimension in
// the canonical element order, so a sender's chunk k and its receiver's chunk k hold the same
// elements, each in its own memory. Columns, for a matrix.
#include <cstdint>
#include <vector>

#include "choreo/redist/message_layout.hpp"

namespace choreo::redist {

/// Indices of the outermost dimension in a section list (a trapezoid's sections each hold
/// their own columns, so the sum over the sections).
std::int64_t outer_extent(const std::vector<LocalSection>& sections);

/// The most elements one index of the outermost dimension holds in any section.
std::int64_t outer_elements(const std::vector<LocalSection>& sections);

/// `sections` cut into chunks of `per_chunk` outermost indices (the last chunk may hold fewer),
/// in order; ceil(outer_extent / per_chunk) chunks. Throws choreo::Error unless per_chunk > 0.
std::vector<std::vector<LocalSection>> split_outer(const std::vector<LocalSection>& sections,
                                                   std::int64_t per_chunk);

}  // namespace choreo::redist
