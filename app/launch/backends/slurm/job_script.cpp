#include "app/launch/backends/slurm/job_script.h"

#include "app/launch/launch_plan.h"

namespace strata::app {

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

} // namespace

int jobTaskCount(const schema::SlurmSettings& slurm) { return int(slurm.nodes * slurm.tasksPerNode); }

QString jobScript(const JobScriptInput& in)
{
    const schema::SlurmSettings& s = in.slurm;
    QStringList lines{QStringLiteral("#!/bin/bash")};
    const auto sbatch = [&](const QString& option) { lines << QStringLiteral("#SBATCH ") + option; };
    sbatch(QStringLiteral("--job-name=strata-%1").arg(in.jobName));
    sbatch(QStringLiteral("--nodes=%1").arg(s.nodes));
    sbatch(QStringLiteral("--ntasks-per-node=%1").arg(s.tasksPerNode));
    sbatch(QStringLiteral("--cpus-per-task=%1").arg(s.cpusPerTask));
    if (s.gpusPerTask > 0)
        sbatch(QStringLiteral("--gpus-per-task=%1").arg(s.gpusPerTask));
    if (!s.partition.empty())
        sbatch(QStringLiteral("--partition=%1").arg(q(s.partition)));
    if (!s.timeLimit.empty())
        sbatch(QStringLiteral("--time=%1").arg(q(s.timeLimit)));
    if (!s.account.empty())
        sbatch(QStringLiteral("--account=%1").arg(q(s.account)));
    if (!s.qos.empty())
        sbatch(QStringLiteral("--qos=%1").arg(q(s.qos)));
    // The job's own output (what happens before a task has files of its own) beside the run.
    sbatch(QStringLiteral("--output=%1/slurm-%j.out").arg(in.runDir));
    sbatch(QStringLiteral("--open-mode=append"));
    sbatch(QStringLiteral("--signal=B:USR2@%1").arg(s.signalSeconds));
    sbatch(s.requeue ? QStringLiteral("--requeue") : QStringLiteral("--no-requeue"));
    for (const std::string& extra : s.extraSbatch)
        sbatch(q(extra));

    QStringList task{QStringLiteral("\"$engine\""), QStringLiteral("slurm-task"), QStringLiteral("--run-dir"),
                     QStringLiteral("\"$run_dir\""), QStringLiteral("--launch"), shellQuote(in.launchId)};
    for (const QString& flag : in.taskFlags)
        task << shellQuote(flag);
    lines << QString()
          << QStringLiteral("# Written by Strata for the run %1 (docs/slurm-guide.md).").arg(in.runDir)
          << QStringLiteral("run_dir=%1").arg(shellQuote(in.runDir))
          << QStringLiteral("engine=%1").arg(shellQuote(in.engine))
          << QStringLiteral("requeue=%1").arg(s.requeue ? 1 : 0)
          << QString()
          << QStringLiteral("# Before the time limit or a preemption: every task stops at the same step with a")
          << QStringLiteral("# checkpoint (TERM to the job's steps), and the job requeues itself to resume there.")
          << QStringLiteral("warned=0")
          << QStringLiteral("on_warning() {")
          << QStringLiteral("  warned=1")
          << QStringLiteral("  echo \"$(date +%s) warned\" >> \"$run_dir/slurm-events.txt\"")
          << QStringLiteral("  scancel --signal=TERM \"$SLURM_JOB_ID\"")
          << QStringLiteral("}")
          << QStringLiteral("trap on_warning USR2")
          << QStringLiteral("# Stop signals the job's steps; should Slurm signal this shell too, it waits on.")
          << QStringLiteral("trap : TERM")
          << QString()
          << QStringLiteral("echo \"$(date +%s) started ${SLURM_RESTART_COUNT:-0}\" >> \"$run_dir/slurm-events.txt\"")
          << QStringLiteral("srun ") + task.join(QLatin1Char(' ')) + QStringLiteral(" &")
          << QStringLiteral("step=$!")
          << QStringLiteral("# A trap interrupts `wait`: wait again until the step is over.")
          << QStringLiteral("wait \"$step\"; status=$?")
          << QStringLiteral("while kill -0 \"$step\" 2>/dev/null; do wait \"$step\"; status=$?; done")
          << QStringLiteral("if [ \"$warned\" = 1 ] && [ \"$requeue\" = 1 ]; then")
          << QStringLiteral("  echo \"$(date +%s) requeued\" >> \"$run_dir/slurm-events.txt\"")
          << QStringLiteral("  scontrol requeue \"$SLURM_JOB_ID\"")
          << QStringLiteral("fi")
          << QStringLiteral("exit \"$status\"")
          << QString();
    return lines.join(QLatin1Char('\n'));
}

QString jobScriptPreview(const schema::SlurmSettings& slurm, const QString& engine)
{
    JobScriptInput input;
    input.slurm = slurm;
    input.jobName = QStringLiteral("<run>");
    input.runDir = QStringLiteral("<run directory>");
    input.engine = engine;
    input.launchId = QStringLiteral("<launch id>");
    return jobScript(input);
}

} // namespace strata::app
