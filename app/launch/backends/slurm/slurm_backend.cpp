#include "app/launch/backends/slurm/slurm_backend.h"

#include "app/experiment/cluster_editing.h"
#include "app/launch/backends/remote/task_mirror.h"
#include "app/launch/backends/local/local_task_process.h"
#include "app/launch/backends/slurm/job_script.h"
#include "app/launch/backends/slurm/slurm_task_front.h"
#include "app/launch/job/retire.h"
#include "app/launch/launch_plan.h"
#include "app/metrics/metrics_store.h"
#include "app/rundir/json_file.h"
#include "app/rundir/run_replay.h"
#include "app/rundir/task_places.h"
#include "app/ssh/connection.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace strata::app {

namespace {

// Polls after the job is over before its unfollowed tasks are ended: a follower started just
// before may still relay the exit its task wrote.
constexpr int kPollsAfterOver = 2;
// How much of the job's output an end names.
constexpr qint64 kOutputTail = 600;

double nowSeconds() { return double(QDateTime::currentMSecsSinceEpoch()) / 1000.0; }

QString recordFile(const QString& task) { return "task-" + taskFileStem(task) + ".json"; }

} // namespace

SlurmBackend::SlurmBackend(LaunchHost& host, QObject* parent)
    : LaunchBackend(host, parent),
      m_remote(
          host, [this]() -> const std::vector<LaunchTask*>& { return tasks(); },
          [this](const LaunchTask&) { return loginName(); }, [this](const QString&) { return loginSpec(); })
{
    m_poll.setInterval(kPollMs);
    connect(&m_poll, &QTimer::timeout, this, &SlurmBackend::poll);
    m_recordCheck.setInterval(kRecordCheckMs);
    connect(&m_recordCheck, &QTimer::timeout, this, [this] {
        if (m_recordsPending)
            return;
        readRecords([this] {
            bool waiting = false;
            for (LaunchTask* t : tasks())
                if (!t->ended && !t->front) {
                    this->host().follow(*t);
                    waiting = waiting || !t->front;
                }
            if (!waiting)
                m_recordCheck.stop();
        });
    });
}

SlurmBackend::~SlurmBackend()
{
    m_remote.links().clear();
    m_checkConnection.reset();
}

void SlurmBackend::setAccess(const RemoteAccess& access)
{
    m_access = access;
    m_remote.links().setAccess(access);
}

const QString& SlurmBackend::loginName() const
{
    if (!m_loginName) {
        const auto slurm = readableCluster(host().experiment()).slurm;
        const QString login = slurm ? QString::fromStdString(slurm->login) : QString();
        m_loginName = login == QLatin1String("local") ? QString() : login;
    }
    return *m_loginName;
}

schema::NodeSpec SlurmBackend::loginSpec() const
{
    const QString name = loginName();
    for (const schema::NodeSpec& n : readableCluster(host().experiment()).nodes)
        if (QString::fromStdString(n.name) == name)
            return n;
    return {};
}

LoginNode& SlurmBackend::login()
{
    const QString name = loginName();
    if (!m_login || m_loginOf != name) {
        m_loginOf = name;
        if (name.isEmpty())
            m_login = localLogin(this);
        else
            m_login = sshLogin(name, [this, name]() -> ssh::Connection* {
                if (m_checkConnection)
                    return m_checkConnection.get();
                m_remote.links().open(name);
                return m_remote.links().connection(name);
            }, this);
    }
    return *m_login;
}

QString SlurmBackend::jobRunDir() const
{
    if (!m_jobRunDir.isEmpty())
        return m_jobRunDir;
    return hasTasks() ? tasks().front()->plan.runDir : host().runDir();
}

QString SlurmBackend::path(const QString& file) const { return QDir(jobRunDir()).filePath(file); }

Json SlurmBackend::recordField(const QString& task, const char* field) const
{
    const auto r = m_records.find(task);
    return r != m_records.end() && r->second.contains(field) ? r->second[field] : Json();
}

std::optional<double> SlurmBackend::recordStarted(const QString& task) const
{
    const Json started = recordField(task, "started");
    return started.is_number() ? std::optional<double>(started.get<double>()) : std::nullopt;
}

QString SlurmBackend::recordHost(const QString& task) const
{
    const Json h = recordField(task, "host");
    return h.is_string() ? QString::fromStdString(h.get<std::string>()) : QString();
}

