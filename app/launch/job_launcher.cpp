#include "app/launch/job_launcher.h"

#include "app/experiment/catalogs.h"
#include "app/launch/local_task_process.h"
#include "app/launch/node_check.h"
#include "app/launch/remote_task_process.h"
#include "app/launch/unfollowed_runs.h"
#include "app/rundir/json_file.h"
#include "app/metrics/lost_tasks.h"
#include "app/rundir/run_replay.h"
#include "app/rundir/step_record_tail.h"
#include "app/metrics/display_text.h"
#include "app/rundir/task_places.h"
#include "app/metrics/task_roles.h"
#include "app/ssh/connection.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QStandardPaths>
#include <QSysInfo>
#include <QUuid>

#include <algorithm>

namespace strata::app {

namespace {

// Keep this much of a task's stderr for its error report.
constexpr qsizetype kStderrTail = 4096;
// How long a front process that was sent `kill` may take to report the task's end before it
// is killed itself (it then was no follower at all: an engine that does not detach).
constexpr int kFrontKillMs = 3000;

// The follower's own first line: where in the node's files it starts.
struct FollowLine {
    qint64 offset = 0, stderrOffset = 0;
    qint64 stepsOffset = -1; // -1: its step records are not relayed
};
std::optional<FollowLine> followLine(const QByteArray& line)
{
    if (!line.contains("\"type\":\"follow\""))
        return std::nullopt;
    const Json j = Json::parse(line.constData(), line.constData() + line.size(), nullptr, false);
    if (!j.is_object() || j.value("type", std::string()) != "follow")
        return std::nullopt;
    return FollowLine{j.value("offset", qint64(0)), j.value("stderr_offset", qint64(0)), j.value("steps_offset", qint64(-1))};
}

// The size of a follower's frame of step records (`{"type":"step_records","bytes":N}`), if
// `line` is one.
std::optional<qint64> stepRecordsFrame(const QByteArray& line)
{
    if (!line.startsWith(R"({"type":"step_records")"))
        return std::nullopt;
    const Json j = Json::parse(line.constData(), line.constData() + line.size(), nullptr, false);
    const auto bytes = j.is_object() ? j.find("bytes") : j.end();
    if (bytes == j.end() || !bytes->is_number_unsigned())
        return std::nullopt;
    return bytes->get<qint64>();
}

// Moves `object` out to be deleted once control returns to the event loop: it may be the
// sender of the signal being handled.
template<typename T>
void retire(std::unique_ptr<T>& object)
{
    if (object)
        object.release()->deleteLater();
}

void truncateToLastLine(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadWrite))
        return;
    const QByteArray all = f.readAll();
    const qsizetype end = all.lastIndexOf('\n') + 1;
    if (end < all.size())
        f.resize(end);
}

} // namespace

// A local task's step records (steps-<task>.jsonl in the run directory), read on the ingest
// thread only: each time the task's events arrive, what the file gained goes into the store
// with them (the engine writes a step's record before any event after it).
struct JobLauncher::StepRecordFeed {
    StepRecordFeed(const QString& path, qint64 offset) : tail(path, offset) {}

    std::vector<ParsedEvent> read(MetricsStore& store, const QString& task)
    {
        // All there is: the records of every step up to the events being handed over are.
        std::vector<ParsedEvent> records;
        QString error;
        do {
            if (!tail.read(records, &error)) {
                if (!warned) {
                    warned = true; // once: the events still give a point per window
                    store.appendLog(task, QStringLiteral("warning"), error);
                }
                break;
            }
        } while (!tail.atEnd());
        return records;
    }

    StepRecordTail tail;
    bool warned = false;
};

struct JobLauncher::Task {
    PlannedTask plan;
    std::unique_ptr<TaskProcess> front; // what follows it now; null while its node is unreachable
    QByteArray pending;    // stdout after the last complete line
    QByteArray stderrTail; // the end of stderr, for the error report
    // Where in the node's events and stderr files what arrived ends (-1: not known: the front
    // never said where it started, as an engine that does not detach).
    qint64 eventsOffset = -1, stderrOffset = -1;
    // node offset - local copy's size (remote tasks: an earlier session only the node has)
    qint64 eventsBase = 0, stderrBase = 0;
    std::unique_ptr<QFile> events, stderrCopy; // remote tasks: the node's files, here
    // A remote task's step records, relayed by its follower into a copy here: where in the
    // node's steps file what arrived ends (-1: not known), node offset - copy size, and the
    // bytes of records still to come of the frame being read.
    std::unique_ptr<QFile> stepsCopy;
    qint64 stepsOffset = -1, stepsBase = 0, recordBytesDue = 0;
    std::shared_ptr<StepRecordFeed> records; // its steps file here (a remote task's copy)
    bool terminated = false;  // asked to stop by the launcher
    bool killed = false;      // sent `kill`
    bool commandsPending = false; // asked while unreachable: sent once followed again
    bool reachable = true;
    QElapsedTimer lastHeard;
    std::optional<TaskEnd> exit; // from the supervisor's `exit` event
    bool ended = false;
    TaskEnd end;
    std::unique_ptr<QTimer> frontKill;
};

