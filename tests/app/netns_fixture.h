#pragma once
// NetnsHosts: N "hosts" on this machine for tests of unreachable and vanishing nodes: network
// namespaces named per test process (strata-<pid>-<i>), each joined to this host by a veth
// pair with a /24 of its own from 198.18.0.0/15 (host side .1, namespace side .2), `lo` up
// inside. Test traffic goes only to those addresses (and loopback).
//
// With `Lan`, the hosts also reach each other (a job across them): every host's link and one
// of this machine's end on a bridge in a namespace of its own (strata-<pid>-lan), all on one
// /24 (this machine .1, host i .(i + 2)); nothing is routed or forwarded.
//
//   NetnsHosts hosts(1);
//   if (!hosts.isReady()) QSKIP(qPrintable(hosts.error()));   // not root, no `ip`
//   SshServer server({hosts.address(0), 22, hosts.name(0)});  // an sshd "on" that host
//   hosts.cut(0);                                             // its cable pulled
//
// cut(i) takes the namespace's end of the link down: the host's route to it stays (its end
// only loses carrier), so packets for it vanish as on a cut cable. (Taking the host's end
// down would remove that route, and packets for 198.18.x.2 would leave through the default
// route instead.) restore(i) brings it back.
//
// Everything is removed when the fixture goes, which is also when a test fails (the fixture
// is a local of the test function): the processes inside are killed, then the namespaces
// and links deleted. Leftovers of test processes that died are removed on construction.

#include "ssh_fixture.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QRegularExpression>
#include <QSet>
#include <QStandardPaths>
#include <QStringList>
#include <QThread>

#include <csignal>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace sshtest {

class NetnsHosts {
public:
    enum Topology { Separate, Lan };

    explicit NetnsHosts(int count, Topology topology = Separate) : m_lan(topology == Lan)
    {
        if (::geteuid() != 0) {
            m_error = QStringLiteral("network namespaces need root");
            return;
        }
        if (QStandardPaths::findExecutable("ip", {"/usr/sbin", "/sbin", "/usr/bin", "/bin"}).isEmpty()) {
            m_error = QStringLiteral("no `ip` command (Debian's iproute2)");
            return;
        }
        // One process at a time picks subnets and makes links, so that tests running side by
        // side never share a subnet.
        ::mkdir("/run/lock", 01777); // a container's /run may lack it
        const int lock = ::open("/run/lock/strata-netns.lock", O_CREAT | O_RDWR | O_CLOEXEC, 0600);
        if (lock < 0 || ::flock(lock, LOCK_EX) != 0) {
            m_error = QStringLiteral("cannot lock /run/lock/strata-netns.lock");
            if (lock >= 0)
                ::close(lock);
            return;
        }
        removeLeftovers();
        const QList<int> subnets = freeSubnets(m_lan ? 1 : count);
        if (m_lan)
            addLan(subnets.value(0, -1));
        for (int i = 0; i < count && m_error.isEmpty(); ++i)
            add(i, subnets.value(m_lan ? 0 : i, -1));
        ::close(lock);
        if (!m_error.isEmpty())
            removeAll();
    }

    ~NetnsHosts() { removeAll(); }
    NetnsHosts(const NetnsHosts&) = delete;
    NetnsHosts& operator=(const NetnsHosts&) = delete;

    bool isReady() const { return m_error.isEmpty(); }
    const QString& error() const { return m_error; }
    int count() const { return int(m_hosts.size()); }
    QString name(int i) const { return m_hosts[i].name; }
    QString address(int i) const
    {
        return subnetPrefix(m_hosts[i].subnet) + (m_lan ? QStringLiteral(".%1").arg(i + 2) : QStringLiteral(".2"));
    }
    // The processes running in host i (its namespace).
    QList<pid_t> pids(int i) const { return pidsIn(name(i)); }
    QString hostAddress(int i) const { return subnetPrefix(m_hosts[i].subnet) + ".1"; }

    bool cut(int i) { return ip({"netns", "exec", name(i), "ip", "link", "set", m_hosts[i].inner, "down"}); }
    // Also forgets the neighbour entries the cut left failed, which would answer "no route to
    // host" for a while yet.
    bool restore(int i)
    {
        const QString outer = m_lan ? m_lanOuter : m_hosts[i].outer;
        return ip({"netns", "exec", name(i), "ip", "link", "set", m_hosts[i].inner, "up"})
            && ip({"neigh", "flush", "dev", outer})
            && ip({"netns", "exec", name(i), "ip", "neigh", "flush", "dev", m_hosts[i].inner});
    }

private:
    struct Host {
        QString name, outer, inner; // namespace, host-side and namespace-side link
        int subnet = 0;             // 0..511: 198.18.0.0/24 .. 198.19.255.0/24
    };

    static QString subnetPrefix(int subnet) { return QStringLiteral("198.%1.%2").arg(18 + subnet / 256).arg(subnet % 256); }

    bool ip(const QStringList& args)
    {
        QString why;
        if (runTool("ip", args, nullptr, &why))
            return true;
        if (m_error.isEmpty())
            m_error = why;
        return false;
    }

    // Subnets of 198.18.0.0/15 no interface of this host uses.
    static QList<int> freeSubnets(int count)
    {
        QByteArray out;
        runTool("ip", {"-o", "-4", "addr", "show"}, &out);
        QSet<int> used;
        const QRegularExpression inet(QStringLiteral("inet 198\\.(18|19)\\.(\\d+)\\."));
        for (auto m = inet.globalMatch(QString::fromLatin1(out)); m.hasNext();) {
            const auto match = m.next();
            used << (match.captured(1).toInt() - 18) * 256 + match.captured(2).toInt();
        }
        QList<int> free;
        for (int s = 1; s < 512 && free.size() < count; ++s)
            if (!used.contains(s))
                free << s;
        return free;
    }

