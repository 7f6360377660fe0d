#include "app/launch/local_launcher.h"

#include "app/experiment/cluster_editing.h"
#include "app/metrics/lost_tasks.h"
#include "app/metrics/task_roles.h"

#include <QDateTime>
#include <QRandomGenerator>
#include <QDir>
#include <QSaveFile>
#include <QStandardPaths>

#include <algorithm>
#include <csignal>

namespace strata::app {

namespace {
// Keep this much of a task's stderr for its error report.
constexpr qsizetype kStderrTail = 4096;

// The strategy's type as written ("Mirrored", or {"type": "Mirrored", ...}); the document
// was validated before launch.
std::string strategyType(const Json& experiment)
{
    const auto it = experiment.find("strategy");
    if (it == experiment.end())
        return {};
    if (it->is_string())
        return it->get<std::string>();
    if (it->is_object() && it->contains("type") && (*it)["type"].is_string())
        return (*it)["type"].get<std::string>();
    return {};
}
} // namespace

LocalLauncher::LocalLauncher(MetricsStore* store, QObject* parent) : QObject(parent), m_store(store)
{
    m_ingestThread.setObjectName("strata-ingest");
    m_ingest.moveToThread(&m_ingestThread);
    m_ingestThread.start();
    m_killTimer.setSingleShot(true);
    connect(&m_killTimer, &QTimer::timeout, this, [this] {
        for (auto& t : m_tasks)
            if (t->terminated && !t->ended && t->process)
                t->process->kill();
    });
    m_evaluatorTimer.setSingleShot(true);
    connect(&m_evaluatorTimer, &QTimer::timeout, this, [this] {
        for (auto& t : m_tasks)
            if (!t->trains && !t->ended)
                terminate(*t, m_graceMs);
    });
    // A survivor's error naming a lost task arrives as its state change.
    connect(m_store, &MetricsStore::taskStateChanged, this, &LocalLauncher::endLostTasks);
}

LocalLauncher::~LocalLauncher()
{
    // Nothing is left running behind the window.
    for (auto& t : m_tasks)
        if (t->process && t->process->state() != QProcess::NotRunning) {
            t->process->disconnect(this);
            t->process->kill();
            t->process->waitForFinished(3000);
        }
    m_ingestThread.quit();
    m_ingestThread.wait();
}

QString LocalLauncher::defaultRunDir(const QString& experimentName)
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

bool LocalLauncher::start(const Json& experiment, const QString& enginePath, const QString& runDir, QString* error)
{
    if (isRunning()) {
        *error = tr("A run is already in progress.");
        return false;
    }
    const QFileInfo engine(enginePath);
    if (!engine.exists() || !engine.isFile() || !engine.isExecutable()) {
        *error = !engine.exists() ? tr("The Strata engine was not found at %1.").arg(enginePath)
                                  : tr("The Strata engine %1 is not executable.").arg(enginePath);
        return false;
    }
    if (!QDir().mkpath(runDir)) {
        *error = tr("Cannot create the run directory %1.").arg(runDir);
        return false;
    }
    const QString file = QDir(runDir).filePath("launch.strata.json");
    QSaveFile out(file);
    const std::string text = experiment.dump(2) + "\n";
    if (!out.open(QIODevice::WriteOnly) || out.write(text.data(), qint64(text.size())) < 0 || !out.commit()) {
        *error = tr("Cannot write %1: %2").arg(file, out.errorString());
        return false;
    }
    m_runDir = runDir;
    m_tasks.clear();
    m_endsRecorded = 0;
    m_killTimer.stop();
    m_evaluatorTimer.stop();
    // A new run: the store forgets the last one only now that this one starts.
    m_store->clear();
    // The training tasks of the cluster (chief, workers): one for the single-process
    // strategies, whose validation refuses more; the job's under MultiWorkerMirrored, with
    // its evaluator. Under the others an evaluator is noted by validation, not started (the
    // training task evaluates).
    const bool multiWorker = strategyType(experiment) == "MultiWorkerMirrored";
    for (const std::string& name : spec::taskNames(readableCluster(experiment))) {
        const QString task = QString::fromStdString(name);
        if (isTrainingTask(task) || (multiWorker && isEvaluatorTask(task))) {
            auto t = std::make_unique<Task>();
            t->name = task;
            t->trains = isTrainingTask(task);
            m_tasks.push_back(std::move(t));
        }
    }
    // The job's secret for the tasks' rendezvous: handed to each on stdin only, never in argv,
    // the environment or a file others could read.
    QByteArray token(32, Qt::Uninitialized);
    QRandomGenerator::system()->fillRange(reinterpret_cast<quint32*>(token.data()), token.size() / 4);
    m_token = token.toHex();
    for (auto& t : m_tasks)
        startTask(*t, engine.absoluteFilePath(), file);
    return true;
}

void LocalLauncher::startTask(Task& task, const QString& enginePath, const QString& experimentFile)
{
    task.process = std::make_unique<QProcess>();
    QProcess* p = task.process.get();
    connect(p, &QProcess::readyReadStandardOutput, this, [this, &task] { readOutput(task); });
    connect(p, &QProcess::readyReadStandardError, this, [&task] {
        task.stderrTail += task.process->readAllStandardError();
        if (task.stderrTail.size() > kStderrTail)
            task.stderrTail = task.stderrTail.right(kStderrTail);
    });
    connect(p, &QProcess::finished, this, [this, &task](int, QProcess::ExitStatus) { taskEnded(task); });
    connect(p, &QProcess::errorOccurred, this, [this, &task](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) {
            task.end.failedToStart =
                tr("%1 could not start %2: %3").arg(task.name, task.process->program(), task.process->errorString());
            recordEnd(task);
        }
    });
    p->start(enginePath, {"train", experimentFile, "--run-dir", m_runDir, "--task", task.name, "--events", "stdout"});
    p->write(m_token + '\n'); // kept by QProcess until the process has started
    p->closeWriteChannel();
}

