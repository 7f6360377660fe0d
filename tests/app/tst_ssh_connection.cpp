// Connection against a real sshd: exec channels with stdin written first and later, stdout,
// stderr and exit status; several channels at once on one connection (some asked for before
// it connected); tens of MB each way intact (with the throughput printed); signals and
// closing one channel; drop() with channels open; a failed connect closing the channels
// asked for; and, in a network namespace whose link is cut, a dead peer noticed without
// drop() and a drop() that returns at once.

#include "../event_deadline.h"
#include "netns_fixture.h"
#include "ssh_fixture.h"

#include "app/ssh/connection.h"

#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QtTest>

using namespace strata::app::ssh;
using namespace sshtest;

namespace {

// Everything one Connection said, per channel.
struct Recorder {
    QMap<int, QByteArray> out, err;
    QMap<int, QPair<int, QString>> closed; // exit status, exit signal
    QMap<int, QString> channelFailures;
    QStringList events; // in order: "connected", "failed", "lost", "closed <id>"
    QString failure, lostReason;
    FailureKind failureKind = FailureKind::None;

    explicit Recorder(Connection& c)
    {
        QObject::connect(&c, &Connection::connected, [this] { events << "connected"; });
        QObject::connect(&c, &Connection::failed, [this](const QString& m, FailureKind k) {
            events << "failed";
            failure = m;
            failureKind = k;
        });
        QObject::connect(&c, &Connection::lost, [this](const QString& r) {
            events << "lost";
            lostReason = r;
        });
        QObject::connect(&c, &Connection::channelStdout, [this](int id, const QByteArray& d) { out[id] += d; });
        QObject::connect(&c, &Connection::channelStderr, [this](int id, const QByteArray& d) { err[id] += d; });
        QObject::connect(&c, &Connection::channelFailed, [this](int id, const QString& m) { channelFailures[id] = m; });
        QObject::connect(&c, &Connection::channelClosed, [this](int id, int status, const QString& signal) {
            QVERIFY2(!closed.contains(id), "channelClosed comes once per channel");
            closed[id] = {status, signal};
            events << QStringLiteral("closed %1").arg(id);

        });
    }
    bool connected() const { return events.contains("connected"); }
};

} // namespace

class TestSshConnection : public QObject {
    Q_OBJECT

    QTemporaryDir m_home;
    std::unique_ptr<SshServer> m_server;
    QString m_knownHosts;

    SessionOptions options() const
    {
        SessionOptions o;
        o.knownHostsFile = m_knownHosts;
        return o;
    }

