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
#include <map>
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

// cluster.slurm: the job runs as Slurm tasks (srun inside an allocation), each deriving the
// cluster and its own task from the step's variables (slurm_resolver.h). jobs, portBase and
// gpusPerTask are the resolver's; the rest is what the app's Slurm launcher submits.
struct SlurmSettings {
    std::map<std::string, int64_t> jobs; // tasks per type; empty: every task a worker
    int64_t portBase = defaultInteger("cluster.slurm.port_base");
    int64_t gpusPerTask = defaultInteger("cluster.slurm.gpus_per_task"); // 0: TensorFlow's default
    std::string login{defaultText("cluster.slurm.login")}; // the node (of `nodes`) that submits
    std::string partition{defaultText("cluster.slurm.partition")};
    int64_t nodes = defaultInteger("cluster.slurm.nodes");
    int64_t tasksPerNode = defaultInteger("cluster.slurm.tasks_per_node");
    int64_t cpusPerTask = defaultInteger("cluster.slurm.cpus_per_task");
    std::string timeLimit{defaultText("cluster.slurm.time_limit")}; // Slurm's formats; empty: the partition's
    std::string account{defaultText("cluster.slurm.account")};
    std::string qos{defaultText("cluster.slurm.qos")};
    std::vector<std::string> extraSbatch; // further sbatch options, as written
    bool requeue = defaultFlag("cluster.slurm.requeue");
    int64_t signalSeconds = defaultInteger("cluster.slurm.signal_seconds");

    bool operator==(const SlurmSettings&) const = default;
};

struct ClusterSpec {
    // The default: this machine, running one worker.
    std::vector<NodeSpec> nodes{NodeSpec{"local", "localhost"}};
    std::vector<TaskAssignment> tasks{TaskAssignment{"worker", "local"}};
    // Every task stops (as on SIGTERM) after this many seconds in a row with no app attached
    // (no `strata-engine attach` follower); 0: never.
    int64_t stopUnattendedSeconds = defaultInteger("cluster.stop_unattended_seconds");
    // The nodes share the run directory (one filesystem, the same path): the evaluator may run
    // on any node, as TensorFlow's reads a shared model_dir. A Slurm job's always do.
    bool sharedRunDir = defaultFlag("cluster.shared_run_dir");
    // The GPUs each chief or worker gets of its node's, when several share a node
    // (task_gpus.h); 0: an even share. A Slurm job's are cluster.slurm.gpus_per_task.
    int64_t gpusPerTask = defaultInteger("cluster.gpus_per_task");
    // Set: the tasks are Slurm's (the nodes and tasks above are the experiment's outside Slurm).
    std::optional<SlurmSettings> slurm;

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

// Reads the `cluster` section (absent: the default cluster), with its optional `slurm` object
// (checked: known task types in its jobs, which add up to nodes x tasks_per_node; Slurm's
// time formats), and checks it as TensorFlow
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
// How many tasks of `types` run on the host of `task` (nodes of one host, loopback names being
// one host), `task` included when its type is one of them; 0 when the cluster has no `task`.
int64_t tasksOnHostOf(const ClusterSpec& cluster, const std::string& task, const std::vector<std::string>& types);
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
// A cluster from a TF_CONFIG ({"cluster": ..., "task": ...}; "task" optional, other keys such
// as "rpc_layer", "environment" and "session_master" ignored as Strata has no use for them),
// read as TensorFlow's TFConfigClusterResolver and ClusterSpec read it: a job is a list of
// addresses or an object of task index -> address (its indices must be 0 to n-1: Strata runs
// every task), "task.index" may be written as a string ("1") and "task.type" as a number
// (then refused as no Strata type). One node per distinct host (named after the host's
// first label, made unique; loopback hosts become the node "local" with auth "none", others
// use the SSH agent on port 22); consecutive addresses of one type on one host with
// consecutive ports become one assignment. ConfigError naming every problem with its path
// ("cluster.worker[1]: ...").
// `sharedRunDir`: the tasks share the run directory (the evaluator's host is then free).
ClusterSpec clusterFromTfConfig(const Json& tfConfig, bool sharedRunDir = false);
// A TF_CONFIG as the environment variable holds it, JSON text: ConfigError at "TF_CONFIG"
// when it is not JSON.
Json parseTfConfig(const std::string& text);
// The task a TF_CONFIG names ("worker:1"), by clusterFromTfConfig's rules; nothing when it
// names none or not readably (the problem is reported by clusterFromTfConfig with the
// experiment).
std::optional<std::string> tfConfigTask(const Json& tfConfig);
// Whether a TF_CONFIG names a cluster: TensorFlow reads one without "cluster", or with an empty
// one, as no cluster at all (the process runs alone), so such a TF_CONFIG changes nothing.
bool tfConfigNamesCluster(const Json& tfConfig);

} // namespace strata::schema
