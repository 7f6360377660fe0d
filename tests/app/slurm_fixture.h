#pragma once
// SlurmCluster: a real Slurm (Debian's slurm-wlm 22.05) for one test, on this machine, in a
// temporary directory of its own: munged on its own socket and key, one slurmctld and N slurmd
// (`slurmd -N nX`), all on free ports (tests/free_ports.h), so that test processes side by side
// and a system munged or Slurm never meet. Nothing outside the directory is written: node names
// need no /etc/hosts lines (every node is `NodeHostname=<this host>` with its own NodeAddr
// 127.0.0.x and port), and munged's socket reaches the daemons and clients through
// `AuthInfo=socket=...` in the generated slurm.conf, which SLURM_CONF names for both.
//
//   SlurmCluster cluster;                                   // 3 nodes n1..n3, 2 CPUs each
//   if (const QString why = SlurmCluster::skipReason(); !why.isEmpty()) QSKIP(qPrintable(why));
//   QVERIFY2(cluster.isReady(), qPrintable(cluster.error())); // a daemon's log tail if not
//   const QString job = cluster.submit({"-N2", "--wrap", "srun hostname"});
//   QVERIFY(cluster.waitForJobState(job, "COMPLETED", 20000));
//   cluster.killNode(1);                                    // n2's slurmd and its steps, gone
//
// NodeNames (below) makes the node names resolve (/etc/hosts lines of its own), for jobs whose
// tasks address each other by node name as Strata's Slurm resolver does.
//
// Client commands (sbatch, srun, squeue, scontrol, ...) run through run(), or with
// environment() (SLURM_CONF set, any SLURM_* / SBATCH_* / SRUN_* / SALLOC_* variables of the
// test's own environment removed). Job output paths are best put under dir(). The settings
// are the quick ones of a test: a short KillWait, sched_interval=1, cred_expire=10 (a
// requeued job starts again about 11 s later), SlurmdTimeout=5 (a lost node is DOWN about
// SlurmdTimeout + 2 x MessageTimeout later: 25 s with the default MessageTimeout=10, 15 s with
// 5), ReturnToService=2 (a node that comes back, startNode(), is used again).
//
// Needs root (slurmd runs jobs as their users; SlurmUser=root). Everything is stopped when the
// fixture goes, which is also when a test fails: every job cancelled, the daemons stopped by
// their pids (SIGTERM, SIGKILL after a bounded wait), whatever still uses the directory
// (slurmstepd, which detaches from slurmd, and the jobs' processes under it) killed, the
// directory removed. Leftovers of test processes that died before that are removed on
// construction (directories named strata-slurm-<pid>-*, and the processes using them).
//
// Which processes belong to a node: slurmstepd detaches from slurmd (its parent is PID 1) and
// overwrites its environment with its title, but it keeps the node's log file open (fd 3), so
// a node's processes are its slurmd and every process holding DIR/log/slurmd-nX.log, with
// their trees.

#include "../free_ports.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QStringList>
#include <QTemporaryDir>
#include <QThread>

#include <csignal>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace slurmtest {

struct SlurmClusterOptions {
    int nodes = 3;
    int cpusPerNode = 2;
    int realMemoryMb = 1000; // at most what slurmd detects (more drains the node)
    QString partition = QStringLiteral("debug");
    int killWaitS = 2;       // KillWait: SIGTERM to SIGKILL of a cancelled step
    int schedIntervalS = 1;  // SchedulerParameters=sched_interval
    int credExpireS = 10;    // AuthInfo=cred_expire (Slurm accepts 5 and up): a requeue's delay
    int slurmdTimeoutS = 5;  // SlurmdTimeout: how soon a silent node is marked DOWN
    int messageTimeoutS = 10; // MessageTimeout (Slurm's default): a lost node's pings fail
                              // after it, so it is DOWN about SlurmdTimeout + 2x this later
    QString extraConfig;     // lines appended to slurm.conf
    int startTimeoutMs = 30000;
};

