#pragma once
// A job of real strata-engine task processes started as the launcher starts them (the token
// on stdin), with their events as they arrive: for the multi-process strategies' tests.

#include "engine_process.h"

#include "strata/rundir/checkpoint.h"

#include <QProcess>
#include <QProcessEnvironment>

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>

// QVERIFY2 for a check on a running job: when it fails, every task's report (Job::report) goes
// to stderr, since a Qt Test message holds only 1,000 characters; `what` (a QString, may be
// empty) says what was measured.
#define QVERIFY_JOB(statement, job, what)                                                                   \
    do {                                                                                                   \
        const bool held = static_cast<bool>(statement);                                                    \
        if (!held)                                                                                         \
            std::fprintf(stderr, "%s\n", qPrintable("What each task was doing:\n" + (job).report()));      \
        QVERIFY2(held, qPrintable(QString(#statement) + " " + (what) + " (each task's report above)"));  \
    } while (false)

namespace testing {

// The deadline of a wait on a job's events: long enough that only a job that is stuck (or
// far slower than any loaded machine) reaches it; the wait ends on the event, not on it.
constexpr double kStuck = 600;

// Every weight of a checkpoint file, in its order.
inline std::vector<float> weightsIn(const QString& file)
{
    const auto c = strata::run::readCheckpoint(file.toStdString());
    std::vector<float> all;
    for (const auto& [name, t] : c.tensors)
        all.insert(all.end(), t.data(), t.data() + t.numel());
    return all;
}

// One task's process, with its events as they arrive.
struct Task {
    QString name;
    std::unique_ptr<QProcess> process = std::make_unique<QProcess>();
    QByteArray out;
    QByteArray stderrText; // everything it wrote on stderr so far
    std::vector<Json> events;

    void read()
    {
        stderrText += process->readAllStandardError();
        out += process->readAllStandardOutput();
        while (true) {
            const qsizetype end = out.indexOf('\n');
            if (end < 0)
                break;
            const QByteArray line = out.left(end);
            out.remove(0, end + 1);
            if (line.startsWith('{'))
                events.push_back(Json::parse(line.toStdString()));
        }
    }
    const Json* last(const std::string& type) const
    {
        for (auto it = events.rbegin(); it != events.rend(); ++it)
            if ((*it)["type"] == type)
                return &*it;
        return nullptr;
    }
    int64_t lastStep() const
    {
        const Json* s = last("step");
        return s ? (*s)["step"].get<int64_t>() : 0;
    }
    int count(const std::string& type) const
    {
        return static_cast<int>(std::count_if(events.begin(), events.end(), [&](const Json& e) { return e["type"] == type; }));
    }
    bool running() const { return process->state() != QProcess::NotRunning; }
    QString err()
    {
        read();
        return QString::fromUtf8(stderrText);
    }
    // What it was doing: running or how it ended, its last events and the end of its stderr.
    QString report(int lastEvents = 4)
    {
        read();
        QString text = name + ": " + (running() ? QString("running") : QString("exited %1").arg(process->exitCode()));
        text += QString(", %1 events, last step %2").arg(events.size()).arg(lastStep());
        const size_t from = events.size() > size_t(lastEvents) ? events.size() - size_t(lastEvents) : 0;
        for (size_t i = from; i < events.size(); ++i)
            text += "\n    " + QString::fromStdString(events[i].dump()).left(300);
        if (!stderrText.isEmpty())
            text += "\n    stderr: " + QString::fromUtf8(stderrText.right(600)).trimmed();
        return text;
    }
};

class Job {
public:
    // Starts every task of `names` on `file`, each given `token` on stdin.
    Job(const QString& file, const QStringList& names, const QString& runDir, const QByteArray& token = "job-token",
        const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment(), bool passTask = true)
        : m_file(file), m_runDir(runDir), m_token(token), m_env(env), m_passTask(passTask)
    {
        for (const QString& name : names)
            start(name);
    }
    // Starts task `name` (again, after it was killed: a relaunch); returns its index.
    int start(const QString& name)
    {
        auto t = std::make_unique<Task>();
        t->name = name;
        t->process->setProcessEnvironment(m_env);
        QStringList args{"train", m_file, "--run-dir", m_runDir, "--events", "stdout", "--quiet",
                         "--event-interval-ms", "1"};
        if (m_passTask)
            args << "--task" << name;
        t->process->start(STRATA_ENGINE_PATH, args);
        t->process->waitForStarted();
        t->process->write(m_token + "\n");
        t->process->waitForBytesWritten(5000); // now: the task waits for it before joining
        t->process->closeWriteChannel();
        m_tasks.push_back(std::move(t));
        return size() - 1;
    }
    void kill(int i)
    {
        ::kill(static_cast<pid_t>(task(i).process->processId()), SIGKILL);
        task(i).process->waitForFinished(5000);
    }
    ~Job()
    {
        for (auto& t : m_tasks)
            if (t->running()) {
                ::kill(static_cast<pid_t>(t->process->processId()), SIGKILL);
                t->process->waitForFinished(5000);
            }
    }

    Task& task(int i) { return *m_tasks[size_t(i)]; }
    int size() const { return static_cast<int>(m_tasks.size()); }

    // Every task's report (Task::report): for the message of a wait that failed.
    QString report()
    {
        QString text;
        for (auto& t : m_tasks)
            text += t->report() + "\n";
        return text;
    }

    // Pumps output until `until()` holds or `seconds` pass; returns whether it held. The
    // seconds are a deadline for a job that is stuck, not a measure of a slow machine's speed.
    bool waitFor(const std::function<bool()>& until, double seconds)
    {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
        while (std::chrono::steady_clock::now() < deadline) {
            for (auto& t : m_tasks) {
                t->process->waitForReadyRead(5);
                t->read();
            }
            if (until())
                return true;
        }
        return false;
    }
    bool allExited(double seconds)
    {
        return waitFor([this] {
            return std::none_of(m_tasks.begin(), m_tasks.end(), [](const auto& t) { return t->running(); });
        }, seconds);
    }
    // Waits (kStuck at most) for every task to exit; "" when they all had within `seconds`,
    // else how long they took (and what each was doing, on stderr). For a bound the product promises (a
    // lost task named within its timeout): measured, not cut off, so a failure says by how much.
    QString exitedWithin(double seconds)
    {
        const auto from = std::chrono::steady_clock::now();
        const bool ended = allExited(kStuck);
        const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - from).count();
        if (ended && took <= seconds)
            return {};
        std::fprintf(stderr, "%s\n", qPrintable("What each task was doing:\n" + report()));
        return ended ? QString("every task exited after %1 s, not within %2 s (each task's report above)").arg(took, 0, 'f', 1).arg(seconds)
                     : QString("tasks still run after %1 s (each task's report above)").arg(took, 0, 'f', 0);
    }

private:
    QString m_file, m_runDir;
    QByteArray m_token;
    QProcessEnvironment m_env;
    bool m_passTask;
    std::vector<std::unique_ptr<Task>> m_tasks;
};

} // namespace testing