QString SlurmBackend::hostText(const PlannedTask& task) const
{
    const QString node = recordHost(task.name);
    const QString job = m_jobId.isEmpty() ? tr("Slurm") : tr("Slurm job %1").arg(m_jobId);
    return node.isEmpty() ? job : QStringLiteral("%1 (%2)").arg(job, node);
}

void SlurmBackend::check(const Json& experiment, const QString& localEngine)
{
    m_checking = true;
    m_loginName.reset(); // a new launch's experiment
    const int generation = ++m_generation;
    const schema::ClusterSpec cluster = readableCluster(experiment);
    const schema::SlurmSettings settings = cluster.slurm.value_or(schema::SlurmSettings{});
    const QString partition = QString::fromStdString(settings.partition);
    const QString name = loginName(); // `experiment` is the launcher's now
    if (name.isEmpty()) {
        checkClients(partition, localEngine);
        return;
    }
    const auto spec = std::find_if(cluster.nodes.begin(), cluster.nodes.end(),
                                   [&](const schema::NodeSpec& n) { return QString::fromStdString(n.name) == name; });
    if (spec == cluster.nodes.end() || spec->auth == "none") {
        QMetaObject::invokeMethod(this, [this, name, generation] {
            if (m_checking && generation == m_generation)
                Q_EMIT checked({tr("The Slurm login node \"%1\" is not a node of the cluster reached over SSH: add it "
                                   "to the nodes with its address and authentication, or submit from this machine.")
                                    .arg(name)});
            m_checking = false;
        }, Qt::QueuedConnection);
        return;
    }
    // Over SSH: connected as any node is (strict host keys, the node's authentication); the
    // launch then keeps the connection.
    const QString engine = spec->engine.empty() ? kDefaultRemoteEngine : QString::fromStdString(spec->engine);
    m_checkConnection = std::make_unique<ssh::Connection>(endpointOf(*spec), m_access.options, m_access.prompter);
    connect(m_checkConnection.get(), &ssh::Connection::connected, this, [this, partition, engine, generation] {
        if (m_checking && generation == m_generation)
            checkClients(partition, engine);
    });
    connect(m_checkConnection.get(), &ssh::Connection::failed, this, [this, name, generation](const QString& why) {
        if (!m_checking || generation != m_generation)
            return;
        m_checking = false;
        Q_EMIT checked({tr("The Slurm login node %1 cannot be reached: %2").arg(name, why)});
    });
    m_checkConnection->open();
}

void SlurmBackend::checkClients(const QString& partition, const QString& engine)
{
    const int generation = m_generation;
    const QString where = loginName().isEmpty() ? tr("this machine") : loginName();
    // Slurm's clients and the engine, found as the login node's shell finds them.
    const QString script = QStringLiteral("for c in sbatch scontrol scancel sinfo \"$1\"; do command -v \"$c\" >/dev/null || echo \"$c\"; done");
    login().run(QStringLiteral("sh"), {"-c", script, "sh", engine}, {}, [this, partition, engine, generation, where](int code, const QByteArray& out, const QByteArray& err) {
        if (!m_checking || generation != m_generation)
            return;
        if (code != 0) {
            m_checking = false;
            Q_EMIT checked({tr("The Slurm login node (%1) cannot run commands: %2").arg(where, QString::fromUtf8(err).trimmed())});
            return;
        }
        QStringList problems;
        for (const QString& missing : QString::fromUtf8(out).split(QLatin1Char('\n'), Qt::SkipEmptyParts))
            problems << (missing == engine
                             ? tr("The Slurm login node (%1) has no engine \"%2\": install Strata's engine there, at the "
                                  "path the compute nodes find it too.").arg(where, engine)
                             : tr("The Slurm login node (%1) has no %2: install Slurm's client commands (Debian: "
                                  "slurm-client) or submit from the cluster's login node.").arg(where, missing));
        if (!problems.isEmpty()) {
            m_checking = false;
            Q_EMIT checked(problems);
            return;
        }
        login().run(QStringLiteral("sinfo"), {"-h", "-o", "%P"}, {}, [this, partition, generation, where](int sinfoCode, const QByteArray& sinfoOut, const QByteArray& sinfoErr) {
            if (!m_checking || generation != m_generation)
                return;
            m_checking = false;
            if (sinfoCode != 0) {
                Q_EMIT checked({tr("Slurm does not answer on the login node (%1) (sinfo: %2)").arg(where, QString::fromUtf8(sinfoErr).trimmed())});
                return;
            }
            QStringList partitions;
            for (QString p : QString::fromUtf8(sinfoOut).split(QLatin1Char('\n'), Qt::SkipEmptyParts))
                partitions << p.trimmed().remove(QLatin1Char('*')); // the default partition is starred
            if (!partition.isEmpty() && !partitions.contains(partition)) {
                Q_EMIT checked({tr("Slurm has no partition \"%1\" (it has: %2)").arg(partition, partitions.join(QStringLiteral(", ")))});
                return;
            }
            Q_EMIT checked({});
        });
    });
}