// What a client command did: exitCode -1 when it did not start, crashed or timed out.
struct RunResult {
    int exitCode = -1;
    QByteArray out, err;
    bool ok() const { return exitCode == 0; }
    QString text() const { return QString::fromLocal8Bit(out); }
    QString describe() const
    {
        return QStringLiteral("exit %1, stdout: %2, stderr: %3")
            .arg(exitCode).arg(QString::fromLocal8Bit(out).trimmed(), QString::fromLocal8Bit(err).trimmed());
    }
};

namespace detail {

inline QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

inline bool writeAll(const QString& path, const QByteArray& bytes, QFile::Permissions permissions = {})
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(bytes) != bytes.size())
        return false;
    return permissions == QFile::Permissions{} || f.setPermissions(permissions);
}

// The last `lines` lines of a file.
inline QString tail(const QString& path, int lines = 15)
{
    const QStringList all = QString::fromLocal8Bit(readAll(path)).split('\n', Qt::SkipEmptyParts);
    return all.mid(qMax(0, int(all.size()) - lines)).join('\n');
}

// Polls `done` every `intervalMs` until it holds or `timeoutMs` passed: true when it held.
template <class Done>
bool waitUntil(Done&& done, int timeoutMs, int intervalMs = 50)
{
    QElapsedTimer waited;
    waited.start();
    for (;;) {
        if (done())
            return true;
        if (waited.elapsed() >= timeoutMs)
            return false;
        QThread::msleep(quint32(intervalMs));
    }
}

inline QList<pid_t> allPids()
{
    QList<pid_t> pids;
    for (const QString& entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        bool numeric = false;
        const pid_t pid = pid_t(entry.toInt(&numeric));
        if (numeric)
            pids << pid;
    }
    return pids;
}

// /proc/PID/stat: "pid (comm) state ppid ...", comm may hold spaces.
inline QList<QByteArray> statFields(pid_t pid)
{
    const QByteArray stat = readAll(QStringLiteral("/proc/%1/stat").arg(pid));
    return stat.mid(stat.lastIndexOf(')') + 2).split(' ');
}

// Running (not gone, not a zombie: slurmstepd's parent is PID 1, which may not reap here).
inline bool alive(pid_t pid)
{
    const QList<QByteArray> fields = statFields(pid);
    return !fields.isEmpty() && !fields[0].isEmpty() && fields[0] != "Z" && fields[0] != "X";
}

// `roots` and every process below them, by their parents in /proc.
inline QList<pid_t> processTrees(const QList<pid_t>& roots)
{
    QHash<pid_t, QList<pid_t>> children;
    for (pid_t pid : allPids()) {
        const QList<QByteArray> fields = statFields(pid);
        if (fields.size() > 1)
            children[pid_t(fields[1].toInt())] << pid;
    }
    QList<pid_t> tree;
    for (pid_t root : roots)
        if (root > 0 && !tree.contains(root))
            tree << root;
    for (qsizetype i = 0; i < tree.size(); ++i)
        for (pid_t child : children.value(tree[i]))
            if (!tree.contains(child))
                tree << child;
    return tree;
}

// Processes that hold a file whose path starts with `prefix` open, or name it in their
// command line (munged's options, a batch script's path); never this process.
inline QList<pid_t> processesUsing(const QString& prefix)
{
    QList<pid_t> found;
    const QByteArray encoded = QFile::encodeName(prefix);
    for (pid_t pid : allPids()) {
        if (pid == ::getpid())
            continue;
        bool uses = readAll(QStringLiteral("/proc/%1/cmdline").arg(pid)).contains(encoded);
        const QString fdDir = QStringLiteral("/proc/%1/fd").arg(pid);
        const QStringList fds = uses ? QStringList() : QDir(fdDir).entryList(QDir::AllEntries | QDir::System | QDir::NoDotAndDotDot);
        for (const QString& fd : fds) {
            char target[4096];
            const ssize_t n = ::readlink(QFile::encodeName(fdDir + '/' + fd).constData(), target, sizeof target - 1);
            if (n > 0 && QByteArray(target, int(n)).startsWith(encoded)) {
                uses = true;
                break;
            }
        }
        if (uses)
            found << pid;
    }
    return found;
}

