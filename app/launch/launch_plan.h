#pragma once
// LaunchPlan: which engine processes a run starts and where: one per chief and worker task
// (and, under MultiWorkerMirrored and ParameterServer, the evaluator; under ParameterServer
// the ps tasks too), each on its node, this machine (auth
// "none") or a remote one reached over SSH, with the engine and the run directory it uses
// there. Plus what a launch fixes in the experiment before sending it: automatic ports made
// explicit, on ports free on each host at that moment, so two jobs on one host never share
// one.

#include "strata/schema/cluster_spec.h"

#include <nlohmann/json.hpp>

#include <QList>
#include <QString>
#include <QStringList>

#include <functional>
#include <vector>

namespace strata::app {

using Json = nlohmann::ordered_json;

// The engine on a node whose `engine` is empty: the engine package's, on the PATH there.
inline const QString kDefaultRemoteEngine = QStringLiteral("strata-engine");
// A node's work directory when it names none: under the SSH user's home.
inline const QString kDefaultWorkDir = QStringLiteral("strata-runs");

struct PlannedTask {
    QString name;        // "worker:1"
    bool trains = true;  // chief or worker (it uses the strategy's devices); false: evaluator, ps
    // Its end is the job's (endsJob()); the others are wound down once those have all ended.
    bool endsJob = true;
    QString node;
    QString host;        // as the cluster names it
    int port = 0;        // 0 until automatic ports are resolved
    bool remote = false; // started over SSH
    QString engine;      // the engine binary on its node
    QString runDir;      // the run directory on its node (this machine: the run's own)
    bool slurm = false;  // a task of the run's Slurm job (backends/slurm), wherever Slurm places it
};

struct LaunchPlan {
    std::vector<PlannedTask> tasks;
    std::vector<schema::NodeSpec> remoteNodes; // the nodes reached over SSH that run a task
    bool hasRemote() const { return !remoteNodes.empty(); }
    const schema::NodeSpec* remoteNode(const QString& name) const;
};

// The strategy's type as written ("Mirrored", or {"type": "Mirrored", ...}); empty when the
// experiment names none.
std::string strategyType(const Json& experiment);
// Whether `task` is started under `strategy`: the chief and workers always; the evaluator
// of a multi-process job; ParameterServer's ps tasks.
bool startsUnder(const QString& task, const std::string& strategy);
// Whether the job is over once `task` and its like have ended: the chief and workers, except
// under ParameterServer, where the chief (the coordinator) alone decides and shuts the
// workers and ps tasks down at the end.
bool endsJob(const QString& task, const std::string& strategy);

// The tasks `experiment` (as launched, validated) starts, for a run in `runDir` on this
// machine whose engine is `localEngine` (a node's own `engine` comes first). A remote task's run directory is its node's
// work_dir (default kDefaultWorkDir) joined with the name of `runDir`, so that relaunching
// into the same run directory resumes on every node.
LaunchPlan planLaunch(const Json& experiment, const QString& localEngine, const QString& runDir);

// The ports `count` automatic tasks on `host` may use now, none of `taken`; fewer when there
// are not enough.
using FreePorts = std::function<QList<int>(const QString& host, int count, const QList<int>& taken)>;
// Per host: the explicit ports, and how many tasks have automatic ones.
struct HostPorts {
    QString host;
    QList<int> explicitPorts;
    int automatic = 0;
};
QList<HostPorts> portsByHost(const Json& experiment);
// Rewrites the cluster's automatic ports (0) as explicit ones from `freePorts`, splitting an
// assignment of several tasks when its ports are not consecutive. False with the host named
// when a host has too few free ports.
bool resolveAutomaticPorts(Json& experiment, const FreePorts& freePorts, QString* error);
// Ports free on this machine's `host` from kFirstAutomaticPort up (a listen test).
QList<int> freeLocalPorts(const QString& host, int count, const QList<int>& taken);

// `text` as one word of a POSIX shell command line.
QString shellQuote(const QString& text);
// The shell command that runs `engine args...` on a remote node.
QByteArray remoteCommand(const QString& engine, const QStringList& args);

} // namespace strata::app
