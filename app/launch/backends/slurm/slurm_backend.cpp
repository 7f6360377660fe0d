#include "app/launch/backends/slurm/slurm_backend.h"

#include "app/experiment/cluster_editing.h"
#include "app/launch/backends/slurm/job_script.h"
#include "app/launch/backends/slurm/slurm_task_front.h"
#include "app/rundir/json_file.h"
#include "app/rundir/run_replay.h"
#include "app/rundir/task_places.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>

namespace strata::app {

namespace {

// Polls after the job is over before its unfollowed tasks are ended: a follower started just
// before may still relay the exit its task wrote.
constexpr int kPollsAfterOver = 2;

double nowSeconds() { return double(QDateTime::currentMSecsSinceEpoch()) / 1000.0; }

// The task record in `file` (TaskRecord's JSON); null when there is none or it is not JSON.
Json readRecord(const QString& file)
{
    QFile f(file);
    const Json record = f.open(QIODevice::ReadOnly) ? Json::parse(f.readAll().toStdString(), nullptr, false) : Json();
    return record.is_object() ? record : Json();
}

// The record's `started`; nullopt without one.
std::optional<double> recordStarted(const QString& file)
{
    const Json record = readRecord(file);
    if (record.is_null() || !record.contains("started") || !record["started"].is_number())
        return std::nullopt;
    return record["started"].get<double>();
}

// The record's host (the task's Slurm node); empty without one.
QString recordHost(const QString& file)
{
    const Json record = readRecord(file);
    return !record.is_null() && record.contains("host") && record["host"].is_string()
               ? QString::fromStdString(record["host"].get<std::string>())
               : QString();
}

} // namespace

SlurmBackend::SlurmBackend(LaunchHost& host, QObject* parent) : LaunchBackend(host, parent)
{
    m_poll.setInterval(kPollMs);
    connect(&m_poll, &QTimer::timeout, this, &SlurmBackend::poll);
    m_recordCheck.setInterval(kRecordCheckMs);
    connect(&m_recordCheck, &QTimer::timeout, this, [this] {
        bool waiting = false;
        for (LaunchTask* t : tasks())
            if (!t->ended && !t->front) {
                this->host().follow(*t);
                waiting = waiting || !t->front;
            }
        if (!waiting)
            m_recordCheck.stop();
    });
}

SlurmBackend::~SlurmBackend() = default;

QString SlurmBackend::path(const QString& file) const { return QDir(host().runDir()).filePath(file); }

QString SlurmBackend::hostText(const PlannedTask& task) const
{
    const QString node = recordHost(path("task-" + taskFileStem(task.name) + ".json"));
    const QString job = m_jobId.isEmpty() ? tr("Slurm") : tr("Slurm job %1").arg(m_jobId);
    return node.isEmpty() ? job : QStringLiteral("%1 (%2)").arg(job, node);
}

void SlurmBackend::runClient(const QString& program, const QStringList& args, Done done)
{
    auto* process = new QProcess(this);
    connect(process, &QProcess::finished, this, [process, done](int code, QProcess::ExitStatus status) {
        done(status == QProcess::NormalExit ? code : -1, process->readAllStandardOutput(), process->readAllStandardError());
        process->deleteLater();
    });
    connect(process, &QProcess::errorOccurred, this, [process, program, done](QProcess::ProcessError e) {
        if (e != QProcess::FailedToStart)
            return;
        done(-1, {}, tr("%1 could not be run: %2").arg(program, process->errorString()).toUtf8());
        process->deleteLater();
    });
    process->start(program, args);
}

void SlurmBackend::check(const Json& experiment, const QString&)
{
    m_checking = true;
    const schema::SlurmSettings settings = readableCluster(experiment).slurm.value_or(schema::SlurmSettings{});
    for (const char* client : {"sbatch", "scontrol", "scancel", "sinfo"})
        if (QStandardPaths::findExecutable(QString::fromLatin1(client)).isEmpty()) {
            QMetaObject::invokeMethod(this, [this, client] {
                if (m_checking)
                    Q_EMIT checked({tr("The Slurm login node (this machine) has no %1: install Slurm's client "
                                       "commands (Debian: slurm-client) or run Strata on the cluster's login node.")
                                        .arg(QLatin1String(client))});
                m_checking = false;
            }, Qt::QueuedConnection);
            return;
        }
    const QString partition = QString::fromStdString(settings.partition);
    runClient(QStringLiteral("sinfo"), {"-h", "-o", "%P"}, [this, partition](int code, const QByteArray& out, const QByteArray& err) {
        if (!m_checking)
            return;
        m_checking = false;
        if (code != 0) {
            Q_EMIT checked({tr("Slurm does not answer on this login node (sinfo: %1)").arg(QString::fromUtf8(err).trimmed())});
            return;
        }
        QStringList partitions;
        for (QString p : QString::fromUtf8(out).split(QLatin1Char('\n'), Qt::SkipEmptyParts))
            partitions << p.trimmed().remove(QLatin1Char('*')); // the default partition is starred
        if (!partition.isEmpty() && !partitions.contains(partition)) {
            Q_EMIT checked({tr("Slurm has no partition \"%1\" (it has: %2)").arg(partition, partitions.join(QStringLiteral(", ")))});
            return;
        }
        Q_EMIT checked({});
    });
}

void SlurmBackend::submit(const QByteArray& token, const QString& launchId, const QStringList& taskFlags)
{
    m_submitting = true;
    const auto fail = [this](const QString& why) { endUnfollowed(why); };
    // The token goes to the tasks through a file only its owner can read (they have no stdin of ours).
    QFile tokenFile(path(QStringLiteral("job-token")));
    if (!tokenFile.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
        !tokenFile.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner) ||
        tokenFile.write(token + '\n') != token.size() + 1 || !tokenFile.flush()) {
        fail(tr("the job's token could not be written to %1: %2").arg(tokenFile.fileName(), tokenFile.errorString()));
        return;
    }
    tokenFile.close();
    JobScriptInput input;
    input.slurm = readableCluster(host().experiment()).slurm.value_or(schema::SlurmSettings{});
    input.jobName = QFileInfo(host().runDir()).fileName();
    input.runDir = QFileInfo(host().runDir()).absoluteFilePath();
    input.engine = host().localEngine();
    input.launchId = launchId;
    input.taskFlags = taskFlags;
    const QString scriptPath = path(QStringLiteral("slurm-job.sh"));
    QFile script(scriptPath);
    const QByteArray text = jobScript(input).toUtf8();
    if (!script.open(QIODevice::WriteOnly | QIODevice::Truncate) || script.write(text) != text.size() || !script.flush()) {
        fail(tr("the job script could not be written to %1: %2").arg(scriptPath, script.errorString()));
        return;
    }
    script.close();
    m_jobEventsRead = QFileInfo(path(QStringLiteral("slurm-events.txt"))).size();
    // Each task is followed from where its files end now (earlier sessions are not this run's).
    for (LaunchTask* t : tasks()) {
        t->eventsOffset = QFileInfo(path("events-" + taskFileStem(t->plan.name) + ".jsonl")).size();
        t->stderrOffset = QFileInfo(path("stderr-" + taskFileStem(t->plan.name) + ".log")).size();
        if (const auto earlier = recordStarted(path("task-" + taskFileStem(t->plan.name) + ".json")))
            m_staleSession[t] = *earlier;
    }
    runClient(QStringLiteral("sbatch"), {"--parsable", scriptPath}, [this, fail, scriptPath](int code, const QByteArray& out, const QByteArray& err) {
        if (code != 0) {
            fail(tr("Slurm refused the job (sbatch %1): %2").arg(scriptPath, QString::fromUtf8(err).trimmed()));
            return;
        }
        m_jobId = QString::fromUtf8(out).trimmed().section(QLatin1Char(';'), 0, 0); // "12" or "12;cluster"
        QString error;
        if (!writeJsonFile(path(QStringLiteral("slurm-job.json")),
                           {{"job_id", m_jobId.toStdString()}, {"script", "slurm-job.sh"}, {"submitted", nowSeconds()}}, &error))
            host().store().appendLog(QStringLiteral("strata"), QStringLiteral("warning"),
                                     error + tr(" (the job cannot be followed again after Strata closes)"));
        host().store().appendLog(QStringLiteral("strata"), QStringLiteral("info"),
                                 tr("Submitted Slurm job %1 (%2)").arg(m_jobId, scriptPath));
        for (LaunchTask* t : tasks())
            host().store().setTaskPlace(t->plan.name, tr("Slurm job %1").arg(m_jobId), QString());
        host().placesChanged();
        if (m_stopping) // Stop came while sbatch ran
            cancel({m_jobId});
        poll();
        m_poll.start();
        m_recordCheck.start(); // a task is followed the moment it runs, not at the next poll
    });
}