// SIGKILL to every process of the trees under `roots` (collected first, so that an orphan is
// not missed), then waits (bounded) for them to go.
inline void killTrees(const QList<pid_t>& roots, int waitMs = 5000)
{
    const QList<pid_t> tree = processTrees(roots);
    for (pid_t pid : tree)
        ::kill(pid, SIGKILL);
    waitUntil([&] {
        for (pid_t pid : tree)
            if (alive(pid))
                return false;
        return true;
    }, waitMs, 10);
}

inline QString shortHostName()
{
    char name[256] = {};
    ::gethostname(name, sizeof name - 1);
    return QString::fromLocal8Bit(name).section('.', 0, 0);
}

} // namespace detail

class SlurmCluster {
public:
    using Options = SlurmClusterOptions;

    // Why a real Slurm cannot run here (not root, a package missing); empty when it can.
    static QString skipReason()
    {
        if (::geteuid() != 0)
            return QStringLiteral("the Slurm tests need root (slurmd runs jobs as their users; SlurmUser=root)");
        const QList<QPair<QString, QString>> needed{
            {"/usr/sbin/munged", "munge"}, {"/usr/bin/munge", "munge"},
            {"/usr/sbin/slurmctld", "slurmctld"}, {"/usr/sbin/slurmd", "slurmd"},
            {"/usr/sbin/slurmstepd", "slurmd"}, {"/usr/bin/sbatch", "slurm-client"},
            {"/usr/bin/srun", "slurm-client"}, {"/usr/bin/squeue", "slurm-client"},
            {"/usr/bin/scontrol", "slurm-client"}, {"/usr/bin/sinfo", "slurm-client"},
            {"/usr/bin/scancel", "slurm-client"}};
        for (const auto& [path, package] : needed)
            if (!QFileInfo(path).isExecutable())
                return QStringLiteral("no %1 (Debian's %2; scripts/install-deps.sh installs it)").arg(path, package);
        return {};
    }

    explicit SlurmCluster(Options options = {})
        : m_options(std::move(options)),
          m_dir(QDir::tempPath() + QStringLiteral("/strata-slurm-%1-XXXXXX").arg(::getpid()))
    {
        if (const QString why = skipReason(); !why.isEmpty()) {
            m_error = why;
            return;
        }
        removeLeftovers();
        if (!m_dir.isValid()) {
            m_error = QStringLiteral("no temporary directory");
            return;
        }
        for (int i = 0; i < m_options.nodes; ++i)
            m_nodes.push_back({QStringLiteral("n%1").arg(i + 1), QStringLiteral("127.0.0.%1").arg(11 + i), 0, nullptr});
        // munged wants every directory above its socket searchable by all.
        ::chmod(QFile::encodeName(m_dir.path()).constData(), 0755);
        for (const char* sub : {"munge", "state", "spool", "log"})
            QDir(m_dir.path()).mkpath(QString::fromLatin1(sub));
        ::chmod(QFile::encodeName(path("munge")).constData(), 0755);
        if (!startMunge())
            return;
        // The ports were free a moment ago; one taken meanwhile is tried again with others.
        for (int attempt = 0; attempt < 3; ++attempt) {
            m_error.clear();
            if (startSlurm() || !portTaken())
                break;
            stopSlurm();
        }
    }

    ~SlurmCluster() { stop(); }
    SlurmCluster(const SlurmCluster&) = delete;
    SlurmCluster& operator=(const SlurmCluster&) = delete;

