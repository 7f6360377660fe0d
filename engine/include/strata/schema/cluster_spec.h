#pragma once
// The experiment's cluster: the machines that run it (nodes) and the tasks assigned to
// them, in TensorFlow's cluster-spec terms (chief, worker, ps, evaluator). Gives every
// task its address and the TF_CONFIG it receives, and reads a TF_CONFIG back into a
// cluster. docs/experiment-schema.md ("cluster") describes the document section.
//
// The functions below that take a ClusterSpec expect one that readCluster() accepted
// (every task's node exists); errors are ConfigError.

#include "strata/schema/defaults.h"
#include "strata/schema/json_reader.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace strata::schema {

// Automatic task ports are assigned per host counting up from here.
constexpr int64_t kFirstAutomaticPort = 29500;

struct NodeSpec {
    std::string name;
    std::string host;        // how the other tasks reach this node (name or address, no port)
    int64_t sshPort = defaultInteger("cluster.nodes.ssh_port");
    std::string user;        // SSH user; empty: the launching user
    std::string auth = "none"; // none (this machine, no SSH), agent, key, password (asked at launch)
    std::string keyFile;     // with auth "key"
    std::string engine;      // strata-engine on that node; empty: the default
    std::string workDir;     // where the app keeps run directories there; empty: ~/strata-runs

    bool operator==(const NodeSpec&) const = default;
};

// `count` tasks of `type` on `node`, on ports port, port + 1, ... (port 0: automatic).
struct TaskAssignment {
    std::string type{defaultText("cluster.tasks.type")};
    std::string node;
    int64_t count = defaultInteger("cluster.tasks.count");
    int64_t port = defaultInteger("cluster.tasks.port");

    bool operator==(const TaskAssignment&) const = default;
};

struct ClusterSpec {
    // The default: this machine, running one worker.
    std::vector<NodeSpec> nodes{NodeSpec{"local", "localhost"}};
    std::vector<TaskAssignment> tasks{TaskAssignment{"worker", "local"}};
    // Every task stops (as on SIGTERM) after this many seconds in a row with no app attached
    // (no `strata-engine attach` follower); 0: never.
    int64_t stopUnattendedSeconds = defaultInteger("cluster.stop_unattended_seconds");

    bool operator==(const ClusterSpec&) const = default;
};

// One task of the cluster, as TensorFlow names and addresses it.
struct TaskAddress {
    std::string type;
    int64_t index = 0;      // within its type, in assignment order
    std::string node;
    std::string host;
    int64_t port = 0;       // automatic ports resolved
    size_t assignment = 0;  // which of ClusterSpec::tasks it comes from

    std::string name() const;    // "worker:0"
    std::string address() const; // "host:port" ("[::1]:port" for IPv6)
};

// chief, worker, ps, evaluator: TensorFlow's task types, in its order.
const std::vector<std::string>& taskTypes();
const std::vector<std::string>& authNames();
// The auth a node gets when none is written: "none" for this machine's loopback names
// (localhost, 127.0.0.1, ::1), "agent" for any other host.
std::string defaultAuth(const std::string& host);

// Reads the `cluster` section (absent: the default cluster) and checks it as TensorFlow
// checks a cluster spec: known task types, at most one chief and one evaluator, at least
// one chief or worker, existing and uniquely named nodes, ports in range, no host:port
// used twice, the evaluator on the host of chief:0 (else worker:0), whose run directory it
// reads; a password or passphrase in the document is refused. Problems go to
// `problems` with their paths; what could be read is returned either way, one entry per
// list element, so that an editor can show a malformed cluster row by row.
ClusterSpec readCluster(const Json* json, const std::string& path, Problems& problems);
Json clusterToJson(const ClusterSpec& cluster);
Json nodeToJson(const NodeSpec& node);
Json taskToJson(const TaskAssignment& task);

// How many tasks of `type` the cluster has.
int64_t taskCount(const ClusterSpec& cluster, const std::string& type);
// Every task in TensorFlow's order (chief, worker, ps, evaluator; within a type, in
// assignment order). Automatic ports count up per host from kFirstAutomaticPort in that
// order, skipping the ports assigned explicitly on the host.
std::vector<TaskAddress> taskAddresses(const ClusterSpec& cluster);
// "chief:0", "worker:0", "worker:1", ... in the same order; also for a cluster with problems.
std::vector<std::string> taskNames(const ClusterSpec& cluster);

// The TF_CONFIG of task `type`:`index`: {"cluster": {"chief": [...], "worker": [...], "ps":
// [...], "evaluator": [...]}, "task": {"type": ..., "index": ...}}, listing only the types
// the cluster has. ConfigError when the cluster has no such task.
Json tfConfig(const ClusterSpec& cluster, const std::string& type, int64_t index);
// A cluster from a TF_CONFIG ({"cluster": ..., "task": ...}; "task" optional, other keys
// ignored as TensorFlow ignores them): one node per distinct host (named after the host's
// first label, made unique; loopback hosts become the node "local" with auth "none", others
// use the SSH agent on port 22); consecutive addresses of one type on one host with
// consecutive ports become one assignment. ConfigError naming every problem with its path
// ("cluster.worker[1]: ...").
ClusterSpec clusterFromTfConfig(const Json& tfConfig);
// A TF_CONFIG as the environment variable holds it, JSON text: ConfigError at "TF_CONFIG"
// when it is not JSON.
Json parseTfConfig(const std::string& text);
// The task a TF_CONFIG names ("worker:1"): its "task" with "type" (default worker) and
// "index" (default 0); nothing when it names none or not as strings and integers (the
// problem is reported by clusterFromTfConfig with the experiment).
std::optional<std::string> tfConfigTask(const Json& tfConfig);

} // namespace strata::schema
