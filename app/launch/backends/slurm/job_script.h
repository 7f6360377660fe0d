#pragma once
// The batch script Strata submits for a Slurm run (docs/slurm-guide.md): the allocation as
// #SBATCH lines, then one step of `strata-engine slurm-task` per task (`srun`), which finds
// its task and the cluster with the Slurm resolver. Before the time limit or a preemption
// Slurm sends the script USR2 (`--signal=B:USR2@N`; USR1 is left to NCCL): every task is asked
// to stop at the same step with a checkpoint, and the job requeues itself when allowed, to
// resume there. Pure: what the Cluster page shows is what is submitted.

#include "strata/schema/cluster_spec.h"

#include <QString>
#include <QStringList>

namespace strata::app {

struct JobScriptInput {
    schema::SlurmSettings slurm;
    QString jobName;  // the run directory's name
    QString runDir;   // absolute, on the filesystem the nodes share
    QString engine;   // strata-engine as the nodes find it
    QString launchId; // `slurm-task --launch`
    QStringList taskFlags; // more `slurm-task` flags (--fresh, --event-interval-ms N, ...)
};

// The number of tasks the job runs: nodes x tasks per node.
int jobTaskCount(const schema::SlurmSettings& slurm);
QString jobScript(const JobScriptInput& input);
// jobScript() as the Cluster page shows it before a launch: the run's name and directory and
// the launch id, known only at launch, are placeholders ("<run>", "<run directory>",
// "<launch id>"); `engine` is this machine's strata-engine, as a launch passes it.
QString jobScriptPreview(const schema::SlurmSettings& slurm, const QString& engine);

} // namespace strata::app