    bool isReady() const { return m_error.isEmpty() && m_ctld; }
    const QString& error() const { return m_error; }
    const Options& options() const { return m_options; }
    QString dir() const { return m_dir.path(); }
    QString path(const QString& name) const { return m_dir.filePath(name); }
    QString confPath() const { return path("slurm.conf"); }
    QString mungeSocket() const { return path("munge/munge.sock"); }
    QString partition() const { return m_options.partition; }
    int controllerPort() const { return m_ctldPort; }
    int nodeCount() const { return int(m_nodes.size()); }
    QString nodeName(int i) const { return m_nodes[size_t(i)].name; }
    QStringList nodeNames() const
    {
        QStringList names;
        for (const Node& n : m_nodes)
            names << n.name;
        return names;
    }
    // "n[1-3]", as Slurm writes the whole cluster's node list.
    QString nodeList() const { return nodeCount() == 1 ? nodeName(0) : QStringLiteral("n[1-%1]").arg(nodeCount()); }
    // The daemons' logs: "slurmctld", "slurmd-n1", ..., "munged".
    QString logPath(const QString& daemon) const
    {
        return daemon == QLatin1String("munged") ? path("munge/munged.out") : path("log/" + daemon + ".log");
    }
    QString logTail(const QString& daemon, int lines = 15) const { return detail::tail(logPath(daemon), lines); }