struct JobLauncher::NodeLink {
    schema::NodeSpec node;
    std::unique_ptr<ssh::Connection> connection;
    bool connected = false;
    QTimer retry;
    QString lastFailure; // logged once until it changes
};

JobLauncher::JobLauncher(MetricsStore* store, QObject* parent) : QObject(parent), m_store(store)
{
    m_ingestThread.setObjectName("strata-ingest");
    m_ingest.moveToThread(&m_ingestThread);
    m_ingestThread.start();
    m_killTimer.setSingleShot(true);
    connect(&m_killTimer, &QTimer::timeout, this, [this] {
        for (auto& t : m_tasks) {
            if (!t->terminated || t->ended)
                continue;
            if (t->plan.remote && !t->reachable) {
                // It cannot be told to stop: the run ends without it. Its job stops it once it
                // is lost to the others (the collective timeout), and following the run
                // again later tells how it ended.
                t->end.vanished = tr("its node %1 could not be reached to stop it; the job ends it when it "
                                     "loses it, and `strata attach` tells how it ended")
                                      .arg(placeText(t->plan.node, t->plan.host));
                recordEnd(*t);
                continue;
            }
            kill(*t);
        }
    });
    m_evaluatorTimer.setSingleShot(true);
    connect(&m_evaluatorTimer, &QTimer::timeout, this, [this] {
        for (auto& t : m_tasks)
            if (!t->plan.endsJob && !t->ended)
                terminate(*t, m_graceMs);
    });
    m_heartbeatTimer.setInterval(1000);
    connect(&m_heartbeatTimer, &QTimer::timeout, this, &JobLauncher::checkHeartbeats);
    // A survivor's error naming a lost task arrives as its state change.
    connect(m_store, &MetricsStore::taskStateChanged, this, &JobLauncher::endLostTasks);
}

JobLauncher::~JobLauncher()
{
    // The job goes on without the app: only the followers go (with their channels).
    for (auto& t : m_tasks)
        t->front.reset();
    m_links.clear();
    m_checker.reset();
    m_ingestThread.quit();
    m_ingestThread.wait();
}

QString JobLauncher::defaultRunDir(const QString& experimentName)
{
    const QString base = QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation);
    const QString stamp = QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss");
    const QString first = QDir(base).filePath("runs/" + experimentName + "-" + stamp);
    // A second run of the experiment within the same second must not share the first's
    // directory: the engine would resume from its checkpoint.
    QString dir = first;
    for (int n = 2; QFileInfo::exists(dir); ++n)
        dir = QStringLiteral("%1-%2").arg(first).arg(n);
    return dir;
}

bool JobLauncher::isRunning() const
{
    // Until `finished`: the store may still be taking what the last task sent.
    return m_phase == Phase::Checking || (m_phase == Phase::Running && m_endsRecorded < int(m_tasks.size()));
}

QStringList JobLauncher::tasks() const
{
    QStringList names;
    for (const auto& t : m_tasks)
        names << t->plan.name;
    return names;
}

QStringList JobLauncher::hosts() const
{
    // This machine by its name (a local node's host is often just "localhost").
    QStringList out;
    for (const auto& t : m_tasks)
        out << (t->plan.remote ? placeText(t->plan.node, t->plan.host) : QSysInfo::machineHostName());
    return out;
}

const QList<NodeReport>& JobLauncher::nodeReports() const
{
    static const QList<NodeReport> none;
    return m_checker ? m_checker->reports() : none;
}

bool JobLauncher::lockRunDir(const QString& runDir, QString* error)
{
    if (!QDir().mkpath(runDir)) {
        *error = tr("Cannot create the run directory %1.").arg(runDir);
        return false;
    }
    // One Strata follows a run at a time: two would both write the remote tasks' copies.
    auto lock = std::make_unique<QLockFile>(runLockPath(runDir));
    lock->setStaleLockTime(0);
    if (!lock->tryLock(0)) {
        qint64 pid = 0;
        QString host, app;
        lock->getLockInfo(&pid, &host, &app);
        *error = tr("Another Strata (process %1 on %2) is following the run in %3.").arg(pid).arg(host, runDir);
        return false;
    }
    m_lock = std::move(lock);
    return true;
}

