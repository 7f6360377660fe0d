#include "app/launch/job_launcher.h"

#include "app/experiment/catalogs.h"
#include "app/launch/backends/backend_set.h"
#include "app/launch/backends/slurm/slurm_backend.h"
#include "app/launch/backends/ssh/ssh_backend.h"
#include "app/launch/job/ingest_queue.h"
#include "app/launch/job/launch_task.h"
#include "app/launch/job/retire.h"
#include "app/launch/job/run_files.h"
#include "app/launch/job_ending.h"
#include "app/rundir/json_file.h"
#include "app/metrics/lost_tasks.h"
#include "app/rundir/run_replay.h"
#include "app/rundir/task_places.h"
#include "app/metrics/task_roles.h"
#include "app/metrics/display_text.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QUuid>

#include <algorithm>
#include <utility>

namespace strata::app {

namespace {

// Keep this much of a task's stderr for its error report.
constexpr qsizetype kStderrTail = 4096;

} // namespace

// What the backends ask of the launcher.
class JobLauncher::Host final : public LaunchHost {
public:
    explicit Host(JobLauncher& launcher) : m_launcher(launcher) {}
    MetricsStore& store() override { return *m_launcher.m_store; }
    const QString& runDir() const override { return m_launcher.m_runDir; }
    const Json& experiment() const override { return m_launcher.m_experiment; }
    const QString& localEngine() const override { return m_launcher.m_localEngine; }
    bool isFollowing() const override { return m_launcher.m_phase == Phase::Running; }
    void follow(LaunchTask& task) override { m_launcher.follow(task); }
    void placesChanged() override { m_launcher.writeLaunchRecord(); }
    void endTask(LaunchTask& task, const QString& why, bool ran) override { m_launcher.endTask(task, why, ran); }
    void endTask(LaunchTask& task, const TaskEnd& end) override { m_launcher.endTask(task, end); }
    void batchJobChanged(const QString& account) override { Q_EMIT m_launcher.batchJobChanged(account); }

private:
    JobLauncher& m_launcher;
};

JobLauncher::JobLauncher(MetricsStore* store, QObject* parent)
    : QObject(parent), m_store(store), m_host(std::make_unique<Host>(*this)),
      m_backends(std::make_unique<BackendSet>(*m_host)),
      m_ending(std::make_unique<JobEnding>(m_tasks, [this](LaunchTask& task) { recordEnd(task); })),
      m_ingest(std::make_unique<IngestQueue>())
{
    m_ending->policy().evaluatorGraceMs = kEvaluatorGraceMs;
    m_ending->setGrace(kStopGraceMs);
    setKeepalive(kKeepaliveMs);
    setReconnectInterval(kReconnectMs);
    for (LaunchBackend* b : m_backends->all())
        connect(b, &LaunchBackend::checked, this, &JobLauncher::nodesChecked);
    // A survivor's error naming a lost task arrives as its state change.
    connect(m_store, &MetricsStore::taskStateChanged, this, &JobLauncher::endLostTasks);
}

JobLauncher::~JobLauncher()
{
    // The job goes on without the app: only the followers go (with their channels).
    for (auto& t : m_tasks)
        t->front.reset();
    m_backends.reset();
    m_ingest.reset();
}

void JobLauncher::setRemoteAccess(const RemoteAccess& access)
{
    m_backends->ssh().setAccess(access);
    m_backends->slurm().setAccess(access);
}

void JobLauncher::setEvaluatorGrace(int ms) { m_ending->policy().evaluatorGraceMs = ms; }

void JobLauncher::setGrace(int ms) { m_ending->setGrace(ms); }

void JobLauncher::setKeepalive(int ms)
{
    m_backends->ssh().setKeepalive(ms);
    m_backends->slurm().setKeepalive(ms);
}

void JobLauncher::setReconnectInterval(int ms)
{
    m_backends->ssh().setReconnectInterval(ms);
    m_backends->slurm().setReconnectInterval(ms);
}

QString JobLauncher::defaultRunDir(const QString& experimentName) { return newRunDir(experimentName); }

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
    QStringList out;
    for (const auto& t : m_tasks)
        out << t->backend->hostText(t->plan);
    return out;
}