    // For client commands: this environment with SLURM_CONF, and none of the SLURM_* (and
    // SBATCH_*, SRUN_*, SALLOC_*) variables this process may have from a Slurm job of its own.
    QProcessEnvironment environment() const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const QString& key : env.keys())
            if (key.startsWith("SLURM_") || key.startsWith("SBATCH_") || key.startsWith("SRUN_") || key.startsWith("SALLOC_"))
                env.remove(key);
        env.insert("SLURM_CONF", confPath());
        return env;
    }

    // Runs a client command (sbatch, srun, squeue, scontrol, ...) to its end, in dir().
    RunResult run(const QString& program, const QStringList& args, int timeoutMs = 30000) const
    {
        QProcess p;
        p.setProcessEnvironment(environment());
        p.setWorkingDirectory(dir());
        p.start(program, args);
        RunResult r;
        if (!p.waitForStarted(10000)) {
            r.err = p.errorString().toLocal8Bit();
            return r;
        }
        const bool finished = p.waitForFinished(timeoutMs);
        if (!finished) {
            p.kill();
            p.waitForFinished(3000);
        }
        r.out = p.readAllStandardOutput();
        r.err = p.readAllStandardError();
        if (finished && p.exitStatus() == QProcess::NormalExit)
            r.exitCode = p.exitCode();
        return r;
    }

    // sbatch --parsable with `args`: the job's id, or empty (why in *why).
    QString submit(const QStringList& args, QString* why = nullptr) const
    {
        const RunResult r = run("sbatch", QStringList{"--parsable"} + args);
        const QString id = r.text().trimmed().section(';', 0, 0);
        if (r.ok() && !id.isEmpty())
            return id;
        if (why)
            *why = QStringLiteral("sbatch %1: %2").arg(args.join(' '), r.describe());
        return {};
    }

    // `scontrol show job -o ID` as keys and values (JobState, Reason, Restarts, NodeList,
    // ExitCode, ...); empty once Slurm has forgotten the job (MinJobAge, 300 s).
    QHash<QString, QString> jobInfo(const QString& jobId) const
    {
        return parseFields(run("scontrol", {"show", "job", "-o", jobId}).text().trimmed());
    }
    QString jobState(const QString& jobId) const { return jobInfo(jobId).value("JobState"); }

    // Polls the job's state until it is one of `states` ("RUNNING", or "COMPLETED|FAILED"):
    // false at the deadline, or at once when the job reached another state it does not leave
    // (COMPLETED, FAILED, CANCELLED, TIMEOUT, ...; not NODE_FAIL or PREEMPTED, which a
    // requeue leaves). *trail, when given, gets each state seen, as "STATE(Reason)".
    bool waitForJobState(const QString& jobId, const QString& states, int timeoutMs, QStringList* trail = nullptr) const
    {
        static const QStringList kFinal{"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY"};
        const QStringList wanted = states.split('|');
        bool finalOther = false;
        const bool reached = detail::waitUntil([&] {
            const QHash<QString, QString> info = jobInfo(jobId);
            const QString state = info.value("JobState");
            const QString seen = QStringLiteral("%1(%2)").arg(state, info.value("Reason"));
            if (trail && !state.isEmpty() && (trail->isEmpty() || trail->last() != seen))
                *trail << seen;
            finalOther = kFinal.contains(state) && !wanted.contains(state);
            return wanted.contains(state) || finalOther;
        }, timeoutMs);
        return reached && !finalOther;
    }

    // Each node's state as sinfo writes it ("idle", "allocated", "down*", ...), in node order.
    QStringList nodeStates() const
    {
        QHash<QString, QString> byName;
        for (const QString& line : run("sinfo", {"-h", "-N", "-o", "%N %T"}).text().split('\n', Qt::SkipEmptyParts))
            byName.insert(line.section(' ', 0, 0), line.section(' ', 1, 1));
        QStringList states;
        for (const Node& n : m_nodes)
            states << byName.value(n.name);
        return states;
    }
    // The reason Slurm gives for node i's state ("Not responding", ...; "none" when none).
    QString nodeReason(int i) const { return run("sinfo", {"-h", "-n", nodeName(i), "-o", "%E"}).text().trimmed(); }

    // Polls sinfo until node i is in `state` (or every node, with i = -1).
    bool waitForNodeState(int i, const QString& state, int timeoutMs) const
    {
        return detail::waitUntil([&] {
            const QStringList states = nodeStates();
            if (i >= 0)
                return states.value(i) == state;
            for (const QString& s : states)
                if (s != state)
                    return false;
            return !states.isEmpty();
        }, timeoutMs);
    }
    bool waitForNodesIdle(int timeoutMs = 30000) const { return waitForNodeState(-1, QStringLiteral("idle"), timeoutMs); }

    // "Node i lost": its slurmd and every process it started (the steps' slurmstepd and the
    // jobs' processes under them) killed with SIGKILL, without a word to slurmctld. False
    // when its slurmd was not running.
    bool killNode(int i)
    {
        Node& n = m_nodes[size_t(i)];
        if (!n.slurmd || n.slurmd->state() == QProcess::NotRunning)
            return false;
        QList<pid_t> roots = detail::processesUsing(logPath("slurmd-" + n.name));
        roots.prepend(pid_t(n.slurmd->processId()));
        detail::killTrees(roots);
        n.slurmd->waitForFinished(3000);
        n.slurmd.reset();
        return true;
    }

    // Starts node i's slurmd again (after killNode); with ReturnToService=2 the node is used
    // again once it registers (waitForNodeState(i, "idle", ...)).
    bool startNode(int i)
    {
        Node& n = m_nodes[size_t(i)];
        if (n.slurmd && n.slurmd->state() != QProcess::NotRunning)
            return true;
        n.slurmd = startDaemon("/usr/sbin/slurmd", {"-D", "-N", n.name}, path("log/slurmd-" + n.name + ".out"));
        return n.slurmd != nullptr;
    }

    // Every job cancelled, and given a moment to end its steps the ordinary way: whether the
    // queue is empty now.
    bool cancelAll() const
    {
        const QStringList jobs = run("squeue", {"-h", "-o", "%A"}).text().split('\n', Qt::SkipEmptyParts);
        if (jobs.isEmpty())
            return true;
        run("scancel", jobs);
        return detail::waitUntil([&] { return run("squeue", {"-h", "-o", "%A"}).text().trimmed().isEmpty(); },
                                 (m_options.killWaitS + 3) * 1000, 100);
    }

    // Everything stopped and removed (also by the destructor).
    void stop()
    {
        if (m_ctld && m_ctld->state() == QProcess::Running)
            cancelAll();
        stopSlurm();
        if (m_munged) {
            stopProcesses({m_munged.get()});
            m_munged.reset();
        }
        // Whatever is left: detached slurmstepd, jobs' processes, a munged of ours.
        if (m_dir.isValid())
            detail::killTrees(detail::processesUsing(m_dir.path()));
        m_dir.remove();
    }

