// Detached, supervised tasks through real strata-engine processes: `start` relays a task's
// whole stream and its `exit` line; the task outlives its front process and keeps none of its
// descriptors; `attach` reproduces the events file from any offset; `stop`, `kill`, stdin EOF,
// heartbeats, vanished processes (one exit line for two followers), resumed run directories,
// cluster.stop_unattended_seconds, an evaluator whose chief died, a bad experiment, a
// MultiWorkerMirrored job started task by task; `probe --check`.

#include "dist_test_helpers.h"
#include "engine_process.h"
#include "../event_deadline.h"

#include <QtTest>
#include <QTcpServer>

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <optional>
#include <set>
#include <thread>

using namespace testing;

namespace {

// A wait for an event (a step, an exit, a file): ends on it; the deadline is for a hang.
constexpr double kEventSeconds = testing::kEventDeadlineMs / 1000.0;

using Clock = std::chrono::steady_clock;

// smallExperiment() for `epochs` epochs, checkpointing only when it stops or ends (a few
// thousand epochs last seconds).
Json lasting(int epochs)
{
    Json doc = smallExperiment();
    doc["training"]["epochs"] = epochs;
    doc["training"]["checkpoint"] = {{"every_steps", 0}, {"every_epochs", 0}};
    return doc;
}

// What `start` reads on stdin: the token line, the byte count, the experiment.
QByteArray launchInput(const QByteArray& experiment, const QByteArray& token = "")
{
    return token + "\n" + QByteArray::number(experiment.size()) + "\n" + experiment;
}

QByteArray bytesOf(const Json& doc) { return QByteArray::fromStdString(doc.dump(2)); }

QStringList startArgs(const QString& runDir, const QString& task, const QStringList& extra = {})
{
    return QStringList{"start", "--run-dir", runDir, "--task", task} + extra;
}

QStringList attachArgs(const QString& runDir, const QString& task, const QStringList& extra = {})
{
    return QStringList{"attach", "--run-dir", runDir, "--task", task} + extra;
}

QString fileName(const QString& task) { return QString(task).replace(':', '-'); }

// One `start` or `attach` process: its stdout lines as they come, heartbeats (empty lines)
// counted apart from the relayed bytes.
class Follower {
public:
    // `extraCopies`: the engine also gets copies of its stdin, stdout and stderr as
    // descriptors 3, 4 and 5, as a wrapper script or an SSH server may hand them down.
    explicit Follower(const QStringList& args, bool extraCopies = false)
    {
        if (extraCopies)
            m_process.start("/bin/sh", QStringList{"-c", R"(exec "$0" "$@" 3<&0 4>&1 5>&2)", STRATA_ENGINE_PATH} + args);
        else
            m_process.start(STRATA_ENGINE_PATH, args);
        m_process.waitForStarted();
    }
    ~Follower()
    {
        if (running()) {
            m_process.kill();
            m_process.waitForFinished(5000);
        }
    }

    void send(const QByteArray& bytes)
    {
        m_process.write(bytes);
        m_process.waitForBytesWritten(5000);
    }
    void closeInput() { m_process.closeWriteChannel(); }
    bool running() const { return m_process.state() != QProcess::NotRunning; }
    qint64 pid() const { return m_process.processId(); }

    // Reads output until `until()` holds or `seconds` pass.
    bool waitFor(const std::function<bool()>& until, double seconds)
    {
        const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
        while (true) {
            read();
            if (until())
                return true;
            if (Clock::now() >= deadline)
                return false;
            m_process.waitForReadyRead(10);
        }
    }
    bool exited(double seconds)
    {
        return waitFor([&] { return !running(); }, seconds) && (read(), true);
    }
    int exitCode() const { return m_process.exitStatus() == QProcess::NormalExit ? m_process.exitCode() : -1; }

    const Json* last(const std::string& type) const
    {
        for (auto it = events.rbegin(); it != events.rend(); ++it)
            if ((*it)["type"] == type)
                return &*it;
        return nullptr;
    }
    int count(const std::string& type) const
    {
        return int(std::count_if(events.begin(), events.end(), [&](const Json& e) { return e["type"] == type; }));
    }
    QString err() { return QString::fromUtf8(m_err += m_process.readAllStandardError()); }

