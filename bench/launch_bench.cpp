// strata-bench-launch: launching over SSH against launching on this machine (bench/README.md,
// "Launching over SSH"). Needs root (sshd, network namespaces): without it, it says so and
// exits 0 with nothing measured.
//
//   strata-bench-launch [--rounds N] [--events N] [--throughput-rounds N] [--only latency|throughput]
//                       [--follow local,ssh,replay] [--root-nodes] [--quick] [--json FILE]
//   strata-bench-launch --write-task-files DIR [--events N]   (the followed task's files alone)
//
// The hosts: 3 network namespaces on one LAN (tests/app/netns_fixture.h), each with its own
// Debian sshd (tests/app/ssh_fixture.h), reached with a key file as the fixture's user, whose
// login shell is /bin/sh (--root-nodes: as root, whose ~/.bashrc runs before every command);
// they share this machine's cores, disk and engine binary, so what differs from a local
// launch is what SSH and the launcher's remote path add (and the nodes' sshd and followers,
// on the same cores). Every launch and attach also measures the rest of the machine's load
// meanwhile (OtherLoad) and names the disturbed ones.
//
// 1. Launch latency: RunController::launch (what Launch does: validation, the node check of
//    an SSH launch, every task's `strata-engine start`) until every training task's first
//    `step` event is in the store (looked at every millisecond), for a MultiWorkerMirrored
//    job (the default Fashion-MNIST MLP) of 1 worker and of 3 workers, each worker on its own
//    SSH host, against the same job with every task on this machine (a local node,
//    127.0.0.1). Each job is stopped once its first steps are in. Rounds interleave the four
//    jobs (the order reversed every round), after one warm-up round. The slowest task's
//    time is split by the events' own times (one clock: the namespaces share the kernel's):
//    the node check (launch -> `started`), processes up (-> its `hello`), setup (-> `start`:
//    data loaded, the job's rendezvous), the first window (-> its first `step` event: the
//    engine reports steps in 100 ms windows) and delivery (-> in the store).
// 2. Event throughput: one finished task's events file of `--events` real-looking step
//    events (the shape of a real run's: the default MLP under MultiWorkerMirrored, windows,
//    epochs, checkpoints and device reports in between) followed again by
//    JobLauncher::attach() until `finished`, as a task on an SSH node (its run directory in
//    the node's work directory, the local copy empty) and as a task on this machine (its
//    run directory elsewhere, so that it is followed by `strata-engine attach` through a
//    pipe, as a live local task is); and, for reference, the same file in the run directory
//    itself, which attach() replays from the file (loadRun) without a follower. Events/s
//    ingested, the SSH/local ratio, and a check that every event arrived.
//
// Threads: the main thread only (the launchers' own threads aside).

#include "cpu_name.h"
#include "app/experiment/experiment_document.h"
#include "app/launch/job_launcher.h"
#include "app/launch/node_check.h"
#include "app/launch/remote_access.h"
#include "app/launch/run_controller.h"
#include "app/metrics/metrics_store.h"
#include "app/metrics/step_split.h"
#include "app/rundir/task_ends.h"
#include "app/rundir/task_places.h"
#include "app/metrics/task_roles.h"
#include "app/ssh/run_command.h"
#include "app/ssh/session.h"

#include "netns_fixture.h"
#include "ssh_fixture.h"

#include <nlohmann/json.hpp>

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <sys/stat.h>
#include <string>
#include <unistd.h>
#include <vector>

using namespace strata;
using Json = nlohmann::ordered_json;

namespace {

const QString kEngine = QStringLiteral(STRATA_ENGINE_PATH);
const QString kExperiment = QStringLiteral(STRATA_EXPERIMENTS_DIR "/fashion-mnist-mlp-multi-worker.strata.json");

double unixNow() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

struct Stats {
    double median = 0, min = 0, max = 0;
};
Stats statsOf(std::vector<double> v)
{
    if (v.empty())
        return {};
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    const double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    return {median, v.front(), v.back()};
}

// ---- other load ---------------------------------------------------------------------

// What the rest of the machine used meanwhile (on a machine shared with others, a build in
// another terminal takes cores from both sides of a ratio): all of its CPU time (/proc/stat,
// hypervisor steal included) less that of this bench and everything it starts (sshd, its
// sessions, the engines: a cpuacct cgroup of its own, cgroup v1). Unknown (negative) where no
// such cgroup can be made.
class OtherLoad {
public:
    OtherLoad()
    {
        // The group this process is in now ("N:cpuacct:/path" in /proc/self/cgroup), to go back to.
        QString from;
        for (const QByteArray& line : sshtest::readAll("/proc/self/cgroup").split('\n'))
            if (const QList<QByteArray> f = line.split(':'); f.size() == 3 && f[1].split(',').contains("cpuacct"))
                from = QString::fromLatin1(f[2]);
        const QString root = QStringLiteral("/sys/fs/cgroup/cpuacct");
        const QString mine = QStringLiteral("%1/strata-bench-launch-%2").arg(root).arg(::getpid());
        if (from.isEmpty() || !QFileInfo::exists(root + "/cpuacct.usage") || !QDir().mkpath(mine))
            return;
        m_root = QDir::cleanPath(root + from);
        m_dir = mine;
        if (!sshtest::writeAll(m_dir + "/cgroup.procs", QByteArray::number(::getpid())))
            m_dir.clear();
    }
    ~OtherLoad()
    {
        if (m_dir.isEmpty())
            return;
        sshtest::writeAll(m_root + "/cgroup.procs", QByteArray::number(::getpid()));
        QDir().rmdir(m_dir); // refused while a process started here still runs: left behind
    }
    OtherLoad(const OtherLoad&) = delete;
    OtherLoad& operator=(const OtherLoad&) = delete;

    struct Mark {
        double machine = 0, ours = 0, wall = 0; // seconds
    };
    Mark mark() const
    {
        Mark m;
        m.wall = unixNow();
        if (m_dir.isEmpty())
            return m;
        const QList<QByteArray> f = sshtest::readAll("/proc/stat").split('\n').value(0).simplified().split(' ');
        // cpu user nice system idle iowait irq softirq steal
        for (int i : {1, 2, 3, 6, 7, 8})
            m.machine += f.value(i).toDouble();
        m.machine /= double(sysconf(_SC_CLK_TCK));
        m.ours = sshtest::readAll(m_dir + "/cpuacct.usage").trimmed().toDouble() / 1e9;
        return m;
    }
    // Cores the rest of the machine kept busy on average from `a` to `b`; -1: unknown.
    double otherCores(const Mark& a, const Mark& b) const
    {
        if (m_dir.isEmpty() || b.wall <= a.wall)
            return -1;
        return std::max(0.0, ((b.machine - a.machine) - (b.ours - a.ours)) / (b.wall - a.wall));
    }

private:
    QString m_root, m_dir;
};

constexpr double kDisturbedCores = 0.2; // as bench_strategies.py names a round disturbed

// ---- the hosts ----------------------------------------------------------------------

struct Hosts {
    std::unique_ptr<sshtest::NetnsHosts> netns;
    std::vector<std::unique_ptr<sshtest::SshServer>> servers;
    QTemporaryDir dir;
    QString knownHosts;
    app::RemoteAccess access;
    QString error;

