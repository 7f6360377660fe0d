// Launching on remote nodes through real OpenSSH (ssh_fixture.h), as a user meets it.
//
// Node checks (NodeChecker, and every launch with remote nodes) against an sshd on loopback:
// a good node reports its engine, version and devices; a missing engine binary, an engine of
// another version, a data file missing on the node, a port held there, a wrong password,
// nothing listening, an unknown host key nobody trusts and a changed host key are each
// refused with a message naming the node and the cause, and nothing is started. A password
// login asks through the prompter and the password is written nowhere.
//
// Jobs across hosts: network namespaces (netns_fixture.h, one LAN) each run their own sshd.
// A MultiWorkerMirrored job of a chief and two workers (and an evaluator on the chief's
// node) launched over SSH ends with the same weights as the same job on this machine, each
// task's events copied into the run directory here byte for byte. A remote worker killed
// mid-run ends the job, the survivors naming it with its host; a namespace whose link is cut
// is marked unreachable within the keepalive and named lost by the others; and `strata run`
// killed mid-run leaves the job training: a new launcher follows it again with every step,
// equal to the nodes' files, Stop ends it and no engine process is left on any host (the
// same after a failed job). A ParameterServer job with its coordinator, ps task and worker
// on three hosts (lockstep, one worker) ends with the weights of the same job here. Sixty-four
// workers over sixteen hosts complete with the default timeouts.

#include "../event_deadline.h"
#include "app_test_util.h"
#include "netns_fixture.h"
#include "ssh_fixture.h"

#include "app/experiment/experiment_document.h"
#include "app/history/run_history.h"
#include "app/launch/job_launcher.h"
#include "app/launch/node_check.h"
#include "app/launch/run_controller.h"
#include "app/metrics/placement.h"
#include "app/rundir/task_places.h"

#include <QDirIterator>
#include <QElapsedTimer>
#include <QProcessEnvironment>
#include <QSignalSpy>
#include <QTcpServer>
#include <QtTest>

#include <csignal>

using namespace strata::app;
using namespace apptest;
using namespace sshtest;

namespace {

const QString kEngine = QStringLiteral(STRATA_ENGINE_PATH);
const QString kStrata = QStringLiteral(STRATA_APP_PATH);

// A node of the cluster reached over SSH as this user with the server's client key.
Json sshNode(const QString& name, const SshServer& server, const QString& workDir, const QString& engine = kEngine)
{
    return {{"name", name.toStdString()},
            {"host", server.address().toStdString()},
            {"ssh_port", server.port()},
            {"auth", "key"},
            {"key_file", server.clientKey().toStdString()},
            {"engine", engine.toStdString()},
            {"work_dir", workDir.toStdString()}};
}

// `experiment` under MultiWorkerMirrored on `nodes`: task i (chief:0, then the workers) on
// nodes[i], and an evaluator on the chief's node when asked.
Json jobOn(Json experiment, const Json& nodes, bool chief, bool evaluator)
{
    experiment["strategy"] = {{"type", "MultiWorkerMirrored"}, {"timeout_seconds", 5}};
    Json tasks = Json::array();
    for (size_t i = 0; i < nodes.size(); ++i) {
        const std::string type = chief && i == 0 ? "chief" : "worker";
        tasks.push_back({{"type", type}, {"node", nodes[i]["name"]}});
    }
    if (evaluator)
        tasks.push_back({{"type", "evaluator"}, {"node", nodes[0]["name"]}});
    experiment["cluster"] = {{"nodes", nodes}, {"tasks", tasks}};
    return experiment;
}

// The same job on this machine: every node is 127.0.0.1, started without SSH.
Json onThisMachine(Json job)
{
    Json nodes = Json::array();
    nodes.push_back({{"name", "local"}, {"host", "127.0.0.1"}});
    for (Json& t : job["cluster"]["tasks"])
        t["node"] = "local";
    job["cluster"]["nodes"] = nodes;
    return job;
}

// The pids of strata-engine processes in each of `hosts`' namespaces.
QList<pid_t> enginesOn(const NetnsHosts& hosts)
{
    QList<pid_t> engines;
    for (int i = 0; i < hosts.count(); ++i)
        for (pid_t pid : hosts.pids(i))
            if (readAll(QStringLiteral("/proc/%1/comm").arg(pid)).trimmed() == "strata-engine")
                engines << pid;
    return engines;
}

// The step numbers of `events` (a task's JSON Lines), in order.
QList<qint64> stepsOf(const QList<Json>& events)
{
    QList<qint64> steps;
    for (const Json& e : events)
        if (e.value("type", std::string()) == "step")
            steps << e["step"].get<qint64>();
    return steps;
}

// The bytes of `text` up to its last newline (what a follower relays of a file being written).
QByteArray wholeLines(QByteArray text)
{
    text.truncate(text.lastIndexOf('\n') + 1);
    return text;
}

// The steps of a task's step records (steps-<task>.jsonl), in order.
QList<qint64> recordSteps(const QString& path)
{
    QList<qint64> steps;
    for (const Json& r : readJsonLines(path))
        steps << r["step"].get<qint64>();
    return steps;
}

QList<qint64> storeSteps(const MetricsStore& store, const QString& task)
{
    QList<qint64> steps;
    withTask(store, [&](const TaskData& td) {
        for (int64_t i = 0; i < td.loss.size(); ++i)
            steps << qint64(td.loss.x(i));
    }, task);
    return steps;
}

QString errorOf(const MetricsStore& store, const QString& task)
{
    QString error;
    withTask(store, [&](const TaskData& td) { error = td.error; }, task);
    return error;
}

// A stand-in engine that answers `probe` like an engine of another version.
QByteArray otherVersionEngine()
{
    return "cat >/dev/null\n"
           "echo '{\"v\":1,\"type\":\"hello\",\"t\":1,\"task\":\"probe\",\"version\":\"0.0.1\",\"schema\":1,"
           "\"host\":\"old\",\"devices\":[{\"name\":\"cpu:0\"}]}'\n"
           "echo '{\"v\":1,\"type\":\"check\",\"t\":1,\"task\":\"probe\",\"engine\":\"/opt/old/strata-engine\","
           "\"paths\":[],\"bind\":[],\"free_ports\":[29500]}'\n";
}

// Hosts on one LAN (network namespaces), each with its own sshd: node i is "h<i>".
class Lan {
public:
    explicit Lan(int count) : hosts(count, NetnsHosts::Lan)
    {
        for (int i = 0; hosts.isReady() && i < count; ++i)
            servers.push_back(std::make_unique<SshServer>(
                SshServer::Options{.address = hosts.address(i), .port = 22, .netns = hosts.name(i)}));
    }
    // Why the servers are not all up; empty when they are.
    QString error() const
    {
        for (const auto& s : servers)
            if (!s->isRunning())
                return s->error();
        return {};
    }
    // Every node, each with a work directory from `workDir()`.
    Json nodes(const std::function<QString()>& workDir) const
    {
        Json out = Json::array();
        for (size_t i = 0; i < servers.size(); ++i)
            out.push_back(sshNode(QStringLiteral("h%1").arg(i), *servers[i], workDir()));
        return out;
    }
    std::vector<const SshServer*> all() const
    {
        std::vector<const SshServer*> out;
        for (const auto& s : servers)
            out.push_back(s.get());
        return out;
    }