    Json follow;                          // its first line: where it starts in the files
    QByteArray relayed;                   // stdout without heartbeats, that line and step records
    QByteArray records;                   // the step records of its `step_records` frames
    int64_t recordedThrough = 0;          // the step of the last record relayed
    int stepsBeforeTheirRecords = 0;      // `step` events relayed before the record of their step
    std::vector<Json> events;             // its JSON lines
    std::vector<Clock::time_point> lines; // when each line (heartbeats too) arrived
    int heartbeats = 0;

private:
    void read()
    {
        m_pending += m_process.readAllStandardOutput();
        qsizetype end;
        while (true) {
            if (m_recordsDue > 0) { // inside a frame of step records
                const qsizetype take = std::min(m_recordsDue, m_pending.size());
                records += m_pending.left(take);
                m_pending.remove(0, take);
                if ((m_recordsDue -= take) > 0)
                    break;
                const qsizetype last = records.lastIndexOf('\n', records.size() - 2) + 1;
                recordedThrough = Json::parse(records.mid(last).toStdString())["step"].get<int64_t>();
                continue;
            }
            if ((end = m_pending.indexOf('\n')) < 0)
                break;
            const QByteArray line = m_pending.left(end);
            m_pending.remove(0, end + 1);
            if (line.startsWith(R"({"type":"step_records")")) {
                m_recordsDue = Json::parse(line.toStdString())["bytes"].get<qsizetype>();
                continue;
            }
            lines.push_back(Clock::now());
            if (line.isEmpty()) {
                ++heartbeats;
                continue;
            }
            Json j = Json::parse(line.toStdString());
            if (j["type"] == "follow") { // the follower's own first line
                QVERIFY2(!follow.is_object() && relayed.isEmpty(), "a second follow line, or one after events");
                follow = std::move(j);
                continue;
            }
            if (j["type"] == "step" && j["step"].get<int64_t>() > recordedThrough)
                ++stepsBeforeTheirRecords;
            relayed += line + '\n';
            events.push_back(std::move(j));
        }
    }