    bool root = false; // log in as root (else as the fixture's user, whose shell is /bin/sh)

    Hosts(int count, bool asRoot) : root(asRoot)
    {
        netns = std::make_unique<sshtest::NetnsHosts>(count, sshtest::NetnsHosts::Lan);
        if (!netns->isReady()) {
            error = netns->error();
            return;
        }
        // The node user reaches the work directories here.
        QFile::setPermissions(dir.path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadGroup |
                                              QFile::ExeGroup | QFile::ReadOther | QFile::ExeOther);
        QByteArray lines;
        for (int i = 0; i < count; ++i) {
            servers.push_back(std::make_unique<sshtest::SshServer>(sshtest::SshServer::Options{
                .address = netns->address(i), .port = 22, .netns = netns->name(i), .passwordUser = !root}));
            if (!servers.back()->isRunning()) {
                error = servers.back()->error();
                return;
            }
            lines += servers.back()->knownHostsLine();
        }
        // Trusted ahead, as after `strata hosts trust` for each.
        knownHosts = dir.filePath("known_hosts");
        sshtest::writeAll(knownHosts, lines);
        access.options.knownHostsFile = knownHosts;
    }
    bool ok() const { return error.isEmpty(); }

    // Node i of an experiment's cluster: the node user with the server's client key, this
    // build's engine (the namespaces share this file system), a work directory of its own.
    Json node(int i) const
    {
        const sshtest::SshServer& s = *servers[size_t(i)];
        const QString work = QDir(dir.path()).filePath(QStringLiteral("work-h%1").arg(i));
        makeShared(work);
        return {{"name", QStringLiteral("h%1").arg(i).toStdString()},
                {"host", s.address().toStdString()},
                {"ssh_port", s.port()},
                {"user", root ? "" : sshtest::SshServer::kTestUser},
                {"auth", "key"},
                {"key_file", s.clientKey().toStdString()},
                {"engine", kEngine.toStdString()},
                {"work_dir", work.toStdString()}};
    }
    // A directory the node user may write in.
    static void makeShared(const QString& path)
    {
        QDir().mkpath(path);
        ::chmod(QFile::encodeName(path).constData(), 01777);
    }
};

Json loadExperiment()
{
    QFile f(kExperiment);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(kExperiment));
    return Json::parse(f.readAll().toStdString());
}

// The default MLP under MultiWorkerMirrored: `workers` worker tasks (no evaluator), each on
// its own SSH host, or all on this machine; trained far longer than it runs here.
Json job(const Json& base, int workers, const Hosts* ssh)
{
    Json e = base;
    e["name"] = "launch-bench";
    e["training"]["epochs"] = 1000;
    Json nodes = Json::array(), tasks = Json::array();
    if (ssh) {
        for (int i = 0; i < workers; ++i) {
            nodes.push_back(ssh->node(i));
            tasks.push_back({{"type", "worker"}, {"node", QStringLiteral("h%1").arg(i).toStdString()}});
        }
    } else {
        nodes.push_back({{"name", "local"}, {"host", "127.0.0.1"}});
        tasks.push_back({{"type", "worker"}, {"node", "local"}, {"count", workers}});
    }
    e["cluster"] = {{"nodes", nodes}, {"tasks", tasks}};
    return e;
}

// Runs `loop` until something quits it or `ms` pass; false on the timeout.
bool waitFor(QEventLoop& loop, int ms)
{
    QTimer timeout;
    timeout.setSingleShot(true);
    QObject::connect(&timeout, &QTimer::timeout, &loop, &QEventLoop::quit);
    timeout.start(ms);
    loop.exec();
    return timeout.isActive();
}

// ---- 1. launch latency --------------------------------------------------------------

struct LaunchSample {
    double totalMs = 0;
    // The slowest task's way there, in order; they add up to totalMs.
    double checkMs = 0, processMs = 0, setupMs = 0, windowMs = 0, deliveryMs = 0;
    double nodeCheckMs = 0; // the slowest node's own check (its report)
    double otherCores = -1; // the rest of the machine's load meanwhile (launch to stopped)
    // With steady steps asked for: the workers' median ms per step and, of it, waiting for the
    // others' gradients (the step split's reduction) over their latest windows; and a chief's
    // (ParameterServer's coordinator's) CPU per global step over the same stretch.
    double stepMs = NAN, reduceMs = NAN, coordinatorCpuMsPerStep = NAN;
};

// A process's CPU time so far (user + system), in ms; NaN when it cannot be read.
double cpuMsOf(qint64 pid)
{
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (pid <= 0 || !stat.open(QIODevice::ReadOnly))
        return NAN;
    // After the command's closing parenthesis: state is field 3, utime and stime 14 and 15.
    const QByteArray line = stat.readAll();
    const QList<QByteArray> f = line.mid(line.lastIndexOf(')') + 2).split(' ');
    return f.size() > 12 ? (f[11].toDouble() + f[12].toDouble()) * 1000.0 / double(::sysconf(_SC_CLK_TCK)) : NAN;
}

double medianOf(std::vector<double> v)
{
    if (v.empty())
        return NAN;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// The job `run` going on, until every worker has taken `steps` more steps: the workers' median
// step and reduction time over their latest windows, and a chief's CPU per global step.
void measureSteady(app::RunController& run, int workers, int steps, int limitMs, LaunchSample& s)
{
    auto read = [&](const std::function<void(const app::TaskData&)>& visit) {
        run.store().read([&](const std::vector<app::TaskData>& tasks, const std::vector<app::LogEntry>&) {
            for (const app::TaskData& td : tasks)
                visit(td);
        });
    };
    std::map<QString, int64_t> from;
    qint64 chiefPid = 0;
    double chiefStep0 = NAN;
    read([&](const app::TaskData& td) {
        if (app::isTrainingTask(td.task))
            from[td.task] = td.loss.size();
        if (td.task.startsWith(QStringLiteral("chief")) && td.loss.size() > 0) {
            chiefPid = td.hello.value("pid", qint64(0));
            chiefStep0 = td.loss.lastX();
        }
    });
    const double cpu0 = cpuMsOf(chiefPid);
    QEventLoop loop;
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, [&] {
        int done = 0;
        read([&](const app::TaskData& td) {
            if (app::isTrainingTask(td.task) && td.loss.size() >= from[td.task] + steps)
                ++done;
        });
        if (done >= workers)
            loop.quit();
    });
    QObject::connect(&run, &app::RunController::finished, &loop, &QEventLoop::quit);
    poll.start(20);
    if (!waitFor(loop, limitMs))
        qFatal("the workers did not take %d more steps within %d s", steps, limitMs / 1000);
    poll.stop();
    std::vector<double> stepMs, reduceMs;
    for (const app::TaskStepSplit& t : app::recentStepSplits(run.store(), 5))
        if (app::isTrainingTask(t.task) && !app::isChiefTask(t.task)) {
            stepMs.push_back(t.split.stepMs);
            reduceMs.push_back(t.split.commMs);
        }
    s.stepMs = medianOf(stepMs);
    s.reduceMs = medianOf(reduceMs);
    if (chiefPid > 0) {
        double chiefStep1 = chiefStep0;
        read([&](const app::TaskData& td) {
            if (td.task.startsWith(QStringLiteral("chief")) && td.loss.size() > 0)
                chiefStep1 = td.loss.lastX();
        });
        if (chiefStep1 > chiefStep0)
            s.coordinatorCpuMsPerStep = (cpuMsOf(chiefPid) - cpu0) / (chiefStep1 - chiefStep0);
    }
}