void LocalLauncher::readOutput(Task& task)
{
    task.pending += task.process->readAllStandardOutput();
    const qsizetype end = task.pending.lastIndexOf('\n');
    if (end < 0)
        return;
    toStore([store = m_store, name = task.name, lines = task.pending.left(end + 1)] { store->ingestLines(name, lines); });
    task.pending.remove(0, end + 1);
}

void LocalLauncher::taskEnded(Task& task)
{
    if (task.ended)
        return;
    readOutput(task);
    if (!task.pending.isEmpty()) // a last line without its newline: still data
        toStore([store = m_store, name = task.name, line = task.pending + '\n'] { store->ingestLines(name, line); });
    task.pending.clear();
    task.stderrTail += task.process->readAllStandardError();
    // QProcess reports the signal as the exit code of a crash (Unix).
    task.end.exitCode = task.process->exitCode();
    task.end.crashed = task.process->exitStatus() == QProcess::CrashExit;
    task.end.stderrTail = QString::fromUtf8(task.stderrTail.right(kStderrTail)).trimmed();
    recordEnd(task);
}

void LocalLauncher::recordEnd(Task& task)
{
    task.ended = true;
    task.end.task = task.name;
    task.end.time = double(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
    toStore([store = m_store, end = task.end] { applyTaskEnd(*store, end); }, true);
    windDownEvaluator();
}

void LocalLauncher::windDownEvaluator()
{
    bool allEnded = true, allWell = true;
    for (const auto& t : m_tasks)
        if (t->trains) {
            allEnded = allEnded && t->ended;
            allWell = allWell && t->end.failedToStart.isEmpty() && !t->end.crashed && t->end.exitCode == 0;
        }
    const bool evaluating = std::any_of(m_tasks.begin(), m_tasks.end(),
                                        [](const auto& t) { return !t->trains && !t->ended && !t->terminated; });
    if (!allEnded || !evaluating || m_evaluatorTimer.isActive())
        return;
    // Training ended well: the evaluator ends by itself once it has evaluated the final
    // weights, given time; otherwise there is nothing more for it to evaluate.
    m_evaluatorTimer.start(allWell ? m_evaluatorGraceMs : 0);
}

void LocalLauncher::terminate(Task& task, int graceMs)
{
    if (task.ended || !task.process)
        return;
    if (!task.terminated) {
        task.terminated = true;
        task.process->terminate();
    }
    if (!m_killTimer.isActive())
        m_killTimer.start(graceMs);
}

void LocalLauncher::endLostTasks()
{
    if (!isRunning())
        return;
    for (const LostTask& lost : lostTasks(*m_store))
        if (lost.namedByPeer)
            for (auto& t : m_tasks)
                // Not logged here: its end is (the run rebuilt from its directory shows the
                // same), and the task table says it is lost and why.
                if (t->name == lost.task && !t->ended && !t->terminated)
                    terminate(*t, m_graceMs);
}

void LocalLauncher::toStore(std::function<void()> record, bool ends)
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

void LocalLauncher::finish()
{
    m_killTimer.stop();
    m_evaluatorTimer.stop();
    std::vector<TaskEnd> ends;
    for (const auto& t : m_tasks)
        ends.push_back(t->end);
    QString error;
    if (!writeTaskEnds(m_runDir, ends, &error))
        m_store->appendLog(QStringLiteral("strata"), QStringLiteral("warning"),
                           error + tr(" (how the tasks ended will be missing when the run is opened again)"));
    Q_EMIT finished();
}

void LocalLauncher::stop(int graceMs)
{
    m_evaluatorTimer.stop();
    for (auto& t : m_tasks)
        if (!t->ended && t->process && !t->terminated) {
            t->terminated = true;
            t->process->terminate(); // SIGTERM: the engine checkpoints and reports done
        }
    if (isRunning())
        m_killTimer.start(graceMs);
}

void LocalLauncher::killTask(const QString& name)
{
    for (auto& t : m_tasks)
        if (t->name == name && !t->ended && t->process)
            ::kill(static_cast<pid_t>(t->process->processId()), SIGKILL);
}

bool LocalLauncher::isRunning() const
{
    // Until `finished`: the store may still be taking what the last task sent.
    return m_endsRecorded < int(m_tasks.size());
}

QStringList LocalLauncher::tasks() const
{
    QStringList names;
    for (const auto& t : m_tasks)
        names << t->name;
    return names;
}

} // namespace strata::app
