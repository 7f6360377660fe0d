#pragma once
// ClusterEditing: the experiment's cluster (nodes and task assignments, the `cluster`
// section of docs/experiment-schema.md) in Qt types, for the Cluster page. It holds no
// state of its own: it reads the document and edits it through its undoable edits, one
// undo step per call. GUI thread only, like the document.
//
// Reading never fails: a document without `cluster` shows the default (this machine, one
// worker); a malformed one shows what can be read, one row per list element (validation
// names the problems). The first edit of a document without a well-formed `cluster` writes
// the cluster as shown plus the change.
//
// Renaming a node renames it in the assignments that use it; removing a node removes the
// assignments that use it too (each one undo step).
//
// A Slurm job (`cluster.slurm`): the run is submitted to Slurm as one batch job, whose tasks
// Slurm places. Switching to Slurm adds `cluster.slurm` and leaves the nodes and tasks as they
// are; switching back removes it, so the nodes and tasks come back as they were.

#include "app/experiment/experiment_document.h"

#include "strata/schema/cluster_spec.h"

#include <QCoreApplication>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

namespace strata::app {

struct ClusterNode {
    QString name;
    QString host;
    int sshPort = int(schema::defaultInteger("cluster.nodes.ssh_port"));
    QString user;
    QString auth;    // none (this machine), agent, key, password (asked at launch, never stored)
    QString keyFile; // with auth "key"
    QString engine;  // strata-engine on that node; empty: the default
    QString workDir; // where run directories go there; empty: strata-runs in the SSH user's home
};

// `count` tasks of `type` on `node`, on ports port, port + 1, ... (0: automatic).
struct ClusterTaskAssignment {
    QString type;
    QString node;
    int count = 1;
    int port = 0;
};

// cluster.slurm in Qt types (docs/experiment-schema.md), its numbers as written (out of range
// too, for validation to name); a field that cannot be read shows its default.
struct SlurmJob {
    // Tasks per type (chief, worker, ps, evaluator); empty: every task a worker.
    QMap<QString, int> jobs;
    QString login;       // the node that submits the job; "local": this machine
    QString partition;   // empty: the cluster's default partition
    int nodes = 0;
    int tasksPerNode = 0;
    int cpusPerTask = 0;
    int gpusPerTask = 0; // 0: TensorFlow's default
    QString timeLimit;   // Slurm's formats ("4:00:00", "2-12"); empty: the partition's limit
    QString account;
    QString qos;
    QStringList extraSbatch; // further sbatch options, one each ("--mem=64G"), as written
    bool requeue = false;    // requeued (to resume) after a preemption or the time limit's warning
    int signalSeconds = 0;   // the warning's lead: seconds before the time limit
};

// The cluster of `document` as far as it can be read (the default when it has none); its
// problems are left to validation.
schema::ClusterSpec readableCluster(const Json& document);

class ClusterEditing {
    Q_DECLARE_TR_FUNCTIONS(ClusterEditing)

public:
    explicit ClusterEditing(ExperimentDocument& document);

    // As written: a number out of its range (a count of 0) is shown as it is, for validation to
    // name; a field that cannot be read shows its default.
    QList<ClusterNode> nodes() const;
    QList<ClusterTaskAssignment> assignments() const;
    // The strategy's type, also when written short; OneDevice when absent.
    QString strategy() const;
    // Whether the strategy trains in several processes (MultiWorkerMirrored, ParameterServer):
    // only then are there tasks to assign and a TF_CONFIG for each.
    bool usesTasks() const;
    // Where a strategy of one process trains: "this machine", or the node of its training task.
    QString singleProcessPlace() const;
    // chief, worker, ps, evaluator.
    static QStringList taskTypes();
    // Every task as TensorFlow names it, in its order: "chief:0", "worker:0", "worker:1", ...
    QStringList tasks() const;
    // The type of task to add next: what the strategy still lacks (ParameterServer: a chief, the
    // coordinator, then a ps task), else a worker.
    QString neededTaskType() const;

