// The real Slurm of slurm_fixture.h, and what the Slurm launcher will rely on, as Slurm 22.05
// (Debian 12) does it: a step's tasks and their SLURM_* variables; which of them the batch
// script itself sees (SLURM_PROCID is set there too, the SLURM_STEP_* ones are not); a job
// held PENDING (Resources) while the partition is full and started when the first ends; a
// signal sent with `scancel --signal=USR2 -b` reaching the batch script's trap, which requeues
// the job, run again with SLURM_RESTART_COUNT=1; a node lost under a running job (NODE_FAIL,
// NodeDown; a requeueable job requeued and run again once the node is back); and the fixture
// leaving nothing behind. Every wait polls a state with a deadline.
//
// Needs root and Debian's munge, slurmctld, slurmd and slurm-client; skips naming what is
// missing. Each test function has a cluster of its own (3 nodes of 2 CPUs).

#include "slurm_fixture.h"

#include <QElapsedTimer>
#include <QtTest>

using namespace slurmtest;

namespace {

// The file's text once it contains `text` (polled until the deadline), else what it held.
QString waitForText(const QString& path, const QString& text, int timeoutMs)
{
    QString content;
    detail::waitUntil([&] {
        content = QString::fromLocal8Bit(detail::readAll(path));
        return content.contains(text);
    }, timeoutMs);
    return content;
}

// "0: a|b|c" lines of `srun -l` as {task: fields}.
QMap<int, QStringList> byTask(const QString& out)
{
    QMap<int, QStringList> tasks;
    for (const QString& line : out.split('\n', Qt::SkipEmptyParts))
        tasks.insert(line.section(':', 0, 0).trimmed().toInt(), line.section(':', 1).trimmed().split('|'));
    return tasks;
}

// NAME=value lines as a map.
QMap<QString, QString> variables(const QString& text)
{
    QMap<QString, QString> vars;
    for (const QString& line : text.split('\n', Qt::SkipEmptyParts))
        vars.insert(line.section('=', 0, 0), line.section('=', 1));
    return vars;
}

// Whether something listens on TCP `port` (IPv4 or IPv6), by /proc/net/tcp*.
bool listening(int port)
{
    const QString local = QStringLiteral(":%1").arg(port, 4, 16, QLatin1Char('0')).toUpper();
    for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"})
        for (const QByteArray& line : detail::readAll(QString::fromLatin1(table)).split('\n')) {
            const QList<QByteArray> f = line.simplified().split(' ');
            if (f.size() > 3 && f[1].endsWith(local.toLatin1()) && f[3] == "0A") // 0A: LISTEN
                return true;
        }
    return false;
}

// What each task of a step prints: its SLURM_* variables, '|'-separated (empty when unset).
const QString kStepLine = QStringLiteral(
    "echo \"$SLURM_PROCID|$SLURMD_NODENAME|$SLURM_STEP_NODELIST|$SLURM_STEP_TASKS_PER_NODE|$SLURM_STEP_NUM_TASKS|"
    "$SLURM_STEP_NUM_NODES|$SLURM_NODEID|$SLURM_LOCALID\"");

void checkStep(const QString& out)
{
    const QMap<int, QStringList> tasks = byTask(out);
    QCOMPARE(tasks.keys(), (QList<int>{0, 1, 2, 3, 4}));
    // Block distribution: two tasks on n1, two on n2, one on n3.
    const QStringList nodes{"n1", "n1", "n2", "n2", "n3"};
    const QStringList localIds{"0", "1", "0", "1", "0"};
    for (int t = 0; t < 5; ++t) {
        const QStringList f = tasks.value(t);
        QCOMPARE(f.size(), 8);
        QCOMPARE(f[0], QString::number(t));           // SLURM_PROCID
        QCOMPARE(f[1], nodes[t]);                     // SLURMD_NODENAME
        QCOMPARE(f[2], QStringLiteral("n[1-3]"));     // SLURM_STEP_NODELIST
        QCOMPARE(f[3], QStringLiteral("2(x2),1"));    // SLURM_STEP_TASKS_PER_NODE
        QCOMPARE(f[4], QStringLiteral("5"));          // SLURM_STEP_NUM_TASKS
        QCOMPARE(f[5], QStringLiteral("3"));          // SLURM_STEP_NUM_NODES
        QCOMPARE(f[6], QString::number(t / 2));       // SLURM_NODEID
        QCOMPARE(f[7], localIds[t]);                  // SLURM_LOCALID
    }
}

} // namespace

