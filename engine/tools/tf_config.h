#pragma once
// TF_CONFIG at the process edge: when set, it names this task and the cluster's addresses
// as TensorFlow's does, overriding the experiment's cluster.

#include "cli.h"

#include "strata/spec/experiment.h"

#include <string>

namespace strata::cli {

// This task: --task, else the one TF_CONFIG names, else worker:0.
std::string taskName(const Args& args);
// Replaces the experiment's tasks and nodes by TF_CONFIG's, if set. Throws ConfigError.
void applyTfConfig(spec::Experiment& experiment);

} // namespace strata::cli