// Launches `experiment` until each of its `workers` training tasks has taken a first step, then,
// with `steadySteps`, that many more (the step split and a chief's CPU measured over them),
// and stops it.
LaunchSample launchOnce(const Json& experiment, int workers, const app::RemoteAccess& access, const QString& runDir,
                        int limitMs = 120000, int steadySteps = 0)
{
    app::ExperimentDocument document;
    document.replace(experiment, "bench");
    app::RunController run;
    run.launcher().setRemoteAccess(access);
    QEventLoop loop;
    double started = 0;
    QString failure;
    QObject::connect(&run, &app::RunController::started, [&] { started = unixNow(); });
    QObject::connect(&run, &app::RunController::launchFailed, [&](const QString& why) {
        failure = why;
        loop.quit();
    });
    // Every training task's first step event, looked for every millisecond.
    std::map<QString, double> seen;
    QTimer poll;
    poll.setTimerType(Qt::PreciseTimer);
    QObject::connect(&poll, &QTimer::timeout, [&] {
        const double now = unixNow();
        run.store().read([&](const std::vector<app::TaskData>& tasks, const std::vector<app::LogEntry>&) {
            for (const app::TaskData& td : tasks)
                if (app::isTrainingTask(td.task) && td.loss.size() > 0 && !seen.count(td.task))
                    seen[td.task] = now;
        });
        if (int(seen.size()) == workers)
            loop.quit();
    });
    QObject::connect(&run, &app::RunController::finished, [&] {
        if (int(seen.size()) < workers) {
            failure = "the job ended before its first steps: " + run.summary();
            loop.quit();
        }
    });
    poll.start(1);
    QString error;
    const double t0 = unixNow();
    if (!run.launch(document, kEngine, runDir, &error))
        qFatal("cannot launch: %s", qPrintable(error));
    if (!waitFor(loop, limitMs))
        failure = QStringLiteral("no first step from every task within %1 s").arg(limitMs / 1000);
    poll.stop();
    if (!failure.isEmpty())
        qFatal("%s", qPrintable(failure));

    LaunchSample s;
    QString last;
    for (const auto& [task, t] : seen)
        if (last.isEmpty() || t > seen[last])
            last = task;
    const double end = seen[last];
    s.totalMs = (end - t0) * 1000;
    run.store().read([&](const std::vector<app::TaskData>& tasks, const std::vector<app::LogEntry>&) {
        for (const app::TaskData& td : tasks)
            if (td.task == last) {
                // A ParameterServer worker has no `start` event: its setup counts in the first window.
                const double hello = td.hello.is_object() ? td.hello.value("t", 0.0) : started;
                const double start = td.start.is_object() ? td.start.value("t", hello) : hello;
                const double step = td.firstEventTime + double(td.wallSeconds.y(0));
                s.checkMs = (started - t0) * 1000;
                s.processMs = (hello - started) * 1000;
                s.setupMs = (start - hello) * 1000;
                s.windowMs = (step - start) * 1000;
                s.deliveryMs = (end - step) * 1000;
            }
    });
    for (const app::NodeReport& r : run.launcher().nodeReports())
        s.nodeCheckMs = std::max(s.nodeCheckMs, double(r.ms));

    if (steadySteps > 0)
        measureSteady(run, workers, steadySteps, limitMs, s);

    // Stopped once its steps are in (a checkpoint, `done`), so that nothing is left.
    QEventLoop stopped;
    QObject::connect(&run, &app::RunController::finished, &stopped, &QEventLoop::quit);
    run.stop();
    if (run.isRunning() && !waitFor(stopped, 60000))
        qFatal("the job did not stop within 60 s");
    return s;
}

// The node check of one host taken apart, each step `repeat` times: the SSH connection
// (TCP, key exchange, host key against known_hosts, key login: Session::connect), the first
// command's round trip on it (`true`: a channel, the login shell, the exit status), a second
// one's, the check's own command (`strata-engine probe --check` with the launch's request) as
// a third, and that probe run here through QProcess, as a local node's check runs it.
struct CheckSplit {
    Stats connectMs, firstMs, secondMs, probeMs, localProbeMs;
};

CheckSplit splitNodeCheck(const Hosts& hosts, int repeat)
{
    const sshtest::SshServer& server = *hosts.servers[0];
    app::ssh::Endpoint endpoint = server.endpoint(app::ssh::AuthMethod::Key, "h0");
    if (!hosts.root)
        endpoint.user = QString::fromLatin1(sshtest::SshServer::kTestUser);
    // What a launch asks: the data, a free port for the task on the node's address.
    auto request = [](const QString& host) {
        return R"({"paths":["/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"],)"
               R"("bind":[],"free_ports":{"host":")" + host.toUtf8() + R"(","from":29500,"count":1,"skip":[]}})";
    };
    const QByteArray probe = app::remoteCommand(kEngine, {"probe", "--check"});
    std::vector<double> connect, first, second, probeMs, local;
    for (int i = 0; i < repeat; ++i) {
        QString error;
        QElapsedTimer clock;
        clock.start();
        auto session = app::ssh::Session::connect(endpoint, hosts.access.options, nullptr, &error);
        if (!session)
            qFatal("connect: %s", qPrintable(error));
        connect.push_back(double(clock.nsecsElapsed()) / 1e6);
        clock.restart();
        const app::ssh::RunResult t = app::ssh::runCommand(*session, "true", {}, 10000);
        first.push_back(double(clock.nsecsElapsed()) / 1e6);
        clock.restart();
        const app::ssh::RunResult t2 = app::ssh::runCommand(*session, "true", {}, 10000);
        second.push_back(double(clock.nsecsElapsed()) / 1e6);
        clock.restart();
        const app::ssh::RunResult p = app::ssh::runCommand(*session, probe, request(server.address()), 10000);
        probeMs.push_back(double(clock.nsecsElapsed()) / 1e6);
        if (!t.ran() || t.exitStatus != 0 || !t2.ran() || t2.exitStatus != 0 || !p.ran() || p.exitStatus != 0)
            qFatal("a command on the node failed: %s %s", qPrintable(t.error + t2.error + p.error), p.err.constData());
        clock.restart();
        QProcess here;
        here.start(kEngine, {"probe", "--check"});
        here.write(request(QStringLiteral("127.0.0.1")));
        here.closeWriteChannel();
        if (!here.waitForFinished(10000) || here.exitCode() != 0)
            qFatal("the probe failed here");
        local.push_back(double(clock.nsecsElapsed()) / 1e6);
    }
    return {statsOf(connect), statsOf(first), statsOf(second), statsOf(probeMs), statsOf(local)};
}