const QList<NodeReport>& JobLauncher::nodeReports() const { return m_backends->nodeReports(); }

void JobLauncher::setTasks(std::vector<PlannedTask> plans)
{
    m_tasks.clear();
    for (LaunchBackend* b : m_backends->all())
        b->forget();
    m_endsRecorded = 0;
    for (PlannedTask& p : plans) {
        auto t = std::make_unique<LaunchTask>();
        t->plan = std::move(p);
        t->backend = &m_backends->runnerOf(t->plan);
        t->backend->take(*t);
        m_tasks.push_back(std::move(t));
    }
}

bool JobLauncher::resolvePorts(QString* error)
{
    if (!isMultiProcess(strategyType(m_experiment)))
        return true;
    const FreePorts freePorts = [this](const QString& host, int count, const QList<int>& taken) {
        if (std::optional<QList<int>> checked = m_backends->checkedFreePorts(host, count))
            return *checked;
        return freeLocalPorts(host, count, taken);
    };
    return resolveAutomaticPorts(m_experiment, freePorts, error);
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
    for (const PlannedTask& t : plan.tasks)
        if (!m_backends->runnerOf(t).canStart(t, enginePath, error))
            return false;
    m_runDir = runDir;
    m_resume = resume;
    m_localEngine = engine.absoluteFilePath();
    m_experiment = experiment;
    m_ending->reset();
    setTasks(std::move(plan.tasks));
    // The job's secret for the tasks' rendezvous: on each task's stdin only.
    QByteArray token(32, Qt::Uninitialized);
    QRandomGenerator::system()->fillRange(reinterpret_cast<quint32*>(token.data()), token.size() / 4);
    m_token = token.toHex();
    // Names this launch in the tasks' records, apart from earlier sessions in the directory.
    m_launchId = QUuid::createUuid().toString(QUuid::WithoutBraces);

    m_checkProblems.clear();
    const auto& backends = m_backends->all();
    m_checksPending = int(std::count_if(backends.begin(), backends.end(), [](auto* b) { return b->checksNodes(); }));
    if (m_checksPending > 0) {
        // Nothing is created or started before every node checked passed its check.
        m_phase = Phase::Checking;
        for (LaunchBackend* b : backends)
            if (b->checksNodes())
                b->check(m_experiment, m_localEngine);
        return true;
    }
    if (!(m_lock = lockRunDir(runDir, error)))
        return false;
    if (!resolvePorts(error)) {
        m_lock.reset();
        return false;
    }
    launchTasks();
    return true;
}

void JobLauncher::nodesChecked(const QStringList& problems)
{
    if (m_phase != Phase::Checking) // called off meanwhile
        return;
    m_checkProblems << problems;
    if (--m_checksPending > 0)
        return;
    QStringList found = std::exchange(m_checkProblems, {});
    QString error;
    if (found.isEmpty() && !(m_lock = lockRunDir(m_runDir, &error)))
        found << error;
    if (found.isEmpty() && !resolvePorts(&error))
        found << error;
    if (!found.isEmpty()) {
        m_phase = Phase::Idle;
        clearTasks();
        m_lock.reset();
        for (LaunchBackend* b : m_backends->all())
            b->cancelCheck();
        Q_EMIT launchFailed(found.join(QLatin1Char('\n')));
        return;
    }
    for (LaunchBackend* b : m_backends->all())
        b->begin();
    launchTasks();
    for (LaunchBackend* b : m_backends->all())
        b->launched();
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
        const QString steps = stepsPath(m_runDir, t->plan.name);
        t->records = std::make_shared<StepRecordFeed>(steps, QFileInfo(steps).size());
        if (t->backend->submitsJob())
            continue;
        startFront(*t,
                   QStringList{"start", "--run-dir", t->plan.runDir, "--task", t->plan.name, "--launch", m_launchId} +
                       resumeFlags(m_resume) + t->backend->startFlags(),
                   startData);
    }
    for (LaunchBackend* b : m_backends->all())
        if (b->hasTasks() && b->submitsJob())
            b->submit(m_token, m_launchId, resumeFlags(m_resume));
    for (LaunchBackend* b : m_backends->all())
        b->watch();
    Q_EMIT started();
}