    QProcess m_process;
    QByteArray m_pending;
    qsizetype m_recordsDue = 0;
    QByteArray m_err;
};

std::optional<Json> readJson(const QString& path)
{
    const std::string text = readText(path);
    const Json j = Json::parse(text, nullptr, false);
    return j.is_discarded() ? std::nullopt : std::optional(j);
}

// A file still being written may end inside a line: only whole lines count.
std::vector<Json> linesOf(const QByteArray& text) { return parseLines(text.left(text.lastIndexOf('\n') + 1)); }

bool alive(qint64 pid)
{
    const std::string stat = readText("/proc/" + QString::number(pid) + "/stat");
    const size_t close = stat.rfind(')');
    return close != std::string::npos && stat[close + 2] != 'Z';
}

std::string descriptorTarget(qint64 pid, int fd)
{
    char target[512];
    const ssize_t n = ::readlink(("/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd)).c_str(), target, sizeof target);
    return n > 0 ? std::string(target, size_t(n)) : std::string();
}

// Where a process's descriptors lead ("pipe:[123]", "/dev/null", ...).
std::set<std::string> descriptorTargets(qint64 pid)
{
    std::set<std::string> out;
    const std::string dir = "/proc/" + std::to_string(pid) + "/fd";
    DIR* d = ::opendir(dir.c_str());
    if (!d)
        return out;
    while (const dirent* e = ::readdir(d)) {
        char target[512];
        const ssize_t n = ::readlink((dir + "/" + e->d_name).c_str(), target, sizeof target);
        if (n > 0)
            out.insert(std::string(target, size_t(n)));
    }
    ::closedir(d);
    return out;
}

// Processes whose command line mentions `text`.
QList<qint64> processesMentioning(const QString& text)
{
    QList<qint64> pids;
    DIR* d = ::opendir("/proc");
    while (const dirent* e = ::readdir(d)) {
        const qint64 pid = QByteArray(e->d_name).toLongLong();
        if (pid <= 0 || pid == ::getpid())
            continue;
        std::string cmdline = readText("/proc/" + QString::number(pid) + "/cmdline");
        std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
        if (QString::fromStdString(cmdline).contains(text))
            pids << pid;
    }
    ::closedir(d);
    return pids;
}

bool eventually(const std::function<bool()>& until, double seconds)
{
    const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
    while (!until()) {
        if (Clock::now() >= deadline)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
}

} // namespace

class TestTaskSupervisor : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    int m_count = 0;

    QString newRunDir(const QString& name) { return m_dir.filePath(name + "-" + QString::number(++m_count)); }
    QString eventsFile(const QString& dir, const QString& task = "worker:0")
    {
        return dir + "/events-" + fileName(task) + ".jsonl";
    }
    QString recordFile(const QString& dir, const QString& task = "worker:0")
    {
        return dir + "/task-" + fileName(task) + ".json";
    }
    // The task record once the supervisor has written it.
    Json record(const QString& dir, const QString& task = "worker:0")
    {
        std::optional<Json> r;
        eventually([&] { return (r = readJson(recordFile(dir, task))).has_value(); }, 30);
        return r.value_or(Json::object());
    }
    // The events file's lines once its last one is an exit line.
    std::vector<Json> endedEvents(const QString& dir, const QString& task = "worker:0", double seconds = kEventSeconds)
    {
        std::vector<Json> lines;
        eventually([&] {
            lines = linesOf(QByteArray::fromStdString(readText(eventsFile(dir, task))));
            return !lines.empty() && lines.back()["type"] == "exit";
        }, seconds);
        return lines;
    }

private Q_SLOTS:
    void cleanup()
    {
        // A failed test leaves no task running: every supervisor and trainer recorded is killed.
        QDirIterator it(m_dir.path(), {"task-*.json"}, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext())
            if (const auto r = readJson(it.next()))
                for (const char* who : {"supervisor", "trainer"})
                    if (r->contains(who) && alive((*r)[who]["pid"].get<qint64>()))
                        ::kill(pid_t((*r)[who]["pid"].get<qint64>()), SIGKILL);
    }

    void startRelaysTheWholeStreamThenExit()
    {
        const QString dir = newRunDir("whole");
        // Sent verbatim (its own formatting, a trailing newline), written so to the run directory.
        const QByteArray experiment = bytesOf(smallExperiment()) + "\n";
        Follower start(startArgs(dir, "worker:0"));
        start.send(launchInput(experiment));
        QVERIFY(start.exited(60));
        QCOMPARE(start.exitCode(), 0);
        QVERIFY2(!start.events.empty(), qPrintable(start.err()));
        QCOMPARE(start.events.front()["type"], Json("hello"));
        const Json* done = start.last("done");
        QVERIFY(done);
        QCOMPARE((*done)["status"], Json("completed"));
        const Json& exit = start.events.back();
        QCOMPARE(exit["type"], Json("exit"));
        QCOMPARE(exit["task"], Json("worker:0"));
        QCOMPARE(exit["code"], Json(0));
        QVERIFY(!exit.contains("signal"));
        QCOMPARE(start.count("exit"), 1);
        // The follower's own first line: where it starts in the files (not in the events file).
        QCOMPARE(start.follow["task"], Json("worker:0"));
        QCOMPARE(start.follow["offset"], Json(0));
        QCOMPARE(start.follow["stderr_offset"], Json(0));
        // Byte for byte the events file, which ends with the same exit line.
        QCOMPARE(start.relayed, QByteArray::fromStdString(readText(eventsFile(dir))));
        QCOMPARE(QByteArray::fromStdString(readText(dir + "/launch.strata.json")), experiment);
        // The record names both processes and how the task ended.
        const Json r = record(dir);
        QCOMPARE(r["task"], Json("worker:0"));
        QCOMPARE(r["ended"].dump(), exit.dump());
        QVERIFY(r["trainer"]["pid"] != r["supervisor"]["pid"]);
        QCOMPARE(r["trainer"]["pid"], (*start.last("hello"))["pid"]);
        QVERIFY(r["trainer"]["start"].get<uint64_t>() > 0);
    }

    void stepRecordsAreRelayedBeforeTheirEvents()
    {
        // start --relay-steps: the task's steps file too, in frames, each before the events
        // after it (so a remote app draws every step); attach --steps-offset from a line on.
        const QString dir = newRunDir("records");
        const QString steps = dir + "/steps-worker-0.jsonl";
        Follower start(startArgs(dir, "worker:0", {"--relay-steps"}));
        start.send(launchInput(bytesOf(lasting(20))));
        QVERIFY(start.exited(60));
        QCOMPARE(start.exitCode(), 0);
        QCOMPARE(start.follow["steps_offset"], Json(0));
        const QByteArray file = QByteArray::fromStdString(readText(steps));
        QVERIFY(file.count('\n') > 100);
        QCOMPARE(start.records, file);
        QCOMPARE(start.relayed, QByteArray::fromStdString(readText(eventsFile(dir))));
        QVERIFY(start.last("step"));
        QCOMPARE(start.stepsBeforeTheirRecords, 0);

        qsizetype offset = 0;
        for (int i = 0; i < 7; ++i)
            offset = file.indexOf('\n', offset) + 1;
        Follower attach(attachArgs(dir, "worker:0", {"--steps-offset", QString::number(offset)}));
        QVERIFY(attach.exited(kEventSeconds));
        QCOMPARE(attach.exitCode(), 0);
        QCOMPARE(attach.follow["steps_offset"], Json(offset));
        QCOMPARE(attach.records, file.mid(offset));
        // Without the option, no records (an app that does not read them).
        Follower plain(attachArgs(dir, "worker:0"));
        QVERIFY(plain.exited(kEventSeconds));
        QVERIFY(plain.records.isEmpty());
        QVERIFY(!plain.follow.contains("steps_offset"));

        // A backlog of records longer than the follower reads at once (1 MiB) comes whole before
        // the exit line after it, as when a requeued Slurm job's session is followed once it ended.
        QByteArray backlog;
        while (backlog.size() < (3 << 20))
            backlog += file;
        std::ofstream(steps.toStdString(), std::ios::binary | std::ios::trunc).write(backlog.constData(), backlog.size());
        Follower late(attachArgs(dir, "worker:0", {"--steps-offset", "0"}));
        QVERIFY(late.exited(kEventSeconds));
        QCOMPARE(late.exitCode(), 0);
        QCOMPARE(late.records.size(), backlog.size());
        QVERIFY(late.records == backlog);
    }

    void theTaskOutlivesItsFrontProcessAndAttachReproducesTheFile()
    {
        const QString dir = newRunDir("detached");
        auto start = std::make_unique<Follower>(startArgs(dir, "worker:0"), true);
        start->send(launchInput(bytesOf(lasting(2000))));
        QVERIFY2(start->waitFor([&] { return start->last("step"); }, kEventSeconds), qPrintable(start->err()));
        const Json r = record(dir);
        const qint64 supervisor = r["supervisor"]["pid"].get<qint64>(), trainer = r["trainer"]["pid"].get<qint64>();
        QVERIFY(alive(supervisor) && alive(trainer));

        // The front process's stdin, stdout and stderr (pipes of this test), each held twice
        // by it: held by neither the supervisor nor the trainer.
        std::set<std::string> pipes;
        for (int fd = 0; fd <= 2; ++fd) {
            pipes.insert(descriptorTarget(start->pid(), fd));
            QCOMPARE(descriptorTarget(start->pid(), fd + 3), descriptorTarget(start->pid(), fd));
        }
        QCOMPARE(pipes.size(), size_t(3));
        for (const auto& p : pipes)
            QVERIFY2(p.starts_with("pipe:"), p.c_str());
        for (const qint64 pid : {supervisor, trainer})
            for (const auto& target : descriptorTargets(pid))
                QVERIFY2(!pipes.count(target), qPrintable(QString("pid %1 holds %2").arg(pid).arg(target.c_str())));

        ::kill(pid_t(start->pid()), SIGKILL);
        QVERIFY(start->exited(10));
        QVERIFY2(alive(trainer), "the trainer died with its front process");
        const std::vector<Json> lines = endedEvents(dir);
        QVERIFY(!lines.empty());
        QCOMPARE(lines.back()["code"], Json(0));
        QCOMPARE(lines[lines.size() - 2]["type"], Json("done"));
        QCOMPARE(lines[lines.size() - 2]["status"], Json("completed"));

        // attach --offset N: the file from N on (N a line's start), ending on the exit line.
        const QByteArray file = QByteArray::fromStdString(readText(eventsFile(dir)));
        qsizetype offset = 0;
        for (int i = 0; i < 5; ++i)
            offset = file.indexOf('\n', offset) + 1;
        Follower attach(attachArgs(dir, "worker:0", {"--offset", QString::number(offset)}));
        QVERIFY(attach.exited(kEventSeconds));
        QCOMPARE(attach.exitCode(), 0);
        QCOMPARE(attach.relayed, file.mid(offset));

        // A finished task, from its session's start (the default): all of it, at once.
        const auto began = Clock::now();
        Follower again(attachArgs(dir, "worker:0"));
        QVERIFY(again.exited(kEventSeconds));
        const double seconds = std::chrono::duration<double>(Clock::now() - began).count();
        qInfo("attach to a finished task ended in %.3f s", seconds);
        QVERIFY2(seconds < 2, qPrintable(QString::number(seconds)));
        QCOMPARE(again.exitCode(), 0);
        QCOMPARE(again.relayed, file);
    }

    void killAndStopOnStdin()
    {
        // `kill` sent right behind the experiment, before the supervisor has named the trainer.
        const QString killed = newRunDir("kill");
        Follower k(startArgs(killed, "worker:0"));
        k.send(launchInput(bytesOf(lasting(100000))) + "kill\n");
        QVERIFY(k.exited(60));
        QCOMPARE(k.exitCode(), 0);
        const Json& exit = k.events.back();
        QCOMPARE(exit["type"], Json("exit"));
        QCOMPARE(exit["signal"], Json(9));
        QCOMPARE(exit["signal_name"], Json("KILL"));
        QVERIFY(!exit.contains("code"));
        QVERIFY(!k.last("done"));

        const QString stopped = newRunDir("stop");
        Follower s(startArgs(stopped, "worker:0"));
        s.send(launchInput(bytesOf(lasting(100000))));
        QVERIFY(s.waitFor([&] { return s.last("step"); }, kEventSeconds));
        s.send("unknown command\nstop\n");
        QVERIFY(s.exited(60));
        QCOMPARE(s.exitCode(), 0);
        const Json* done = s.last("done");
        QVERIFY2(done, qPrintable(s.err()));
        QCOMPARE((*done)["status"], Json("stopped"));
        QCOMPARE(s.count("checkpoint"), 1);
        QCOMPARE((*s.last("checkpoint"))["step"], (*done)["steps"]);
        QCOMPARE(s.events.back()["code"], Json(0));

        // SIGTERM to the follower is `stop` (the app stops a local task so): the trainer
        // checkpoints and the follower relays its end.
        const QString terminated = newRunDir("sigterm");
        Follower t(startArgs(terminated, "worker:0"));
        t.send(launchInput(bytesOf(lasting(100000))));
        QVERIFY(t.waitFor([&] { return t.last("step"); }, kEventSeconds));
        ::kill(pid_t(t.pid()), SIGTERM);
        QVERIFY(t.exited(60));
        QCOMPARE(t.exitCode(), 0);
        QVERIFY2(t.last("done"), qPrintable(t.err()));
        QCOMPARE((*t.last("done"))["status"], Json("stopped"));
        QCOMPARE(t.events.back()["code"], Json(0));
    }

    void stdinEndDetachesAndTheTaskGoesOn()
    {
        const QString dir = newRunDir("eof");
        Follower start(startArgs(dir, "worker:0"));
        start.send(launchInput(bytesOf(lasting(1500))));
        QVERIFY(start.waitFor([&] { return start.last("step"); }, kEventSeconds));
        start.closeInput();
        QVERIFY(start.exited(10));
        QCOMPARE(start.exitCode(), 4);
        QVERIFY(!start.last("exit"));
        QVERIFY(!start.last("error"));
        QVERIFY2(alive(record(dir)["trainer"]["pid"].get<qint64>()), "the trainer stopped with its follower");
        const std::vector<Json> lines = endedEvents(dir);
        QVERIFY(!lines.empty());
        QCOMPARE(lines.back()["code"], Json(0));
        QCOMPARE(lines[lines.size() - 2]["status"], Json("completed"));
    }

    void heartbeatsWhileTheTaskIsSilent()
    {
        // An evaluator whose chief never comes says nothing after its first log event.
        Json doc = smallExperiment();
        doc["cluster"] = Json::parse(R"({"nodes": [{"name": "local", "host": "localhost"}],
                                        "tasks": [{"type": "chief", "node": "local"}, {"type": "evaluator", "node": "local"}]})");
        const QString dir = newRunDir("silent");
        Follower start(startArgs(dir, "evaluator:0", {"--heartbeat-ms", "100"}));
        start.send(launchInput(bytesOf(doc)));
        QVERIFY2(start.waitFor([&] { return start.last("log"); }, kEventSeconds), qPrintable(start.err()));
        const size_t before = start.lines.size();
        const int heartbeatsBefore = start.heartbeats;
        start.waitFor([] { return false; }, 1.5);
        const int heartbeats = start.heartbeats - heartbeatsBefore;
        double longestGap = 0;
        for (size_t i = before; i + 1 < start.lines.size(); ++i)
            longestGap = std::max(longestGap, std::chrono::duration<double>(start.lines[i + 1] - start.lines[i]).count());
        qInfo("%d heartbeats in 1.5 s (every 100 ms asked), longest gap %.3f s", heartbeats, longestGap);
        QCOMPARE(start.events.size(), size_t(2)); // hello, log: silent since
        QVERIFY2(heartbeats >= 7, qPrintable(QString::number(heartbeats)));
        QVERIFY2(longestGap < 1.0, qPrintable(QString::number(longestGap)));
        start.send("stop\n");
        QVERIFY(start.exited(kEventSeconds));
        QCOMPARE((*start.last("done"))["status"], Json("stopped"));
    }

    void lateEvaluatorEvaluatesTheFinalWeightsOfItsLaunch()
    {
        // The chief trains to the end before its evaluator starts (a loaded machine, a slow
        // node): the final weights were already there when the evaluator first looked, yet
        // they are this launch's, and the evaluator evaluates them rather than taking them
        // for an earlier session's.
        Json doc = smallExperiment();
        doc["cluster"] = Json::parse(R"({"nodes": [{"name": "local", "host": "localhost"}],
                                        "tasks": [{"type": "chief", "node": "local"}, {"type": "evaluator", "node": "local"}]})");
        const QString dir = newRunDir("late-evaluator");
        const QStringList launch{"--launch", "3f2b6c1e-late"};
        Follower chief(startArgs(dir, "chief:0", launch));
        chief.send(launchInput(bytesOf(doc)));
        QVERIFY(chief.exited(60));
        QCOMPARE((*chief.last("done"))["status"], Json("completed"));
        QCOMPARE(record(dir, "chief:0")["launch"], Json("3f2b6c1e-late"));

        Follower evaluator(startArgs(dir, "evaluator:0", launch));
        evaluator.send(launchInput(bytesOf(doc)));
        QVERIFY(evaluator.exited(60));
        const Json* done = evaluator.last("done");
        QVERIFY2(done, qPrintable(evaluator.err()));
        QCOMPARE((*done)["status"], Json("completed"));
        const auto final = std::find_if(evaluator.events.begin(), evaluator.events.end(),
                                        [](const Json& e) { return e["type"] == "evaluation" && e["final"] == true; });
        QVERIFY(final != evaluator.events.end());
        QCOMPARE((*final)["step"], (*chief.last("done"))["steps"]);
    }