void SlurmBackend::watch()
{
    if (m_submitting || !m_jobId.isEmpty() || !hasTasks())
        return;
    // Followed again (attach): the job id from the run directory.
    QFile f(path(QStringLiteral("slurm-job.json")));
    const Json job = f.open(QIODevice::ReadOnly) ? Json::parse(f.readAll().toStdString(), nullptr, false) : Json();
    if (!job.is_object() || !job.contains("job_id") || !job["job_id"].is_string()) {
        endUnfollowed(tr("the run's Slurm job is not on record (%1 is missing or malformed)").arg(f.fileName()));
        return;
    }
    m_jobId = QString::fromStdString(job["job_id"].get<std::string>());
    m_jobEventsRead = QFileInfo(path(QStringLiteral("slurm-events.txt"))).size();
    poll();
    m_poll.start();
}

void SlurmBackend::poll()
{
    if (m_jobId.isEmpty() || m_pollPending)
        return;
    m_pollPending = true;
    runClient(QStringLiteral("scontrol"), {"show", "job", "-o", m_jobId}, [this](int code, const QByteArray& out, const QByteArray& err) {
        m_pollPending = false;
        if (!hasTasks())
            return;
        std::optional<SlurmJobState> state = code == 0 ? parseJobState(QString::fromUtf8(out)) : std::nullopt;
        if (!state) {
            // Purged from Slurm's memory (MinJobAge) or never known: over for us.
            SlurmJobState gone;
            gone.state = QStringLiteral("UNKNOWN");
            gone.reason = QString::fromUtf8(err).trimmed();
            if (m_state && m_state->over())
                gone = *m_state;
            state = gone;
        }
        jobSeen(*state);
    });
}

