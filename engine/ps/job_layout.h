#pragma once
// The shape of a ParameterServer job as every task computes it from the experiment alone:
// the coordinator (chief), workers and ps tasks with their addresses, and where each
// variable's shards live (distribute/partitioner.h). Every task derives the same layout, so
// messages carry values, never placement.

#include "strata/distribute/partitioner.h"
#include "strata/nn/sequential.h"
#include "strata/schema/cluster_spec.h"
#include "strata/schema/experiment.h"

#include <chrono>
#include <string>
#include <vector>

namespace strata::ps {

struct ShardRef {
    size_t variable = 0; // index into the model's parameters
    size_t shard = 0;    // index into that variable's shards
};

struct JobLayout {
    schema::TaskAddress chief;
    std::vector<schema::TaskAddress> workers, ps;
    std::vector<distribute::VariableShards> variables; // in the model's parameter order
    std::chrono::milliseconds timeout{3000};     // a task unheard this long is lost
    // At the start: how long the coordinator waits for the ps tasks, and a task for the coordinator.
    std::chrono::milliseconds startupTimeout{600000};
    int64_t maxStaleness = -1;

    // Throws ConfigError when the experiment is not a ParameterServer job.
    static JobLayout of(const schema::Experiment& experiment, const nn::Sequential& model);
    // The shards ps task `ps` holds, in placement order.
    std::vector<ShardRef> shardsOf(int psIndex) const;
    const distribute::VariableShard& shard(const ShardRef& r) const { return variables[r.variable].shards[r.shard]; }
    // The largest frame a message of this job carries: its largest shard, or a header (the
    // limit of the sockets that carry shards, transport.h).
    int64_t maxFrameBytes() const;
    // The endpoint a task binds or connects to.
    static std::string endpoint(const schema::TaskAddress& task);
};

// The routing id of worker `task`'s step socket in process `pid` ("worker:1@4242"): the
// coordinator addresses a worker it learns of from its heartbeats by it.
std::string workerIdentity(const std::string& task, int64_t pid);

} // namespace strata::ps