    void vanishedProcessesGetOneExitLine()
    {
        const QString dir = newRunDir("vanished");
        {
            Follower start(startArgs(dir, "worker:0"));
            start.send(launchInput(bytesOf(lasting(100000))));
            QVERIFY(start.waitFor([&] { return start.last("step"); }, kEventSeconds));
            start.closeInput();
            QVERIFY(start.exited(10));
        }
        const Json r = record(dir);
        const qint64 supervisor = r["supervisor"]["pid"].get<qint64>(), trainer = r["trainer"]["pid"].get<qint64>();
        ::kill(-pid_t(supervisor), SIGKILL); // its session's process group: supervisor and trainer together
        QVERIFY(eventually([&] { return !alive(supervisor) && !alive(trainer); }, 10));

        Follower first(attachArgs(dir, "worker:0")), second(attachArgs(dir, "worker:0"));
        QVERIFY(first.exited(kEventSeconds));
        QVERIFY(second.exited(kEventSeconds));
        QCOMPARE(first.exitCode(), 0);
        QCOMPARE(second.exitCode(), 0);
        const std::vector<Json> lines = linesOf(QByteArray::fromStdString(readText(eventsFile(dir))));
        const auto vanished = std::count_if(lines.begin(), lines.end(), [](const Json& e) { return e.contains("vanished"); });
        QCOMPARE(int(vanished), 1);
        const Json& exit = lines.back();
        QCOMPARE(exit["type"], Json("exit"));
        QCOMPARE(exit["vanished"], Json(true));
        QVERIFY(exit["message"].get<std::string>().find("killed together with their supervisor") != std::string::npos);
        QCOMPARE(first.events.back().dump(), exit.dump());
        QCOMPARE(second.events.back().dump(), exit.dump());
        QCOMPARE(first.count("exit"), 1);
    }