struct LaunchConfig {
    std::string name;
    int workers = 1;
    bool ssh = false;
    std::vector<LaunchSample> samples;
};

// ---- 2. event throughput ------------------------------------------------------------

// Doubles as nlohmann::json writes them (shortest round trip).
std::string num(double v)
{
    char text[64];
    const auto end = std::to_chars(text, text + sizeof text, v).ptr;
    std::string s(text, end);
    if (s.find_first_of(".e") == std::string::npos)
        s += ".0";
    return s;
}

struct EventsFile {
    int64_t lines = 0, steps = 0, bytes = 0;
};

// A finished task's events file, shaped as a real one of the default MLP under
// MultiWorkerMirrored (hello, start, placement; step windows of ~290 steps with every
// double at full precision, ~420 bytes each; every 1875 steps a shorter window closing the
// epoch, `epoch` and `checkpoint`; a `device` report every 10 windows; done; the
// supervisor's exit line), and its task record saying it ended.
EventsFile writeTaskFiles(const QString& dir, int64_t stepEvents)
{
    const std::string task = "worker:0";
    const std::string head = R"({"v":1,"type":)";
    const std::string who = R"(,"task":")" + task + R"(")";
    double t = 1795547860.7242768;
    std::string out;
    EventsFile f;
    auto line = [&](const std::string& l) {
        out += l;
        out += '\n';
        ++f.lines;
    };
    line(head + R"("hello","t":)" + num(t) + who +
         R"j(,"version":"0.1.0","schema":1,"host":"node","pid":1102,"devices":[{"name":"cpu:0","kind":"cpu","description":"AMD EPYC","cores":2,"logical_devices":2,"memory_bytes":25276502016},{"name":"cpu:1","kind":"cpu","description":"AMD EPYC","cores":2,"logical_devices":2,"memory_bytes":25276502016}],"blas":"oneDNN 2.6.3 sgemm (AVX-512 BF16, OpenMP)"})j");
    t += 0.2788577;
    line(head + R"("start","t":)" + num(t) + who +
         R"(,"experiment":"fashion-mnist-mlp-multi-worker","run_dir":"run","strategy":"MultiWorkerMirrored","replicas":1,"task_replicas":1,"workers":1,"epochs":1000,"steps_per_epoch":1875,"total_steps":1875000,"batch_size":32,"per_replica_batch_size":32,"params":101770,"train_examples":60000,"validation_examples":10000,"test_examples":10000,"resumed_from_step":null})");
    line(head + R"("placement","t":)" + num(t) + who +
         R"j(,"strategy":"MultiWorkerMirrored","replicas":[{"replica":0,"device":"cpu:0","threads":2}],"per_replica_batch_size":32,"global_batch_size":32,"learning_rate":{"base":0.001,"scaled":0.001,"rule":"none"},"variables":[{"name":"dense/kernel","shape":[784,128],"bytes":401408,"devices":["cpu:0"]},{"name":"dense/bias","shape":[128],"bytes":512,"devices":["cpu:0"]},{"name":"dense_1/kernel","shape":[128,10],"bytes":5120,"devices":["cpu:0"]},{"name":"dense_1/bias","shape":[10],"bytes":40,"devices":["cpu:0"]}],"reduction":{"algorithm":"gloo ring (chunked)","bucket_bytes":33554432,"buckets":1,"bytes_per_step":407080},"task":"worker:0","tasks":["worker:0"],"workers":1,"total_replicas":1})j");

    QFile file(QDir(dir).filePath("events-worker-0.jsonl"));
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        qFatal("cannot write %s", qPrintable(file.fileName()));
    auto spill = [&](bool last) {
        if (out.size() > (size_t(8) << 20) || last) {
            file.write(out.data(), qint64(out.size()));
            f.bytes += qint64(out.size());
            out.clear();
        }
    };
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    constexpr int64_t kStepsPerEpoch = 1875, kWindow = 290;
    int64_t step = 0;
    int epoch = 0;
    double lossSum = 0;
    int64_t lossSteps = 0;
    for (int64_t w = 0; w < stepEvents; ++w) {
        const int64_t inEpoch = step % kStepsPerEpoch;
        const int64_t steps = std::min(kWindow, kStepsPerEpoch - inEpoch);
        step += steps;
        t += 0.1 * double(steps) / double(kWindow) + 0.0001 * u(rng);
        const double loss = 0.25 + 0.3 / (1.0 + 0.0005 * double(step)) + 0.02 * u(rng);
        const double stepMs = 0.33 + 0.02 * u(rng), comm = 0.15 + 0.01 * u(rng), input = 0.01 + 0.001 * u(rng);
        lossSum += loss * double(steps);
        lossSteps += steps;
        line(head + R"("step","t":)" + num(t) + who + R"(,"step":)" + std::to_string(step) + R"(,"epoch":)" +
             std::to_string(epoch) + R"(,"steps":)" + std::to_string(steps) + R"(,"loss":)" + num(loss) +
             R"(,"replicas":[{"replica":0,"device":"cpu:0","loss":)" + num(loss * (1 + 1e-9 * u(rng))) +
             R"(,"samples":)" + std::to_string(steps * 32) + R"(}],"metrics":{"accuracy":)" +
             num(0.80 + 0.1 * double(step) / double(step + 100000) + 0.01 * u(rng)) +
             R"(},"lr":0.001,"time_ms":{"step":)" + num(stepMs) + R"(,"compute":)" + num(stepMs - comm - input) +
             R"(,"comm":)" + num(comm) + R"(,"input":)" + num(input) + R"(},"samples_per_sec":)" +
             num(32000.0 / stepMs) + "}");
        ++f.steps;
        if (w % 10 == 9)
            line(head + R"("device","t":)" + num(t) + who + R"(,"step":)" + std::to_string(step) +
                 R"(,"window_ms":)" + num(1000 + 0.2 * u(rng)) +
                 R"(,"devices":[{"device":"cpu:0","replica":0,"utilization":)" + num(0.8 + 0.05 * u(rng)) +
                 R"(,"busy_ms":)" + num(820 + 10 * u(rng)) +
                 R"(,"variable_bytes":407080}],"process":{"rss_bytes":78127104,"peak_rss_bytes":80551936}})");
        if (step % kStepsPerEpoch == 0) {
            const double mean = lossSum / double(lossSteps);
            line(head + R"("epoch","t":)" + num(t) + who + R"(,"epoch":)" + std::to_string(epoch) +
                 R"(,"epochs":1000,"step":)" + std::to_string(step) + R"(,"train":{"loss":)" + num(mean) +
                 R"(,"accuracy":)" + num(0.82 + 0.01 * u(rng)) + R"(},"validation":{"loss":)" + num(mean + 0.05) +
                 R"(,"accuracy":)" + num(0.84 + 0.01 * u(rng)) + R"(},"seconds":)" + num(0.688 + 0.01 * u(rng)) + "}");
            line(head + R"("checkpoint","t":)" + num(t) + who + R"(,"step":)" + std::to_string(step) +
                 R"(,"epoch":)" + std::to_string(epoch + 1) + R"(,"path":"run/checkpoints/ckpt-)" +
                 std::to_string(step) + R"(.strata","bytes":1221240,"ms":)" + num(2.7 + 0.1 * u(rng)) + "}");
            ++epoch;
            lossSum = 0;
            lossSteps = 0;
        }
        spill(false);
    }
    line(head + R"("done","t":)" + num(t + 0.03) + who + R"(,"status":"completed","steps":)" + std::to_string(step) +
         R"(,"epochs":)" + std::to_string(epoch) +
         R"(,"run_dir":"run","weights_crc32":1204095404,"train":{"loss":0.2979,"accuracy":0.8947},"validation":{"loss":0.3400456047892365,"accuracy":0.878},"wall_seconds":)" +
         num(t - 1795547860.7242768) + R"(,"peak_rss_bytes":80551936})");
    const Json exit{{"v", 1}, {"type", "exit"}, {"t", t + 0.05}, {"task", task}, {"code", 0}};
    line(exit.dump());
    spill(true);
    file.close();
    // The task record: its supervisor saw the trainer end (processes long gone).
    const Json record{{"task", task},
                      {"host", "node"},
                      {"supervisor", {{"pid", 0}, {"start", 0}}},
                      {"trainer", {{"pid", 0}, {"start", 0}}},
                      {"started", 1795547860.70},
                      {"events_offset", 0},
                      {"stderr_offset", 0},
                      {"ended", exit}};
    sshtest::writeAll(QDir(dir).filePath("task-worker-0.json"), QByteArray::fromStdString(record.dump() + "\n"));
    sshtest::writeAll(QDir(dir).filePath("stderr-worker-0.log"), QByteArray());
    return f;
}

