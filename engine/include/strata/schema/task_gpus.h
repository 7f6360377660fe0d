#pragma once
// Each task its own GPUs: which of its node's GPUs a task of the experiment's cluster (its
// nodes and tasks, or a TF_CONFIG's) uses, so that several tasks on one machine do not all
// train on the same ones. The tasks that train (chief and workers) on one host share its GPUs
// in task order (taskAddresses()), `cluster.gpus_per_task` each (0: the node's GPUs divided
// evenly among them, at least one each), as TensorFlow's SlurmClusterResolver divides a
// node's GPUs among its tasks; ps and evaluator tasks compute on the CPU and take none. A Slurm
// job's tasks get theirs from the Slurm resolver instead (slurm_resolver.h).
// docs/decisions.md ("Cluster resolvers", "Each task its own GPUs") explains the choices.
//
// Pure functions: the node's GPU count and CUDA_VISIBLE_DEVICES are passed in (the process
// edge, engine/worker, reads them). Errors are ConfigError.

#include "strata/schema/cluster_spec.h"
#include "strata/schema/experiment.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace strata::schema {

// Whether tasks of `type` take a share of their node's GPUs: chief and worker.
bool usesNodeGpus(const std::string& type);

// A task's place among the tasks sharing its host's GPUs (nodes of one host, loopback names
// being one host, share its GPUs).
struct GpuShare {
    int64_t sharing = 0;  // the tasks using GPUs on the task's host; 0: the task takes none
    int64_t position = 0; // this task's place among them, from 0, in task order
};

// `task` ("worker:1") of `cluster` (as readCluster accepted it); a task the cluster does not
// have takes none (whoever runs it reports that).
GpuShare gpuShare(const ClusterSpec& cluster, const std::string& task);

// The GPUs `task` uses on its node, as CUDA_VISIBLE_DEVICES names them ("2,3"): `nodeGpus`
// GPUs numbered 0..nodeGpus-1, unless `visibleDevices` (the CUDA_VISIBLE_DEVICES the task
// already has, set by the user or a scheduler) lists the node's GPUs, which are then picked
// from that list. Nothing (leave the environment as it is) when the node has no GPU, the task
// takes none (ps, evaluator), or it is the only task using the node's GPUs and
// `cluster.gpus_per_task` is 0. With gpus_per_task 0 and more tasks than GPUs, each task gets
// one, in turn (tasks share a GPU, as they would without this). ConfigError at
// "cluster.gpus_per_task" when the tasks on the node ask for more GPUs than it has.
std::optional<std::string> taskCudaVisibleDevices(const ClusterSpec& cluster, const std::string& task,
                                                  int64_t nodeGpus,
                                                  const std::optional<std::string>& visibleDevices = std::nullopt);

// Whether a strategy runs as the cluster's tasks (MultiWorkerMirrored, ParameterServer); the
// others train in one process, which uses the whole node whatever the cluster says.
bool runsAsTasks(const std::string& strategyType);
// The same for `experiment`'s cluster; nothing unless its strategy (the one that trains: a
// TPU experiment's fallback) runs as tasks.
std::optional<std::string> taskCudaVisibleDevices(const Experiment& experiment, const std::string& task,
                                                  int64_t nodeGpus,
                                                  const std::optional<std::string>& visibleDevices = std::nullopt);

// CUDA_VISIBLE_DEVICES' entries ("0, 2,GPU-ab12" gives 0, 2, GPU-ab12); an empty value lists none.
std::vector<std::string> visibleDeviceList(const std::string& cudaVisibleDevices);

} // namespace strata::schema