    void resumedRunDirectoryRelaysOnlyTheNewSession()
    {
        const QString dir = newRunDir("resumed");
        Follower first(startArgs(dir, "worker:0"));
        first.send(launchInput(bytesOf(smallExperiment())));
        QVERIFY(first.exited(60));
        QCOMPARE(first.exitCode(), 0);
        const qsizetype before = qsizetype(readText(eventsFile(dir)).size());

        Json longer = smallExperiment();
        longer["training"]["epochs"] = 5;
        Follower second(startArgs(dir, "worker:0"));
        second.send(launchInput(bytesOf(longer)));
        QVERIFY(second.exited(60));
        QCOMPARE(second.exitCode(), 0);
        const QByteArray file = QByteArray::fromStdString(readText(eventsFile(dir)));
        QCOMPARE(second.relayed, file.mid(before));
        QCOMPARE(second.count("hello"), 1);
        QCOMPARE(second.count("exit"), 1);
        QVERIFY((*second.last("hello"))["pid"] != (*first.last("hello"))["pid"]);
        QVERIFY((*second.last("exit"))["t"].get<double>() > (*first.last("exit"))["t"].get<double>());
        QVERIFY((*second.last("start"))["resumed_from_step"].is_number());
        QCOMPARE(record(dir)["events_offset"].get<qsizetype>(), before);
        // Its first line says where in the file it started.
        QCOMPARE(second.follow["offset"].get<qsizetype>(), before);
        // attach without an offset follows the latest session.
        Follower attach(attachArgs(dir, "worker:0"));
        QVERIFY(attach.exited(kEventSeconds));
        QCOMPARE(attach.relayed, file.mid(before));
        QCOMPARE(attach.follow["offset"].get<qsizetype>(), before);
    }