void JobLauncher::startFront(LaunchTask& task, const QStringList& args, const QByteArray& stdinData)
{
    task.front = task.backend->createFront(task);
    task.stream.reset(task.backend->relaysSteps());
    TaskProcess* front = task.front.get();
    connect(front, &TaskProcess::output, this, [this, &task](const QByteArray& d) { output(task, d); });
    connect(front, &TaskProcess::errorOutput, this, [this, &task](const QByteArray& d) { errorOutput(task, d); });
    connect(front, &TaskProcess::ended, this, [this, &task, front](const TaskProcessExit& e) {
        if (task.front.get() == front)
            frontEnded(task, e);
    });
    front->start(args, stdinData);
}

void JobLauncher::output(LaunchTask& task, const QByteArray& data)
{
    // Heartbeats and the follower's first line are the follower's own, not events of the
    // task: neither goes into the store (task_stream.h).
    const StreamPiece piece = task.stream.take(data);
    if (piece.follow) {
        task.eventsOffset = piece.follow->offset;
        task.stderrOffset = piece.follow->stderrOffset;
    }
    task.backend->received(task, piece);
    if (piece.follow && !task.reachable) {
        task.reachable = true;
        m_store->setTaskReachable(task.plan.name, true,
                                  tr("%1 on %2 can be heard again: following it from where it was left")
                                      .arg(task.plan.name, placeText(task.plan.node, task.plan.host)));
    }
    if (piece.eventLines.isEmpty() && !piece.recordsArrived())
        return;
    if (piece.exit)
        task.exit = piece.exit;
    if (task.eventsOffset >= 0)
        task.eventsOffset += piece.eventLines.size();
    toStore([store = m_store, name = task.plan.name, lines = piece.eventLines, records = task.records] {
        std::vector<ParsedEvent> events;
        EventParser::forThisThread().parseLines(lines.constData(), size_t(lines.size()), events);
        std::vector<ParsedEvent> stepRecords = records ? records->readFor(*store, name, events) : std::vector<ParsedEvent>();
        store->ingest(name, std::move(events), std::move(stepRecords));
    });
}

void JobLauncher::errorOutput(LaunchTask& task, const QByteArray& data)
{
    task.backend->errorReceived(task, data);
    if (task.stderrOffset >= 0)
        task.stderrOffset += data.size();
    task.stderrTail += data;
    if (task.stderrTail.size() > kStderrTail)
        task.stderrTail = task.stderrTail.right(kStderrTail);
}

void JobLauncher::frontEnded(LaunchTask& task, const TaskProcessExit& exit)
{
    retire(task.front);
    task.backend->frontEnded(task);
    if (task.ended)
        return;
    const QString tail = QString::fromUtf8(task.stderrTail.right(kStderrTail)).trimmed();
    if (task.exit && task.backend->continuesAfterExit(task)) {
        // Its job was requeued: the next session is followed once it runs.
        task.exit.reset();
        task.stream.reset(task.backend->relaysSteps());
        follow(task);
        return;
    }
    if (task.exit) {
        task.end = *task.exit;
        task.end.stderrTail = tail;
        task.stream.reset();
        recordEnd(task);
        return;
    }
    // A follower that ended (or was cut off by the app) leaves a task that may well go on: it
    // is followed again from the last byte that arrived.
    // (Status 3: the node has no such task; the follower's message says so.)
    const bool followed = task.eventsOffset >= 0 && !(!exit.crashed && exit.code == 3);
    if (task.backend->frontLost(task, exit, followed))
        return;
    if (followed) {
        QTimer::singleShot(500, this, [this, &task] {
            if (!task.ended && !task.front && m_phase == Phase::Running)
                follow(task);
        });
        return;
    }
    // The front process was the task (an engine that never detached or could not start):
    // its end is the task's.
    if (const QByteArray rest = task.stream.takeRest(); !rest.isEmpty()) // a last line without its newline: still data
        toStore([store = m_store, name = task.plan.name, line = rest + '\n'] { store->ingestLines(name, line); });
    task.end.exitCode = exit.code;
    task.end.crashed = exit.crashed;
    task.end.failedToStart = exit.failedToStart.isEmpty() ? QString()
                                                          : tr("%1 could not start: %2").arg(task.plan.name, exit.failedToStart);
    task.end.stderrTail = tail;
    recordEnd(task);
}

