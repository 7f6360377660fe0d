#pragma once
// The cluster of a job run by Slurm, derived as TensorFlow's SlurmClusterResolver derives it
// (tensorflow/python/distribute/cluster_resolver/slurm_cluster_resolver.py): every task of a
// Slurm step computes the same cluster from the step's variables, its own task from its rank
// (SLURM_PROCID) and the GPUs it may use. docs/decisions.md ("Cluster resolvers") lists where
// Strata differs from TensorFlow and why.
//
// Pure functions: the environment is passed in (the process edge, engine/worker, reads it).
// Every failure is a ConfigError whose path names the variable or option at fault.

#include "strata/schema/cluster_spec.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace strata::schema {

// Environment variables by name.
using Environment = std::map<std::string, std::string>;

// A Slurm hostlist ("n[1-3],m5,o[009-011]") as its hosts, in order, duplicates kept, as
// TensorFlow's expand_hostlist: a range keeps the width of its first bound ("[009-011]" gives
// 009, 010, 011); "" gives no hosts. ConfigError at `path` for what TensorFlow refuses (a
// range that is not numbers, "[" inside brackets, text after "]", an empty name) and for a
// range that runs backwards (TensorFlow silently expands it to nothing).
std::vector<std::string> expandHostlist(const std::string& hostlist, const std::string& path = "hostlist");
// Slurm's tasks per node ("3(x2),2,1") as one count per node (3, 3, 2, 1), as TensorFlow's
// expand_tasks_per_node. ConfigError at `path` when malformed.
std::vector<int64_t> expandTasksPerNode(const std::string& spec, const std::string& path = "tasks_per_node");

// The variables a task started by srun inside an allocation has, which the resolver reads.
const std::vector<std::string>& slurmStepVariables();
// Whether every one of slurmStepVariables() is set.
bool inSlurmStep(const Environment& env);

// SlurmClusterResolver's arguments; an absent one is read from the environment as TensorFlow
// reads it.
struct SlurmOptions {
    // Tasks per job name; absent: every task a worker ({"worker": SLURM_STEP_NUM_TASKS}).
    std::optional<std::map<std::string, int64_t>> jobs;
    int64_t portBase = 8888;
    // Absent: as many as CUDA_VISIBLE_DEVICES lists, else `nodeGpus`, else none.
    std::optional<int64_t> gpusPerNode;
    // Absent: gpusPerNode divided by the most tasks on one node (rounded down).
    std::optional<int64_t> gpusPerTask;
    // Tasks on each node of SLURM_STEP_NODELIST, in its order; one value: the same on every
    // node. Absent: SLURM_STEP_TASKS_PER_NODE.
    std::optional<std::vector<int64_t>> tasksPerNode;
    // TensorFlow's dictionary form of tasks_per_node: the hosts and their tasks, in host name
    // order, instead of SLURM_STEP_NODELIST.
    std::optional<std::map<std::string, int64_t>> tasksPerHost;
    // Compute this task's CUDA_VISIBLE_DEVICES (the process edge sets it).
    bool autoSetGpu = true;
    // The GPUs the process edge found on this node (TensorFlow runs nvidia-smi --list-gpus),
    // used when neither gpusPerNode nor CUDA_VISIBLE_DEVICES says.
    std::optional<int64_t> nodeGpus;
};

// What the resolver derived for one task.
struct SlurmCluster {
    // Addresses per job, jobs in name order (TensorFlow sorts them), tasks in rank order.
    std::vector<std::pair<std::string, std::vector<std::string>>> jobs;
    int64_t rank = 0; // SLURM_PROCID
    std::string taskType;
    int64_t taskIndex = 0;
    std::string host; // this task's node
    int64_t port = 0;
    int64_t gpusPerNode = 0;
    int64_t gpusPerTask = 0;
    // This task's GPUs ("2,3"); absent when autoSetGpu is off or the task gets no GPU.
    std::optional<std::string> cudaVisibleDevices;

    std::string taskName() const; // "worker:3"
    // {"ps": ["n1:8888"], "worker": [...]}: TF_CONFIG's "cluster", jobs in name order.
    Json clusterJson() const;
    // {"cluster": clusterJson(), "task": {"type": ..., "index": ...}}.
    Json tfConfig() const;
};

// The cluster and this task from the environment, as SlurmClusterResolver.cluster_spec() and
// get_task_info() compute them. ConfigError: a variable missing ("SLURM_PROCID: is not set:
// ... start each task with srun"), not a number or malformed; more GPUs per node requested than
// there are; jobs asking for another number of tasks than the step has; a rank beyond them.
SlurmCluster resolveSlurmCluster(const Environment& env, const SlurmOptions& options = {});

// The resolver's options for an experiment's cluster.slurm (its jobs, port_base, gpus_per_task:
// 0 leaves TensorFlow's default).
SlurmOptions slurmOptions(const SlurmSettings& settings);

// The engine's cluster for a resolved Slurm cluster, through its TF_CONFIG (clusterFromTfConfig):
// one node per host. ConfigError at "jobs.<name>" for a job name that is not one of Strata's
// task types (TensorFlow accepts any), and for TensorFlow's rules on the cluster.
ClusterSpec slurmClusterSpec(const SlurmCluster& cluster);

} // namespace strata::schema