void SlurmBackend::jobSeen(const SlurmJobState& s)
{
    readJobEvents();
    const bool changed = !m_state || m_state->state != s.state || m_state->reason != s.reason;
    const bool requeued = m_state && s.restarts > m_state->restarts;
    m_state = s;
    if (changed)
        host().store().appendLog(QStringLiteral("strata"), QStringLiteral("info"),
                                 s.reason.isEmpty() || s.reason == QLatin1String("None")
                                     ? tr("Slurm job %1: %2").arg(m_jobId, s.state)
                                     : tr("Slurm job %1: %2 (%3)").arg(m_jobId, s.state, s.reason));
    if (requeued)
        host().store().appendLog(QStringLiteral("strata"), QStringLiteral("warning"),
                                 tr("Slurm job %1 was requeued (restart %2)").arg(m_jobId).arg(s.restarts));
    for (LaunchTask* t : tasks()) {
        if (t->ended || t->front)
            continue;
        if (s.waiting())
            host().store().setTaskScheduled(t->plan.name, s.restarts > 0 ? tr("requeued, %1").arg(s.waitingText()) : s.waitingText(), {});
        else if (!s.over()) {
            host().follow(*t); // once its record is there
            if (!t->front && !m_recordCheck.isActive())
                m_recordCheck.start();
        }
    }
    if (!s.over()) {
        m_pollsSinceOver = 0;
        return;
    }
    if (++m_pollsSinceOver <= kPollsAfterOver) {
        for (LaunchTask* t : tasks())
            if (!t->ended && !t->front)
                host().follow(*t); // a task that ran and ended meanwhile: its exit is in its files
        return;
    }
    // What is left never reported its end: it did not run, or its node went with it.
    const QString tail = jobOutputTail();
    for (LaunchTask* t : tasks()) {
        if (t->ended)
            continue;
        const QString node = recordHost(path("task-" + taskFileStem(t->plan.name) + ".json"));
        QString why = s.state == QLatin1String("NODE_FAIL") && m_ran.count(t) && !node.isEmpty()
                          ? tr("Slurm lost node %1, where %2 ran: job %3 ended %4 (%5)")
                                .arg(node, t->plan.name, m_jobId, s.state, s.reason)
                          : tr("Slurm job %1 ended %2 (reason %3) without an end of %4")
                                .arg(m_jobId, s.state, s.reason, t->plan.name);
        if (!tail.isEmpty())
            why += tr("; the job's output ends: %1").arg(tail);
        host().store().setTaskScheduled(t->plan.name, {}, {});
        host().endTask(*t, why, m_ran.count(t) > 0);
    }
}

void SlurmBackend::readJobEvents()
{
    // Lines the job script writes: "<time> started <restart>", "<time> warned", "<time> requeued".
    QFile f(path(QStringLiteral("slurm-events.txt")));
    if (!f.open(QIODevice::ReadOnly) || !f.seek(m_jobEventsRead))
        return;
    while (!f.atEnd()) {
        const QByteArray line = f.readLine();
        if (!line.endsWith('\n')) // still being written
            break;
        m_jobEventsRead += line.size();
        const QList<QByteArray> words = line.trimmed().split(' ');
        if (words.size() < 2)
            continue;
        const double time = words[0].toDouble();
        if (words[1] == "warned") {
            m_warnedAt = time;
            host().store().appendLog(QStringLiteral("strata"), QStringLiteral("warning"),
                                     tr("Slurm warned job %1 of its end (time limit or preemption): every task "
                                        "stops at the same step with a checkpoint")
                                         .arg(m_jobId));
        } else if (words[1] == "started" && words.size() > 2 && words[2].toInt() > 0) {
            host().store().appendLog(QStringLiteral("strata"), QStringLiteral("info"),
                                     tr("Slurm job %1 runs again (restart %2), %3 s after it was warned")
                                         .arg(m_jobId, QString::fromLatin1(words[2]))
                                         .arg(m_warnedAt > 0 ? time - m_warnedAt : 0.0, 0, 'f', 1));
            m_warnedAt = 0;
        }
    }
}