void SlurmBackend::cancelCheck()
{
    m_checking = false;
    retire(m_checkConnection);
}

void SlurmBackend::begin()
{
    // The check's connection is the run's.
    if (m_checkConnection) {
        std::map<QString, std::unique_ptr<ssh::Connection>> adopted;
        adopted[loginName()] = std::move(m_checkConnection);
        m_remote.links().adopt(std::move(adopted));
    }
}

void SlurmBackend::submit(const QByteArray& token, const QString& launchId, const QStringList& taskFlags)
{
    m_submitting = true;
    const int generation = m_generation;
    const auto live = [this, generation] { return generation == m_generation && hasTasks(); };
    const auto fail = [this](const QString& why) { endUnfollowed(why); };
    LoginNode& node = login();
    const QString where = loginName().isEmpty() ? tr("this machine") : loginName();
    // sbatch and the nodes need the run directory's absolute path, as the login node resolves it
    // (a node's work_dir may be relative to the SSH user's home).
    node.run(QStringLiteral("sh"), {"-c", QStringLiteral("mkdir -p \"$1\" && cd \"$1\" && pwd -P"), "sh", jobRunDir()}, {},
             [=, this](int code, const QByteArray& out, const QByteArray& err) {
        if (!live())
            return;
        if (code != 0 || out.trimmed().isEmpty()) {
            fail(tr("the run directory %1 could not be made on the login node (%2): %3")
                     .arg(jobRunDir(), where, QString::fromUtf8(err).trimmed()));
            return;
        }
        m_jobRunDir = QString::fromUtf8(out).trimmed();
        JobScriptInput input;
        input.slurm = readableCluster(host().experiment()).slurm.value_or(schema::SlurmSettings{});
        input.jobName = QFileInfo(host().runDir()).fileName();
        input.runDir = m_jobRunDir;
        input.engine = tasks().front()->plan.engine;
        input.launchId = launchId;
        input.taskFlags = taskFlags;
        const QString scriptPath = path(QStringLiteral("slurm-job.sh"));
        // The token goes to the tasks through a file only its owner can read (they have no stdin of ours).
        login().write(path(QStringLiteral("job-token")), token + '\n', LoginNode::Write::ReplaceOwnerOnly, [=, this](const QString& tokenError) {
            if (!live())
                return;
            if (!tokenError.isEmpty()) {
                fail(tr("the job's token could not be written: %1").arg(tokenError));
                return;
            }
            // The experiment as launched, which the tasks read there (here it is written already).
            const QByteArray experiment = login().remote() ? QByteArray::fromStdString(host().experiment().dump(2) + "\n") : QByteArray();
            const QString experimentPath = login().remote() ? path(QStringLiteral("launch.strata.json")) : QString();
            const QByteArray script = jobScript(input).toUtf8();
            writeAll({{experimentPath, experiment}, {scriptPath, script}}, [=, this](const QString& scriptError) {
                if (!live())
                    return;
                if (!scriptError.isEmpty()) {
                    fail(tr("the job's files could not be written: %1").arg(scriptError));
                    return;
                }
                // Each task is followed from where its files end now (earlier sessions are not this run's).
                readJobEvents();
                readRecords([=, this] {
                    for (LaunchTask* t : tasks()) {
                        if (!login().remote()) { // over SSH the copies here say where they end
                            t->eventsOffset = QFileInfo(path("events-" + taskFileStem(t->plan.name) + ".jsonl")).size();
                            t->stderrOffset = QFileInfo(path("stderr-" + taskFileStem(t->plan.name) + ".log")).size();
                        }
                        if (const auto earlier = recordStarted(t->plan.name))
                            m_staleSession[t] = *earlier;
                    }
                    login().run(QStringLiteral("sbatch"), {"--parsable", scriptPath}, {},
                                [=, this](int sbatchCode, const QByteArray& sbatchOut, const QByteArray& sbatchErr) {
                        if (!live())
                            return;
                        if (sbatchCode != 0) {
                            fail(tr("Slurm refused the job (sbatch %1): %2").arg(scriptPath, QString::fromUtf8(sbatchErr).trimmed()));
                            return;
                        }
                        m_jobId = QString::fromUtf8(sbatchOut).trimmed().section(QLatin1Char(';'), 0, 0); // "12" or "12;cluster"
                        QString error;
                        if (!writeJsonFile(QDir(host().runDir()).filePath(QStringLiteral("slurm-job.json")),
                                           {{"job_id", m_jobId.toStdString()}, {"script", "slurm-job.sh"},
                                            {"submitted", nowSeconds()}, {"run_dir", m_jobRunDir.toStdString()}},
                                           &error))
                            host().store().appendLog(QStringLiteral("strata"), QStringLiteral("warning"),
                                                     error + tr(" (the job cannot be followed again after Strata closes)"));
                        host().store().appendLog(QStringLiteral("strata"), QStringLiteral("info"),
                                                 loginName().isEmpty()
                                                     ? tr("Submitted Slurm job %1 (%2)").arg(m_jobId, scriptPath)
                                                     : tr("Submitted Slurm job %1 from %2 (%3)").arg(m_jobId, loginName(), scriptPath));
                        host().batchJobChanged(tr("Slurm job %1: submitted").arg(m_jobId));
                        for (LaunchTask* t : tasks())
                            host().store().setTaskPlace(t->plan.name, tr("Slurm job %1").arg(m_jobId), QString());
                        host().placesChanged();
                        if (m_stopping) // Stop came while sbatch ran
                            cancel({m_jobId});
                        poll();
                        m_poll.start();
                        m_recordCheck.start(); // a task is followed the moment it runs, not at the next poll
                    });
                });
            });
        });
    });
}