bool JobLauncher::start(const Json& experiment, const QString& enginePath, const QString& runDir, QString* error,
                        ResumeChoice resume)
{
    if (isRunning()) {
        *error = tr("A run is already in progress.");
        return false;
    }
    const QFileInfo engine(enginePath);
    LaunchPlan plan = planLaunch(experiment, engine.absoluteFilePath(), runDir);
    // The engines of this machine's tasks must be there (a remote node's is checked there).
    for (const PlannedTask& t : plan.tasks) {
        const QFileInfo local(t.engine == engine.absoluteFilePath() ? enginePath : t.engine);
        if (t.remote || (local.exists() && local.isFile() && local.isExecutable()))
            continue;
        *error = !local.exists() ? tr("The Strata engine was not found at %1.").arg(local.filePath())
                                 : tr("The Strata engine %1 is not executable.").arg(local.filePath());
        return false;
    }
    m_runDir = runDir;
    m_resume = resume;
    m_localEngine = engine.absoluteFilePath();
    m_experiment = experiment;
    m_tasks.clear();
    m_links.clear();
    m_endsRecorded = 0;
    m_killTimer.stop();
    m_evaluatorTimer.stop();
    for (PlannedTask& p : plan.tasks) {
        auto t = std::make_unique<Task>();
        t->plan = std::move(p);
        m_tasks.push_back(std::move(t));
    }
    // The job's secret for the tasks' rendezvous: on each task's stdin only.
    QByteArray token(32, Qt::Uninitialized);
    QRandomGenerator::system()->fillRange(reinterpret_cast<quint32*>(token.data()), token.size() / 4);
    m_token = token.toHex();
    // Names this launch in the tasks' records, apart from earlier sessions in the directory.
    m_launchId = QUuid::createUuid().toString(QUuid::WithoutBraces);

    if (plan.hasRemote()) {
        // Nothing is created or started before every remote node passed its check.
        m_phase = Phase::Checking;
        m_checker = std::make_unique<NodeChecker>(m_access);
        connect(m_checker.get(), &NodeChecker::finished, this, &JobLauncher::nodesChecked);
        m_checker->check(m_experiment, m_localEngine, true);
        return true;
    }
    if (!lockRunDir(runDir, error))
        return false;
    if (isMultiProcess(strategyType(m_experiment)) && !resolveAutomaticPorts(m_experiment, freeLocalPorts, error)) {
        m_lock.reset();
        return false;
    }
    launchTasks();
    return true;
}

void JobLauncher::nodesChecked(const QList<NodeReport>& reports)
{
    QStringList problems;
    for (const NodeReport& r : reports)
        problems << r.problems;
    QString error;
    if (problems.isEmpty() && !lockRunDir(m_runDir, &error))
        problems << error;
    if (problems.isEmpty() && isMultiProcess(strategyType(m_experiment))) {
        const FreePorts freePorts = [&](const QString& host, int count, const QList<int>& taken) {
            for (const NodeReport& r : reports)
                if (r.host == host && r.freePorts.size() >= count)
                    return r.freePorts.mid(0, count);
            return freeLocalPorts(host, count, taken);
        };
        if (!resolveAutomaticPorts(m_experiment, freePorts, &error))
            problems << error;
    }
    if (!problems.isEmpty()) {
        m_phase = Phase::Idle;
        m_tasks.clear();
        m_lock.reset();
        retire(m_checker);
        Q_EMIT launchFailed(problems.join(QLatin1Char('\n')));
        return;
    }
    adoptConnections();
    launchTasks();
    // After the store was cleared for this run: what the checks could not do (a password not
    // remembered).
    for (const NodeReport& r : reports)
        for (const QString& note : r.notes)
            m_store->appendLog(QStringLiteral("strata"), QStringLiteral("warning"), note);
}

void JobLauncher::adoptConnections()
{
    for (auto& [name, connection] : m_checker->takeConnections()) {
        NodeLink& l = link(name);
        l.connection = std::move(connection);
        l.connected = true;
        // A copy, not the binding itself: clang 14 (the fuzz build) cannot capture bindings.
        connect(l.connection.get(), &ssh::Connection::lost, this,
                [this, node = name](const QString& why) { markUnreachable(node, why); });
        connect(l.connection.get(), &ssh::Connection::warning, this,
                [this](const QString& why) { m_store->appendLog(QStringLiteral("strata"), QStringLiteral("warning"), why); });
    }
}

JobLauncher::NodeLink& JobLauncher::link(const QString& node)
{
    auto& l = m_links[node];
    if (!l) {
        l = std::make_unique<NodeLink>();
        const LaunchPlan plan = planLaunch(m_experiment, m_localEngine, m_runDir);
        if (const schema::NodeSpec* spec = plan.remoteNode(node))
            l->node = *spec;
        l->retry.setSingleShot(true);
        connect(&l->retry, &QTimer::timeout, this, [this, node] { connectNode(*m_links[node]); });
    }
    return *l;
}