enum class Follow { Local, Ssh, Replay };
const char* followName(Follow f)
{
    return f == Follow::Local ? "this machine, followed (strata-engine attach, pipe)"
         : f == Follow::Ssh   ? "SSH node, followed (attach over SSH)"
                              : "this machine, replayed from the file (loadRun)";
}

const char* followKey(Follow f) { return f == Follow::Local ? "local" : f == Follow::Ssh ? "ssh" : "replay"; }

struct ThroughputSample {
    double seconds = 0, firstEventSeconds = 0;
    int64_t events = 0, steps = 0;
    qint64 copyBytes = -1; // the SSH task's local copy
    double otherCores = -1;
};

// The run directory attach() follows: launch.strata.json and nodes.json, the task's files on
// its node in `nodeDir` (this machine's, for Local; the SSH node's work directory, for Ssh), or
// in the run directory itself (Replay: a hard link to the same file).
ThroughputSample attachOnce(Follow how, const Json& experiment, const Hosts& hosts, const QString& nodeDir,
                            const QString& runDir)
{
    QDir().mkpath(runDir);
    const std::string text = experiment.dump(2) + "\n";
    sshtest::writeAll(QDir(runDir).filePath("launch.strata.json"), QByteArray::fromStdString(text));
    app::TaskPlace place{"worker:0", "local", "127.0.0.1", false, kEngine, nodeDir, 0, 0};
    if (how == Follow::Ssh)
        place = {"worker:0", "h0", hosts.servers[0]->address(), true, kEngine, nodeDir, 0, 0};
    if (how == Follow::Replay) {
        place.runDir = runDir;
        for (const char* name : {"events-worker-0.jsonl", "task-worker-0.json", "stderr-worker-0.log"})
            if (::link(QFile::encodeName(QDir(nodeDir).filePath(name)).constData(),
                       QFile::encodeName(QDir(runDir).filePath(name)).constData()) != 0)
                qFatal("cannot link %s into %s", name, qPrintable(runDir));
        // As the launcher leaves a run that finished while it followed it. (Without it, the
        // task's end would have to come from its exit line, which loadRun misses: the bench's
        // report.)
        QString error;
        if (!app::writeTaskEnds(runDir, {app::TaskEnd{"worker:0", 0, false, {}, {}, 1795547860.7, {}}}, &error))
            qFatal("%s", qPrintable(error));
    }
    QString error;
    if (!app::writeTaskPlaces(runDir, {place}, &error))
        qFatal("%s", qPrintable(error));

    app::MetricsStore store;
    app::JobLauncher launcher(&store);
    launcher.setRemoteAccess(hosts.access);
    QEventLoop loop;
    QObject::connect(&launcher, &app::JobLauncher::finished, &loop, &QEventLoop::quit);
    ThroughputSample s;
    QTimer poll;
    poll.setTimerType(Qt::PreciseTimer);
    const double t0 = unixNow();
    QObject::connect(&poll, &QTimer::timeout, [&] {
        if (store.eventCount() > 0) {
            s.firstEventSeconds = unixNow() - t0;
            poll.stop();
        }
    });
    poll.start(1);
    if (!launcher.attach(runDir, kEngine, &error))
        qFatal("attach: %s", qPrintable(error));
    if (!waitFor(loop, 600000))
        qFatal("attach did not finish within 600 s");
    s.seconds = unixNow() - t0;
    poll.stop();
    s.events = store.eventCount();
    store.read([&](const std::vector<app::TaskData>& tasks, const std::vector<app::LogEntry>&) {
        for (const app::TaskData& td : tasks)
            if (td.task == "worker:0")
                s.steps = td.loss.size();
    });
    if (how == Follow::Ssh)
        s.copyBytes = QFileInfo(QDir(runDir).filePath("events-worker-0.jsonl")).size();
    return s;
}

// ---- the two parts, printed -------------------------------------------------------------

struct Bench {
    Hosts& hosts;
    const OtherLoad* load = nullptr;
    QTemporaryDir work;
    Bench(Hosts& h, const OtherLoad& l) : hosts(h), load(&l) { ::chmod(QFile::encodeName(work.path()).constData(), 0755); }
    int runs = 0;
    Json base = loadExperiment();
    QString newRunDir(const QString& what) { return work.filePath(QStringLiteral("%1-%2").arg(what).arg(++runs)); }
};