void SlurmBackend::writeAll(std::vector<std::pair<QString, QByteArray>> files, std::function<void(const QString&)> done)
{
    while (!files.empty() && files.front().first.isEmpty())
        files.erase(files.begin());
    if (files.empty()) {
        done({});
        return;
    }
    const auto [file, data] = files.front();
    files.erase(files.begin());
    login().write(file, data, LoginNode::Write::Replace, [this, files, done](const QString& error) {
        if (!error.isEmpty())
            done(error);
        else
            writeAll(files, done);
    });
}

void SlurmBackend::watch()
{
    if (!hasTasks())
        return;
    if (overSsh())
        m_remote.watch();
    if (m_submitting || !m_jobId.isEmpty())
        return;
    // Followed again (attach): the job id from the run directory.
    QFile file(QDir(host().runDir()).filePath(QStringLiteral("slurm-job.json")));
    const Json job = file.open(QIODevice::ReadOnly) ? Json::parse(file.readAll().toStdString(), nullptr, false) : Json();
    if (!job.is_object() || !job.contains("job_id") || !job["job_id"].is_string()) {
        endUnfollowed(tr("the run's Slurm job is not on record (%1 is missing or malformed)").arg(file.fileName()));
        return;
    }
    m_jobId = QString::fromStdString(job["job_id"].get<std::string>());
    if (job.contains("run_dir") && job["run_dir"].is_string())
        m_jobRunDir = QString::fromStdString(job["run_dir"].get<std::string>());
    const int generation = m_generation;
    // What the job script wrote before is not news.
    login().read(path(QStringLiteral("slurm-events.txt")), 0, [this, generation](bool, const QByteArray& bytes) {
        if (generation != m_generation)
            return;
        m_jobEventsRead = bytes.size();
        poll();
        m_poll.start();
    });
}

void SlurmBackend::poll()
{
    if (m_jobId.isEmpty() || m_pollPending)
        return;
    m_pollPending = true;
    const int generation = m_generation;
    login().run(QStringLiteral("scontrol"), {"show", "job", "-o", m_jobId}, {}, [this, generation](int code, const QByteArray& out, const QByteArray& err) {
        if (generation != m_generation)
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
        readJobEvents([this, generation, s = *state] {
            readRecords([this, generation, s] {
                m_pollPending = false;
                if (generation == m_generation && hasTasks())
                    jobSeen(s);
            });
        });
    });
}