void JobLauncher::launchTasks()
{
    // A new run: the store forgets the last one only now that this one starts.
    m_store->clear();
    const std::string text = m_experiment.dump(2) + "\n";
    QString problem;
    if (!writeJsonFile(QDir(m_runDir).filePath("launch.strata.json"), m_experiment, &problem))
        m_store->appendLog(QStringLiteral("strata"), QStringLiteral("warning"), problem);
    const QByteArray startData = m_token + '\n' + QByteArray::number(qsizetype(text.size())) + '\n' +
                                 QByteArray::fromStdString(text);
    m_phase = Phase::Running;
    // Where the tasks run is on record before any starts: a Strata that dies a moment later
    // can still be followed again.
    writeLaunchRecord();
    for (auto& t : m_tasks) {
        m_store->setTaskPlace(t->plan.name, t->plan.node, t->plan.host);
        // This session's records: those of the directory's earlier ones are not this run's view.
        const QString steps = stepsPath(*t);
        t->records = std::make_shared<StepRecordFeed>(steps, QFileInfo(steps).size());
        startFront(*t,
                   QStringList{"start", "--run-dir", t->plan.runDir, "--task", t->plan.name, "--launch", m_launchId} +
                       resumeFlags(m_resume) + (t->plan.remote ? QStringList{"--relay-steps"} : QStringList()),
                   startData);
    }
    if (std::any_of(m_tasks.begin(), m_tasks.end(), [](const auto& t) { return t->plan.remote; }))
        m_heartbeatTimer.start();
    Q_EMIT started();
}

void JobLauncher::startFront(Task& task, const QStringList& args, const QByteArray& stdinData)
{
    if (task.plan.remote) {
        NodeLink& l = link(task.plan.node);
        // The node's files, copied here as they arrive (appended: a resumed run keeps its past).
        const QString stem = taskFileStem(task.plan.name);
        if (!task.events) {
            task.events = std::make_unique<QFile>(QDir(m_runDir).filePath("events-" + stem + ".jsonl"));
            task.stderrCopy = std::make_unique<QFile>(QDir(m_runDir).filePath("stderr-" + stem + ".log"));
            task.stepsCopy = std::make_unique<QFile>(stepsPath(task));
            for (QFile* f : {task.events.get(), task.stderrCopy.get(), task.stepsCopy.get()})
                if (!f->open(QIODevice::WriteOnly | QIODevice::Append))
                    m_store->appendLog(task.plan.name, QStringLiteral("warning"),
                                       tr("Cannot write %1: %2 (this run will be incomplete when opened again)")
                                           .arg(f->fileName(), f->errorString()));
        }
        task.front = std::make_unique<RemoteTaskProcess>(l.connection.get(), task.plan.engine);
    } else {
        task.front = std::make_unique<LocalTaskProcess>(task.plan.engine);
    }
    task.pending.clear();
    task.recordBytesDue = 0;
    task.lastHeard.start();
    TaskProcess* front = task.front.get();
    connect(front, &TaskProcess::output, this, [this, &task](const QByteArray& d) { output(task, d); });
    connect(front, &TaskProcess::errorOutput, this, [this, &task](const QByteArray& d) { errorOutput(task, d); });
    connect(front, &TaskProcess::ended, this, [this, &task, front](const TaskProcessExit& e) {
        if (task.front.get() == front)
            frontEnded(task, e);
    });
    front->start(args, stdinData);
}

void JobLauncher::output(Task& task, const QByteArray& data)
{
    task.lastHeard.restart();
    task.pending += data;
    QByteArray lines;
    bool recordsArrived = false;
    if (task.stepsCopy) {
        lines = takeEventLines(task, &recordsArrived);
    } else {
        const qsizetype end = task.pending.lastIndexOf('\n');
        if (end < 0)
            return;
        lines = task.pending.left(end + 1);
        task.pending.remove(0, end + 1);
    }
    // Heartbeats (empty lines) and the follower's first line are the follower's own, not
    // events of the task: neither goes into the store or the copy of the node's file.
    if (lines.startsWith('\n') || lines.contains("\n\n") || lines.contains("\"type\":\"follow\"")) {
        QByteArray kept;
        kept.reserve(lines.size());
        for (qsizetype from = 0; from < lines.size();) {
            const qsizetype to = lines.indexOf('\n', from) + 1;
            const QByteArray line = lines.mid(from, to - from - 1);
            from = to;
            if (line.isEmpty())
                continue;
            if (const auto f = followLine(line)) {
                task.eventsOffset = f->offset;
                task.stderrOffset = f->stderrOffset;
                if (task.events) {
                    task.eventsBase = f->offset - task.events->size();
                    task.stderrBase = f->stderrOffset - task.stderrCopy->size();
                    writeLaunchRecord();
                }
                if (!task.reachable) {
                    task.reachable = true;
                    m_store->setTaskReachable(task.plan.name, true,
                                              tr("%1 on %2 can be heard again: following it from where it was left")
                                                  .arg(task.plan.name, placeText(task.plan.node, task.plan.host)));
                }
                continue;
            }
            kept += line;
            kept += '\n';
        }
        lines = kept;
    }
    if (lines.isEmpty() && !recordsArrived)
        return;
    if (lines.contains("\"type\":\"exit\"")) {
        for (const QByteArray& line : lines.split('\n'))
            if (line.contains("\"type\":\"exit\""))
                if (auto e = exitFromEvent(Json::parse(line.toStdString(), nullptr, false)))
                    task.exit = e;
    }
    if (task.events && task.events->isOpen()) {
        task.events->write(lines);
        task.events->flush();
    }
    if (task.eventsOffset >= 0)
        task.eventsOffset += lines.size();
    toStore([store = m_store, name = task.plan.name, lines, records = task.records] {
        store->ingestLines(name, lines, records ? records->read(*store, name) : std::vector<ParsedEvent>());
    });
}

