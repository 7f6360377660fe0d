#include "app/launch/node_check.h"

#include "app/experiment/catalogs.h"
#include "app/experiment/cluster_editing.h"
#include "app/launch/engine_info.h"
#include "app/launch/launch_plan.h"
#include "app/rundir/task_places.h"
#include "app/ssh/connection.h"
#include "app/metrics/display_text.h"

#include "strata/core/device.h"
#include "strata/core/error.h"
#include "strata/schema/events.h"
#include "strata/schema/experiment.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QTimer>

namespace strata::app {

namespace {

using Json = nlohmann::ordered_json;

QString q(const std::string& s) { return QString::fromStdString(s); }

// The devices each training task of `experiment` uses on its node (one; under
// MultiWorkerMirrored each worker's local ones, under ParameterServer cpu:0), and the
// logical CPU devices the strategy asks for (0: one per core).
QStringList strategyDevices(const Json& experiment, int* logicalCpus)
{
    QStringList names;
    *logicalCpus = 0;
    try {
        const schema::Experiment e = schema::parseExperiment(experiment, "");
        const schema::StrategySpec& s = e.strategy;
        const std::string type = s.effectiveType();
        *logicalCpus = int(s.logicalCpuDevices);
        if (type == "OneDevice")
            names << q(s.device);
        for (const std::string& d : type == "CentralStorage" ? s.computeDevices : s.devices)
            names << q(d);
        if (type == "CentralStorage")
            names << q(s.parameterDevice);
        if (names.isEmpty() && isMultiProcess(type))
            names << QStringLiteral("cpu:0");
        names.removeAll(QString());
        names.removeDuplicates();
    } catch (const Error&) {
        // validated before
    }
    return names;
}

QString lastLines(const QByteArray& text)
{
    const QStringList lines = QString::fromUtf8(text).trimmed().split(QLatin1Char('\n'));
    return lines.mid(std::max<qsizetype>(0, lines.size() - 3)).join(QStringLiteral(" / "));
}

} // namespace

QString NodeReport::summary() const
{
    const QString place = placeText(node, host);
    if (!ok())
        return (problems + notes).join(QLatin1Char('\n'));
    const QString text = QStringLiteral("%1: strata-engine %2 on %3, %4; checked in %5 s")
                             .arg(place, version, hostName, devices.join(QLatin1Char(' ')))
                             .arg(double(ms) / 1000.0, 0, 'f', 2);
    return notes.isEmpty() ? text : text + QStringLiteral(" (") + notes.join(QStringLiteral("; ")) + QLatin1Char(')');
}

struct NodeChecker::Pending {
    NodeReport report;
    schema::NodeSpec node;
    QByteArray request;
    QStringList wantedDevices;
    int logicalCpus = 0;
    int wantedFreePorts = 0;
    QElapsedTimer clock;
    QTimer timeout;
    std::unique_ptr<QProcess> process;
    std::unique_ptr<ssh::Connection> connection;
    int channel = -1;
    QByteArray out, err;
    bool finished = false;
};

NodeChecker::NodeChecker(RemoteAccess access, QObject* parent) : QObject(parent), m_access(access) {}

NodeChecker::~NodeChecker() = default;

bool NodeChecker::isChecking() const { return m_outstanding > 0; }

void NodeChecker::check(const Json& experiment, const QString& localEngine, bool remoteOnly)
{
    m_experiment = experiment;
    m_pending.clear();
    m_reports.clear();
    const LaunchPlan plan = planLaunch(experiment, localEngine, QStringLiteral("check"));
    const schema::ClusterSpec cluster = readableCluster(experiment);
    int logicalCpus = 0;
    const QStringList devices = strategyDevices(experiment, &logicalCpus);
    QStringList hostsAsked; // free ports are asked of one node per host
    const QList<HostPorts> hostPorts = portsByHost(experiment);
    for (const schema::NodeSpec& node : cluster.nodes) {
        const QString name = q(node.name);
        std::vector<const PlannedTask*> tasks;
        for (const PlannedTask& t : plan.tasks)
            if (t.node == name)
                tasks.push_back(&t);
        const bool remote = node.auth != "none";
        if (tasks.empty() || (remoteOnly && !remote))
            continue;
        auto p = std::make_unique<Pending>();
        p->node = node;
        p->report.node = name;
        p->report.host = q(node.host);
        p->report.remote = remote;
        p->report.engine = remote ? tasks.front()->engine : localEngine;
        // The data is looked for there as the engine will look for it (the experiment's
        // data paths are absolute, as forLaunch() writes them).
        Json request{{"experiment", experiment}, {"bind", Json::array()}};
        // Each task's explicit port must be free there; automatic ones are chosen now.
        for (const schema::TaskAddress& a : schema::taskAddresses(cluster))
            if (a.node == node.name && cluster.tasks[a.assignment].port != 0 &&
                std::any_of(tasks.begin(), tasks.end(), [&](const PlannedTask* t) { return t->name == q(a.name()); }))
                request["bind"].push_back({{"host", a.host}, {"port", a.port}});
        for (const HostPorts& h : hostPorts)
            if (h.host == q(node.host) && h.automatic > 0 && !hostsAsked.contains(h.host)) {
                hostsAsked << h.host;
                Json skip = Json::array();
                for (int port : h.explicitPorts)
                    skip.push_back(port);
                request["free_ports"] = {{"host", node.host}, {"from", schema::kFirstAutomaticPort},
                                         {"count", h.automatic}, {"skip", skip}};
                p->wantedFreePorts = h.automatic;
            }
        p->request = QByteArray::fromStdString(request.dump());
        if (std::any_of(tasks.begin(), tasks.end(), [](const PlannedTask* t) { return t->trains; })) {
            p->wantedDevices = devices;
            p->logicalCpus = logicalCpus;
        }
        m_pending.push_back(std::move(p));
    }
    m_outstanding = int(m_pending.size());
    if (m_outstanding == 0) {
        QMetaObject::invokeMethod(this, [this] { Q_EMIT finished(m_reports); }, Qt::QueuedConnection);
        return;
    }
    m_started = 0;
    startNext();
}

void NodeChecker::startNext()
{
    // Each check beyond the first kConcurrentChecks starts as one ends: a node's connection
    // (its thread and its key exchange) is made while few others compete for the cores, so
    // that none misses its connection timeout behind a hundred others.
    const int running = m_started - (int(m_pending.size()) - m_outstanding);
    for (int free = kConcurrentChecks - running; free > 0 && m_started < int(m_pending.size()); --free) {
        Pending& p = *m_pending[size_t(m_started++)];
        p.clock.start();
        p.report.remote ? checkRemote(p) : checkLocal(p);
    }
}

void NodeChecker::checkLocal(Pending& p)
{
    if (const QString problem = engineProblem(p.report.engine); !problem.isEmpty()) {
        p.report.problems << placeText(p.report.node, p.report.host) + ": " + problem;
        QMetaObject::invokeMethod(this, [this, &p] { done(p); }, Qt::QueuedConnection);
        return;
    }
    p.process = std::make_unique<QProcess>();
    connect(p.process.get(), &QProcess::finished, this, [this, &p](int code, QProcess::ExitStatus status) {
        probeAnswered(p, status == QProcess::CrashExit ? -1 : code, p.process->readAllStandardOutput(),
                      p.process->readAllStandardError());
    });
    connect(p.process.get(), &QProcess::errorOccurred, this, [this, &p](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            probeAnswered(p, -1, {}, p.process->errorString().toUtf8());
    });
    p.timeout.setSingleShot(true);
    connect(&p.timeout, &QTimer::timeout, this, [this, &p] {
        p.report.problems << tr("%1: the engine %2 did not answer within %3 s")
                                 .arg(placeText(p.report.node, p.report.host), p.report.engine)
                                 .arg(kProbeTimeoutMs / 1000);
        p.process->disconnect(this);
        p.process->kill();
        done(p);
    });
    p.timeout.start(kProbeTimeoutMs);
    p.process->start(p.report.engine, {QStringLiteral("probe"), QStringLiteral("--check")});
    p.process->write(p.request);
    p.process->closeWriteChannel();
}

void NodeChecker::checkRemote(Pending& p)
{
    p.connection = std::make_unique<ssh::Connection>(endpointOf(p.node), m_access.options, m_access.prompter);
    ssh::Connection* c = p.connection.get();
    connect(c, &ssh::Connection::warning, this, [&p](const QString& why) { p.report.notes << why; });
    connect(c, &ssh::Connection::failed, this, [this, &p](const QString& why) {
        p.report.problems << why;
        done(p);
    });
    connect(c, &ssh::Connection::connected, this, [this, &p, c] {
        p.channel = c->exec(remoteCommand(p.report.engine, {QStringLiteral("probe"), QStringLiteral("--check")}), p.request);
        c->closeStdin(p.channel);
        p.timeout.start(kProbeTimeoutMs);
    });
    connect(c, &ssh::Connection::channelStdout, this, [&p](int id, const QByteArray& d) {
        if (id == p.channel)
            p.out += d;
    });
    connect(c, &ssh::Connection::channelStderr, this, [&p](int id, const QByteArray& d) {
        if (id == p.channel)
            p.err += d;
    });
    connect(c, &ssh::Connection::channelClosed, this, [this, &p](int id, int status, const QString&) {
        if (id == p.channel)
            probeAnswered(p, status, p.out, p.err);
    });
    connect(c, &ssh::Connection::lost, this, [this, &p](const QString& why) {
        p.report.problems << tr("%1: the connection was lost while checking it: %2")
                                 .arg(placeText(p.report.node, p.report.host), why);
        done(p);
    });
    p.timeout.setSingleShot(true);
    connect(&p.timeout, &QTimer::timeout, this, [this, &p] {
        p.report.problems << tr("%1: %2 probe did not answer within %3 s")
                                 .arg(placeText(p.report.node, p.report.host), p.report.engine)
                                 .arg(kProbeTimeoutMs / 1000);
        done(p);
    });
    c->open();
}

void NodeChecker::probeAnswered(Pending& p, int exitCode, const QByteArray& out, const QByteArray& err)
{
    if (p.finished)
        return;
    const QString place = placeText(p.report.node, p.report.host);
    Json hello, check;
    for (const QByteArray& line : out.split('\n')) {
        const Json j = Json::parse(line.toStdString(), nullptr, false);
        if (!j.is_object())
            continue;
        if (j.value("type", std::string()) == schema::event::kHello)
            hello = j;
        else if (j.value("type", std::string()) == schema::event::kCheck)
            check = j;
    }
    if (!hello.is_object()) {
        // 127: the shell found no such command; 126: found, not executable.
        if (exitCode == 127)
            p.report.problems << tr("%1: strata-engine was not found there at \"%2\" (install the strata-engine "
                                    "package on the node, or set the node's engine path): %3")
                                     .arg(place, p.report.engine, lastLines(err));
        else if (exitCode == 126)
            p.report.problems << tr("%1: the engine \"%2\" there cannot be run (not executable): %3")
                                     .arg(place, p.report.engine, lastLines(err));
        else
            p.report.problems << tr("%1: \"%2 probe\" did not answer as strata-engine does (exit status %3): %4")
                                     .arg(place, p.report.engine)
                                     .arg(exitCode)
                                     .arg(lastLines(err + out));
        done(p);
        return;
    }
    readHello(p, hello, place);
    if (!check.is_object()) {
        p.report.problems << tr("%1: the engine there did not check the data and ports (%2)").arg(place, lastLines(err));
        done(p);
        return;
    }
    readCheck(p, check, place);
    checkDevices(p, place);
    done(p);
}

void NodeChecker::readHello(Pending& p, const Json& hello, const QString& place)
{
    p.report.version = q(hello.value("version", std::string()));
    p.report.hostName = q(hello.value("host", std::string()));
    if (hello.contains("devices") && hello["devices"].is_array())
        for (const Json& d : hello["devices"])
            if (d.is_object())
                p.report.devices << q(d.value("name", std::string()));
    const int schema = hello.value("schema", 0);
    if (p.report.version != QStringLiteral(STRATA_VERSION))
        p.report.problems << tr("%1 runs strata-engine %2 (%3), but this Strata is %4: install the same version on "
                                "the node")
                                 .arg(place, p.report.version, p.report.engine, QStringLiteral(STRATA_VERSION));
    else if (schema != schema::kEventSchemaVersion)
        p.report.problems << tr("%1: the engine there speaks event schema %2, this Strata schema %3")
                                 .arg(place)
                                 .arg(schema)
                                 .arg(schema::kEventSchemaVersion);
}

void NodeChecker::readCheck(Pending& p, const Json& check, const QString& place)
{
    p.report.engine = q(check.value("engine", p.report.engine.toStdString()));
    if (const Json data = check.value("data", Json()); data.is_object() && !data.value("ok", false))
        p.report.problems << tr("%1: the data is not there: %2").arg(place, q(data.value("error", std::string())));
    for (const Json& bind : check.value("bind", Json::array()))
        if (!bind.value("ok", false))
            p.report.problems << tr("%1: port %2 on %3 cannot be used there: %4 (another job or program holds it?)")
                                     .arg(place)
                                     .arg(bind.value("port", 0))
                                     .arg(q(bind.value("host", std::string())), q(bind.value("error", std::string())));
    for (const Json& port : check.value("free_ports", Json::array()))
        if (port.is_number_integer())
            p.report.freePorts << port.get<int>();
    if (p.report.freePorts.size() < p.wantedFreePorts)
        p.report.problems << tr("%1: only %2 of the %3 automatic ports wanted are free there")
                                 .arg(place)
                                 .arg(p.report.freePorts.size())
                                 .arg(p.wantedFreePorts);
}

// The strategy's devices must exist on every node that trains.
void NodeChecker::checkDevices(Pending& p, const QString& place)
{
    int cpus = 0;
    for (const QString& d : p.report.devices)
        cpus += d.startsWith(QLatin1String("cpu:"));
    for (const QString& name : p.wantedDevices) {
        try {
            const Device d = Device::parse(name.toStdString());
            const bool exists = d.isCpu() ? d.index < (p.logicalCpus > 0 ? p.logicalCpus : cpus)
                                          : p.report.devices.contains(name);
            if (!exists)
                p.report.problems << tr("%1: the strategy names %2, which that node does not have (it offers %3)")
                                         .arg(place, name, p.report.devices.join(QLatin1Char(' ')));
        } catch (const Error&) {
            // refused by validation
        }
    }
}

void NodeChecker::done(Pending& p)
{
    if (p.finished)
        return;
    p.finished = true;
    p.timeout.stop();
    p.report.ms = p.clock.elapsed();
    if (p.connection && !p.report.ok()) {
        p.connection->disconnect(this);
        p.connection->drop();
        p.connection.release()->deleteLater();
    }
    if (p.process)
        p.process->disconnect(this);
    m_reports << p.report;
    Q_EMIT nodeChecked(p.report);
    if (--m_outstanding == 0)
        Q_EMIT finished(m_reports);
    else
        startNext();
}

std::map<QString, std::unique_ptr<ssh::Connection>> NodeChecker::takeConnections()
{
    std::map<QString, std::unique_ptr<ssh::Connection>> out;
    for (auto& p : m_pending)
        if (p->connection && p->report.ok()) {
            p->connection->disconnect(this);
            out[p->report.node] = std::move(p->connection);
        }
    return out;
}

} // namespace strata::app