private:
    struct Node {
        QString name, address;
        int port = 0;
        std::unique_ptr<QProcess> slurmd;
    };

    static QHash<QString, QString> parseFields(const QString& line)
    {
        QHash<QString, QString> fields;
        static const QRegularExpression key(QStringLiteral("(?:^|\\s)([A-Za-z][A-Za-z0-9_:/]*)="));
        QList<QRegularExpressionMatch> keys;
        for (auto it = key.globalMatch(line); it.hasNext();)
            keys << it.next();
        for (qsizetype k = 0; k < keys.size(); ++k) {
            const qsizetype from = keys[k].capturedEnd(0);
            const qsizetype to = k + 1 < keys.size() ? keys[k + 1].capturedStart(0) : line.size();
            fields.insert(keys[k].captured(1), line.mid(from, to - from).trimmed());
        }
        return fields;
    }

    bool fail(const QString& why)
    {
        m_error = why;
        return false;
    }

    std::unique_ptr<QProcess> startDaemon(const QString& program, const QStringList& args, const QString& output)
    {
        auto p = std::make_unique<QProcess>();
        QProcessEnvironment env = environment();
        p->setProcessEnvironment(env);
        p->setWorkingDirectory(dir());
        p->setProcessChannelMode(QProcess::MergedChannels);
        p->setStandardOutputFile(output, QIODevice::Append);
        p->start(program, args);
        if (!p->waitForStarted(10000)) {
            fail(QStringLiteral("%1 did not start: %2").arg(program, p->errorString()));
            return nullptr;
        }
        return p;
    }

    static bool running(QProcess* p)
    {
        if (!p)
            return false;
        p->waitForFinished(0); // notices an exit, which state() alone does not
        return p->state() == QProcess::Running;
    }

    bool startMunge()
    {
        QByteArray key(1024, '\0');
        QRandomGenerator::system()->fillRange(reinterpret_cast<quint32*>(key.data()), key.size() / 4);
        if (!detail::writeAll(path("munge/munge.key"), key, QFile::ReadOwner | QFile::WriteOwner))
            return fail(QStringLiteral("cannot write the munge key"));
        m_munged = startDaemon("/usr/sbin/munged",
                               {"-F", "--socket=" + mungeSocket(), "--pid-file=" + path("munge/munged.pid"),
                                "--key-file=" + path("munge/munge.key"), "--log-file=" + path("munge/munged.log"),
                                "--seed-file=" + path("munge/munged.seed")},
                               path("munge/munged.out"));
        if (!m_munged)
            return false;
        const bool up = detail::waitUntil([&] {
            if (!running(m_munged.get()))
                return true;
            if (!QFileInfo::exists(mungeSocket()))
                return false;
            QProcess encode;
            encode.start("/usr/bin/munge", {"-n", "--socket=" + mungeSocket()});
            return encode.waitForFinished(5000) && encode.exitStatus() == QProcess::NormalExit && encode.exitCode() == 0;
        }, m_options.startTimeoutMs);
        if (up && running(m_munged.get()))
            return true;
        return fail(QStringLiteral("munged did not start: %1").arg(logTail("munged")));
    }

    QString config() const
    {
        const QString d = dir();
        QString c = QStringLiteral(
            "# Written by tests/app/slurm_fixture.h for one test.\n"
            "ClusterName=strata\n"
            "SlurmctldHost=%1(127.0.0.1)\n"
            "SlurmctldPort=%2\n"
            "SlurmUser=root\n"
            "SlurmdUser=root\n"
            "AuthType=auth/munge\n"
            "CredType=cred/munge\n"
            "AuthInfo=socket=%3,cred_expire=%4\n"
            "MpiDefault=none\n"
            "ProctrackType=proctrack/linuxproc\n"
            "TaskPlugin=task/none\n"
            "JobAcctGatherType=jobacct_gather/none\n"
            "AccountingStorageType=accounting_storage/none\n"
            "SelectType=select/cons_tres\n"
            "SelectTypeParameters=CR_Core\n"
            "ReturnToService=2\n"
            "SlurmdTimeout=%5\n"
            "MessageTimeout=%9\n"
            "KillWait=%6\n"
            "SchedulerParameters=sched_interval=%7\n"
            "MailProg=/bin/true\n"
            "StateSaveLocation=%8/state\n"
            "SlurmdSpoolDir=%8/spool/%n\n"
            "SlurmctldPidFile=%8/slurmctld.pid\n"
            "SlurmdPidFile=%8/slurmd-%n.pid\n"
            "SlurmctldLogFile=%8/log/slurmctld.log\n"
            "SlurmdLogFile=%8/log/slurmd-%n.log\n")
            .arg(detail::shortHostName()).arg(m_ctldPort).arg(mungeSocket()).arg(m_options.credExpireS)
            .arg(m_options.slurmdTimeoutS).arg(m_options.killWaitS).arg(m_options.schedIntervalS).arg(d).arg(m_options.messageTimeoutS);
        for (const Node& n : m_nodes)
            c += QStringLiteral("NodeName=%1 NodeHostname=%2 NodeAddr=%3 Port=%4 CPUs=%5 RealMemory=%6 State=UNKNOWN\n")
                     .arg(n.name, detail::shortHostName(), n.address).arg(n.port).arg(m_options.cpusPerNode)
                     .arg(m_options.realMemoryMb);
        c += QStringLiteral("PartitionName=%1 Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n").arg(m_options.partition);
        if (!m_options.extraConfig.isEmpty())
            c += m_options.extraConfig + '\n';
        return c;
    }

    bool startSlurm()
    {
        try {
            m_ctldPort = testing::freePorts(1 + nodeCount());
        } catch (const std::exception& e) {
            return fail(QString::fromLocal8Bit(e.what()));
        }
        for (int i = 0; i < nodeCount(); ++i)
            m_nodes[size_t(i)].port = m_ctldPort + 1 + i;
        if (!detail::writeAll(confPath(), config().toUtf8()))
            return fail(QStringLiteral("cannot write %1").arg(confPath()));
        for (const QString& log : QDir(path("log")).entryList(QDir::Files))
            QFile::remove(path("log/" + log));
        m_ctld = startDaemon("/usr/sbin/slurmctld", {"-D"}, path("log/slurmctld.out"));
        if (!m_ctld)
            return false;
        const bool answered = detail::waitUntil([&] {
            return !running(m_ctld.get()) || run("scontrol", {"ping"}, 5000).text().contains(QLatin1String("is UP"));
        }, m_options.startTimeoutMs, 100);
        if (!answered || !running(m_ctld.get()))
            return fail(QStringLiteral("slurmctld did not start: %1").arg(detail::tail(path("log/slurmctld.out"))));
        for (int i = 0; i < nodeCount(); ++i)
            if (!startNode(i))
                return false;
        // Every node registered and idle, or a slurmd that exited (its port taken, a bad line)
        // named with its log.
        const bool settled = detail::waitUntil([&] {
            for (const Node& n : m_nodes)
                if (!running(n.slurmd.get()))
                    return true;
            return waitForNodesIdle(0);
        }, m_options.startTimeoutMs, 100);
        for (const Node& n : m_nodes)
            if (!running(n.slurmd.get()))
                return fail(QStringLiteral("slurmd %1 did not start: %2").arg(n.name, detail::tail(path("log/slurmd-" + n.name + ".out"))));
        if (!settled)
            return fail(QStringLiteral("the nodes were not idle within %1 ms: %2\n%3")
                            .arg(m_options.startTimeoutMs)
                            .arg(run("sinfo", {"-N", "-o", "%N %T %E"}).text(), allLogTails()));
        return true;
    }

    bool portTaken() const
    {
        QString logs;
        for (const QString& out : QDir(path("log")).entryList({"*.out"}, QDir::Files))
            logs += QString::fromLocal8Bit(detail::readAll(path("log/" + out)));
        return logs.contains(QLatin1String("Address already in use"));
    }

    QString allLogTails() const
    {
        QString text = "slurmctld:\n" + detail::tail(path("log/slurmctld.out"), 8);
        for (const Node& n : m_nodes)
            text += "\nslurmd " + n.name + ":\n" + detail::tail(path("log/slurmd-" + n.name + ".out"), 8);
        return text;
    }

    // SIGTERM, then SIGKILL to those still running after a bounded wait.
    static void stopProcesses(const QList<QProcess*>& processes, int waitMs = 3000)
    {
        for (QProcess* p : processes)
            if (p && p->state() != QProcess::NotRunning)
                p->terminate();
        QElapsedTimer waited;
        waited.start();
        for (QProcess* p : processes)
            if (p && p->state() != QProcess::NotRunning)
                p->waitForFinished(int(qMax<qint64>(1, waitMs - waited.elapsed())));
        for (QProcess* p : processes)
            if (p && p->state() != QProcess::NotRunning) {
                p->kill();
                p->waitForFinished(3000);
            }
    }

    void stopSlurm()
    {
        QList<QProcess*> daemons;
        for (Node& n : m_nodes)
            daemons << n.slurmd.get();
        daemons << m_ctld.get();
        stopProcesses(daemons);
        for (Node& n : m_nodes)
            n.slurmd.reset();
        m_ctld.reset();
        // Steps outlive their slurmd; the jobs' processes are under them.
        if (m_dir.isValid()) {
            QList<pid_t> left = detail::processesUsing(path("log"));
            left += detail::processesUsing(path("spool"));
            detail::killTrees(left);
        }
    }

    // Directories and processes of test processes that died before their fixture went.
    static void removeLeftovers()
    {
        const QRegularExpression ours(QStringLiteral("^strata-slurm-(\\d+)-"));
        const QDir temp(QDir::tempPath());
        for (const QString& entry : temp.entryList({"strata-slurm-*"}, QDir::Dirs | QDir::NoDotAndDotDot)) {
            const auto m = ours.match(entry);
            const pid_t owner = pid_t(m.captured(1).toInt());
            // Gone, or a zombie its parent has not reaped (PID 1 may not, here).
            if (!m.hasMatch() || owner == ::getpid() || detail::alive(owner))
                continue;
            detail::killTrees(detail::processesUsing(temp.filePath(entry)));
            QDir(temp.filePath(entry)).removeRecursively();
        }
    }

    Options m_options;
    QTemporaryDir m_dir;
    std::vector<Node> m_nodes;
    int m_ctldPort = 0;
    std::unique_ptr<QProcess> m_munged, m_ctld;
    QString m_error;
};

