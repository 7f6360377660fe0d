#pragma once
// NodeChecker: whether each node of an experiment's cluster can run its tasks, checked on the
// node itself, up to kConcurrentChecks nodes at once: it connects (remote nodes: SSH, host key and
// authentication included), runs `strata-engine probe --check` there and reads the answer:
// the engine's version and event-schema version against this Strata's, the node's devices
// against the strategy's, the data (every file the engine will open, found as it finds
// them), whether each task's port can be bound there, and free ports for the automatic ones. A node that does not answer is named within the
// connection timeout (10 s by default), never waited on longer. The Cluster page's "Check
// nodes" and every launch with remote nodes use it; the launch keeps the open connections.
//
// Threads: the GUI (or main) thread.

#include "app/launch/remote_access.h"

#include <nlohmann/json.hpp>

#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

#include <map>
#include <memory>

namespace strata::app {

namespace ssh {
class Connection;
}

struct NodeReport {
    QString node;
    QString host;
    bool remote = false;
    QStringList problems;  // each a sentence naming the node and the cause
    QStringList notes;     // what went wrong without stopping it (a password not remembered)
    QString engine;        // the engine binary there
    QString version;       // its version ("0.1.0"); empty when it could not be run
    QString hostName;      // what the node calls itself
    QStringList devices;   // "cpu:0", ...
    QList<int> freePorts;  // for the automatic ports of its host
    qint64 ms = 0;         // how long the check took
    bool ok() const { return problems.isEmpty(); }
    // "b (198.18.1.2): strata-engine 0.1.0, cpu:0 cpu:1, 0.21 s" or its problems.
    QString summary() const;
};

class NodeChecker : public QObject {
    Q_OBJECT

public:
    explicit NodeChecker(RemoteAccess access, QObject* parent = nullptr);
    ~NodeChecker() override;

    // Checks every node that runs a task of `experiment` (validated; the data paths absolute,
    // as forLaunch() gives them), or only the remote ones; `localEngine` is this machine's.
    void check(const nlohmann::ordered_json& experiment, const QString& localEngine, bool remoteOnly = false);
    bool isChecking() const;
    const QList<NodeReport>& reports() const { return m_reports; }
    // The connections of the remote nodes that passed, for the launch to use; the checker
    // keeps none.
    std::map<QString, std::unique_ptr<ssh::Connection>> takeConnections();

    // How long a node may take to answer the probe once connected.
    static constexpr int kProbeTimeoutMs = 20000;
    // How many nodes are checked at once; the others wait for a check to end.
    static constexpr int kConcurrentChecks = 16;

Q_SIGNALS:
    void nodeChecked(const strata::app::NodeReport& report);
    void finished(const QList<strata::app::NodeReport>& reports);

private:
    struct Pending;
    void startNext();
    void checkLocal(Pending& pending);
    void checkRemote(Pending& pending);
    void probeAnswered(Pending& pending, int exitCode, const QByteArray& out, const QByteArray& err);
    // The probe's answer, line by line: the engine's version, schema and devices (`hello`);
    // the data, ports and free ports (`check`); the strategy's devices against the node's.
    void readHello(Pending& pending, const nlohmann::ordered_json& hello, const QString& place);
    void readCheck(Pending& pending, const nlohmann::ordered_json& check, const QString& place);
    void checkDevices(Pending& pending, const QString& place);
    void done(Pending& pending);

    RemoteAccess m_access;
    nlohmann::ordered_json m_experiment;
    std::vector<std::unique_ptr<Pending>> m_pending;
    QList<NodeReport> m_reports;
    int m_outstanding = 0;
    int m_started = 0;
};

} // namespace strata::app