Json measureLatency(Bench& bench, int rounds)
{
    std::vector<LaunchConfig> configs{{"1 worker, this machine", 1, false},
                                      {"1 worker, 1 SSH host", 1, true},
                                      {"3 workers, this machine", 3, false},
                                      {"3 workers, 3 SSH hosts", 3, true}};
    std::fprintf(stderr, "launch latency: 1 warm-up round and %d timed rounds of 4 jobs\n", rounds);
    for (int round = 0; round <= rounds; ++round) {
        std::vector<size_t> order{0, 1, 2, 3};
        if (round % 2)
            std::reverse(order.begin(), order.end());
        for (size_t i : order) {
            LaunchConfig& c = configs[i];
            const Json e = job(bench.base, c.workers, c.ssh ? &bench.hosts : nullptr);
            const OtherLoad::Mark before = bench.load->mark();
            LaunchSample s = launchOnce(e, c.workers, bench.hosts.access, bench.newRunDir("launch"));
            s.otherCores = bench.load->otherCores(before, bench.load->mark());
            std::fprintf(stderr,
                         "  %s %-24s %7.1f ms (check %.1f, processes %.1f, setup %.1f, window %.1f, delivery %.1f; "
                         "other load %.2f cores)\n",
                         round == 0 ? "warm-up" : "round  ", c.name.c_str(), s.totalMs, s.checkMs, s.processMs,
                         s.setupMs, s.windowMs, s.deliveryMs, s.otherCores);
            if (round > 0)
                c.samples.push_back(s);
        }
    }
    auto stat = [](const LaunchConfig& c, double LaunchSample::*field) {
        std::vector<double> v;
        for (const LaunchSample& s : c.samples)
            v.push_back(s.*field);
        return statsOf(v);
    };
    std::printf("Launch latency: RunController::launch -> every worker's first step event in the store\n"
                "(MultiWorkerMirrored, the default Fashion-MNIST MLP, one replica per worker; %d rounds)\n\n",
                rounds);
    std::printf("| job | median | min | max | median vs this machine | node check, median (share) |\n"
                "|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < configs.size(); ++i) {
        const LaunchConfig& c = configs[i];
        const Stats t = stat(c, &LaunchSample::totalMs);
        const Stats local = stat(configs[i & ~size_t(1)], &LaunchSample::totalMs);
        const Stats check = stat(c, &LaunchSample::checkMs);
        const QString ratio = c.ssh ? QStringLiteral("%1x").arg(t.median / local.median, 0, 'f', 2) : QStringLiteral("1 (reference)");
        const QString share = c.ssh ? QStringLiteral("%1 ms (%2%)").arg(check.median, 0, 'f', 0).arg(100 * check.median / t.median, 0, 'f', 0)
                                    : QStringLiteral("-");
        std::printf("| %s | %.0f ms | %.0f ms | %.0f ms | %s | %s |\n", c.name.c_str(), t.median, t.min, t.max,
                    qPrintable(ratio), qPrintable(share));
    }
    int disturbed = 0, launches = 0;
    double worst = -1;
    for (const LaunchConfig& c : configs)
        for (const LaunchSample& s : c.samples) {
            ++launches;
            disturbed += s.otherCores > kDisturbedCores;
            worst = std::max(worst, s.otherCores);
        }
    if (worst < 0)
        std::printf("\nOther load on the machine: unknown (no cpuacct cgroup here).\n");
    else
        std::printf("\nOther load on the machine: %d of %d launches disturbed (other processes above %.1f core on "
                    "average; the most: %.2f).\n",
                    disturbed, launches, kDisturbedCores, worst);
    std::printf("\nWhere the time goes: the slowest worker's way, medians in ms\n\n"
                "| job | node check | processes up (-> hello) | setup (-> start) | first window (-> step event) | "
                "delivery (-> store) |\n|---|---|---|---|---|---|\n");
    for (const LaunchConfig& c : configs)
        std::printf("| %s | %.1f | %.1f | %.1f | %.1f | %.1f |\n", c.name.c_str(), stat(c, &LaunchSample::checkMs).median,
                    stat(c, &LaunchSample::processMs).median, stat(c, &LaunchSample::setupMs).median,
                    stat(c, &LaunchSample::windowMs).median, stat(c, &LaunchSample::deliveryMs).median);

    const CheckSplit split = splitNodeCheck(bench.hosts, 10);
    auto cell = [](const Stats& st) { return QStringLiteral("%1 (%2-%3)").arg(st.median, 0, 'f', 1).arg(st.min, 0, 'f', 1).arg(st.max, 0, 'f', 1); };
    std::printf("\nThe node check taken apart (host h0, 10 times each; median (min-max) ms)\n\n"
                "| SSH connection and login | first command (`true`) | second command (`true`) | "
                "`strata-engine probe --check` there | the same probe here (QProcess) |\n|---|---|---|---|---|\n"
                "| %s | %s | %s | %s | %s |\n",
                qPrintable(cell(split.connectMs)), qPrintable(cell(split.firstMs)), qPrintable(cell(split.secondMs)),
                qPrintable(cell(split.probeMs)), qPrintable(cell(split.localProbeMs)));

    Json out = Json::array();
    for (const LaunchConfig& c : configs) {
        Json samples = Json::array();
        for (const LaunchSample& s : c.samples)
            samples.push_back({{"other_load_cores", s.otherCores},
                               {"total_ms", s.totalMs},
                               {"check_ms", s.checkMs},
                               {"processes_ms", s.processMs},
                               {"setup_ms", s.setupMs},
                               {"first_window_ms", s.windowMs},
                               {"delivery_ms", s.deliveryMs},
                               {"node_check_ms", s.nodeCheckMs}});
        const Stats t = stat(c, &LaunchSample::totalMs);
        out.push_back({{"job", c.name}, {"workers", c.workers}, {"ssh", c.ssh}, {"median_ms", t.median},
                       {"min_ms", t.min}, {"max_ms", t.max}, {"samples", samples}});
    }
    return {{"jobs", out},
            {"node_check_split_median_ms",
             {{"connect", split.connectMs.median},
              {"first_command", split.firstMs.median},
              {"second_command", split.secondMs.median},
              {"probe", split.probeMs.median},
              {"probe_here", split.localProbeMs.median}}}};
}

// ---- 3. launch latency against the job's size ---------------------------------------------