    void stopsWhenNoAppIsAttached()
    {
        Json doc = lasting(1000000);
        doc["cluster"] = Json::parse(R"({"nodes": [{"name": "local", "host": "localhost"}],
                                        "tasks": [{"type": "worker", "node": "local"}], "stop_unattended_seconds": 2})");
        // Two tasks at once: one left alone (its follower gone), one followed throughout.
        const QString alone = newRunDir("alone"), followed = newRunDir("followed");
        Follower detached(startArgs(alone, "worker:0")), attached(startArgs(followed, "worker:0"));
        detached.send(launchInput(bytesOf(doc)));
        detached.closeInput();
        attached.send(launchInput(bytesOf(doc)));
        const auto began = Clock::now();
        QVERIFY(detached.exited(10));
        QCOMPARE(detached.exitCode(), 4);

        const std::vector<Json> lines = endedEvents(alone, "worker:0", kEventSeconds);
        QVERIFY(!lines.empty());
        const double seconds = std::chrono::duration<double>(Clock::now() - began).count();
        qInfo("the unattended task stopped after %.2f s", seconds);
        QCOMPARE(lines.back()["code"], Json(0));
        const Json& done = lines[lines.size() - 2];
        QCOMPARE(done["status"], Json("stopped"));
        const auto log = std::find_if(lines.begin(), lines.end(), [](const Json& e) { return e["type"] == "log"; });
        QVERIFY(log != lines.end());
        QCOMPARE((*log)["message"], Json("no app attached for 2 s (cluster.stop_unattended_seconds): stopping"));
        QVERIFY(done["t"].get<double>() - lines.front()["t"].get<double>() >= 2);

