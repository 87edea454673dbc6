#pragma once
// choreo-mpi redist run: redistribute an array of doubles filled with a function of the
// global index, check every element on every rank, and print the median times.
#include <CLI/CLI.hpp>
#include <string>

namespace choreo::tools {

struct RedistRunArgs {
  std::string shape, from, to;
  std::string method = "auto";  ///< auto | datatype | pack | both | all
  int reps = 10, warmup = 2;
  bool relabel = false;
  bool json = false;
};

/// Adds `redist` with its `run` subcommand to the app; returns `redist`.
CLI::App* add_redist_command(CLI::App& app, RedistRunArgs& args);

/// Runs on MPI_COMM_WORLD; rank 0 prints. Throws the same choreo::Error on every rank.
void redist_run(const RedistRunArgs& args, int rank);

}  // namespace choreo::tools