QString JobLauncher::stepsPath(const Task& task) const
{
    return QDir(m_runDir).filePath("steps-" + taskFileStem(task.plan.name) + ".jsonl");
}

QByteArray JobLauncher::takeEventLines(Task& task, bool* recordsArrived)
{
    QByteArray lines;
    QByteArray& in = task.pending;
    qsizetype at = 0;
    while (at < in.size()) {
        if (task.recordBytesDue > 0) {
            const qsizetype n = qsizetype(std::min<qint64>(task.recordBytesDue, in.size() - at));
            if (task.stepsCopy->isOpen()) {
                task.stepsCopy->write(in.constData() + at, n);
                task.stepsCopy->flush();
            }
            task.recordBytesDue -= n;
            if (task.stepsOffset >= 0)
                task.stepsOffset += n;
            at += n;
            *recordsArrived = true;
            continue;
        }
        const qsizetype end = in.indexOf('\n', at);
        if (end < 0)
            break;
        const QByteArray line = in.mid(at, end - at);
        at = end + 1;
        if (const std::optional<qint64> bytes = stepRecordsFrame(line)) {
            task.recordBytesDue = *bytes;
            continue;
        }
        // Where the records it relays start on the node (its other offsets: output()).
        if (line.contains("\"type\":\"follow\""))
            if (const auto f = followLine(line); f && f->stepsOffset >= 0) {
                task.stepsOffset = f->stepsOffset;
                task.stepsBase = f->stepsOffset - task.stepsCopy->size();
            }
        lines += line + '\n';
    }
    in.remove(0, at);
    return lines;
}

void JobLauncher::errorOutput(Task& task, const QByteArray& data)
{
    task.lastHeard.restart();
    if (task.stderrCopy && task.stderrCopy->isOpen()) {
        task.stderrCopy->write(data);
        task.stderrCopy->flush();
    }
    if (task.stderrOffset >= 0)
        task.stderrOffset += data.size();
    task.stderrTail += data;
    if (task.stderrTail.size() > kStderrTail)
        task.stderrTail = task.stderrTail.right(kStderrTail);
}

void JobLauncher::frontEnded(Task& task, const TaskProcessExit& exit)
{
    retire(task.front);
    task.frontKill.reset();
    if (task.ended)
        return;
    const QString tail = QString::fromUtf8(task.stderrTail.right(kStderrTail)).trimmed();
    if (task.exit) {
        task.end = *task.exit;
        task.end.stderrTail = tail;
        task.pending.clear();
        recordEnd(task);
        return;
    }
    // A follower that lost its node (or was cut off by the app) leaves a task that may well
    // go on: it is followed again from the last byte that arrived.
    // (Status 3: the node has no such task; the follower's message says so.)
    const bool followed = task.eventsOffset >= 0 && !(!exit.crashed && exit.code == 3);
    if (task.plan.remote && (exit.connectionLost || followed)) {
        markUnreachable(task.plan.node, exit.connectionLost ? tr("the connection to %1 was lost").arg(task.plan.node)
                                                            : tr("its follower ended (status %1)").arg(exit.code));
        return;
    }
    if (followed) {
        QTimer::singleShot(500, this, [this, &task] {
            if (!task.ended && !task.front && m_phase == Phase::Running)
                follow(task);
        });
        return;
    }
    // The front process was the task (an engine that never detached or could not start):
    // its end is the task's.
    if (!task.pending.isEmpty()) // a last line without its newline: still data
        toStore([store = m_store, name = task.plan.name, line = task.pending + '\n'] { store->ingestLines(name, line); });
    task.pending.clear();
    task.end.exitCode = exit.code;
    task.end.crashed = exit.crashed;
    task.end.failedToStart = exit.failedToStart.isEmpty() ? QString()
                                                          : tr("%1 could not start: %2").arg(task.plan.name, exit.failedToStart);
    task.end.stderrTail = tail;
    recordEnd(task);
}

