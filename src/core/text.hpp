#pragma once
// Splitting the colon- and comma-separated specs that tools take on the command line
// ("allgather:ring:ranks=24:bytes=1048576"), and checking text.
#include <string_view>
#include <vector>

namespace choreo {

/// The fields of `text` between separators, empty ones kept: "a::b" -> {"a", "", "b"}, and
/// "" -> {""}. The views point into `text`.
std::vector<std::string_view> split(std::string_view text, char separator);

/// True when `text` is well-formed UTF-8 (no overlong forms, surrogates or code points beyond
/// U+10FFFF): what a JSON string can hold.
bool is_utf8(std::string_view text);

}  // namespace choreo