class TestSlurmFixture : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        if (const QString why = SlurmCluster::skipReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
    }

    // srun -N3 -n5 straight from the client: five tasks, block-distributed, each with its
    // rank and the step's node list and tasks per node.
    void stepSeesItsTasks()
    {
        QElapsedTimer started;
        started.start();
        SlurmCluster cluster;
        QVERIFY2(cluster.isReady(), qPrintable(cluster.error()));
        qInfo("cluster up in %lld ms", started.elapsed());
        QCOMPARE(cluster.nodeNames(), (QStringList{"n1", "n2", "n3"}));
        QCOMPARE(cluster.nodeStates(), (QStringList{"idle", "idle", "idle"}));
        const RunResult r = cluster.run("srun", {"-N3", "-n5", "-l", "sh", "-c", kStepLine});
        QVERIFY2(r.ok(), qPrintable(r.describe()));
        checkStep(r.text());
    }

    // The batch script is a step of its own ("batch"): which SLURM_* variables it sees, and
    // that an srun inside it sees the same as one from outside.
    void batchScriptVariables()
    {
        SlurmCluster cluster;
        QVERIFY2(cluster.isReady(), qPrintable(cluster.error()));
        const QString script = cluster.path("batch.sh");
        QVERIFY(detail::writeAll(script,
                                 QStringLiteral("#!/bin/sh\n"
                                                "env | grep '^SLURM' | sort > %1\n"
                                                "srun -l sh -c '%2' > %3\n")
                                     .arg(cluster.path("batch.env"), QString(kStepLine).replace('\'', "'\\''"),
                                          cluster.path("step.out"))
                                     .toUtf8()));
        QString why;
        const QString job = cluster.submit({"-N3", "-n5", "-o", cluster.path("batch.out"), script}, &why);
        QVERIFY2(!job.isEmpty(), qPrintable(why));
        QStringList trail;
        QVERIFY2(cluster.waitForJobState(job, "COMPLETED", 30000, &trail),
                 qPrintable(trail.join(" -> ") + '\n' + QString::fromLocal8Bit(detail::readAll(cluster.path("batch.out")))));

        const QMap<QString, QString> env = variables(QString::fromLocal8Bit(detail::readAll(cluster.path("batch.env"))));
        qInfo("the batch script's SLURM_* variables: %s", qPrintable(QStringList(env.keys()).join(' ')));
        // The job's, as the launcher reads them.
        QCOMPARE(env.value("SLURM_JOB_ID"), job);
        QCOMPARE(env.value("SLURM_JOB_NODELIST"), QStringLiteral("n[1-3]"));
        QCOMPARE(env.value("SLURM_JOB_NUM_NODES"), QStringLiteral("3"));
        QCOMPARE(env.value("SLURM_NTASKS"), QStringLiteral("5"));
        QCOMPARE(env.value("SLURM_TASKS_PER_NODE"), QStringLiteral("2(x2),1"));
        QCOMPARE(env.value("SLURM_JOB_CPUS_PER_NODE"), QStringLiteral("2(x2),1"));
        QCOMPARE(env.value("SLURMD_NODENAME"), QStringLiteral("n1")); // the script runs on the first node
        // The batch step looks like task 0 of the job: SLURM_PROCID, SLURM_NODEID and
        // SLURM_LOCALID are set (all 0), so they alone do not tell a task of a step...
        QCOMPARE(env.value("SLURM_PROCID", "unset"), QStringLiteral("0"));
        QCOMPARE(env.value("SLURM_NODEID", "unset"), QStringLiteral("0"));
        QCOMPARE(env.value("SLURM_LOCALID", "unset"), QStringLiteral("0"));
        // ...but the step's own variables are not set in the batch script, only in an srun step.
        for (const char* stepOnly : {"SLURM_STEP_ID", "SLURM_STEPID", "SLURM_STEP_NUM_TASKS", "SLURM_STEP_NUM_NODES",
                                     "SLURM_STEP_NODELIST", "SLURM_STEP_TASKS_PER_NODE"})
            QVERIFY2(!env.contains(stepOnly), stepOnly);

        checkStep(QString::fromLocal8Bit(detail::readAll(cluster.path("step.out"))));
    }

    // A job that does not fit waits PENDING with reason Resources, and starts once the job
    // holding every CPU ends.
    void pendingUntilResources()
    {
        SlurmCluster cluster;
        QVERIFY2(cluster.isReady(), qPrintable(cluster.error()));
        QString why;
        const QString release = cluster.path("release");
        const QString first = cluster.submit({"-N3", "-n6", "-o", "/dev/null", "--wrap",
                                              QStringLiteral("while [ ! -e %1 ]; do sleep 0.1; done").arg(release)}, &why);
        QVERIFY2(!first.isEmpty(), qPrintable(why));
        QVERIFY2(cluster.waitForJobState(first, "RUNNING", 20000), qPrintable(cluster.jobState(first)));
        QCOMPARE(cluster.nodeStates(), (QStringList{"allocated", "allocated", "allocated"}));

        const QString second = cluster.submit({"-n1", "-o", "/dev/null", "--wrap", "true"}, &why);
        QVERIFY2(!second.isEmpty(), qPrintable(why));
        QString reason;
        QVERIFY2(detail::waitUntil([&] {
            reason = cluster.run("squeue", {"-h", "-j", second, "-o", "%T %r"}).text().trimmed();
            return reason == QLatin1String("PENDING Resources");
        }, 15000), qPrintable(reason));
        QCOMPARE(cluster.jobInfo(second).value("Reason"), QStringLiteral("Resources"));

        QFile(release).open(QIODevice::WriteOnly);
        QElapsedTimer released;
        released.start();
        QStringList trail;
        QVERIFY2(cluster.waitForJobState(second, "RUNNING|COMPLETED", 20000, &trail), qPrintable(trail.join(" -> ")));
        const qint64 startedAfter = released.elapsed();
        QVERIFY(cluster.waitForJobState(first, "COMPLETED", 20000));
        QVERIFY(cluster.waitForJobState(second, "COMPLETED", 20000));
        // Seconds: the first ended no later than the second started.
        QVERIFY(cluster.jobInfo(first).value("EndTime") <= cluster.jobInfo(second).value("StartTime"));
        qInfo("the pending job started %lld ms after the first was released (%s)", startedAfter,
              qPrintable(trail.join(" -> ")));
    }

    // A preemption's warning as a user sends it: USR2 to the batch script only, whose trap
    // requeues the job; it runs again (after cred_expire) with SLURM_RESTART_COUNT=1.
    void signalRequeuesTheJob()
    {
        SlurmCluster cluster;
        QVERIFY2(cluster.isReady(), qPrintable(cluster.error()));
        const QString script = cluster.path("requeue.sh");
        QVERIFY(detail::writeAll(script,
                                 "#!/bin/bash\n"
                                 "echo \"start restart=${SLURM_RESTART_COUNT:-unset}\"\n"
                                 "if [ -z \"$SLURM_RESTART_COUNT\" ]; then\n"
                                 "  trap 'echo USR2; scontrol requeue $SLURM_JOB_ID; echo \"requeue exit $?\"; exit 0' USR2\n"
                                 "  echo armed\n"
                                 "  while :; do sleep 0.1; done\n"
                                 "fi\n"
                                 "echo done\n"));
        const QString out = cluster.path("requeue.out");
        QString why;
        const QString job = cluster.submit({"-n1", "--open-mode=append", "-o", out, script}, &why);
        QVERIFY2(!job.isEmpty(), qPrintable(why));
        QVERIFY2(waitForText(out, "armed", 20000).contains("armed"), qPrintable(cluster.jobState(job)));

        QElapsedTimer signalled;
        signalled.start();
        const RunResult sent = cluster.run("scancel", {"--signal=USR2", "-b", job});
        QVERIFY2(sent.ok(), qPrintable(sent.describe()));
        QStringList trail;
        QVERIFY2(cluster.waitForJobState(job, "PENDING", 10000, &trail), qPrintable(trail.join(" -> ")));
        const qint64 pendingAfter = signalled.elapsed();
        // Held until its BeginTime: now + cred_expire (the reason may show None a moment first).
        QHash<QString, QString> held;
        QVERIFY2(detail::waitUntil([&] {
            held = cluster.jobInfo(job);
            return held.value("Reason") == QLatin1String("BeginTime") || held.value("JobState") != QLatin1String("PENDING");
        }, 5000), qPrintable(held.value("JobState") + ' ' + held.value("Reason")));
        QCOMPARE(held.value("JobState") + ' ' + held.value("Reason"), QStringLiteral("PENDING BeginTime"));
        QCOMPARE(held.value("Restarts"), QStringLiteral("1"));
        const QString again = waitForText(out, "start restart=1", (cluster.options().credExpireS + 20) * 1000);
        QVERIFY2(again.contains("start restart=1"), qPrintable(again + trail.join(" -> ")));
        const qint64 restartedAfter = signalled.elapsed();
        QVERIFY2(cluster.waitForJobState(job, "COMPLETED", 20000, &trail), qPrintable(trail.join(" -> ")));

        // Both runs' output, in order; slurmstepd's line about the requeue lands among them.
        const QString text = QString::fromLocal8Bit(detail::readAll(out));
        QStringList lines = text.split('\n', Qt::SkipEmptyParts);
        const QStringList fromSlurm = lines.filter(QRegularExpression("^slurmstepd"));
        for (const QString& line : fromSlurm)
            lines.removeOne(line);
        QCOMPARE(lines, (QStringList{"start restart=unset", "armed", "USR2", "requeue exit 0", "start restart=1", "done"}));
        // (Not always: the script may have ended, after its requeue, before slurmstepd writes.)
        QVERIFY2(fromSlurm.size() <= 1, qPrintable(text));
        for (const QString& line : fromSlurm)
            QVERIFY2(line.contains(QStringLiteral("JOB %1 ON n1 CANCELLED AT").arg(job)) && line.endsWith("DUE TO JOB REQUEUE ***"),
                     qPrintable(line));
        const QHash<QString, QString> info = cluster.jobInfo(job);
        QCOMPARE(info.value("Restarts"), QStringLiteral("1"));
        QCOMPARE(info.value("ExitCode"), QStringLiteral("0:0"));
        // Held for cred_expire (the default 120 s without it).
        QVERIFY2(restartedAfter >= (cluster.options().credExpireS - 1) * 1000, qPrintable(QString::number(restartedAfter)));
        qInfo("requeued (PENDING) %lld ms after the signal, running again after %lld ms (cred_expire=%d): %s",
              pendingAfter, restartedAfter, cluster.options().credExpireS, qPrintable(trail.join(" -> ")));
    }

    // A node lost under running jobs: SlurmdTimeout + 2 x MessageTimeout later it is DOWN
    // (Not responding); a job submitted with --no-requeue ends NODE_FAIL (NodeDown) and its
    // tasks on the other nodes are ended by Slurm; a batch job (requeueable by default) is
    // requeued and runs again once the node is back (ReturnToService=2).
    void lostNode()
    {
        SlurmCluster::Options options;
        options.messageTimeoutS = 5; // DOWN about 15 s after the loss instead of 25
        SlurmCluster cluster(options);
        QVERIFY2(cluster.isReady(), qPrintable(cluster.error()));
        QString why;
        const QString failing = cluster.submit({"--no-requeue", "-N3", "-n3", "-o", cluster.path("failing.out"),
                                                "--wrap", "srun sleep 300"}, &why);
        QVERIFY2(!failing.isEmpty(), qPrintable(why));
        const QString requeued = cluster.submit({"-N3", "-n3", "-o", cluster.path("requeued.out"),
                                                 "--wrap", "srun sleep 300"}, &why);
        QVERIFY2(!requeued.isEmpty(), qPrintable(why));
        QCOMPARE(cluster.jobInfo(requeued).value("Requeue"), QStringLiteral("1"));
        QCOMPARE(cluster.jobInfo(failing).value("Requeue"), QStringLiteral("0"));
        // Both steps running on every node: each node's slurmd holds its log, and so do the
        // slurmstepd of the two batch steps (on n1) and of the two srun steps (everywhere).
        const auto nodeProcesses = [&](int i) { return detail::processesUsing(cluster.logPath("slurmd-" + cluster.nodeName(i))); };
        QVERIFY2(detail::waitUntil([&] {
            return nodeProcesses(0).size() == 5 && nodeProcesses(1).size() == 3 && nodeProcesses(2).size() == 3;
        }, 20000), qPrintable(QStringLiteral("%1 %2 %3").arg(nodeProcesses(0).size()).arg(nodeProcesses(1).size())
                                  .arg(nodeProcesses(2).size())));
        QCOMPARE(cluster.jobState(failing), QStringLiteral("RUNNING"));
        QCOMPARE(cluster.jobState(requeued), QStringLiteral("RUNNING"));

        QElapsedTimer lost;
        lost.start();
        QVERIFY(cluster.killNode(1));
        QVERIFY(nodeProcesses(1).isEmpty());
        QStringList trail;
        QVERIFY2(cluster.waitForJobState(failing, "NODE_FAIL", 60000, &trail), qPrintable(trail.join(" -> ")));
        const qint64 failedAfter = lost.elapsed();
        QCOMPARE(cluster.jobInfo(failing).value("Reason"), QStringLiteral("NodeDown"));
        QCOMPARE(cluster.nodeStates().value(1), QStringLiteral("down*"));
        QCOMPARE(cluster.nodeReason(1), QStringLiteral("Not responding"));
        // The requeueable job: back to PENDING, its first run counted.
        QStringList requeuedTrail;
        QVERIFY2(cluster.waitForJobState(requeued, "PENDING", 20000, &requeuedTrail), qPrintable(requeuedTrail.join(" -> ")));
        QCOMPARE(cluster.jobInfo(requeued).value("Restarts"), QStringLiteral("1"));
        // Slurm ends the tasks on the nodes that remain: only their slurmd holds the log.
        QVERIFY2(detail::waitUntil([&] { return nodeProcesses(0).size() == 1 && nodeProcesses(2).size() == 1; }, 20000),
                 qPrintable(QStringLiteral("%1 %2").arg(nodeProcesses(0).size()).arg(nodeProcesses(2).size())));
        const QString failingOut = QString::fromLocal8Bit(detail::readAll(cluster.path("failing.out")));
        QVERIFY2(failingOut.contains("DUE TO NODE FAILURE"), qPrintable(failingOut));
        const QString pendingReason = cluster.jobInfo(requeued).value("Reason");
        qInfo("node lost: NODE_FAIL after %lld ms (%s); the requeueable job %s, reason %s", failedAfter,
              qPrintable(trail.join(" -> ")), qPrintable(requeuedTrail.join(" -> ")), qPrintable(pendingReason));

        // The node back: idle again, and the requeued job runs on it.
        QElapsedTimer back;
        back.start();
        QVERIFY(cluster.startNode(1));
        QVERIFY2(cluster.waitForJobState(requeued, "RUNNING", 40000, &requeuedTrail), qPrintable(requeuedTrail.join(" -> ")));
        QCOMPARE(cluster.jobInfo(requeued).value("NodeList"), QStringLiteral("n[1-3]"));
        qInfo("node back: the requeued job running again after %lld ms (%s)", back.elapsed(),
              qPrintable(requeuedTrail.join(" -> ")));
    }

    // A daemon that does not start is named, with its log's tail, and nothing is left.
    void namesADaemonThatDidNotStart()
    {
        SlurmCluster::Options options;
        options.extraConfig = QStringLiteral("NoSuchParameter=1");
        QString dir;
        {
            SlurmCluster cluster(options);
            QVERIFY(!cluster.isReady());
            QVERIFY2(cluster.error().startsWith("slurmctld did not start: "), qPrintable(cluster.error()));
            QVERIFY2(cluster.error().contains("NoSuchParameter"), qPrintable(cluster.error()));
            qInfo("%s", qPrintable(cluster.error()));
            dir = cluster.dir();
        }
        QVERIFY(!QFileInfo::exists(dir));
        QVERIFY(detail::processesUsing(dir).isEmpty());
    }

    // The fixture gone with a job running: no process of it left, its directory and ports free.
    void leavesNothingBehind()
    {
        QString dir;
        int port = 0;
        {
            SlurmCluster cluster;
            QVERIFY2(cluster.isReady(), qPrintable(cluster.error()));
            dir = cluster.dir();
            port = cluster.controllerPort();
            QVERIFY(listening(port));
            QString why;
            const QString job = cluster.submit({"-N3", "-n3", "-o", "/dev/null", "--wrap", "srun sleep 300"}, &why);
            QVERIFY2(!job.isEmpty(), qPrintable(why));
            QVERIFY(detail::waitUntil([&] {
                return detail::processesUsing(cluster.logPath("slurmd-n3")).size() == 2; // slurmd and the step
            }, 20000));
            QVERIFY(!detail::processesUsing(dir).isEmpty());
        }
        QVERIFY(!QFileInfo::exists(dir));
        QVERIFY(detail::processesUsing(dir).isEmpty());
        QVERIFY(!listening(port)); // (connections of its may linger in TIME_WAIT)
    }
};

QTEST_GUILESS_MAIN(TestSlurmFixture)
#include "tst_slurm_fixture.moc"