// The cluster's node names resolving to their addresses (127.0.0.11, ...) through /etc/hosts,
// as a real cluster's do: Strata's Slurm resolver addresses tasks by node name (the daemons
// themselves need no such lines). Lines tagged
// with this process; removed after, and those of test processes that died on construction.
class NodeNames {
public:
    explicit NodeNames(const SlurmCluster& cluster)
    {
        QStringList lines = kept();
        for (int i = 0; i < cluster.nodeCount(); ++i)
            lines << QStringLiteral("127.0.0.%1 %2 %3").arg(11 + i).arg(cluster.nodeName(i), tag(::getpid()));
        write(lines);
    }
    ~NodeNames() { write(kept()); }

private:
    static QString tag(pid_t pid) { return QStringLiteral("# strata-slurm-names-%1").arg(pid); }
    // The lines of others: not this process's, nor of a test process that is gone.
    static QStringList kept()
    {
        QFile f(QStringLiteral("/etc/hosts"));
        QStringList out;
        if (!f.open(QIODevice::ReadOnly))
            return out;
        static const QRegularExpression ours(QStringLiteral("# strata-slurm-names-(\\d+)$"));
        for (const QString& line : QString::fromUtf8(f.readAll()).split('\n')) {
            const auto m = ours.match(line);
            if (m.hasMatch() && (m.captured(1).toInt() == ::getpid() || !QFileInfo::exists("/proc/" + m.captured(1))))
                continue;
            out << line;
        }
        while (!out.isEmpty() && out.last().isEmpty())
            out.removeLast();
        return out;
    }
    static void write(const QStringList& lines)
    {
        QFile f(QStringLiteral("/etc/hosts"));
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
            qFatal("cannot write /etc/hosts");
        f.write((lines.join('\n') + '\n').toUtf8());
    }
};

} // namespace slurmtest