// A tiny MLP on synthetic data under MultiWorkerMirrored (the launch machinery, not data
// loading, is what grows with the job): `workers` worker tasks dealt over the first
// min(workers, hosts) SSH hosts; trained far longer than it runs here.
Json tinyJob(int workers, const Hosts& hosts, bool parameterServer = false)
{
    Json e = Json::parse(R"({"strata": 1, "name": "launch-scale", "seed": 5,
      "strategy": {"type": "MultiWorkerMirrored"},
      "model": {"input_shape": [8], "layers": [{"type": "Dense", "units": 16, "activation": "relu"},
                                               {"type": "Dense", "units": 3}]},
      "data": {"source": {"type": "synthetic", "task": "classification", "samples": 60000, "test_samples": 150,
                          "features": 8, "classes": 3}, "validation": "none"},
      "training": {"epochs": 1000, "batch_size": 16, "loss": {"type": "sparse_categorical_crossentropy", "from_logits": true},
                   "metrics": ["accuracy"], "optimizer": {"type": "adam", "learning_rate": 0.01}, "threads": 1}})");
    const int used = std::min(workers, int(hosts.servers.size()));
    Json nodes = Json::array(), tasks = Json::array();
    for (int i = 0; i < used; ++i) {
        nodes.push_back(hosts.node(i));
        const int count = workers / used + (i < workers % used ? 1 : 0);
        tasks.push_back({{"type", "worker"}, {"node", QStringLiteral("h%1").arg(i).toStdString()}, {"count", count}});
    }
    if (parameterServer) {
        // The coordinator and 4 ps tasks on the first hosts, beside their workers.
        e["strategy"] = {{"type", "ParameterServer"}, {"partitioner", {{"type", "FixedShards"}, {"num_shards", 4}}}};
        tasks.push_back({{"type", "chief"}, {"node", "h0"}});
        for (int i = 0; i < 4; ++i)
            tasks.push_back({{"type", "ps"}, {"node", QStringLiteral("h%1").arg(i % used).toStdString()}});
    }
    e["cluster"] = {{"nodes", nodes}, {"tasks", tasks}};
    return e;
}

// Steps each worker takes after its first, over which its step time is measured.
constexpr int kSteadySteps = 30;

Json measureScale(Bench& bench, const std::vector<int>& sizes, bool parameterServer)
{
    const int hostCount = int(bench.hosts.servers.size());
    const int extra = parameterServer ? 1 : 0; // the chief steps too
    std::fprintf(stderr, "%s against the job's size: 1 warm-up launch, then one of each size\n",
                 parameterServer ? "ParameterServer" : "MultiWorkerMirrored");
    launchOnce(tinyJob(1, bench.hosts, parameterServer), 1 + extra, bench.hosts.access, bench.newRunDir("scale"), 600000);
    std::printf("%s against the job's size: RunController::launch -> every worker's first step event in the store,\n"
                "then %d steps more (a tiny MLP on synthetic data, workers dealt over up to %d SSH hosts%s; one launch "
                "each)\n\n"
                "| workers | hosts | launch to every first step | node check | processes up | setup (data, rendezvous) "
                "| first window | delivery | ms per step | %s | other load (cores) |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|\n",
                parameterServer ? "ParameterServer" : "MultiWorkerMirrored", kSteadySteps, hostCount,
                parameterServer ? ", a chief and 4 ps tasks besides" : "",
                parameterServer ? "coordinator CPU ms per step" : "of it, all-reduce");
    Json out = Json::array();
    for (const int n : sizes) {
        const OtherLoad::Mark before = bench.load->mark();
        LaunchSample s = launchOnce(tinyJob(n, bench.hosts, parameterServer), n + extra, bench.hosts.access,
                                    bench.newRunDir("scale"), 600000, kSteadySteps);
        s.otherCores = bench.load->otherCores(before, bench.load->mark());
        const int used = std::min(n, hostCount);
        std::printf("| %d | %d | %.0f ms | %.0f | %.0f | %.0f | %.0f | %.0f | %.1f | %.2f | %.2f |\n", n, used, s.totalMs,
                    s.checkMs, s.processMs, s.setupMs, s.windowMs, s.deliveryMs, s.stepMs,
                    parameterServer ? s.coordinatorCpuMsPerStep : s.reduceMs, s.otherCores);
        std::fflush(stdout);
        Json row{{"workers", n}, {"hosts", used}, {"total_ms", s.totalMs}, {"check_ms", s.checkMs},
                 {"processes_ms", s.processMs}, {"setup_ms", s.setupMs}, {"first_window_ms", s.windowMs},
                 {"delivery_ms", s.deliveryMs}, {"step_ms", s.stepMs}, {"other_load_cores", s.otherCores}};
        if (parameterServer)
            row["coordinator_cpu_ms_per_step"] = s.coordinatorCpuMsPerStep;
        else
            row["all_reduce_ms"] = s.reduceMs;
        out.push_back(row);
    }
    return out;
}