void JobLauncher::recordEnd(LaunchTask& task)
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
    m_ending->windDown();
}

void JobLauncher::endLostTasks()
{
    if (m_phase == Phase::Running && isRunning())
        m_ending->endLost(lostTasks(*m_store));
}

void JobLauncher::toStore(std::function<void()> record, bool ends)
{
    if (!ends) {
        m_ingest->post(std::move(record));
        return;
    }
    // Back on the launcher's thread: the store now has this task's end.
    m_ingest->post(std::move(record), this, [this] {
        if (++m_endsRecorded == int(m_tasks.size()))
            finish();
    });
}

void JobLauncher::finish()
{
    m_ending->reset();
    std::vector<TaskEnd> ends;
    for (auto& t : m_tasks)
        ends.push_back(t->end);
    for (LaunchBackend* b : m_backends->all())
        b->finish();
    QString error;
    if (!writeTaskEnds(m_runDir, ends, &error))
        m_store->appendLog(QStringLiteral("strata"), QStringLiteral("warning"),
                           error + tr(" (how the tasks ended will be missing when the run is opened again)"));
    m_phase = Phase::Idle;
    m_lock.reset();
    Q_EMIT finished();
}

void JobLauncher::stop(int graceMs)
{
    if (m_phase == Phase::Checking) {
        // Nothing started yet: the launch is called off.
        m_phase = Phase::Idle;
        m_checksPending = 0;
        m_checkProblems.clear();
        clearTasks();
        for (LaunchBackend* b : m_backends->all())
            b->cancelCheck();
        Q_EMIT launchFailed(tr("The launch was cancelled while the nodes were being checked."));
        return;
    }
    for (LaunchBackend* b : m_backends->all())
        if (b->hasTasks())
            b->stopping();
    m_ending->stopAll(graceMs, isRunning());
}

void JobLauncher::endTask(LaunchTask& task, const QString& why, bool ran)
{
    if (task.ended)
        return;
    task.front.reset();
    (ran ? task.end.vanished : task.end.failedToStart) = why;
    recordEnd(task);
}

void JobLauncher::endTask(LaunchTask& task, const TaskEnd& end)
{
    if (task.ended)
        return;
    task.front.reset();
    task.end = end;
    task.stream.reset();
    recordEnd(task);
}

void JobLauncher::killTask(const QString& name)
{
    for (auto& t : m_tasks)
        if (t->plan.name == name)
            m_ending->kill(*t);
}

void JobLauncher::writeLaunchRecord()
{
    std::vector<TaskPlace> places;
    for (const auto& t : m_tasks) {
        TaskPlace place{t->plan.name, t->plan.node, t->plan.host, t->plan.remote, t->plan.engine, t->plan.runDir};
        place.slurm = t->plan.slurm;
        t->backend->describe(*t, place);
        places.push_back(std::move(place));
    }
    QString error;
    if (!writeTaskPlaces(m_runDir, places, &error))
        m_store->appendLog(QStringLiteral("strata"), QStringLiteral("warning"),
                           error + tr(" (the run cannot be followed again after Strata closes)"));
}

void JobLauncher::follow(LaunchTask& task)
{
    if (!task.backend->readyToFollow(task))
        return;
    const FollowFrom from = task.backend->followFrom(task);
    QByteArray commands;
    if (task.commandsPending) {
        task.commandsPending = false;
        commands = task.killed ? "kill\n" : (task.terminated ? "stop\n" : "");
    }
    QStringList args{"attach", "--run-dir", task.plan.runDir, "--task", task.plan.name, "--offset", QString::number(from.events),
                     "--stderr-offset", QString::number(from.errors)};
    if (from.steps >= 0)
        args << "--steps-offset" << QString::number(from.steps);
    startFront(task, args, commands);
}

} // namespace strata::app