        // The followed one is still training, well after the same time (its first step may come
        // later than that on a loaded machine: waited for, not assumed).
        QVERIFY(!attached.waitFor([&] { return attached.last("done") || attached.last("log"); }, 4 - seconds));
        QVERIFY2(attached.waitFor([&] { return attached.last("step") || !attached.running(); }, kEventSeconds),
                 qPrintable(attached.err()));
        QVERIFY(attached.running());
        QVERIFY(attached.last("step"));
        attached.send("stop\n");
        QVERIFY(attached.exited(kEventSeconds));
        QCOMPARE((*attached.last("done"))["status"], Json("stopped"));
        QVERIFY(!attached.last("log"));
    }

    void evaluatorEndsWhenItsChiefIsKilled()
    {
        Json doc = lasting(100000);
        doc["cluster"] = Json::parse(R"({"nodes": [{"name": "local", "host": "localhost"}],
                                        "tasks": [{"type": "chief", "node": "local"}, {"type": "evaluator", "node": "local"}]})");
        const QString dir = newRunDir("evaluator");
        Follower evaluator(startArgs(dir, "evaluator:0"));
        evaluator.send(launchInput(bytesOf(doc)));
        QVERIFY2(evaluator.waitFor([&] { return evaluator.last("log"); }, kEventSeconds), qPrintable(evaluator.err()));
        Follower chief(startArgs(dir, "chief:0"));
        chief.send(launchInput(bytesOf(doc)));
        QVERIFY2(chief.waitFor([&] { return chief.last("step"); }, kEventSeconds), qPrintable(chief.err()));
        chief.send("kill\n");
        QVERIFY(chief.exited(kEventSeconds));
        QCOMPARE(chief.events.back()["signal_name"], Json("KILL"));

        QVERIFY2(evaluator.exited(kEventSeconds), "the evaluator is still running after its chief ended");
        QCOMPARE(evaluator.exitCode(), 0);
        const Json* done = evaluator.last("done");
        QVERIFY(done);
        QCOMPARE((*done)["status"], Json("stopped"));
        QCOMPARE((*evaluator.last("log"))["message"], Json("chief:0 ended without final weights: nothing more to evaluate"));
        QCOMPARE(evaluator.events.back()["code"], Json(0));
    }

    void badExperimentStartsNothing()
    {
        const QString dir = newRunDir("bad");
        Json doc = smallExperiment();
        doc["model"]["layers"][0]["type"] = "Dense2";
        Follower start(startArgs(dir, "worker:0"));
        start.send(launchInput(bytesOf(doc)));
        QVERIFY(start.exited(kEventSeconds));
        QCOMPARE(start.exitCode(), 2);
        QCOMPARE(start.events.size(), size_t(1));
        const Json& error = start.events.front();
        QCOMPARE(error["type"], Json("error"));
        QCOMPARE(error["kind"], Json("config"));
        QVERIFY(error["message"].get<std::string>().find("Dense2") != std::string::npos);
        QVERIFY(start.err().contains("Dense2"));
        QVERIFY(!QFile::exists(recordFile(dir)));
        QVERIFY(!QFile::exists(eventsFile(dir)));
        QCOMPARE(processesMentioning(dir), QList<qint64>());

        // Not JSON at all, and a byte count that is not one.
        Follower notJson(startArgs(newRunDir("bad"), "worker:0"));
        notJson.send(launchInput("{\"strata\": 1,"));
        QVERIFY(notJson.exited(kEventSeconds));
        QCOMPARE(notJson.exitCode(), 2);
        QCOMPARE((*notJson.last("error"))["kind"], Json("parse"));
        Follower badCount(startArgs(newRunDir("bad"), "worker:0"));
        badCount.send("\nlots\n{}");
        QVERIFY(badCount.exited(kEventSeconds));
        QCOMPARE(badCount.exitCode(), 2);
        QCOMPARE((*badCount.last("error"))["kind"], Json("usage"));

        // A run directory that cannot be made: 1, with the cause.
        Follower unwritable(startArgs(dir + "/launch.strata.json/below", "worker:0"));
        unwritable.send(launchInput(bytesOf(smallExperiment())));
        QVERIFY(unwritable.exited(kEventSeconds));
        QCOMPARE(unwritable.exitCode(), 1);
        QCOMPARE((*unwritable.last("error"))["kind"], Json("io"));
    }

    void attachToNoTask()
    {
        Follower attach(attachArgs(m_dir.filePath("nowhere"), "worker:3"));
        QVERIFY(attach.exited(kEventSeconds));
        QCOMPARE(attach.exitCode(), 3);
        QVERIFY(attach.events.empty());
        QVERIFY2(attach.err().contains("nowhere") && attach.err().contains("worker:3"), qPrintable(attach.err()));
    }

    void multiWorkerJobStartedTaskByTask()
    {
        Json doc = smallExperiment();
        doc["strategy"] = {{"type", "MultiWorkerMirrored"}, {"timeout_seconds", 10}};
        doc["model"]["layers"].erase(1);
        doc["training"]["epochs"] = 2;
        const int port = freePort();
        doc["cluster"] = {{"nodes", {{{"name", "local"}, {"host", "127.0.0.1"}}}},
                          {"tasks", {{{"type", "worker"}, {"node", "local"}, {"count", 2}, {"port", port}}}}};
        const QString dir = newRunDir("mwms");
        std::vector<std::unique_ptr<Follower>> tasks;
        for (const char* task : {"worker:0", "worker:1"}) {
            tasks.push_back(std::make_unique<Follower>(startArgs(dir, task)));
            tasks.back()->send(launchInput(bytesOf(doc), "job-token"));
        }
        for (auto& t : tasks) {
            QVERIFY(t->exited(120));
            QCOMPARE(t->exitCode(), 0);
            QVERIFY2(t->last("done"), qPrintable(t->err()));
            QCOMPARE(t->events.back()["type"], Json("exit"));
            QCOMPARE(t->events.back()["code"], Json(0));
        }
        QCOMPARE((*tasks[0]->last("done"))["status"], Json("completed"));
        QCOMPARE((*tasks[0]->last("done"))["weights_crc32"], (*tasks[1]->last("done"))["weights_crc32"]);
        QCOMPARE((*tasks[1]->last("start"))["workers"], Json(2));
    }

    void probeChecksPathsAndPorts()
    {
        QTcpServer held;
        QVERIFY(held.listen(QHostAddress::LocalHost));
        const int port = held.serverPort();
        const QString existing = writeFile(m_dir, "data.bin", "x");
        const Json request{{"paths", {existing.toStdString(), m_dir.path().toStdString(), "/no/such/file"}},
                           {"bind", {{{"host", "127.0.0.1"}, {"port", port}}, {{"host", "localhost"}, {"port", freePort()}}}},
                           {"free_ports", {{"host", "localhost"}, {"from", port}, {"count", 3}, {"skip", {port + 1}}}}};
        QProcess probe;
        probe.start(STRATA_ENGINE_PATH, {"probe", "--check"});
        probe.write(QByteArray::fromStdString(request.dump()));
        probe.closeWriteChannel();
        QVERIFY(probe.waitForFinished(30000));
        QCOMPARE(probe.exitCode(), 0);
        const std::vector<Json> lines = linesOf(probe.readAllStandardOutput());
        QCOMPARE(lines.size(), size_t(2));
        QCOMPARE(lines[0]["type"], Json("hello"));
        const Json& check = lines[1];
        QCOMPARE(check["type"], Json("check"));
        QCOMPARE(QFileInfo(QString::fromStdString(check["engine"].get<std::string>())).canonicalFilePath(),
                 QFileInfo(STRATA_ENGINE_PATH).canonicalFilePath());
        QCOMPARE(check["paths"][0]["ok"], Json(true));
        QCOMPARE(check["paths"][1]["ok"], Json(true));
        QCOMPARE(check["paths"][2]["ok"], Json(false));
        QCOMPARE(check["paths"][2]["error"], Json("No such file or directory"));
        QCOMPARE(check["bind"][0]["ok"], Json(false));
        QCOMPARE(check["bind"][0]["error"], Json("Address already in use"));
        QCOMPARE(check["bind"][1]["ok"], Json(true));
        const Json& free = check["free_ports"];
        QCOMPARE(free.size(), size_t(3));
        for (const auto& p : free) {
            QVERIFY(p.get<int>() > port + 1); // neither the held port nor the skipped one
            QTcpServer s;
            QVERIFY2(s.listen(QHostAddress::LocalHost, quint16(p.get<int>())), p.dump().c_str());
        }
        QVERIFY(std::is_sorted(free.begin(), free.end()));
        QVERIFY(!check.contains("data")); // no experiment asked about

        // The experiment's data, looked for as loading it would: every file, or the first one
        // missing with the message training would give.
        QTemporaryDir mnist;
        for (const char* name : {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte.gz"})
            writeFile(mnist, name, "x");
        Json withData = smallExperiment();
        withData["data"] = {{"source", {{"type", "mnist"}, {"dir", mnist.path().toStdString()}}}};
        const auto dataCheck = [&](const Json& experiment) {
            QProcess p;
            p.start(STRATA_ENGINE_PATH, {"probe", "--check"});
            p.write(QByteArray::fromStdString(Json{{"experiment", experiment}}.dump()));
            p.closeWriteChannel();
            p.waitForFinished(30000);
            const std::vector<Json> out = linesOf(p.readAllStandardOutput());
            return out.size() == 2 ? out[1]["data"] : Json();
        };
        const Json missing = dataCheck(withData);
        QCOMPARE(missing["ok"], Json(false));
        QVERIFY2(missing["error"].get<std::string>().find("t10k-labels-idx1-ubyte.gz: file not found") != std::string::npos,
                 missing.dump().c_str());
        writeFile(mnist, "t10k-labels-idx1-ubyte.gz", "x");
        const Json found = dataCheck(withData);
        QCOMPARE(found["ok"], Json(true));
        QCOMPARE(found["files"].size(), size_t(4));
        QCOMPARE(found["files"][1], Json((mnist.path() + "/train-labels-idx1-ubyte").toStdString())); // plain, not .gz
        QCOMPARE(dataCheck(smallExperiment())["files"], Json::array()); // synthetic: nothing to find

        for (const QByteArray& bad : {QByteArray("not json"), QByteArray(R"({"bind": [{"host": "localhost"}]})")}) {
            QProcess malformed;
            malformed.start(STRATA_ENGINE_PATH, {"probe", "--check"});
            malformed.write(bad);
            malformed.closeWriteChannel();
            QVERIFY(malformed.waitForFinished(30000));
            QCOMPARE(malformed.exitCode(), 2);
            const std::vector<Json> out = linesOf(malformed.readAllStandardOutput());
            QCOMPARE(out.back()["type"], Json("error"));
        }
    }
};

QTEST_GUILESS_MAIN(TestTaskSupervisor)
#include "tst_task_supervisor.moc"