Json measureThroughput(Bench& bench, int64_t events, int rounds, const QStringList& followed)
{
    const QString nodeDir = QDir(bench.work.path()).filePath("node-run");
    Hosts::makeShared(nodeDir); // the follower takes its locks there
    const EventsFile file = writeTaskFiles(nodeDir, events);
    std::fprintf(stderr, "\nthroughput: %lld events (%lld step events, %.0f MB), %d rounds\n", (long long)file.lines,
                 (long long)file.steps, double(file.bytes) / 1e6, rounds);
    const Json sshJob = job(bench.base, 1, &bench.hosts);
    const Json localJob = job(bench.base, 1, nullptr);
    std::map<Follow, std::vector<ThroughputSample>> samples;
    for (int round = 0; round < rounds; ++round) {
        std::vector<Follow> order;
        for (Follow how : {Follow::Local, Follow::Ssh, Follow::Replay})
            if (followed.contains(followKey(how)))
                order.push_back(how);
        if (round % 2)
            std::reverse(order.begin(), order.end());
        for (Follow how : order) {
            const OtherLoad::Mark before = bench.load->mark();
            ThroughputSample s = attachOnce(how, how == Follow::Ssh ? sshJob : localJob, bench.hosts, nodeDir,
                                            bench.newRunDir("attach"));
            s.otherCores = bench.load->otherCores(before, bench.load->mark());
            std::fprintf(stderr, "  %-52s %.2f s, %.0f events/s, first event after %.0f ms; other load %.2f cores\n",
                         followName(how), s.seconds, double(s.events) / s.seconds, s.firstEventSeconds * 1000,
                         s.otherCores);
            if (s.events != file.lines || s.steps != file.steps)
                qFatal("%s: the store holds %lld events (%lld steps), the file %lld (%lld)", followName(how),
                       (long long)s.events, (long long)s.steps, (long long)file.lines, (long long)file.steps);
            if (how == Follow::Ssh && s.copyBytes != file.bytes)
                qFatal("the SSH task's local copy has %lld bytes, the node's file %lld", (long long)s.copyBytes,
                       (long long)file.bytes);
            samples[how].push_back(s);
        }
    }
    auto rate = [&](Follow how, bool streaming) {
        std::vector<double> v;
        for (const ThroughputSample& s : samples[how])
            v.push_back(double(s.events) / (streaming ? s.seconds - s.firstEventSeconds : s.seconds));
        return statsOf(v);
    };
    std::printf("\nEvent throughput: JobLauncher::attach() of one finished task until `finished`, %lld events "
                "(%lld step events, %.0f MB), every one in the store; %d rounds\n\n",
                (long long)file.lines, (long long)file.steps, double(file.bytes) / 1e6, rounds);
    std::printf("| task | events/s, median (min-max) | MB/s | vs followed here | first event after | events/s after the first |\n"
                "|---|---|---|---|---|---|\n");
    const double localRate = samples.count(Follow::Local) ? rate(Follow::Local, false).median : NAN;
    int disturbed = 0, runs = 0;
    double worst = -1;
    for (const auto& [how, list] : samples)
        for (const ThroughputSample& s : list) {
            ++runs;
            disturbed += s.otherCores > kDisturbedCores;
            worst = std::max(worst, s.otherCores);
        }
    Json out{{"events", file.lines}, {"step_events", file.steps}, {"bytes", file.bytes}, {"rounds", rounds},
             {"tasks", Json::array()}};
    for (Follow how : {Follow::Local, Follow::Ssh, Follow::Replay}) {
        if (!samples.count(how))
            continue;
        const Stats r = rate(how, false);
        std::vector<double> first;
        for (const ThroughputSample& s : samples[how])
            first.push_back(s.firstEventSeconds * 1000);
        // A replay fills the store before attach() returns: no first event to speak of.
        const bool viaFollower = how != Follow::Replay;
        const QString ratio = std::isnan(localRate) ? QStringLiteral("-")
                                                    : QStringLiteral("%1x").arg(r.median / localRate, 0, 'f', 2);
        std::printf("| %s | %.0f (%.0f-%.0f) | %.0f | %s | %s | %s |\n", followName(how), r.median, r.min, r.max,
                    r.median * double(file.bytes) / double(file.lines) / 1e6, qPrintable(ratio),
                    viaFollower ? qPrintable(QStringLiteral("%1 ms").arg(statsOf(first).median, 0, 'f', 0)) : "-",
                    viaFollower ? qPrintable(QString::number(rate(how, true).median, 'f', 0)) : "-");
        out["tasks"].push_back({{"task", followName(how)},
                                {"events_per_second", r.median},
                                {"min", r.min},
                                {"max", r.max},
                                {"first_event_ms", statsOf(first).median},
                                {"events_per_second_after_first", rate(how, true).median},
                                {"vs_local", r.median / localRate}});
    }
    if (worst >= 0)
        std::printf("\nOther load on the machine: %d of %d runs disturbed (other processes above %.1f core on average; "
                    "the most: %.2f).\n",
                    disturbed, runs, kDisturbedCores, worst);
    return out;
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription("Launch latency and event throughput over SSH against this machine (needs root).");
    parser.addHelpOption();
    parser.addOption({"rounds", "Timed rounds of launches (after one warm-up round).", "N", "5"});
    parser.addOption({"events", "Step events in the followed task's file.", "N", "500000"});
    parser.addOption({"throughput-rounds", "Rounds of following it.", "N", "3"});
    parser.addOption({"quick", "A smoke run: 2 rounds, 100,000 events, 1 throughput round."});
    parser.addOption({"only", "One part only: latency, throughput, scale (launch latency and step time against the "
                              "job's size, 1 to 64 MultiWorkerMirrored workers over 16 hosts) or scale-ps (the same "
                              "of ParameterServer, with the coordinator's CPU per step); the scales are not run "
                              "otherwise.", "PART"});
    parser.addOption({"sizes", "With --only scale or scale-ps: the jobs' sizes.", "LIST", "1,4,16,32,64"});
    parser.addOption({"follow", "The throughput's tasks, of local, ssh, replay (for profiling one).", "LIST",
                      "local,ssh,replay"});
    parser.addOption({"root-nodes", "Log in to the nodes as root (whose shell runs ~/.bashrc before every command) "
                                    "instead of a user whose shell is /bin/sh."});
    parser.addOption({"json", "Also write the results to this file.", "FILE"});
    parser.addOption({"write-task-files", "Only write the followed task's files (events, record) into DIR.", "DIR"});
    parser.process(app);
    const bool quick = parser.isSet("quick");
    const int rounds = quick ? 2 : std::max(1, parser.value("rounds").toInt());
    const int64_t events = quick ? 100000 : std::max<qlonglong>(1000, parser.value("events").toLongLong());
    const int throughputRounds = quick ? 1 : std::max(1, parser.value("throughput-rounds").toInt());
    const QString only = parser.value("only");

    if (parser.isSet("write-task-files")) { // for profiling the follow path by hand
        QDir().mkpath(parser.value("write-task-files"));
        const EventsFile f = writeTaskFiles(parser.value("write-task-files"), events);
        std::printf("%lld events (%lld step events), %lld bytes\n", (long long)f.lines, (long long)f.steps,
                    (long long)f.bytes);
        return 0;
    }
    std::printf("Launching over SSH against this machine (strata-bench-launch)\n");
    // Nothing measured: said, and said in the JSON file too.
    auto notMeasured = [&](const QString& why) {
        std::printf("  not measured: %s\n", qPrintable(why));
        if (parser.isSet("json")) {
            QFile out(parser.value("json"));
            if (out.open(QIODevice::WriteOnly))
                out.write(QByteArray::fromStdString(Json{{"measured", false}, {"why", why.toStdString()}}.dump(2) + "\n"));
        }
        return 0;
    };
    if (::geteuid() != 0)
        return notMeasured(QStringLiteral("it needs root (sshd and network namespaces); run it as root "
                                          "(scripts/bench.sh --only launch)"));
    if (const QString why = sshtest::sshdSkipReason(); !why.isEmpty())
        return notMeasured(why);
    const std::string cpu = strata::bench::cpuName();
    const OtherLoad load; // before the hosts: their sshd are ours
    std::printf("CPU: %s\n", cpu.c_str());
    const bool scale = only == "scale" || only == "scale-ps";
    const int hostCount = scale ? 16 : 3;
    Hosts hosts(hostCount, parser.isSet("root-nodes"));
    if (!hosts.ok())
        return notMeasured(QStringLiteral("the SSH hosts could not be set up: %1").arg(hosts.error));
    std::printf("Hosts: %d network namespaces on one bridge, each with Debian's sshd (%s to %s), key login as %s\n\n",
                hostCount, qPrintable(hosts.servers.front()->address()), qPrintable(hosts.servers.back()->address()),
                hosts.root ? "root (its login shell, bash, reads ~/.bashrc before every command)"
                           : "a user whose login shell is /bin/sh");
    Bench bench(hosts, load);
    Json j{{"measured", true}, {"cpu", cpu}};
    if (scale) {
        std::vector<int> sizes;
        for (const QString& n : parser.value("sizes").split(','))
            sizes.push_back(std::max(1, n.toInt()));
        j[only.toStdString()] = measureScale(bench, sizes, only == "scale-ps");
    }
    if (only.isEmpty() || only == "latency")
        j["launch"] = measureLatency(bench, rounds);
    if (only.isEmpty() || only == "throughput")
        j["throughput"] = measureThroughput(bench, events, throughputRounds, parser.value("follow").split(','));
    if (parser.isSet("json")) {
        QFile out(parser.value("json"));
        if (out.open(QIODevice::WriteOnly))
            out.write(QByteArray::fromStdString(j.dump(2) + "\n"));
    }
    return 0;
}