void JobLauncher::recordEnd(Task& task)
{
    task.ended = true;
    task.end.task = task.plan.name;
    if (task.end.time <= 0)
        task.end.time = double(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
    // The last records first: those written after its last event (an engine killed mid-epoch).
    toStore([store = m_store, end = task.end, records = task.records] {
        if (records)
            store->ingest(end.task, {}, records->read(*store, end.task));
        applyTaskEnd(*store, end);
    }, true);
    windDown();
}

void JobLauncher::windDown()
{
    bool allEnded = true, allWell = true;
    for (const auto& t : m_tasks)
        if (t->plan.endsJob) {
            allEnded = allEnded && t->ended;
            allWell = allWell && t->end.failedToStart.isEmpty() && t->end.vanished.isEmpty() && !t->end.crashed &&
                      t->end.exitCode == 0;
        }
    const bool following = std::any_of(m_tasks.begin(), m_tasks.end(),
                                       [](const auto& t) { return !t->plan.endsJob && !t->ended && !t->terminated; });
    if (!allEnded || !following || m_evaluatorTimer.isActive())
        return;
    // Training ended well: the evaluator ends by itself once it has evaluated the final
    // weights, and ParameterServer's workers and ps tasks once the coordinator has shut them
    // down, given time; otherwise there is nothing more for them to do.
    m_evaluatorTimer.start(allWell ? m_evaluatorGraceMs : 0);
}

void JobLauncher::terminate(Task& task, int graceMs)
{
    if (task.ended)
        return;
    if (!task.terminated) {
        task.terminated = true;
        if (task.front && task.reachable)
            task.front->terminate(); // the follower passes it to the task as `stop`
        else
            task.commandsPending = true;
    }
    if (!m_killTimer.isActive())
        m_killTimer.start(graceMs);
}

void JobLauncher::kill(Task& task)
{
    if (task.ended)
        return;
    task.killed = true;
    if (!task.front || !task.reachable) {
        task.commandsPending = true;
        return;
    }
    task.front->write("kill\n");
    // A front process that is the task itself (an engine that does not detach) takes no
    // commands: it is killed after a moment, as the task would have been.
    if (!task.plan.remote && !task.frontKill) {
        task.frontKill = std::make_unique<QTimer>();
        task.frontKill->setSingleShot(true);
        connect(task.frontKill.get(), &QTimer::timeout, this, [&task] {
            if (task.front && !task.ended)
                task.front->kill();
        });
        task.frontKill->start(task.eventsOffset >= 0 ? kFrontKillMs : 0);
    }
}

void JobLauncher::endLostTasks()
{
    if (m_phase != Phase::Running || !isRunning())
        return;
    for (const LostTask& lost : lostTasks(*m_store))
        if (lost.namedByPeer)
            for (auto& t : m_tasks)
                // Not logged here: its end is (the run rebuilt from its directory shows the
                // same), and the task table says it is lost and why.
                if (t->plan.name == lost.task && !t->ended && !t->terminated)
                    terminate(*t, m_graceMs);
}

void JobLauncher::toStore(std::function<void()> record, bool ends)
{
    QMetaObject::invokeMethod(&m_ingest, [this, record = std::move(record), ends] {
        record();
        if (ends) // back on the launcher's thread: the store now has this task's end
            QMetaObject::invokeMethod(this, [this] {
                if (++m_endsRecorded == int(m_tasks.size()))
                    finish();
            }, Qt::QueuedConnection);
    }, Qt::QueuedConnection);
}

void JobLauncher::finish()
{
    m_killTimer.stop();
    m_evaluatorTimer.stop();
    m_heartbeatTimer.stop();
    std::vector<TaskEnd> ends;
    for (auto& t : m_tasks) {
        ends.push_back(t->end);
        t->events.reset();
        t->stderrCopy.reset();
    }
    QString error;
    if (!writeTaskEnds(m_runDir, ends, &error))
        m_store->appendLog(QStringLiteral("strata"), QStringLiteral("warning"),
                           error + tr(" (how the tasks ended will be missing when the run is opened again)"));
    for (auto& [name, l] : m_links) {
        l->retry.stop();
        retire(l->connection);
    }
    m_phase = Phase::Idle;
    m_lock.reset();
    Q_EMIT finished();
}

void JobLauncher::stop(int graceMs)
{
    if (m_phase == Phase::Checking) {
        // Nothing started yet: the launch is called off.
        m_phase = Phase::Idle;
        m_tasks.clear();
        retire(m_checker);
        Q_EMIT launchFailed(tr("The launch was cancelled while the nodes were being checked."));
        return;
    }
    m_evaluatorTimer.stop();
    for (auto& t : m_tasks)
        if (!t->ended && !t->terminated) {
            t->terminated = true;
            if (t->front && t->reachable)
                t->front->terminate(); // the task checkpoints and reports done
            else
                t->commandsPending = true;
        }
    if (isRunning())
        m_killTimer.start(graceMs);
}

void JobLauncher::killTask(const QString& name)
{
    for (auto& t : m_tasks)
        if (t->plan.name == name)
            kill(*t);
}

void JobLauncher::writeLaunchRecord()
{
    std::vector<TaskPlace> places;
    for (const auto& t : m_tasks)
        places.push_back({t->plan.name, t->plan.node, t->plan.host, t->plan.remote, t->plan.engine, t->plan.runDir,
                          t->eventsBase, t->stderrBase, t->stepsBase});
    QString error;
    if (!writeTaskPlaces(m_runDir, places, &error))
        m_store->appendLog(QStringLiteral("strata"), QStringLiteral("warning"),
                           error + tr(" (the run cannot be followed again after Strata closes)"));
}

void JobLauncher::markUnreachable(const QString& node, const QString& why)
{
    NodeLink& l = link(node);
    bool changed = false;
    for (auto& t : m_tasks)
        if (t->plan.node == node && t->plan.remote && !t->ended) {
            retire(t->front);
            t->pending.clear(); // sent again from the last whole line (a frame's records from the last byte)
            t->recordBytesDue = 0;
            if (t->reachable) {
                t->reachable = false;
                changed = true;
                m_store->setTaskReachable(t->plan.name, false,
                                          tr("%1 on %2 is unreachable: %3. It may still be running; Strata keeps "
                                             "trying to reach it.")
                                              .arg(t->plan.name, placeText(t->plan.node, t->plan.host), why));
            }
        }
    if (l.connection) {
        l.connection->disconnect(this);
        l.connection->drop();
        retire(l.connection);
    }
    l.connected = false;
    if ((changed || !l.retry.isActive()) && m_phase == Phase::Running)
        l.retry.start(m_reconnectMs);
}

void JobLauncher::connectNode(NodeLink& l)
{
    if (m_phase != Phase::Running || l.connection)
        return;
    const QString name = QString::fromStdString(l.node.name);
    l.connection = std::make_unique<ssh::Connection>(endpointOf(l.node), m_access.options, m_access.prompter);
    connect(l.connection.get(), &ssh::Connection::connected, this, [this, name] { nodeConnected(*m_links[name]); });
    connect(l.connection.get(), &ssh::Connection::failed, this, [this, name](const QString& why) {
        NodeLink& failed = *m_links[name];
        if (failed.lastFailure != why) {
            failed.lastFailure = why;
            m_store->appendLog(QStringLiteral("strata"), QStringLiteral("warning"), why + tr(" (trying again)"));
        }
        for (auto& t : m_tasks)
            if (t->plan.node == name && t->plan.remote && !t->ended)
                m_store->setTaskReachable(t->plan.name, false,
                                          tr("%1 on %2 is unreachable: %3. Strata keeps trying to reach it.")
                                              .arg(t->plan.name, placeText(t->plan.node, t->plan.host), why));
        retire(failed.connection);
        failed.retry.start(m_reconnectMs);
    });
    connect(l.connection.get(), &ssh::Connection::lost, this, [this, name](const QString& why) { markUnreachable(name, why); });
    connect(l.connection.get(), &ssh::Connection::warning, this,
            [this](const QString& why) { m_store->appendLog(QStringLiteral("strata"), QStringLiteral("warning"), why); });
    l.connection->open();
}

void JobLauncher::nodeConnected(NodeLink& l)
{
    l.connected = true;
    l.lastFailure.clear();
    for (auto& t : m_tasks)
        if (t->plan.remote && t->plan.node == QString::fromStdString(l.node.name) && !t->ended && !t->front)
            follow(*t);
}

void JobLauncher::follow(Task& task)
{
    if (task.plan.remote && !(m_links.count(task.plan.node) && m_links[task.plan.node]->connected)) {
        connectNode(link(task.plan.node));
        return;
    }
    // From where what arrived ends (the copy's size and where it lines up with the node's
    // file, for a remote task whose follower never said where it started).
    const qint64 events = task.eventsOffset >= 0 ? task.eventsOffset
                                                 : (task.events ? task.events->size() + task.eventsBase : 0);
    const qint64 errors = task.stderrOffset >= 0 ? task.stderrOffset
                                                 : (task.stderrCopy ? task.stderrCopy->size() + task.stderrBase : 0);
    QByteArray commands;
    if (task.commandsPending) {
        task.commandsPending = false;
        commands = task.killed ? "kill\n" : (task.terminated ? "stop\n" : "");
    }
    QStringList args{"attach", "--run-dir", task.plan.runDir, "--task", task.plan.name, "--offset", QString::number(events),
                     "--stderr-offset", QString::number(errors)};
    if (task.plan.remote)
        args << "--steps-offset"
             << QString::number(task.stepsOffset >= 0 ? task.stepsOffset
                                                      : (task.stepsCopy ? task.stepsCopy->size() + task.stepsBase : 0));
    startFront(task, args, commands);
}

void JobLauncher::checkHeartbeats()
{
    QStringList silent;
    for (const auto& t : m_tasks)
        if (t->plan.remote && !t->ended && t->front && t->reachable && t->lastHeard.elapsed() > m_keepaliveMs &&
            !silent.contains(t->plan.node))
            silent << t->plan.node;
    for (const QString& node : silent)
        markUnreachable(node, tr("no answer for %1 s").arg(m_keepaliveMs / 1000.0));
}

bool JobLauncher::attach(const QString& runDir, const QString& enginePath, QString* error)
{
    if (isRunning()) {
        *error = tr("A run is already in progress.");
        return false;
    }
    std::vector<TaskPlace> places;
    if (!readTaskPlaces(runDir, places, error))
        return false;
    QFile launchFile(QDir(runDir).filePath("launch.strata.json"));
    if (places.empty() || !launchFile.open(QIODevice::ReadOnly)) {
        *error = tr("%1 cannot be followed again: it has no record of where its tasks run (nodes.json and "
                    "launch.strata.json; a run of an older Strata, or of the engine alone).")
                     .arg(runDir);
        return false;
    }
    const Json experiment = Json::parse(launchFile.readAll().toStdString(), nullptr, false);
    if (!experiment.is_object()) {
        *error = tr("%1 is not an experiment.").arg(launchFile.fileName());
        return false;
    }
    if (!lockRunDir(runDir, error))
        return false;
    m_runDir = runDir;
    m_localEngine = QFileInfo(enginePath).absoluteFilePath();
    m_experiment = experiment;
    m_tasks.clear();
    m_links.clear();
    m_endsRecorded = 0;
    // A copy torn by a Strata killed mid-write ends at its last whole line: the rest comes again.
    for (const TaskPlace& p : places)
        if (p.remote)
            for (const QString& f : {"events-" + taskFileStem(p.task) + ".jsonl", "stderr-" + taskFileStem(p.task) + ".log",
                                     "steps-" + taskFileStem(p.task) + ".jsonl"})
                truncateToLastLine(QDir(runDir).filePath(f));
    // What happened so far, from the files; then each task that has not ended is followed on.
    std::map<QString, ReplayPosition> positions;
    QString replayError;
    if (!loadRun(runDir, *m_store, &replayError, &positions))
        m_store->clear();
    m_phase = Phase::Running;
    const std::string strategy = strategyType(experiment);
    for (const TaskPlace& p : places) {
        auto t = std::make_unique<Task>();
        t->plan = {p.task, isTrainingTask(p.task), endsJob(p.task, strategy), p.node, p.host, 0, p.remote,
                   p.remote ? p.engine : m_localEngine, p.runDir};
        t->eventsBase = p.eventsBase;
        t->stderrBase = p.stderrBase;
        t->stepsBase = p.stepsBase;
        const QString stem = taskFileStem(p.task);
        const ReplayPosition position = positions.count(p.task) ? positions[p.task] : ReplayPosition{};
        if (p.remote) {
            t->events = std::make_unique<QFile>(QDir(runDir).filePath("events-" + stem + ".jsonl"));
            t->stderrCopy = std::make_unique<QFile>(QDir(runDir).filePath("stderr-" + stem + ".log"));
            t->stepsCopy = std::make_unique<QFile>(stepsPath(*t));
            t->events->open(QIODevice::WriteOnly | QIODevice::Append);
            t->stderrCopy->open(QIODevice::WriteOnly | QIODevice::Append);
            t->stepsCopy->open(QIODevice::WriteOnly | QIODevice::Append);
            t->eventsOffset = t->events->size() + p.eventsBase;
            t->stderrOffset = t->stderrCopy->size() + p.stderrBase;
            t->stepsOffset = t->stepsCopy->size() + p.stepsBase;
        } else {
            t->eventsOffset = position.offset;
            t->stderrOffset = QFileInfo(QDir(runDir).filePath("stderr-" + stem + ".log")).size();
        }
        t->records = std::make_shared<StepRecordFeed>(stepsPath(*t), position.stepsOffset);
        m_store->setTaskPlace(p.task, p.node, p.host);
        if (position.end) {
            t->end = *position.end;
            t->ended = true;
            ++m_endsRecorded;
        }
        m_tasks.push_back(std::move(t));
    }
    if (std::any_of(m_tasks.begin(), m_tasks.end(), [](const auto& t) { return t->plan.remote; }))
        m_heartbeatTimer.start();
    for (auto& t : m_tasks)
        if (!t->ended) {
            t->reachable = !t->plan.remote;
            follow(*t);
        }
    Q_EMIT started();
    if (m_endsRecorded == int(m_tasks.size()))
        QMetaObject::invokeMethod(this, [this] { finish(); }, Qt::QueuedConnection);
    return true;
}

} // namespace strata::app