void SlurmBackend::jobSeen(const SlurmJobState& s)
{
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
    if (changed || requeued) {
        QString account = tr("Slurm job %1: %2").arg(m_jobId, s.state);
        if (!s.reason.isEmpty() && s.reason != QLatin1String("None"))
            account += QStringLiteral(" (%1)").arg(s.reason);
        if (s.restarts > 0)
            account += tr(", restart %1").arg(s.restarts);
        host().batchJobChanged(account);
    }
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
    const int generation = m_generation;
    login().read(path(QStringLiteral("slurm-%1.out").arg(m_jobId)), -kOutputTail, [this, generation, s](bool, const QByteArray& tail) {
        if (generation == m_generation)
            endOverJob(s, QString::fromUtf8(tail).trimmed());
    });
}

void SlurmBackend::endOverJob(const SlurmJobState& s, const QString& tail)
{
    for (LaunchTask* t : tasks()) {
        if (t->ended)
            continue;
        m_held.erase(t);
        const QString node = recordHost(t->plan.name);
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

void SlurmBackend::readRecords(std::function<void()> then)
{
    std::vector<QString> names;
    for (const LaunchTask* t : tasks())
        if (!t->ended)
            names.push_back(t->plan.name);
    if (names.empty()) {
        then();
        return;
    }
    m_recordsPending = true;
    const int generation = m_generation;
    auto left = std::make_shared<size_t>(names.size());
    for (const QString& name : names)
        login().read(path(recordFile(name)), 0, [this, generation, name, left, then](bool found, const QByteArray& bytes) {
            if (generation != m_generation)
                return;
            const Json record = found ? Json::parse(bytes.toStdString(), nullptr, false) : Json();
            if (record.is_object())
                m_records[name] = record;
            else
                m_records.erase(name); // none yet, or being written: read again next time
            if (--*left == 0) {
                m_recordsPending = false;
                then();
            }
        });
}

void SlurmBackend::readJobEvents(std::function<void()> then)
{
    // Lines the job script writes: "<time> started <restart>", "<time> warned", "<time> requeued".
    const qint64 from = m_jobEventsRead;
    const int generation = m_generation;
    const int seq = ++m_eventReadsIssued;
    login().read(path(QStringLiteral("slurm-events.txt")), from, [this, generation, from, seq, then](bool, const QByteArray& bytes) {
        if (generation != m_generation)
            return;
        // Another answer may have read the start of it meanwhile.
        const qint64 skip = m_jobEventsRead - from;
        if (skip >= 0 && skip <= bytes.size()) {
            const QByteArray news = bytes.mid(skip);
            qsizetype at = 0;
            for (qsizetype end; (end = news.indexOf('\n', at)) >= 0; at = end + 1) // a last line without its end: still being written
                jobEventLine(news.mid(at, end - at));
            m_jobEventsRead += at;
        }
        m_eventReadsDone = std::max(m_eventReadsDone, seq);
        decideHeld();
        if (then)
            then();
    });
}

void SlurmBackend::jobEventLine(const QByteArray& line)
{
    const QList<QByteArray> words = line.trimmed().split(' ');
    if (words.size() < 2)
        return;
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

bool SlurmBackend::continuesAfterExit(const LaunchTask& task)
{
    const bool requeues = readableCluster(host().experiment()).slurm.value_or(schema::SlurmSettings{}).requeue;
    if (!requeues || m_stopping)
        return false;
    LaunchTask* t = nullptr;
    for (LaunchTask* each : tasks())
        if (each == &task)
            t = each;
    readJobEvents(); // on this machine: answered at once
    const int read = m_eventReadsIssued;
    if (m_warnedAt <= 0 && m_eventReadsDone >= read)
        return false;
    if (m_warnedAt <= 0 && t) {
        // Over SSH the job's events come later than the task's exit may: the exit is held until
        // they say whether Slurm warned the job (then it was requeued) or not (then it ended).
        Held held{*task.exit, read};
        held.end.stderrTail = QString::fromUtf8(task.stderrTail).trimmed();
        m_held[t] = held;
    }
    host().store().setTaskScheduled(task.plan.name, tr("requeued"), {});
    if (const auto ended = recordStarted(task.plan.name))
        m_staleSession[&task] = *ended;
    return true;
}

void SlurmBackend::decideHeld()
{
    for (auto h = m_held.begin(); h != m_held.end();) {
        if (m_warnedAt > 0) {
            h = m_held.erase(h); // requeued: its next session is followed
        } else if (m_eventReadsDone >= h->second.afterRead) {
            LaunchTask* t = h->first;
            const TaskEnd end = h->second.end;
            h = m_held.erase(h);
            host().store().setTaskScheduled(t->plan.name, {}, {});
            host().endTask(*t, end);
        } else
            ++h;
    }
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
    // The run is over before Slurm may say the job is: the job and its restarts, unless Slurm
    // ended it itself (its state says how).
    if (!m_jobId.isEmpty() && !(m_state && m_state->over()))
        host().batchJobChanged(m_state && m_state->restarts > 0
                                   ? tr("Slurm job %1, requeued %n time(s)", nullptr, m_state->restarts).arg(m_jobId)
                                   : tr("Slurm job %1").arg(m_jobId));
    // Stopped: what is left of the job (its batch script) goes.
    if (m_stopping && !m_jobId.isEmpty() && !(m_state && m_state->over()))
        cancel({m_jobId});
    m_remote.finish();
}

void SlurmBackend::forget()
{
    LaunchBackend::forget();
    ++m_generation;
    m_loginName.reset();
    m_remote.clear();
    m_poll.stop();
    m_recordCheck.stop();
    m_jobId.clear();
    m_jobRunDir.clear();
    m_state.reset();
    m_records.clear();
    m_pollsSinceOver = 0;
    m_stopping = false;
    m_submitting = false;
    m_pollPending = false;
    m_recordsPending = false;
    m_jobEventsRead = 0;
    m_warnedAt = 0;
    m_staleSession.clear();
    m_ran.clear();
    m_held.clear();
}

void SlurmBackend::cancel(const QStringList& args)
{
    // Detached: the job is cancelled even when the launcher goes the moment after.
    if (!login().runDetached(QStringLiteral("scancel"), args))
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

void SlurmBackend::repair(const QString& runDir, const TaskPlace& place) const
{
    if (overSsh())
        TaskMirror::truncateTorn(runDir, place.task);
}

void SlurmBackend::attached(LaunchTask& task, const TaskPlace& place, const ReplayPosition& position)
{
    if (overSsh()) {
        m_remote.attached(task, place);
        return;
    }
    task.eventsOffset = position.offset;
    task.stderrOffset = QFileInfo(path("stderr-" + taskFileStem(place.task) + ".log")).size();
}

bool SlurmBackend::readyToFollow(LaunchTask& task)
{
    // Its record is the sign that the task runs (or ran): a session newer than the one followed.
    const std::optional<double> started = recordStarted(task.plan.name);
    const auto stale = m_staleSession.find(&task);
    if (!started || (stale != m_staleSession.end() && stale->second >= *started))
        return false;
    if (overSsh() && !m_remote.readyToFollow(task))
        return false; // followed once the login node is connected
    m_ran.insert(&task);
    host().store().setTaskScheduled(task.plan.name, {}, {});
    host().store().setTaskPlace(task.plan.name, tr("Slurm job %1").arg(m_jobId), recordHost(task.plan.name));
    host().placesChanged(); // the launch record names its node now
    return true;
}

FollowFrom SlurmBackend::followFrom(const LaunchTask& task) const
{
    return overSsh() ? m_remote.followFrom(task) : LaunchBackend::followFrom(task);
}

std::unique_ptr<TaskProcess> SlurmBackend::createFront(LaunchTask& task)
{
    const QString control = path("control-" + taskFileStem(task.plan.name) + ".txt");
    std::unique_ptr<TaskProcess> follower = overSsh() ? m_remote.createFront(task, task.plan.engine)
                                                      : std::make_unique<LocalTaskProcess>(host().localEngine());
    return std::make_unique<SlurmTaskFront>(std::move(follower), login(), control);
}

void SlurmBackend::received(LaunchTask& task, const StreamPiece& piece)
{
    if (overSsh())
        m_remote.received(task, piece);
}

void SlurmBackend::errorReceived(LaunchTask& task, const QByteArray& data)
{
    if (overSsh())
        m_remote.errorReceived(task, data);
}

bool SlurmBackend::frontLost(LaunchTask& task, const TaskProcessExit& exit, bool followed)
{
    return overSsh() && m_remote.frontLost(task, exit, followed);
}

void SlurmBackend::describe(const LaunchTask& task, TaskPlace& place) const
{
    if (overSsh())
        m_remote.describe(task, place);
    if (!m_jobId.isEmpty())
        place.node = tr("Slurm job %1").arg(m_jobId);
    if (const QString node = recordHost(task.plan.name); !node.isEmpty())
        place.host = node;
}

} // namespace strata::app