    void add(int i, int subnet)
    {
        if (subnet < 0) {
            m_error = QStringLiteral("no free subnet in 198.18.0.0/15");
            return;
        }
        const QString pid = QString::number(::getpid());
        Host h{QStringLiteral("strata-%1-%2").arg(pid).arg(i), QStringLiteral("st%1h%2").arg(pid).arg(i),
               QStringLiteral("st%1n%2").arg(pid).arg(i), subnet};
        if (!ip({"netns", "add", h.name}))
            return;
        m_hosts.push_back(h);
        const QString prefix = subnetPrefix(subnet);
        if (m_lan) {
            // The host's link to the bridge: its other end lives in the LAN's namespace.
            ip({"link", "add", h.outer, "type", "veth", "peer", "name", h.inner})
                && ip({"link", "set", h.inner, "netns", h.name})
                && ip({"link", "set", h.outer, "netns", m_lanName})
                && ip({"netns", "exec", m_lanName, "ip", "link", "set", h.outer, "master", "br0", "up"})
                && ip({"netns", "exec", h.name, "ip", "addr", "add", QStringLiteral("%1.%2/24").arg(prefix).arg(i + 2), "dev", h.inner})
                && ip({"netns", "exec", h.name, "ip", "link", "set", h.inner, "up"})
                && ip({"netns", "exec", h.name, "ip", "link", "set", "lo", "up"});
            return;
        }
        ip({"link", "add", h.outer, "type", "veth", "peer", "name", h.inner})
            && ip({"link", "set", h.inner, "netns", h.name})
            && ip({"addr", "add", prefix + ".1/24", "dev", h.outer})
            && ip({"link", "set", h.outer, "up"})
            && ip({"netns", "exec", h.name, "ip", "addr", "add", prefix + ".2/24", "dev", h.inner})
            && ip({"netns", "exec", h.name, "ip", "link", "set", h.inner, "up"})
            && ip({"netns", "exec", h.name, "ip", "link", "set", "lo", "up"});
    }

    // The LAN's namespace with its bridge, and this machine's link to it (.1).
    void addLan(int subnet)
    {
        if (subnet < 0) {
            m_error = QStringLiteral("no free subnet in 198.18.0.0/15");
            return;
        }
        const QString pid = QString::number(::getpid());
        m_lanName = QStringLiteral("strata-%1-lan").arg(pid);
        m_lanOuter = QStringLiteral("st%1lan").arg(pid);
        const QString inner = QStringLiteral("st%1lanb").arg(pid);
        if (!ip({"netns", "add", m_lanName}))
            return;
        ip({"netns", "exec", m_lanName, "ip", "link", "add", "br0", "type", "bridge"})
            && ip({"netns", "exec", m_lanName, "ip", "link", "set", "br0", "up"})
            && ip({"link", "add", m_lanOuter, "type", "veth", "peer", "name", inner})
            && ip({"link", "set", inner, "netns", m_lanName})
            && ip({"netns", "exec", m_lanName, "ip", "link", "set", inner, "master", "br0", "up"})
            && ip({"addr", "add", subnetPrefix(subnet) + ".1/24", "dev", m_lanOuter})
            && ip({"link", "set", m_lanOuter, "up"});
    }

    static QList<pid_t> pidsIn(const QString& name)
    {
        QByteArray out;
        runTool("ip", {"netns", "pids", name}, &out);
        QList<pid_t> pids;
        for (const QByteArray& p : out.split('\n'))
            if (!p.trimmed().isEmpty())
                pids << pid_t(p.trimmed().toInt());
        return pids;
    }

    // Kills what runs in the namespace, waits for it to go (a namespace lives on while a
    // process is in it), then deletes it and its link.
    static void remove(const QString& name, const QString& outer)
    {
        const QList<pid_t> pids = pidsIn(name);
        for (pid_t p : pids)
            ::kill(p, SIGKILL);
        QElapsedTimer waited;
        waited.start();
        for (pid_t p : pids)
            while (QFileInfo::exists(QStringLiteral("/proc/%1").arg(p)) && waited.elapsed() < 3000)
                QThread::msleep(10);
        runTool("ip", {"netns", "del", name});
        runTool("ip", {"link", "del", outer}); // gone with the namespace, normally
    }

    void removeAll()
    {
        for (const Host& h : m_hosts)
            remove(h.name, h.outer);
        m_hosts.clear();
        if (!m_lanName.isEmpty())
            remove(m_lanName, m_lanOuter);
        m_lanName.clear();
    }

    // Namespaces of test processes that no longer run (killed before their destructors ran).
    static void removeLeftovers()
    {
        QByteArray out;
        runTool("ip", {"netns", "list"}, &out);
        const QRegularExpression ours(QStringLiteral("^strata-(\\d+)-(\\d+|lan)"));
        for (const QByteArray& line : out.split('\n')) {
            const auto m = ours.match(QString::fromLatin1(line));
            if (m.hasMatch() && ::kill(pid_t(m.captured(1).toInt()), 0) != 0 && errno == ESRCH)
                remove(m.captured(0), m.captured(2) == QLatin1String("lan")
                                          ? QStringLiteral("st%1lan").arg(m.captured(1))
                                          : QStringLiteral("st%1h%2").arg(m.captured(1), m.captured(2)));
        }
    }

    std::vector<Host> m_hosts;
    bool m_lan = false;
    QString m_lanName, m_lanOuter; // Lan: the bridge's namespace, this machine's link to it
    QString m_error;
};

} // namespace sshtest
