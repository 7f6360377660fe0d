#pragma once
// Where this process's cluster and task come from, at the process edge (the only engine code
// that reads the environment for them). Precedence, as docs/decisions.md ("Cluster
// resolvers") explains: a TF_CONFIG naming a cluster (explicit, as TensorFlow's default
// resolver), else the experiment's cluster.slurm (the Slurm step's variables, as TensorFlow's
// SlurmClusterResolver reads them), else the experiment's own cluster.

#include "cli.h"

#include "strata/schema/experiment.h"
#include "strata/schema/slurm_resolver.h"

#include <optional>
#include <string>

namespace strata::cli {

// The variables the resolvers read (TF_CONFIG, the Slurm step's, CUDA_VISIBLE_DEVICES,
// STRATA_NODE_GPUS), as they were when first asked for: setting CUDA_VISIBLE_DEVICES for this
// task does not change what a later resolution sees.
const schema::Environment& processEnvironment();
// The NVIDIA GPUs this node has, counted without starting CUDA (the driver's
// /proc/driver/nvidia/gpus): TensorFlow's nvidia-smi --list-gpus. Nothing without the driver.
// STRATA_NODE_GPUS, when set, is the count instead (a node whose driver files do not show its
// GPUs; tests without a GPU); ConfigError at "STRATA_NODE_GPUS" when it is not a whole number
// from 0 to 65535.
std::optional<int64_t> nodeGpuCount();

struct ProcessCluster {
    std::string source; // "tf_config", "slurm", "experiment" or "default" (no experiment)
    // The nodes and tasks replacing the experiment's (TF_CONFIG, Slurm); none: the experiment's.
    std::optional<schema::Json> cluster;
    std::optional<std::string> task; // "worker:3", when TF_CONFIG or Slurm names it
    std::optional<schema::SlurmCluster> slurm;
};

// This process's cluster. `clusterSection`: the experiment's "cluster" (nullptr: no experiment;
// then a Slurm step, all its variables set, is resolved with TensorFlow's defaults). `forced`:
// the Slurm resolver with these options whatever else is set. ConfigError: a TF_CONFIG that is
// not JSON or not a cluster; cluster.slurm outside a Slurm step (naming the missing variable:
// start each task with srun) or any other problem the resolver finds.
ProcessCluster resolveProcessCluster(const schema::Json* clusterSection, const std::optional<schema::SlurmOptions>& forced = {});

// This task: --task, else the one TF_CONFIG or Slurm names (for the experiment in the first
// positional argument), else worker:0. Problems are left to loadWithTfConfig.
std::string taskName(const Args& args);
// The task the Slurm resolver names for the experiment in `file` (its cluster.slurm) in this
// Slurm step. ConfigError when the experiment names no Slurm cluster or the step's variables
// do not resolve.
std::string slurmTaskName(const std::string& file);
// The experiment in `file`, its tasks and nodes replaced by TF_CONFIG's or the Slurm step's
// (before the cluster is checked against the strategy). Throws ConfigError, ParseError, IoError.
schema::Experiment loadWithTfConfig(const std::string& file);
// The CUDA_VISIBLE_DEVICES `train` gives `task` of the experiment in `file`: the Slurm
// resolver's (as SlurmClusterResolver's auto_set_gpu), else the task's share of its node's
// GPUs in the cluster TF_CONFIG or the experiment names (schema/task_gpus.h: nodeGpuCount(),
// picked from the CUDA_VISIBLE_DEVICES the process has). Nothing: leave it as it is. Throws what
// loading the experiment throws, and ConfigError at "cluster.gpus_per_task" for more GPUs than
// the node has.
std::optional<std::string> taskGpus(const std::string& file, const std::string& task);
// Sets CUDA_VISIBLE_DEVICES to taskGpus(file, task) when that names GPUs; call before anything
// starts CUDA. Returns this task's CUDA_VISIBLE_DEVICES then (nothing: not set, every GPU of
// the node). Throws as taskGpus, setting nothing.
std::optional<std::string> setTaskGpus(const std::string& file, const std::string& task);

} // namespace strata::cli