bool SlurmBackend::continuesAfterExit(const LaunchTask& task)
{
    readJobEvents();
    const bool requeues = readableCluster(host().experiment()).slurm.value_or(schema::SlurmSettings{}).requeue;
    if (m_warnedAt <= 0 || !requeues || m_stopping)
        return false;
    host().store().setTaskScheduled(task.plan.name, tr("requeued"), {});
    if (const auto ended = recordStarted(path("task-" + taskFileStem(task.plan.name) + ".json")))
        m_staleSession[&task] = *ended;
    return true;
}

void SlurmBackend::stopping()
{
    m_stopping = true;
    if (m_jobId.isEmpty())
        return;
    // Waiting: nothing to checkpoint. Running: TERM to every task (the same step for all).
    const bool waiting = !m_state || m_state->waiting();
    cancel(waiting ? QStringList{m_jobId} : QStringList{"--signal=TERM", m_jobId});
}

void SlurmBackend::finish()
{
    m_poll.stop();
    m_recordCheck.stop();
    // Stopped: what is left of the job (its batch script) goes.
    if (m_stopping && !m_jobId.isEmpty() && !(m_state && m_state->over()))
        cancel({m_jobId});
}

void SlurmBackend::forget()
{
    LaunchBackend::forget();
    m_poll.stop();
    m_recordCheck.stop();
    m_jobId.clear();
    m_state.reset();
    m_pollsSinceOver = 0;
    m_stopping = false;
    m_submitting = false;
    m_warnedAt = 0;
    m_staleSession.clear();
    m_ran.clear();
}

void SlurmBackend::cancel(const QStringList& args)
{
    // Detached: the job is cancelled even when the launcher goes the moment after.
    if (!QProcess::startDetached(QStringLiteral("scancel"), args))
        host().store().appendLog(QStringLiteral("strata"), QStringLiteral("warning"),
                                 tr("scancel %1 could not be run: cancel job %2 yourself").arg(args.join(' '), m_jobId));
}

void SlurmBackend::endUnfollowed(const QString& why)
{
    for (LaunchTask* t : tasks())
        if (!t->ended && !t->front) {
            host().store().setTaskScheduled(t->plan.name, {}, {});
            host().endTask(*t, why, m_ran.count(t) > 0);
        }
}

QString SlurmBackend::jobOutputTail() const
{
    QFile f(path(QStringLiteral("slurm-%1.out").arg(m_jobId)));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    if (f.size() > 600)
        f.seek(f.size() - 600);
    return QString::fromUtf8(f.readAll()).trimmed();
}

void SlurmBackend::attached(LaunchTask& task, const TaskPlace& place, const ReplayPosition& position)
{
    task.eventsOffset = position.offset;
    task.stderrOffset = QFileInfo(path("stderr-" + taskFileStem(place.task) + ".log")).size();
}

bool SlurmBackend::readyToFollow(LaunchTask& task)
{
    // Its record is the sign that the task runs (or ran): a session newer than the one followed.
    const std::optional<double> started = recordStarted(path("task-" + taskFileStem(task.plan.name) + ".json"));
    const auto stale = m_staleSession.find(&task);
    if (!started || (stale != m_staleSession.end() && stale->second >= *started))
        return false;
    m_ran.insert(&task);
    host().store().setTaskScheduled(task.plan.name, {}, {});
    host().store().setTaskPlace(task.plan.name, tr("Slurm job %1").arg(m_jobId),
                                recordHost(path("task-" + taskFileStem(task.plan.name) + ".json")));
    host().placesChanged(); // the launch record names its node now
    return true;
}

void SlurmBackend::describe(const LaunchTask& task, TaskPlace& place) const
{
    if (!m_jobId.isEmpty())
        place.node = tr("Slurm job %1").arg(m_jobId);
    if (const QString node = recordHost(path("task-" + taskFileStem(task.plan.name) + ".json")); !node.isEmpty())
        place.host = node;
}

std::unique_ptr<TaskProcess> SlurmBackend::createFront(LaunchTask& task)
{
    return std::make_unique<SlurmTaskFront>(host().localEngine(), path("control-" + taskFileStem(task.plan.name) + ".txt"));
}

} // namespace strata::app
