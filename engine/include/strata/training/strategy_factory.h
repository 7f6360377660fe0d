#pragma once
// The strategy factory: every strategy of the tf.distribute family is built here, the
// synchronous ones (engine/distribute) and ParameterServer's (engine/ps). It sits in the
// training room, above both, so neither needs to know the other.

#include "strata/distribute/host_devices.h"
#include "strata/distribute/strategy.h"
#include "strata/schema/experiment.h"

#include <memory>

namespace strata::run {

// Builds the experiment's strategy on this host (replica models initialized from the seed,
// the loss, the optimizers with the learning rate scaled as the experiment asks); a
// multi-worker strategy joins its job first, ParameterServer's connects to its ps tasks.
// Throws ConfigError when the devices it names do not exist here, CollectiveError when the
// job cannot be joined.
std::unique_ptr<distribute::Strategy> createStrategy(const schema::Experiment& experiment,
                                                     const distribute::HostDevices& host,
                                                     const distribute::TaskContext& task = {});

// The compute threads of this task's process: training.threads when set; otherwise the host's
// cores, shared evenly by the job's tasks that compute on this host (chief and workers) when
// the strategy runs as tasks (MultiWorkerMirrored, ParameterServer), as the planner assumes:
// every process taking all the cores makes their OpenMP threads wait on each other.
int taskThreads(const schema::Experiment& experiment, const distribute::HostDevices& host,
                const distribute::TaskContext& task = {});

} // namespace strata::run
