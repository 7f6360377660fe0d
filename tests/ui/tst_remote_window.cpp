// The window with a job on SSH nodes, against Debian's real sshd on loopback (ssh_fixture.h):
// two nodes (both that sshd, key login) each run a worker of a MultiWorkerMirrored job. The
// Cluster page's Check nodes asks about the unknown host key with its fingerprint; refused, each
// node is named with the cause, and so is a launch; trusted, each node's engine, version and
// devices are listed. Launch says it checks the nodes, then the dashboard shows both workers'
// lines and each task's node in the Host column; Stop ends the job, recorded in the history
// with the nodes' hosts. Needs root (sshd); skipped with the reason otherwise.

#include "../event_deadline.h"
#include "../app/app_test_util.h"
#include "../app/ssh_fixture.h"

#include "app/metrics/placement.h"
#include "ui/setup/cluster_page.h"
#include "ui/dashboard/dashboard_page.h"
#include "ui/dashboard/task_table.h"
#include "ui/shell/main_window.h"
#include "ui/shell/message_banner.h"
#include "ui/setup/validation_panel.h"

#include "scripted_dialogs.h"

#include <QPlainTextEdit>
#include <QAction>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTest>
#include <QTreeWidget>

#include <cerrno>
#include <csignal>

using namespace strata;
using apptest::Json;
using uitest::ScriptedDialogs;

namespace {

const QString kEngine = QStringLiteral(STRATA_ENGINE_PATH);

Json sshNode(const QString& name, const sshtest::SshServer& server, const QString& workDir)
{
    return {{"name", name.toStdString()},     {"host", server.address().toStdString()},
            {"ssh_port", server.port()},      {"auth", "key"},
            {"key_file", server.clientKey().toStdString()}, {"engine", kEngine.toStdString()},
            {"work_dir", workDir.toStdString()}};
}

int rowOf(QTableWidget* table, const QString& first)
{
    for (int row = 0; row < table->rowCount(); ++row)
        if (table->item(row, 0) && table->item(row, 0)->text() == first)
            return row;
    return -1;
}

QString column(QTableWidget* table, int c)
{
    QStringList cells;
    for (int row = 0; row < table->rowCount(); ++row)
        cells << (table->item(row, c) ? table->item(row, c)->text() : QString());
    return cells.join('\n');
}

} // namespace

