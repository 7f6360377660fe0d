#pragma once
// TF_CONFIG at the process edge: when set, it names this task and the cluster's addresses
// as TensorFlow's does, overriding the experiment's cluster.

#include "cli.h"

#include "strata/schema/experiment.h"

#include <string>

namespace strata::cli {

// This task: --task, else the one TF_CONFIG names, else worker:0.
std::string taskName(const Args& args);
// The experiment in `file`, its tasks and nodes replaced by TF_CONFIG's when it is set (before
// the cluster is checked against the strategy). Throws ConfigError, ParseError, IoError.
schema::Experiment loadWithTfConfig(const std::string& file);

} // namespace strata::cli
