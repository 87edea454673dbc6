#pragma once
// The resilient allreduce's test seam (private: tests/mpi/resilient_test.cpp holds one rank back
// at a chosen butterfly stage through it).

namespace choreo::detail {
/// Test seam: when set, called on every rank at each butterfly stage of resilient_allreduce,
/// after the stage's send and receive are posted and before waiting (stage 0 .. K-1), with the
/// butterfly rank v and `resilient_stage_hook_data`. Tests use it to hold one rank back at a
/// chosen point and prove that its partners finish without it. Not thread safe; nullptr (the
/// default) costs one comparison per stage.
using ResilientStageHook = void (*)(int stage, int butterfly_rank, void* data);
extern ResilientStageHook resilient_stage_hook;
extern void* resilient_stage_hook_data;
}  // namespace choreo::detail