class TestRemoteWindow : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        if (const QString why = sshtest::sshdSkipReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
        QVERIFY(m_dir.isValid());
        QStandardPaths::setTestModeEnabled(true);
        // A home of its own: its known_hosts starts empty, and only what the test trusts goes there.
        QVERIFY(QDir().mkpath(m_dir.filePath("home/.ssh")));
        qputenv("HOME", QFile::encodeName(m_dir.filePath("home")));
        qputenv("STRATA_HISTORY", QFile::encodeName(m_dir.filePath("history.sqlite")));
    }

    void jobOnSshNodesFromTheWindow()
    {
        sshtest::SshServer server;
        QVERIFY2(server.isRunning(), qPrintable(server.error()));
        auto dialogs = std::make_unique<ScriptedDialogs>();
        ScriptedDialogs* script = dialogs.get();
        ui::MainWindow window(kEngine, std::move(dialogs));
        window.show();

        Json job = apptest::endlessExperiment();
        job["strategy"] = {{"type", "MultiWorkerMirrored"}, {"timeout_seconds", 5}};
        // Ports of the kernel's choosing: the automatic ones (29500 up) may be taken at the
        // moment of the launch by another test's job on this host (CTest runs them in parallel).
        const int port0 = sshtest::freePort();
        int port1 = sshtest::freePort();
        while (port1 == port0)
            port1 = sshtest::freePort();
        job["cluster"] = {{"nodes", {sshNode("n1", server, m_dir.filePath("work1")), sshNode("n2", server, m_dir.filePath("work2"))}},
                          {"tasks", {{{"type", "worker"}, {"node", "n1"}, {"port", port0}},
                                     {{"type", "worker"}, {"node", "n2"}, {"port", port1}}}}};
        window.document().replace(job, "remote job");
        QVERIFY2(window.validationPanel()->launchEnabled(), qPrintable(window.banner()->text()));

        window.showPage(ui::MainWindow::ClusterPageIndex);
        ui::ClusterPage* cluster = window.clusterPage();
        QCOMPARE(cluster->nodeTable()->item(1, 7)->text(), m_dir.filePath("work2")); // Work directory

        // The host key is unknown: asked with its fingerprint; refused, each node names why.
        const QString fingerprint = server.hostFingerprint();
        QTest::mouseClick(cluster->checkButton(), Qt::LeftButton);
        QVERIFY(!cluster->checkButton()->isEnabled());
        QTRY_VERIFY_WITH_TIMEOUT(!cluster->isChecking(), testing::kEventDeadlineMs);
        QVERIFY(cluster->checkButton()->isEnabled());
        QTableWidget* checks = cluster->checkResults();
        QCOMPARE(checks->rowCount(), 2);
        for (const QString node : {"n1", "n2"}) {
            const int row = rowOf(checks, node + " (127.0.0.1)");
            QVERIFY2(row >= 0, qPrintable(column(checks, 0)));
            const QString result = checks->item(row, 1)->text();
            QVERIFY2(result.contains("node \"" + node + "\"") && result.contains("was not trusted"), qPrintable(result));
        }
        QVERIFY(script->hostKeyQuestions >= 1);
        for (const QString& asked : script->hostKeysAsked)
            QVERIFY2(asked.contains("127.0.0.1") && asked.endsWith("ssh-ed25519 " + fingerprint), qPrintable(asked));
        QVERIFY(cluster->checkState()->text().contains("2 with problems"));
        QVERIFY(!QFileInfo::exists(m_dir.filePath("home/.ssh/known_hosts")));

        // A launch checks them too, and says which node failed and why.
        QTest::mouseClick(window.validationPanel()->launchButton(), Qt::LeftButton);
        QVERIFY(window.run().isChecking());
        QTRY_VERIFY_WITH_TIMEOUT(!window.run().isRunning(), testing::kEventDeadlineMs);
        QCOMPARE(window.banner()->kind(), ui::MessageBanner::Kind::Error);
        QVERIFY2(window.banner()->text().contains("node \"n1\"") && window.banner()->text().contains("not trusted"),
                 qPrintable(window.banner()->text()));
        QVERIFY(window.validationPanel()->launchEnabled());

        // Trusted: each node's engine, its version and devices.
        const int asked = script->hostKeyQuestions;
        script->hostKeyAnswers = {true, true}; // both connections may ask before either trusted it
        QTest::mouseClick(cluster->checkButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!cluster->isChecking(), testing::kEventDeadlineMs);
        QVERIFY(script->hostKeyQuestions > asked);
        for (const QString& question : script->hostKeysAsked)
            QVERIFY2(question.endsWith(fingerprint), qPrintable(question));
        script->hostKeyAnswers.clear();
        QCOMPARE(checks->rowCount(), 2);
        QVERIFY2(column(checks, 1).startsWith("OK (the node calls itself ") &&
                     column(checks, 1).split('\n').filter(QRegularExpression("^OK")).size() == 2,
                 qPrintable(column(checks, 1)));
        QVERIFY2(column(checks, 2).contains("strata-engine ") && column(checks, 3).contains("cpu:0"),
                 qPrintable(column(checks, 2) + column(checks, 3)));
        QCOMPARE(cluster->checkState()->text(), QString("2 node(s) checked: ready"));
        QVERIFY(sshtest::readAll(m_dir.filePath("home/.ssh/known_hosts")).contains(server.knownHostsLine().trimmed()));

        // Launch: the nodes are checked (no question now), then both workers train there.
        const int questions = script->hostKeyQuestions;
        QTest::mouseClick(window.validationPanel()->launchButton(), Qt::LeftButton);
        QVERIFY(window.run().isChecking());
        QVERIFY2(window.banner()->text().startsWith("Checking the nodes..."), qPrintable(window.banner()->text()));
        QVERIFY(!window.findChild<QAction*>("launchAction")->isEnabled());
        QVERIFY(window.findChild<QAction*>("stopAction")->isEnabled());
        ui::DashboardPage* dash = window.dashboard();
        const app::PlotSource& loss = dash->source(ui::DashboardPage::LossPlot);
        QTRY_VERIFY2_WITH_TIMEOUT(loss.lineCount() == 2 && loss.pointCount(0) > 0 && loss.pointCount(1) > 0,
                                  qPrintable(window.banner()->text() + "\n" + dash->logView()->toPlainText()), testing::kEventDeadlineMs);
        QCOMPARE(window.currentPage(), ui::MainWindow::DashboardPageIndex);
        QCOMPARE(script->hostKeyQuestions, questions);
        ui::TaskTable* tasks = dash->taskTable();
        QTRY_COMPARE_WITH_TIMEOUT(tasks->shownCount(), 2, testing::kEventDeadlineMs);
        using Tasks = app::TaskTableModel;
        QCOMPARE(tasks->model()->headerData(Tasks::HostColumn, Qt::Horizontal).toString(), QString("Host"));
        QCOMPARE(tasks->text(tasks->rowOf("worker:0"), Tasks::HostColumn), QString("n1 (127.0.0.1)"));
        QCOMPARE(tasks->text(tasks->rowOf("worker:1"), Tasks::HostColumn), QString("n2 (127.0.0.1)"));
        QTRY_COMPARE_WITH_TIMEOUT(dash->placementTree()->topLevelItemCount(), 2, testing::kEventDeadlineMs);
        QStringList placed;
        for (int i = 0; i < 2; ++i)
            placed << dash->placementTree()->topLevelItem(i)->text(0);
        placed.sort();
        QCOMPARE(placed, (QStringList{"worker:0 on n1 (127.0.0.1)", "worker:1 on n2 (127.0.0.1)"}));
        QList<qint64> pids;
        window.run().store().read([&](const std::vector<app::TaskData>& all, const std::vector<app::LogEntry>&) {
            for (const app::TaskData& t : all)
                pids << t.hello.value("pid", qint64{0});
        });

        QTest::mouseClick(dash->findChild<QPushButton*>("stopButton"), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!window.run().isRunning(), testing::kEventDeadlineMs);
        QVERIFY2(window.run().outcome() == app::RunOutcome::Stopped, qPrintable(window.run().summary()));
        QString error;
        const std::optional<app::RunRecord> record = window.history().run(window.run().historyId(), &error);
        QVERIFY2(record, qPrintable(error));
        QCOMPARE(record->status, app::RunStatus::Stopped);
        QVERIFY2(record->hosts.contains("n1 (127.0.0.1)") && record->hosts.contains("n2 (127.0.0.1)"),
                 qPrintable(record->hosts));
        QCOMPARE(pids.size(), 2);
        for (qint64 pid : pids)
            QTRY_VERIFY2(pid > 0 && ::kill(pid_t(pid), 0) != 0 && errno == ESRCH, qPrintable(QString::number(pid)));
    }
};

QTEST_MAIN(TestRemoteWindow)
#include "tst_remote_window.moc"