    NetnsHosts hosts;
    std::vector<std::unique_ptr<SshServer>> servers;
};

} // namespace

class TestRemoteLaunch : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    int m_runs = 0;
    QString newDir(const QString& what) { return m_dir.filePath(QStringLiteral("%1-%2").arg(what).arg(++m_runs)); }
    std::function<QString()> workDirs() { return [this] { return newDir("work"); }; }

    // Known hosts trusting `servers`, as a user who ran `strata hosts trust` for each would have.
    QString knownHosts(const std::vector<const SshServer*>& servers)
    {
        QByteArray lines;
        for (const SshServer* s : servers)
            lines += s->knownHostsLine();
        return writeFile(newDir("known_hosts"), lines);
    }

    // Runs `job` on the nodes of `servers` to its end (`what` names it in the time printed); the
    // store holds it.
    void runOn(const std::vector<const SshServer*>& servers, const Json& job, const QString& what, MetricsStore& store)
    {
        JobLauncher launcher(&store);
        launcher.setRemoteAccess({{knownHosts(servers)}, nullptr});
        QSignalSpy finished(&launcher, &JobLauncher::finished);
        QElapsedTimer clock;
        clock.start();
        QString error;
        QVERIFY2(launcher.start(job, kEngine, newDir("lan"), &error), qPrintable(error));
        QVERIFY2(finished.wait(600000), qPrintable(logText(store)));
        qInfo("%s: launched to the end in %.1f s", qPrintable(what), clock.elapsed() / 1000.0);
    }

    // The reports of checking `experiment`'s nodes.
    QList<NodeReport> check(const Json& experiment, const RemoteAccess& access)
    {
        NodeChecker checker(access);
        QSignalSpy finished(&checker, &NodeChecker::finished);
        checker.check(experiment, kEngine);
        if (!finished.wait(30000))
            qFatal("the node check did not finish within 30 s");
        return checker.reports();
    }

    static QString problemsOf(const QList<NodeReport>& reports)
    {
        QStringList all;
        for (const NodeReport& r : reports)
            all << r.problems;
        return all.join('\n');
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        if (const QString why = sshdSkipReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
    }

    void goodNodeReportsItsEngine()
    {
        SshServer server;
        QVERIFY2(server.isRunning(), qPrintable(server.error()));
        const Json job = jobOn(tinyExperiment(), Json::array({sshNode("gpu1", server, newDir("work"))}), false, false);
        const QList<NodeReport> reports = check(job, {{knownHosts({&server})}, nullptr});
        QCOMPARE(reports.size(), 1);
        const NodeReport& r = reports[0];
        QVERIFY2(r.ok(), qPrintable(r.problems.join('\n')));
        QCOMPARE(r.version, QStringLiteral(STRATA_VERSION));
        QVERIFY(r.devices.contains("cpu:0"));
        QCOMPARE(r.engine, kEngine);
        QCOMPARE(r.freePorts.size(), 1); // the worker's automatic port, free there now
        QVERIFY2(r.summary().contains("gpu1"), qPrintable(r.summary()));
        qInfo("%s", qPrintable(r.summary()));
    }

    // More nodes than are checked at once (NodeChecker::kConcurrentChecks): every one is checked,
    // the later ones as earlier checks end, each within its own timeout.
    void moreNodesThanCheckedAtOnceAreAllChecked()
    {
        SshServer server;
        QVERIFY2(server.isRunning(), qPrintable(server.error()));
        const int count = NodeChecker::kConcurrentChecks + 4;
        Json nodes = Json::array(), tasks = Json::array();
        for (int i = 0; i < count; ++i) {
            const QString name = QStringLiteral("n%1").arg(i);
            nodes.push_back(sshNode(name, server, newDir("work")));
            tasks.push_back({{"type", "worker"}, {"node", name.toStdString()}});
        }
        Json job = tinyExperiment();
        job["strategy"] = {{"type", "MultiWorkerMirrored"}};
        job["cluster"] = {{"nodes", nodes}, {"tasks", tasks}};
        const QList<NodeReport> reports = check(job, {{knownHosts({&server})}, nullptr});
        QCOMPARE(reports.size(), count);
        QStringList checked;
        for (const NodeReport& r : reports) {
            QVERIFY2(r.ok(), qPrintable(r.node + ": " + r.problems.join('\n')));
            checked << r.node;
        }
        checked.sort();
        checked.removeDuplicates();
        QCOMPARE(checked.size(), count);
    }

    void badNodeIsNamedWithItsCause_data()
    {
        QTest::addColumn<QString>("problem");
        QTest::newRow("missing engine") << "engine";
        QTest::newRow("engine of another version") << "version";
        QTest::newRow("data missing on the node") << "data";
        QTest::newRow("a dataset directory without its files") << "data files";
        QTest::newRow("port held on the node") << "port";
        QTest::newRow("wrong password") << "password";
        QTest::newRow("nothing listening") << "refused";
        QTest::newRow("unknown host key, nobody to ask") << "unknown key";
        QTest::newRow("changed host key") << "changed key";
    }

    void badNodeIsNamedWithItsCause()
    {
        QFETCH(QString, problem);
        SshServer server({.passwordUser = problem == "password"});
        QVERIFY2(server.isRunning(), qPrintable(server.error()));
        Json node = sshNode("trainer7", server, newDir("work"));
        Json experiment = tinyExperiment();
        QTemporaryDir scripts;
        ScriptedPrompter prompter;
        QString known = knownHosts({&server});
        QStringList expected{"trainer7"};
        std::unique_ptr<QTcpServer> held;
        if (problem == "engine") {
            node["engine"] = "/opt/nowhere/strata-engine";
            expected << "/opt/nowhere/strata-engine" << "not found";
        } else if (problem == "version") {
            node["engine"] = writeScript(scripts, "old-engine", otherVersionEngine()).toStdString();
            expected << "0.0.1" << QStringLiteral(STRATA_VERSION);
        } else if (problem == "data") {
            experiment["data"] = {{"source", {{"type", "idx"}, {"train_images", "/srv/data/missing-images.idx"},
                                              {"train_labels", "/srv/data/missing-labels.idx"}}}};
            expected << "/srv/data/missing-images.idx" << "file not found";
        } else if (problem == "data files") {
            const QString empty = newDir("fashion-mnist");
            QVERIFY(QDir().mkpath(empty));
            experiment["data"] = {{"source", {{"type", "fashion_mnist"}, {"dir", empty.toStdString()}}}};
            expected << empty + "/train-images-idx3-ubyte.gz" << "file not found" << "dataset-fashion-mnist";
        } else if (problem == "port") {
            held = std::make_unique<QTcpServer>();
            QVERIFY(held->listen(QHostAddress::LocalHost, 0));
            node["host"] = "127.0.0.1";
            expected << QString::number(held->serverPort()) << "in use";
        } else if (problem == "password") {
            node["auth"] = "password";
            node["user"] = SshServer::kTestUser;
            prompter.secrets = {"not the password"};
            expected << "password rejected" << SshServer::kTestUser;
        } else if (problem == "refused") {
            node["ssh_port"] = sshtest::freePort();
            expected << "refused";
        } else if (problem == "unknown key") {
            known = writeFile(newDir("empty_known_hosts"), "");
            expected << "strata hosts trust";
        } else if (problem == "changed key") {
            const QString before = server.hostFingerprint();
            QVERIFY(server.regenerateHostKey());
            expected << before << server.hostFingerprint();
        }
        Json job = jobOn(experiment, Json::array({node}), false, false);
        if (problem == "port")
            job["cluster"]["tasks"][0]["port"] = held->serverPort();
        const QByteArray knownBefore = readAll(known);
        QElapsedTimer clock;
        clock.start();
        const QList<NodeReport> reports = check(job, {{known}, problem == "unknown key" ? nullptr : &prompter});
        const QString problems = problemsOf(reports);
        qInfo("%s (%.2f s)", qPrintable(problems), clock.elapsed() / 1000.0);
        QVERIFY2(clock.elapsed() < 10000, "a node must be named within 10 s");
        for (const QString& e : expected)
            QVERIFY2(problems.contains(e), qPrintable(e + " not in: " + problems));
        QCOMPARE(readAll(known), knownBefore); // nothing trusted behind the user's back

        // A launch checks first, and starts nothing.
        MetricsStore store;
        JobLauncher launcher(&store);
        launcher.setRemoteAccess({{known}, problem == "unknown key" ? nullptr : &prompter});
        if (problem == "password")
            prompter.secrets = {"not the password"};
        QSignalSpy failed(&launcher, &JobLauncher::launchFailed);
        QSignalSpy started(&launcher, &JobLauncher::started);
        const QString runDir = newDir("run");
        QString error;
        QVERIFY2(launcher.start(job, kEngine, runDir, &error), qPrintable(error));
        QVERIFY(launcher.isChecking());
        QVERIFY(failed.wait(30000));
        QCOMPARE(started.count(), 0);
        QVERIFY(failed.front().front().toString().contains("trainer7"));
        QVERIFY(!launcher.isRunning());
        QVERIFY2(!QFileInfo::exists(runDir), "a refused launch creates no run directory");
    }

    void passwordLoginRunsAndTheSecretIsWrittenNowhere()
    {
        SshServer server({.passwordUser = true});
        QVERIFY2(server.isRunning(), qPrintable(server.error()));
        // The test user reaches the node's work directory and writes there.
        QFile::setPermissions(m_dir.path(), QFileDevice::Permissions(0x7755));
        const QString work = newDir("work");
        QVERIFY(QDir().mkpath(work));
        QFile::setPermissions(work, QFileDevice::Permissions(0x7777));
        // And runs an engine it may read (the build's may sit under root's own home).
        const QString engine = m_dir.filePath("engine-for-the-test-user");
        QVERIFY(QFile::copy(kEngine, engine));
        QVERIFY(QFile::setPermissions(engine, QFileDevice::Permissions(0x7555)));
        Json node = sshNode("pw", server, work, engine);
        node["auth"] = "password";
        node["user"] = SshServer::kTestUser;
        node.erase("key_file");
        ExperimentDocument document;
        document.replace(jobOn(tinyExperiment(), Json::array({node}), false, false), "password job");
        QVERIFY2(document.validation().ok(), qPrintable(document.validation().problems.value(0).text()));
        const QString history = newDir("history") + ".sqlite";
        RunHistory runs;
        QString error;
        QVERIFY2(runs.open(history, &error), qPrintable(error));
        ScriptedPrompter prompter;
        prompter.secrets = {SshServer::kTestPassword, SshServer::kTestPassword};
        RunController run;
        run.setHistory(&runs, "app");
        run.launcher().setRemoteAccess({{knownHosts({&server})}, &prompter});
        QSignalSpy finished(&run, &RunController::finished);
        QSignalSpy failed(&run, &RunController::launchFailed);
        const QString runDir = newDir("run");
        QVERIFY2(run.launch(document, kEngine, runDir, &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() || !failed.isEmpty(), testing::kEventDeadlineMs);
        QVERIFY2(failed.isEmpty(), qPrintable(failed.value(0).value(0).toString()));
        QVERIFY2(run.outcome() == RunOutcome::Completed, qPrintable(run.summary()));
        QVERIFY(!prompter.promptsShown().isEmpty());
        // The secret is nowhere: not in the run directories here and on the node (the
        // experiment as launched, events, logs, records), the history, or the run's log.
        const QByteArray secret(SshServer::kTestPassword);
        QStringList files{history};
        for (const QString& dir : {runDir, work})
            for (QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories); it.hasNext();)
                files << it.next();
        QVERIFY(files.size() > 5);
        for (const QString& f : files)
            QVERIFY2(!readAll(f).contains(secret), qPrintable(f));
        for (const LogEntry& e : logOf(run.store()))
            QVERIFY(!e.message.contains(QString::fromLatin1(secret)));
    }

    void jobAcrossThreeHostsEqualsTheSameJobHere()
    {
        Lan lan(3);
        if (!lan.hosts.isReady())
            QSKIP(qPrintable(lan.hosts.error()));
        QVERIFY2(lan.error().isEmpty(), qPrintable(lan.error()));
        const NetnsHosts& hosts = lan.hosts;
        const Json job = jobOn(tinyExperiment(3), lan.nodes(workDirs()), true, true);

        // Here first: the reference.
        MetricsStore here;
        {
            JobLauncher launcher(&here);
            launcher.setEvaluatorGrace(30000);
            QSignalSpy finished(&launcher, &JobLauncher::finished);
            QString error;
            QVERIFY2(launcher.start(onThisMachine(job), kEngine, newDir("here"), &error), qPrintable(error));
            QVERIFY(finished.wait(120000));
        }
        MetricsStore there;
        JobLauncher launcher(&there);
        launcher.setEvaluatorGrace(30000);
        launcher.setRemoteAccess({{knownHosts(lan.all())}, nullptr});
        QSignalSpy finished(&launcher, &JobLauncher::finished);
        QSignalSpy started(&launcher, &JobLauncher::started);
        const QString runDir = newDir("there");
        QString error;
        QVERIFY2(launcher.start(job, kEngine, runDir, &error), qPrintable(error));
        QVERIFY(started.wait(60000));
        for (const NodeReport& r : launcher.nodeReports())
            qInfo("%s", qPrintable(r.summary()));
        QVERIFY(finished.wait(120000));

        const QStringList trainers{"chief:0", "worker:0", "worker:1"};
        Json crc;
        withTask(here, [&](const TaskData& td) { crc = td.done.value("weights_crc32", Json()); }, "chief:0");
        QVERIFY(crc.is_number());
        for (const LogEntry& e : logOf(there))
            if (e.level != "info" || e.task == "evaluator:0")
                qInfo("%s %s: %s", qPrintable(e.task), qPrintable(e.level), qPrintable(e.message));
        for (const QString& task : trainers)
            QVERIFY(withTask(there, [&](const TaskData& td) {
                QVERIFY2(td.state == TaskState::Completed, qPrintable(task + ": " + td.error + " " + QString::fromStdString(td.done.dump())));
                QCOMPARE(td.done.value("weights_crc32", Json()), crc);
                QVERIFY(td.exited);
                QCOMPARE(td.exitCode, 0);
            }, task));
        // The evaluator evaluated the chief's checkpoints on the chief's node, and ended.
        QVERIFY(withTask(there, [&](const TaskData& td) {
            QVERIFY2(td.evaluations > 0, qPrintable(td.error));
            QVERIFY2(td.state == TaskState::Completed, qPrintable(QString::fromStdString(td.done.dump())));
        }, "evaluator:0"));
        // Each task's events and step records, copied here byte for byte from its node, and
        // where it ran; every step in the store, from step 1.
        std::vector<TaskPlace> places;
        QVERIFY2(readTaskPlaces(runDir, places, &error), qPrintable(error));
        QCOMPARE(places.size(), size_t(4));
        for (const TaskPlace& p : places) {
            QVERIFY(p.remote);
            const QString stem = QString(p.task).replace(':', '-');
            QCOMPARE(readAll(runDir + "/events-" + stem + ".jsonl"), readAll(p.runDir + "/events-" + stem + ".jsonl"));
            QCOMPARE(readAll(runDir + "/steps-" + stem + ".jsonl"), readAll(p.runDir + "/steps-" + stem + ".jsonl"));
            if (trainers.contains(p.task)) {
                const QList<qint64> steps = recordSteps(p.runDir + "/steps-" + stem + ".jsonl");
                int64_t total = 0;
                QVERIFY(withTask(there, [&](const TaskData& td) { total = td.totalSteps; }, p.task));
                QCOMPARE(steps.size(), qsizetype(total)); // 3 epochs of 13 steps (global batch 48)
                QCOMPARE(storeSteps(there, p.task), steps);
            }
            QVERIFY(withTask(there, [&](const TaskData& td) { QCOMPARE(td.host, p.host); }, p.task));
        }
        QCOMPARE(places[0].host, hosts.address(0));
        QTRY_VERIFY_WITH_TIMEOUT(enginesOn(hosts).isEmpty(), testing::kEventDeadlineMs);
    }

    // Sixty-four workers over sixteen hosts, four a host, with the timeouts a new user has: the
    // job waits for its slowest engine to start (not the collectives' 10 s), no host busy
    // starting its engines is taken for unreachable, and every worker ends with the same weights.
    void sixtyFourWorkersOverSixteenHosts()
    {
        Lan lan(16);
        if (!lan.hosts.isReady())
            QSKIP(qPrintable(lan.hosts.error()));
        QVERIFY2(lan.error().isEmpty(), qPrintable(lan.error()));
        Json job = tinyExperiment(1);
        job["strategy"] = {{"type", "MultiWorkerMirrored"}};
        job["data"]["validation"] = "none";
        const Json nodes = lan.nodes(workDirs());
        Json tasks = Json::array();
        for (const Json& node : nodes)
            tasks.push_back({{"type", "worker"}, {"node", node["name"]}, {"count", 4}});
        job["cluster"] = {{"nodes", nodes}, {"tasks", tasks}};

        MetricsStore store;
        runOn(lan.all(), job, "64 workers over 16 hosts", store);
        if (QTest::currentTestFailed())
            return;
        QStringList unreachable;
        for (const LogEntry& e : logOf(store))
            if (e.message.contains("unreachable"))
                unreachable << e.task + ": " + e.message;
        QVERIFY2(unreachable.isEmpty(), qPrintable(unreachable.join('\n')));
        const QList<TaskSummary> summaries = taskSummaries(store);
        QCOMPARE(summaries.size(), 64);
        Json crc;
        withTask(store, [&](const TaskData& td) { crc = td.done.value("weights_crc32", Json()); }, "worker:0");
        QVERIFY(crc.is_number());
        for (const TaskSummary& t : summaries) {
            QVERIFY2(t.state == TaskState::Completed, qPrintable(t.task + ": " + t.error + "\n" + logText(store)));
            withTask(store, [&](const TaskData& td) { QCOMPARE(td.done.value("weights_crc32", Json()), crc); }, t.task);
        }
    }

    // A node with more tasks than its sshd opens sessions on one connection (OpenSSH's
    // MaxSessions, 10 by default, as this server has it): every task is followed, none shown
    // unreachable, and the job completes.
    void moreTasksOnANodeThanOneConnectionHoldsSessions()
    {
        SshServer server;
        QVERIFY2(server.isRunning(), qPrintable(server.error()));
        Json job = tinyExperiment(1);
        job["strategy"] = {{"type", "MultiWorkerMirrored"}};
        job["data"]["validation"] = "none";
        job["cluster"] = {{"nodes", Json::array({sshNode("big", server, newDir("work"))})},
                          {"tasks", Json::array({{{"type", "worker"}, {"node", "big"}, {"count", 12}}})}};
        MetricsStore store;
        runOn({&server}, job, "12 workers on one node", store);
        if (QTest::currentTestFailed())
            return;
        for (const LogEntry& e : logOf(store))
            QVERIFY2(!e.message.contains("unreachable"), qPrintable(e.task + ": " + e.message));
        const QList<TaskSummary> summaries = taskSummaries(store);
        QCOMPARE(summaries.size(), 12);
        for (const TaskSummary& t : summaries)
            QVERIFY2(t.state == TaskState::Completed, qPrintable(t.task + ": " + stateText(t) + " " + t.error));
    }

    // A ParameterServer job of 32 workers and 4 ps tasks over sixteen hosts, with the default
    // timeouts, completes: every step of the epoch taken once, by some worker.
    void parameterServerWithThirtyTwoWorkers()
    {
        Lan lan(16);
        if (!lan.hosts.isReady())
            QSKIP(qPrintable(lan.hosts.error()));
        QVERIFY2(lan.error().isEmpty(), qPrintable(lan.error()));
        Json job = tinyExperiment(1);
        job["strategy"] = {{"type", "ParameterServer"}, {"partitioner", {{"type", "FixedShards"}, {"num_shards", 4}}}};
        job["data"]["validation"] = "none";
        const Json nodes = lan.nodes(workDirs());
        Json tasks = Json::array({{{"type", "chief"}, {"node", "h0"}}});
        for (int i = 0; i < 4; ++i)
            tasks.push_back({{"type", "ps"}, {"node", nodes[i]["name"]}});
        for (const Json& node : nodes)
            tasks.push_back({{"type", "worker"}, {"node", node["name"]}, {"count", 2}});
        job["cluster"] = {{"nodes", nodes}, {"tasks", tasks}};

        MetricsStore store;
        runOn(lan.all(), job, "ParameterServer, 32 workers and 4 ps over 16 hosts", store);
        if (QTest::currentTestFailed())
            return;
        const QList<TaskSummary> summaries = taskSummaries(store);
        QCOMPARE(summaries.size(), 37);
        for (const TaskSummary& t : summaries)
            QVERIFY2(t.state == TaskState::Completed, qPrintable(t.task + ": " + stateText(t) + " " + t.error));
        // 600 examples in batches of 16: 38 steps, each taken by one worker.
        withTask(store, [](const TaskData& td) { QCOMPARE(td.done["steps"].get<int64_t>(), int64_t{38}); }, "chief:0");
    }

    void parameterServerJobAcrossHostsEqualsTheSameJobHere()
    {
        Lan lan(3);
        if (!lan.hosts.isReady())
            QSKIP(qPrintable(lan.hosts.error()));
        QVERIFY2(lan.error().isEmpty(), qPrintable(lan.error()));
        Json job = tinyExperiment(2);
        job["strategy"] = {{"type", "ParameterServer"}, {"max_staleness", 0}, {"timeout_seconds", 5},
                           {"partitioner", {{"type", "FixedShards"}, {"num_shards", 2}}}};
        const Json nodes = lan.nodes(workDirs());
        job["cluster"] = {{"nodes", nodes},
                          {"tasks", {{{"type", "chief"}, {"node", "h0"}}, {{"type", "ps"}, {"node", "h1"}},
                                     {{"type", "worker"}, {"node", "h2"}}}}};
        auto run = [&](const Json& experiment, const QString& dir, bool remote) {
            MetricsStore store;
            JobLauncher launcher(&store);
            if (remote)
                launcher.setRemoteAccess({{knownHosts(lan.all())}, nullptr});
            QSignalSpy finished(&launcher, &JobLauncher::finished);
            QString error;
            if (!launcher.start(experiment, kEngine, dir, &error))
                return Json{{"error", error.toStdString()}};
            finished.wait(120000);
            Json result = Json::object();
            for (const QString task : {"chief:0", "ps:0", "worker:0"})
                withTask(store, [&](const TaskData& td) {
                    result[task.toStdString()] = td.done;
                    if (td.state != TaskState::Completed)
                        result["error"] = (task + ": " + td.error).toStdString();
                }, task);
            return result;
        };
        const Json here = run(onThisMachine(job), newDir("ps-here"), false);
        QVERIFY2(!here.contains("error"), qPrintable(QString::fromStdString(here.dump())));
        const Json there = run(job, newDir("ps-there"), true);
        QVERIFY2(!there.contains("error"), qPrintable(QString::fromStdString(there.dump())));
        // 600 examples in batches of 16, 2 epochs: every step once, each applied by the ps.
        QCOMPARE(there["chief:0"]["steps"].get<int64_t>(), int64_t{2 * 38});
        QCOMPARE(there["ps:0"]["updates"].get<int64_t>(), int64_t{2 * 38});
        QCOMPARE(there["worker:0"]["steps"].get<int64_t>(), int64_t{2 * 38});
        QCOMPARE(there["chief:0"]["weights_crc32"], here["chief:0"]["weights_crc32"]);
        QTRY_VERIFY_WITH_TIMEOUT(enginesOn(lan.hosts).isEmpty(), testing::kEventDeadlineMs);
    }

    void remoteWorkerKilledEndsTheJobNamingItsHost()
    {
        Lan lan(2);
        if (!lan.hosts.isReady())
            QSKIP(qPrintable(lan.hosts.error()));
        QVERIFY2(lan.error().isEmpty(), qPrintable(lan.error()));
        NetnsHosts& hosts = lan.hosts;
        const Json job = jobOn(endlessExperiment(), lan.nodes(workDirs()), false, false);
        MetricsStore store;
        JobLauncher launcher(&store);
        launcher.setRemoteAccess({{knownHosts(lan.all())}, nullptr});
        QSignalSpy finished(&launcher, &JobLauncher::finished);
        QString error;
        QVERIFY2(launcher.start(job, kEngine, newDir("run"), &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(storeSteps(store, "worker:1").size() >= 3, testing::kEventDeadlineMs);
        QElapsedTimer clock;
        clock.start();
        launcher.killTask("worker:1");
        QVERIFY(finished.wait(30000));
        qInfo("the job ended %.2f s after worker:1 was killed", clock.elapsed() / 1000.0);
        QVERIFY2(clock.elapsed() < 15000, "the survivor must stop within the collective timeout");
        const QString survivor = errorOf(store, "worker:0");
        QVERIFY2(survivor.contains("lost worker:1 (on " + hosts.address(1)), qPrintable(survivor));
        QVERIFY(withTask(store, [](const TaskData& td) {
            QVERIFY(td.crashed);
            QCOMPARE(td.exitCode, int(SIGKILL));
            QCOMPARE(td.node, QString("h1"));
        }, "worker:1"));
        QTRY_VERIFY_WITH_TIMEOUT(enginesOn(hosts).isEmpty(), testing::kEventDeadlineMs);
    }

    void cutLinkIsDetectedAndNamed()
    {
        Lan lan(2);
        if (!lan.hosts.isReady())
            QSKIP(qPrintable(lan.hosts.error()));
        QVERIFY2(lan.error().isEmpty(), qPrintable(lan.error()));
        NetnsHosts& hosts = lan.hosts;
        const Json job = jobOn(endlessExperiment(), lan.nodes(workDirs()), false, false);
        MetricsStore store;
        JobLauncher launcher(&store);
        launcher.setKeepalive(3000);
        launcher.setReconnectInterval(1000);
        launcher.setRemoteAccess({{knownHosts(lan.all())}, nullptr});
        QSignalSpy finished(&launcher, &JobLauncher::finished);
        QString error;
        QVERIFY2(launcher.start(job, kEngine, newDir("run"), &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(storeSteps(store, "worker:1").size() >= 3, testing::kEventDeadlineMs);
        QVERIFY(hosts.cut(1));
        QElapsedTimer clock;
        clock.start();
        bool unreachable = false;
        QString why;
        QTRY_VERIFY_WITH_TIMEOUT((withTask(store, [&](const TaskData& td) {
                                      unreachable = td.unreachable;
                                      why = td.unreachableWhy;
                                  }, "worker:1"),
                                  unreachable),
                                 15000);
        qInfo("worker:1 unreachable after %.2f s: %s", clock.elapsed() / 1000.0, qPrintable(why));
        QVERIFY2(why.contains("worker:1") && why.contains(hosts.address(1)), qPrintable(why));
        // The survivor names it lost (it does not answer the collectives) and ends.
        QTRY_VERIFY_WITH_TIMEOUT(errorOf(store, "worker:0").contains("lost worker:1"), 20000);
        // The link back: the node is heard again, and how its task ended is caught up.
        QVERIFY(hosts.restore(1));
        QVERIFY(finished.wait(60000));
        QVERIFY(withTask(store, [](const TaskData& td) {
            QVERIFY(!td.unreachable);
            QVERIFY(td.exited);
        }, "worker:1"));
        QTRY_VERIFY_WITH_TIMEOUT(enginesOn(hosts).isEmpty(), testing::kEventDeadlineMs);
    }

    void stopWhileANodeIsUnreachableEndsTheRun()
    {
        Lan lan(2);
        if (!lan.hosts.isReady())
            QSKIP(qPrintable(lan.hosts.error()));
        QVERIFY2(lan.error().isEmpty(), qPrintable(lan.error()));
        const Json job = jobOn(endlessExperiment(), lan.nodes(workDirs()), false, false);
        MetricsStore store;
        JobLauncher launcher(&store);
        launcher.setKeepalive(2000);
        launcher.setRemoteAccess({{knownHosts(lan.all())}, nullptr});
        QSignalSpy finished(&launcher, &JobLauncher::finished);
        QString error;
        QVERIFY2(launcher.start(job, kEngine, newDir("run"), &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(storeSteps(store, "worker:1").size() >= 3, testing::kEventDeadlineMs);
        QVERIFY(lan.hosts.cut(1));
        bool unreachable = false;
        QTRY_VERIFY_WITH_TIMEOUT((withTask(store, [&](const TaskData& td) { unreachable = td.unreachable; }, "worker:1"),
                                  unreachable),
                                 15000);
        // Stop: worker:0 checkpoints and ends; worker:1 cannot be told, and the run ends
        // without it after the grace period, saying so.
        launcher.stop(1000);
        QVERIFY(finished.wait(30000));
        const QString why = errorOf(store, "worker:1");
        QVERIFY2(why.contains("could not be reached to stop it") && why.contains(lan.hosts.address(1)), qPrintable(why));
        // Cut off from its job, it ends by itself (the collective timeout) and leaves nothing.
        QTRY_VERIFY_WITH_TIMEOUT(enginesOn(lan.hosts).isEmpty(), 20000);
    }

    void relaunchIntoTheSameRunDirectoryResumesOnTheNodes()
    {
        Lan lan(2);
        if (!lan.hosts.isReady())
            QSKIP(qPrintable(lan.hosts.error()));
        QVERIFY2(lan.error().isEmpty(), qPrintable(lan.error()));
        NetnsHosts& hosts = lan.hosts;
        const Json job = jobOn(endlessExperiment(), lan.nodes(workDirs()), true, false);
        const RemoteAccess access{{knownHosts(lan.all())}, nullptr};
        const QString runDir = newDir("run");
        qint64 stoppedAt = 0;
        for (int session = 0; session < 2; ++session) {
            MetricsStore store;
            JobLauncher launcher(&store);
            launcher.setRemoteAccess(access);
            QSignalSpy finished(&launcher, &JobLauncher::finished);
            QString error;
            QVERIFY2(launcher.start(job, kEngine, runDir, &error), qPrintable(error));
            QTRY_VERIFY_WITH_TIMEOUT(storeSteps(store, "worker:0").size() >= 3, testing::kEventDeadlineMs);
            Json start;
            withTask(store, [&](const TaskData& td) { start = td.start; }, "chief:0");
            if (session == 1) // the chief's checkpoint, on its node, is where every task goes on
                QCOMPARE(start.value("resumed_from_step", Json()), Json(stoppedAt));
            // This session's steps, every one: the earlier session's records are not shown.
            QCOMPARE(storeSteps(store, "worker:0").first(), stoppedAt + 1);
            launcher.stop();
            QVERIFY(finished.wait(60000));
            withTask(store, [&](const TaskData& td) { stoppedAt = td.done.value("steps", qint64(0)); }, "chief:0");
            QVERIFY(stoppedAt > 0);
        }
        QTRY_VERIFY_WITH_TIMEOUT(enginesOn(hosts).isEmpty(), testing::kEventDeadlineMs);
    }

    void launcherKilledJobGoesOnAndIsFollowedAgain_data()
    {
        QTest::addColumn<bool>("fails");
        QTest::newRow("stopped after following it again") << false;
        QTest::newRow("failed while nobody followed it") << true;
    }

    void launcherKilledJobGoesOnAndIsFollowedAgain()
    {
        QFETCH(bool, fails);
        Lan lan(2);
        if (!lan.hosts.isReady())
            QSKIP(qPrintable(lan.hosts.error()));
        QVERIFY2(lan.error().isEmpty(), qPrintable(lan.error()));
        NetnsHosts& hosts = lan.hosts;
        const Json job = jobOn(endlessExperiment(), lan.nodes(workDirs()), false, false);
        const QString experimentFile = writeFile(newDir("experiment") + ".strata.json", QByteArray::fromStdString(job.dump(2)));
        // `strata run` in a terminal-less session of its own: its known_hosts trusts both hosts.
        const QString home = newDir("home");
        QDir().mkpath(home + "/.ssh");
        writeFile(home + "/.ssh/known_hosts", lan.servers[0]->knownHostsLine() + lan.servers[1]->knownHostsLine());
        const QString history = newDir("history") + ".sqlite";
        const QString runDir = newDir("run");
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("HOME", home);
        env.insert("STRATA_HISTORY", history);
        QProcess strata;
        strata.setProcessEnvironment(env);
        strata.setProcessChannelMode(QProcess::MergedChannels);
        strata.start(kStrata, {"run", experimentFile, "--run-dir", runDir, "--engine", kEngine});
        QVERIFY(strata.waitForStarted());
        QTRY_VERIFY2_WITH_TIMEOUT(stepsOf(engineEvents(runDir + "/events-worker-1.jsonl")).size() >= 3,
                                  qPrintable(QString::fromUtf8(strata.readAll())), testing::kEventDeadlineMs);
        ::kill(pid_t(strata.processId()), SIGKILL);
        QVERIFY(strata.waitForFinished(5000));

        // The job goes on without it.
        std::vector<TaskPlace> places;
        QString error;
        QVERIFY2(readTaskPlaces(runDir, places, &error), qPrintable(error));
        QCOMPARE(places.size(), size_t(2));
        const QString nodeEvents = places[1].runDir + "/events-worker-1.jsonl";
        const qsizetype stepsAtKill = stepsOf(engineEvents(nodeEvents)).size();
        QTRY_VERIFY_WITH_TIMEOUT(stepsOf(engineEvents(nodeEvents)).size() > stepsAtKill + 3, testing::kEventDeadlineMs);
        if (fails) { // worker:1 dies while nobody follows the job: worker:0 ends naming it
            const Json record = Json::parse(readAll(places[1].runDir + "/task-worker-1.json").toStdString());
            ::kill(pid_t(record["trainer"]["pid"].get<qint64>()), SIGKILL);
            QTRY_VERIFY_WITH_TIMEOUT(engineEvents(places[0].runDir + "/events-worker-0.jsonl").back()["type"] == "error",
                                     testing::kEventDeadlineMs);
        }

        // A new Strata follows it again from its history record.
        RunHistory runs;
        QVERIFY2(runs.open(history, &error), qPrintable(error));
        std::vector<RunRecord> records;
        QVERIFY2(runs.query({}, &records, &error), qPrintable(error));
        QCOMPARE(records.size(), size_t(1));
        QCOMPARE(records[0].status, RunStatus::Running);
        QVERIFY2(records[0].hosts.contains(hosts.address(1)), qPrintable(records[0].hosts));
        RunController run;
        run.setHistory(&runs, "app");
        run.launcher().setRemoteAccess({{home + "/.ssh/known_hosts"}, nullptr});
        QSignalSpy finished(&run, &RunController::finished);
        QVERIFY2(run.reattach(records[0], kEngine, &error), qPrintable(error));
        if (!fails) {
            const qsizetype nodeSteps = stepsOf(engineEvents(nodeEvents)).size();
            QTRY_VERIFY_WITH_TIMEOUT(storeSteps(run.store(), "worker:1").size() > nodeSteps, testing::kEventDeadlineMs);
            run.stop();
        }
        QVERIFY(finished.wait(60000));
        // Every step the nodes recorded is in the store, once, in order; the copies here are
        // the nodes' files byte for byte (whole lines of the records: a trainer killed while
        // writing one leaves it torn).
        for (const TaskPlace& p : places) {
            const QString stem = QString(p.task).replace(':', '-');
            const QString nodeSteps = p.runDir + "/steps-" + stem + ".jsonl";
            QCOMPARE(storeSteps(run.store(), p.task).first(), qint64(1));
            QCOMPARE(storeSteps(run.store(), p.task), recordSteps(nodeSteps));
            QCOMPARE(readAll(runDir + "/events-" + stem + ".jsonl"), readAll(p.runDir + "/events-" + stem + ".jsonl"));
            QCOMPARE(readAll(runDir + "/steps-" + stem + ".jsonl"), wholeLines(readAll(nodeSteps)));
        }
        QElapsedTimer clock;
        clock.start();
        QTRY_VERIFY_WITH_TIMEOUT(enginesOn(hosts).isEmpty(), testing::kEventDeadlineMs);
        qInfo("no engine left on any host %.2f s after the job ended", clock.elapsed() / 1000.0);
        const std::optional<RunRecord> recorded = runs.run(records[0].id, &error);
        QVERIFY(recorded);
        QCOMPARE(recorded->status, fails ? RunStatus::Failed : RunStatus::Stopped);
    }

    void headlessRunRefusesAnUnknownHostWithoutATerminal()
    {
        SshServer server;
        QVERIFY2(server.isRunning(), qPrintable(server.error()));
        const Json job = jobOn(tinyExperiment(), Json::array({sshNode("gpu9", server, newDir("work"))}), false, false);
        const QString experimentFile = writeFile(newDir("experiment") + ".strata.json", QByteArray::fromStdString(job.dump(2)));
        const QString home = newDir("home");
        QDir().mkpath(home);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("HOME", home);
        env.insert("STRATA_HISTORY", newDir("history") + ".sqlite");
        QProcess strata;
        strata.setProcessEnvironment(env);
        strata.setProcessChannelMode(QProcess::MergedChannels);
        strata.start("setsid", {kStrata, "run", experimentFile, "--engine", kEngine}); // no controlling terminal
        QVERIFY(strata.waitForFinished(30000));
        const QString out = QString::fromUtf8(strata.readAll());
        QCOMPARE(strata.exitCode(), 1);
        QVERIFY2(out.contains("gpu9") && out.contains("strata hosts trust"), qPrintable(out));
        QVERIFY2(!QFileInfo::exists(home + "/.ssh/known_hosts"), "nothing may be trusted without asking");
    }
};

QTEST_GUILESS_MAIN(TestRemoteLaunch)
#include "tst_remote_launch.moc"
