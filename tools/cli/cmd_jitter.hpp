#pragma once
// `choreo jitter`: paper 004's jitter study (registered from choreo.cpp).
#include <CLI/CLI.hpp>

#include "cli/common.hpp"

namespace choreo::cli {

void add_jitter_command(CLI::App& app, const Global& global);

}  // namespace choreo::cli