    // A Connection to the test server, connected.
    std::unique_ptr<Connection> connectedTo(const Endpoint& e, const SessionOptions& o)
    {
        auto c = std::make_unique<Connection>(e, o, nullptr);
        QSignalSpy connected(c.get(), &Connection::connected);
        QSignalSpy failed(c.get(), &Connection::failed);
        c->open();
        QElapsedTimer waited;
        waited.start();
        while (connected.isEmpty() && failed.isEmpty() && waited.elapsed() < 10000)
            QTest::qWait(10);
        if (connected.isEmpty())
            qWarning() << "not connected:" << (failed.isEmpty() ? QString() : failed.first().first().toString());
        return connected.isEmpty() ? nullptr : std::move(c);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        qputenv("HOME", QFile::encodeName(m_home.path()));
        qunsetenv("SSH_AUTH_SOCK");
        if (const QString why = sshdSkipReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
        m_server = std::make_unique<SshServer>();
        QVERIFY2(m_server->isRunning(), qPrintable(m_server->error()));
        m_knownHosts = m_home.filePath("known_hosts");
        writeAll(m_knownHosts, m_server->knownHostsLine());
    }

    void execWithStdinNowAndLater()
    {
        Connection c(m_server->endpoint(AuthMethod::Key), options(), nullptr);
        Recorder r(c);
        // Asked for before open(): it starts once connected.
        const int id = c.exec("cat; echo done >&2; exit 7", "hello ");
        c.open();
        QTRY_VERIFY_WITH_TIMEOUT(r.out.value(id) == "hello ", testing::kEventDeadlineMs);
        // stdin stayed open: more now, then EOF ends cat.
        c.write(id, "world\n");
        QTRY_COMPARE_WITH_TIMEOUT(r.out.value(id), QByteArray("hello world\n"), testing::kEventDeadlineMs);
        QVERIFY(!r.closed.contains(id));
        c.closeStdin(id);
        QTRY_VERIFY_WITH_TIMEOUT(r.closed.contains(id), testing::kEventDeadlineMs);
        QCOMPARE(r.closed[id], qMakePair(7, QString()));
        QCOMPARE(r.err.value(id), QByteArray("done\n"));
        QCOMPARE(r.events, QStringList({"connected", QStringLiteral("closed %1").arg(id)}));
        QCOMPARE(c.state(), Connection::State::Connected);
    }

    void severalChannelsAtOnce()
    {
        auto c = connectedTo(m_server->endpoint(AuthMethod::Key), options());
        QVERIFY(c);
        Recorder r(*c);
        // Side by side, not one after another: each channel marks that it started, then waits
        // (10 s at most) until all six have; one run after another, the first would never see
        // the others and exit 99. No wall-clock bound, so a loaded machine cannot fail it.
        QTemporaryDir started;
        QVERIFY(started.isValid());
        const QString dir = started.path();
        QList<int> ids;
        for (int i = 1; i <= 6; ++i)
            ids << c->exec(QStringLiteral("touch %2/%1; for n in $(seq 100); do [ $(ls %2 | wc -l) -ge 6 ] && break; "
                                          "sleep 0.1; done; [ $(ls %2 | wc -l) -ge 6 ] || exit 99; "
                                          "echo channel %1; echo err %1 >&2; exit %1")
                               .arg(i)
                               .arg(dir)
                               .toUtf8());
        QTRY_COMPARE_WITH_TIMEOUT(r.closed.size(), 6, testing::kEventDeadlineMs);
        for (int i = 1; i <= 6; ++i) {
            const int id = ids[i - 1];
            QCOMPARE(r.out[id], QStringLiteral("channel %1\n").arg(i).toUtf8());
            QCOMPARE(r.err[id], QStringLiteral("err %1\n").arg(i).toUtf8());
            QCOMPARE(r.closed[id].first, i);
        }
    }

    void largeOutputIntact()
    {
        auto c = connectedTo(m_server->endpoint(AuthMethod::Key), options());
        QVERIFY(c);
        Recorder r(*c);
        constexpr int kLines = 5000000; // 38.9 MB
        QElapsedTimer t;
        t.start();
        qint64 firstByteMs = -1; // the command's start (a fork on the host) is no transfer
        connect(c.get(), &Connection::channelStdout, this, [&] {
            if (firstByteMs < 0)
                firstByteMs = t.elapsed();
        });
        const int id = c->exec(QByteArray("seq 1 ") + QByteArray::number(kLines));
        QTRY_VERIFY_WITH_TIMEOUT(r.closed.contains(id), testing::kEventDeadlineMs);
        const qint64 ms = std::max<qint64>(1, t.elapsed() - firstByteMs);
        QByteArray expected;
        expected.reserve(r.out[id].size());
        for (int i = 1; i <= kLines; ++i)
            expected += QByteArray::number(i) + '\n';
        QCOMPARE(r.out[id].size(), expected.size());
        QVERIFY(r.out[id] == expected);
        QCOMPARE(r.closed[id].first, 0);
        qInfo("%.1f MB out of one channel in %lld ms from its first byte: %.0f MB/s", expected.size() / 1e6, ms,
              expected.size() / 1e3 / ms);
    }

    void largeInputIntact()
    {
        auto c = connectedTo(m_server->endpoint(AuthMethod::Key), options());
        QVERIFY(c);
        Recorder r(*c);
        QByteArray data(24 << 20, Qt::Uninitialized);
        for (qsizetype i = 0; i < data.size(); ++i)
            data[i] = char((i * 7919) >> 3);
        QElapsedTimer t;
        t.start();
        // Half as the stdin bytes, half written afterwards; sha256sum answers once EOF comes.
        const int id = c->exec("sha256sum", data.left(data.size() / 2));
        c->write(id, data.mid(data.size() / 2));
        c->closeStdin(id);
        QTRY_VERIFY_WITH_TIMEOUT(r.closed.contains(id), testing::kEventDeadlineMs);
        const qint64 ms = std::max<qint64>(1, t.elapsed());
        QCOMPARE(r.out[id].left(64), QCryptographicHash::hash(data, QCryptographicHash::Sha256).toHex());
        qInfo("%.1f MB into one channel in %lld ms: %.0f MB/s", data.size() / 1e6, ms, data.size() / 1e3 / ms);
    }

    void signalAndCloseChannel()
    {
        // sshd honours signal requests only with privilege separation, which it drops after a
        // root login: the test user logs in (by key) instead.
        SshServer server({.passwordUser = true});
        QVERIFY2(server.isRunning(), qPrintable(server.error()));
        SessionOptions o;
        o.knownHostsFile = m_home.filePath("known_hosts_user");
        writeAll(o.knownHostsFile, server.knownHostsLine());
        Endpoint e = server.endpoint(AuthMethod::Key);
        e.user = QString::fromLatin1(SshServer::kTestUser);
        auto c = connectedTo(e, o);
        QVERIFY(c);
        Recorder r(*c);
        const int signalled = c->exec("echo started; exec sleep 30");
        const int closedHere = c->exec("echo started; exec sleep 30");
        QTRY_VERIFY_WITH_TIMEOUT(r.out.value(signalled) == "started\n" && r.out.value(closedHere) == "started\n", testing::kEventDeadlineMs);
        c->sendSignal(signalled, "TERM");
        QTRY_VERIFY_WITH_TIMEOUT(r.closed.contains(signalled), testing::kEventDeadlineMs);
        QCOMPARE(r.closed[signalled], qMakePair(-1, QStringLiteral("TERM")));
        c->closeChannel(closedHere);
        QTRY_VERIFY_WITH_TIMEOUT(r.closed.contains(closedHere), testing::kEventDeadlineMs);
        QCOMPARE(r.closed[closedHere].first, -1);
        // Writing to a closed channel is ignored; the connection serves on.
        c->write(closedHere, "ignored");
        const int next = c->exec("echo next");
        QTRY_VERIFY_WITH_TIMEOUT(r.closed.contains(next), testing::kEventDeadlineMs);
        QCOMPARE(r.out[next], QByteArray("next\n"));
        QVERIFY(r.lostReason.isEmpty());
    }

    void dropWithChannelsOpen()
    {
        auto c = connectedTo(m_server->endpoint(AuthMethod::Key, "gpu1"), options());
        QVERIFY(c);
        Recorder r(*c);
        const int a = c->exec("echo a; exec sleep 30");
        const int b = c->exec("echo b; exec sleep 30");
        QTRY_VERIFY_WITH_TIMEOUT(r.out.value(a) == "a\n" && r.out.value(b) == "b\n", testing::kEventDeadlineMs);
        QElapsedTimer t;
        t.start();
        c->drop();
        QVERIFY(t.elapsed() < 100);
        QTRY_VERIFY_WITH_TIMEOUT(r.closed.size() == 2, 3000);
        QVERIFY2(t.elapsed() < 3000, qPrintable(QString::number(t.elapsed())));
        QCOMPARE(r.events, QStringList({"lost", QStringLiteral("closed %1").arg(a), QStringLiteral("closed %1").arg(b)}));
        QVERIFY2(r.lostReason.startsWith("node \"gpu1\"") && r.lostReason.contains("dropped"), qPrintable(r.lostReason));
        QCOMPARE(r.closed[a].first, -1);
        QCOMPARE(c->state(), Connection::State::Ended);
        // Nothing runs on an ended connection: the channel says so and closes.
        const int late = c->exec("true");
        QTRY_VERIFY_WITH_TIMEOUT(r.closed.contains(late), testing::kEventDeadlineMs);
        QVERIFY(r.channelFailures.contains(late));
    }

    void failedConnectClosesQueuedChannels()
    {
        Endpoint e = m_server->endpoint(AuthMethod::Key, "nowhere");
        e.port = freePort();
        Connection c(e, options(), nullptr);
        Recorder r(c);
        const int id = c.exec("true");
        c.open();
        QTRY_VERIFY_WITH_TIMEOUT(r.closed.contains(id), 5000);
        QCOMPARE(r.events, QStringList({"failed", QStringLiteral("closed %1").arg(id)}));
        QCOMPARE(r.failureKind, FailureKind::ConnectionRefused);
        QVERIFY2(r.failure.startsWith("node \"nowhere\"") && r.failure.contains("refused"), qPrintable(r.failure));
        QCOMPARE(r.closed[id].first, -1);
    }

    void cutLink()
    {
        NetnsHosts hosts(1);
        if (!hosts.isReady())
            QSKIP(qPrintable(hosts.error()));
        SshServer server({.address = hosts.address(0), .port = 22, .netns = hosts.name(0)});
        QVERIFY2(server.isRunning(), qPrintable(server.error()));
        const QString knownHosts = m_home.filePath("known_hosts_netns");
        writeAll(knownHosts, server.knownHostsLine());
        SessionOptions o;
        o.knownHostsFile = knownHosts;
        o.deadPeerMs = 2000;

        // A peer that stops answering is lost without anyone dropping it.
        {
            auto c = connectedTo(server.endpoint(AuthMethod::Key, "far"), o);
            QVERIFY(c);
            Recorder r(*c);
            const int id = c->exec("echo up; exec sleep 60");
            QTRY_VERIFY_WITH_TIMEOUT(r.out.value(id) == "up\n", 5000);
            QVERIFY(hosts.cut(0));
            QElapsedTimer t;
            t.start();
            QTRY_VERIFY_WITH_TIMEOUT(r.closed.contains(id), 8000);
            qInfo("dead peer noticed after %lld ms", t.elapsed());
            QCOMPARE(r.events.first(), QStringLiteral("lost"));
            QVERIFY2(r.lostReason.startsWith("node \"far\"") && r.lostReason.contains("lost"), qPrintable(r.lostReason));
            QVERIFY(hosts.restore(0));
        }
        // drop() on a connection whose peer is gone, with data waiting to go to it: at once.
        auto c = connectedTo(server.endpoint(AuthMethod::Key, "far"), o);
        QVERIFY(c);
        Recorder r(*c);
        const int id = c->exec("echo up; exec cat >/dev/null");
        QTRY_VERIFY_WITH_TIMEOUT(r.out.value(id) == "up\n", 5000);
        QVERIFY(hosts.cut(0));
        c->write(id, QByteArray(8 << 20, 'x'));
        QTest::qWait(200); // the loop is now writing into a link that takes nothing
        QElapsedTimer t;
        t.start();
        c->drop();
        QVERIFY(t.elapsed() < 100);
        QTRY_VERIFY_WITH_TIMEOUT(r.closed.contains(id), 1000);
        QVERIFY2(t.elapsed() < 1000, qPrintable(QString::number(t.elapsed())));
        QVERIFY2(r.lostReason.contains("dropped"), qPrintable(r.lostReason));
        // The destructor does not wait on the peer either.
        t.restart();
        c.reset();
        QVERIFY(t.elapsed() < 1000);
    }
};

QTEST_GUILESS_MAIN(TestSshConnection)
#include "tst_ssh_connection.moc"
