#pragma once
// The three kinds of task of a ParameterServer job (tf.distribute.ParameterServerStrategy
// with a ClusterCoordinator), each a strata-engine process:
// - the coordinator (chief): owns the training loop; schedules each step on a free worker
//   (a step lost with its worker runs again elsewhere, so every step runs at least once and
//   the step count is exact), bounds staleness when asked (max_staleness), evaluates, writes
//   checkpoints holding every shard and the optimizer's slots, and ends the job;
// - a worker: runs the steps it is given on its batches (the coordinator names each step's
//   batch of the shuffled stream, so a step re-run elsewhere trains on the same examples);
// - a ps: holds its shards and applies pushed gradients as they arrive.
// A worker that dies does not stop the job; a ps that dies does, naming it; a relaunched
// job resumes from the coordinator's last checkpoint.

#include "strata/rundir/run_directory.h"
#include "strata/training/trainer.h"

#include <nlohmann/json.hpp>

namespace strata::ps {

// Each returns its `done` event's fields (also emitted); errors are strata::Error subclasses
// (CollectiveError names the lost task).
nlohmann::ordered_json runCoordinator(const schema::Experiment& experiment, const run::RunDirectory& runDir,
                                      run::EventSink& events, const run::TrainerOptions& options);
nlohmann::ordered_json runParameterServerWorker(const schema::Experiment& experiment, run::EventSink& events,
                                                const run::TrainerOptions& options);
nlohmann::ordered_json runParameterServer(const schema::Experiment& experiment, run::EventSink& events,
                                          const run::TrainerOptions& options);

} // namespace strata::ps
