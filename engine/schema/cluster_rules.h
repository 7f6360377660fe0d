#pragma once
// TensorFlow's rules on a cluster and the host names in it, shared by the document's cluster
// (cluster_spec.cpp) and a TF_CONFIG read back into one (tf_config.cpp).

#include "strata/schema/cluster_spec.h"

namespace strata::schema {

std::string lower(std::string s);
bool isLoopback(const std::string& host);
// Why `host` cannot be a node's host, or empty.
std::string hostProblem(const std::string& host);
std::string plural(int64_t n, const std::string& what);
// "host:port" ("[::1]:port" for IPv6).
std::string addressOf(const std::string& host, int64_t port);

// One entry for TensorFlow's rules on task counts: a group of `count` tasks of `type`,
// reported at `path` (an assignment of the document, or a type's list in a TF_CONFIG).
struct TaskGroup {
    std::string path;
    std::string type;
    int64_t count;
};

// At most one chief and one evaluator (TensorFlow's multi_worker_util refuses more), and at
// least one chief or worker: the processes that train.
void checkTaskCounts(const std::vector<TaskGroup>& groups, const std::string& path, Problems& problems);

// One task's address, for the check that no two tasks share one.
struct AddressUse {
    std::string path;
    std::string task;    // "worker:1"
    std::string address; // "host:port"
};

void checkAddressesUnique(const std::vector<AddressUse>& uses, Problems& problems);
const NodeSpec* findNode(const ClusterSpec& cluster, const std::string& name);
// Two names of one machine: equal ignoring case, or both loopback names.
bool sameHost(const std::string& a, const std::string& b);

// cluster.slurm of the cluster `cluster` reads (absent: nothing). Problems go to the reader's.
std::optional<SlurmSettings> readSlurm(ObjectReader& cluster);
Json slurmToJson(const SlurmSettings& settings);

} // namespace strata::schema