    // The small job on this machine that a one-click setup gives `strategy`: MultiWorkerMirrored
    // two workers, ParameterServer a chief, two workers and two ps tasks; none for a strategy of
    // one process.
    static QList<ClusterTaskAssignment> localJob(const QString& strategy);
    // localJob() in words, for a button: "a chief, 2 workers and 2 ps tasks".
    static QString localJobText(const QString& strategy);
    // Replaces the tasks by the strategy's localJob() on this machine's node (the first node of
    // auth "none", added when there is none); one undo step.
    void setUpLocalJob();
    // Chooses the strategy (as ExperimentDocument::setType, keeping `keep`), in one undo step
    // with the cluster fitted to it when the cluster runs on this machine only and does not suit
    // it: a multi-process strategy gets its localJob() (MultiWorkerMirrored also over a lone
    // training task), a strategy of one process keeps the first training task, alone.
    void chooseStrategy(const QString& type, const QStringList& keep);

    // Rows out of range are ignored.
    void addNode(const ClusterNode& node);
    void updateNode(int row, const ClusterNode& node);
    void removeNode(int row);
    void addAssignment(const ClusterTaskAssignment& assignment);
    void updateAssignment(int row, const ClusterTaskAssignment& assignment);
    void removeAssignment(int row);
    // cluster.stop_unattended_seconds: the job stops by itself after this long with no Strata
    // following it; 0: never.
    qint64 stopUnattendedSeconds() const;
    void setStopUnattendedSeconds(qint64 seconds);

    // The Slurm job (cluster.slurm). Each setter is one undo step; on a cluster that is not a
    // Slurm job it switches to one first (in the same step).
    bool isSlurmJob() const;
    // Adds cluster.slurm (slurmDefaults()) or removes it; the nodes and tasks stay as they are.
    void setSlurmJob(bool slurm);
    // What switching to Slurm writes: the engine's defaults, with the current tasks as Slurm
    // tasks: as many nodes as nodes with tasks and their tasks per node when every such node has
    // as many, else one task per node; jobs by type unless every task is a worker.
    schema::SlurmSettings slurmDefaults() const;
    // As written (the defaults of slurmDefaults() when the cluster is not a Slurm job).
    SlurmJob slurmJob() const;
    // As the launcher reads it, for the job script (app/launch/backends/slurm/job_script.h).
    schema::SlurmSettings slurmSettings() const;
    void setSlurmLogin(const QString& login);
    void setSlurmPartition(const QString& partition);
    void setSlurmNodes(int nodes);
    void setSlurmTasksPerNode(int tasks);
    void setSlurmCpusPerTask(int cpus);
    void setSlurmGpusPerTask(int gpus);
    void setSlurmTimeLimit(const QString& limit);
    void setSlurmAccount(const QString& account);
    void setSlurmQos(const QString& qos);
    // Lines trimmed; empty ones dropped.
    void setSlurmExtraSbatch(const QStringList& options);
    void setSlurmRequeue(bool requeue);
    void setSlurmSignalSeconds(int seconds);
    // `count` tasks of `type` (0: none). Jobs absent stand for nodes x tasks per node workers:
    // the first count set starts from those; jobs that come back to workers only are removed.
    void setSlurmJobCount(const QString& type, int count);
    // The tasks the Slurm job runs, as TensorFlow names them, in its type order: its jobs, or
    // nodes x tasks per node workers.
    QStringList slurmTasks() const;

    // The TF_CONFIG `task` ("worker:1") receives, as indented JSON; empty with *error set
    // when the cluster has problems (listed) or no such task.
    QString tfConfigPreview(const QString& task, QString* error) const;
    // Replaces the cluster by the one a TF_CONFIG file describes (one undo step). On failure
    // the document is unchanged and *error names the file and why: missing, malformed JSON
    // (line and column), or not a usable TF_CONFIG (every problem).
    bool importTfConfigFile(const QString& path, QString* error);
    // Writes the TF_CONFIG of `task` to `path` (atomically: the old file stays on failure).
    bool exportTfConfig(const QString& path, const QString& task, QString* error) const;

private:
    // The cluster JSON to edit: the document's when its lists are lists, else what is shown.
    Json editable() const;
    void commit(const Json& cluster, const QString& label);
    // The document with `cluster` as its cluster section (placed after the strategy when new).
    static Json withCluster(const Json& document, const Json& cluster);
    // Sets cluster.slurm.`key` (cluster.slurm written first when absent); one undo step.
    void setSlurmField(const char* key, const Json& value, const QString& label);
    // The TF_CONFIG of `task`, or null with *error set.
    Json tfConfigOf(const QString& task, QString* error) const;

    ExperimentDocument& m_document;
};

} // namespace strata::app
