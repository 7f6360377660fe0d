// The History and Compare pages driven offscreen with the real engine: a sweep of two
// strategies on a tiny model started from the Compare page and compared when done; a
// recorded run's dashboard rebuilt from its directory equal to the live one; the history
// filtered, renamed, tagged and deleted from the page; the comparison exported.

#include "app/history/history_model.h"
#include "tests/app/app_test_util.h"
#include "tests/app/history_test_util.h"
#include "ui/history/compare_page.h"
#include "ui/dashboard/dashboard_page.h"
#include "ui/history/history_page.h"
#include "ui/shell/main_window.h"
#include "ui/shell/message_banner.h"
#include "ui/dashboard/run_window.h"
#include "ui/plot/series_plot.h"
#include "ui/history/split_bars.h"
#include "ui/history/sweep_panel.h"

#include "scripted_dialogs.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QTreeWidget>
#include <QDir>
#include <QFileInfo>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace strata;
using uitest::ScriptedDialogs;

namespace {

template<typename T>
T* find(QWidget* root, const QString& name)
{
    T* child = root->findChild<T*>(name);
    if (!child)
        qFatal("no %s named %s", T::staticMetaObject.className(), qPrintable(name));
    return child;
}

// Every line's name and point count, as a plot's source holds them.
QStringList linesOf(const app::PlotSource& source)
{
    QStringList out;
    for (int i = 0; i < source.lineCount(); ++i)
        out << QStringLiteral("%1: %2").arg(source.lineName(i)).arg(source.pointCount(i));
    return out;
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestHistoryCompare : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void sweepOfTwoStrategiesFromTheComparePage();
    void recordedRunOpensWithTheDashboardSeenLive();
    void historyIsFilteredRenamedTaggedAndDeleted();
    void comparisonIsExported();
    void finishedRunIsExportedToKeras();

private:
    // Runs OneDevice and Mirrored x2 from the Compare page and waits for the comparison.
    void sweep(ui::MainWindow& window);

    QTemporaryDir m_dir;
    int m_historyFile = 0;
};

void TestHistoryCompare::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
}

void TestHistoryCompare::init()
{
    // Every test function starts with an empty history of its own.
    qputenv("STRATA_HISTORY", m_dir.filePath(QStringLiteral("history-%1.sqlite").arg(++m_historyFile)).toUtf8());
}

void TestHistoryCompare::sweep(ui::MainWindow& window)
{
    window.document().replace(apptest::tinyExperiment(), "tiny");
    window.showPage(ui::MainWindow::ComparePageIndex);
    ui::SweepPanel* panel = window.comparePage()->sweepPanel();
    auto* central = find<QCheckBox>(panel, "sweepCentralStorage");
    if (central->isChecked())
        QTest::mouseClick(central, Qt::LeftButton, {}, QPoint(4, central->height() / 2));
    QVERIFY(!central->isChecked());
    auto* replicas = find<QSpinBox>(panel, "sweepMirroredReplicas");
    replicas->setFocus();
    replicas->selectAll();
    QTest::keyClicks(replicas, "2");
    QTest::keyClick(replicas, Qt::Key_Enter);
    QCOMPARE(panel->variants().size(), 2);
    QTest::mouseClick(panel->runButton(), Qt::LeftButton);
    QVERIFY(window.sweep().isRunning());
    QVERIFY(!panel->runButton()->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(!window.sweep().isRunning(), 60000);
    QCOMPARE(window.currentPage(), ui::MainWindow::ComparePageIndex);
}

void TestHistoryCompare::sweepOfTwoStrategiesFromTheComparePage()
{
    ui::MainWindow window(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
    window.show();
    sweep(window);
    if (QTest::currentTestFailed())
        return;

    QVERIFY2(window.banner()->text().startsWith("Sweep done: 2 of 2 strategies ran"), qPrintable(window.banner()->text()));
    // Both ran on identical model, data and seed, and are compared.
    QCOMPARE(window.comparison().labels(), (QStringList{"OneDevice", "Mirrored x2"}));
    ui::ComparePage* page = window.comparePage();
    QTableWidget* table = page->table();
    QCOMPARE(table->columnCount(), 2);
    QVERIFY(table->horizontalHeaderItem(0)->text().contains("(baseline)"));
    int efficiencyRow = -1;
    for (int row = 0; row < table->rowCount(); ++row)
        if (table->verticalHeaderItem(row)->text() == "scaling efficiency")
            efficiencyRow = row;
    QVERIFY(efficiencyRow >= 0);
    QCOMPARE(table->item(efficiencyRow, 0)->text(), QString("1.00"));
    QVERIFY(!table->item(efficiencyRow, 1)->text().isEmpty());
    for (int kind = 0; kind < app::ComparisonSession::PlotCount; ++kind) {
        ui::SeriesPlot* plot = page->plot(app::ComparisonSession::PlotKind(kind));
        QTRY_VERIFY(plot->drawnPoints() > 0);
        QCOMPARE(plot->plot()->graphCount(), 2);
    }
    // Each run's step-time split as a stacked bar: compute, gradient reduction, input wait.
    QCustomPlot* bars = page->stepSplit()->plot();
    QCOMPARE(bars->plottableCount(), 3);
    for (int part = 0; part < 3; ++part)
        QCOMPARE(qobject_cast<QCPBars*>(bars->plottable(part))->data()->size(), 2);
    QVERIFY(qobject_cast<QCPBars*>(bars->plottable(0))->data()->at(1)->value > 0);

    // The strategy differs, and nothing else does.
    QStringList differences;
    for (int i = 0; i < page->differences()->count(); ++i)
        differences << page->differences()->item(i)->text();
    QVERIFY2(differences.contains("strategy.type: OneDevice | Mirrored"), qPrintable(differences.join('\n')));
    QVERIFY2(differences.last().startsWith("Only the setup differs"), qPrintable(differences.join('\n')));

    // Both are in the history, as a sweep's runs, and the History page lists them.
    std::vector<app::RunRecord> runs;
    QString error;
    QVERIFY2(window.history().query({}, &runs, &error), qPrintable(error));
    QCOMPARE(runs.size(), size_t(2));
    for (const auto& r : runs) {
        QCOMPARE(r.source, QString("sweep"));
        QCOMPARE(r.status, app::RunStatus::Completed);
    }
    QCOMPARE(window.historyPage()->model()->rowCount(), 2);
}

void TestHistoryCompare::recordedRunOpensWithTheDashboardSeenLive()
{
    ui::MainWindow window(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
    window.show();
    // Long enough (two seconds or so) for the engine's once-a-second device reports.
    app::Json mirrored = apptest::tinyExperiment(60);
    mirrored["model"]["input_shape"] = {64};
    mirrored["model"]["layers"][0]["units"] = 512;
    mirrored["data"]["source"]["features"] = 64;
    mirrored["data"]["source"]["samples"] = 6000;
    mirrored["strategy"] = app::Json{{"type", "Mirrored"}, {"devices", {"cpu:0", "cpu:1"}}};
    window.document().replace(mirrored, "tiny");
    QVERIFY(window.launch());
    QTRY_VERIFY_WITH_TIMEOUT(!window.run().isRunning(), 60000);
    QCOMPARE(window.run().outcome(), app::RunOutcome::Completed);
    const qint64 id = window.run().historyId();
    QVERIFY(id > 0);

    // Opened from the History page: select its row, press Open.
    window.showPage(ui::MainWindow::HistoryPageIndex);
    ui::HistoryPage* history = window.historyPage();
    QCOMPARE(history->model()->rowCount(), 1);
    history->selectRuns({id});
    QTest::mouseClick(find<QPushButton>(history, "openRun"), Qt::LeftButton);
    auto* opened = window.findChild<ui::RunWindow*>();
    QVERIFY(opened);
    QVERIFY(opened->windowTitle().contains(QStringLiteral("#%1").arg(id)));

    // Every plot, the task table and the placement as they were live.
    using D = ui::DashboardPage;
    ui::DashboardPage* live = window.dashboard();
    ui::DashboardPage* rebuilt = opened->dashboard();
    for (D::PlotKind kind : {D::LossPlot, D::ThroughputPlot, D::StepTimePlot, D::UtilizationPlot, D::MemoryPlot}) {
        QCOMPARE(linesOf(rebuilt->source(kind)), linesOf(live->source(kind)));
        QVERIFY(rebuilt->source(kind).lineCount() > 0);
    }
    QCOMPARE(linesOf(rebuilt->source(D::LossPlot)).size(), 2); // both replicas
    auto* liveTasks = live->taskTable();
    auto* rebuiltTasks = rebuilt->taskTable();
    QCOMPARE(rebuiltTasks->rowCount(), liveTasks->rowCount());
    for (int c = 0; c < 4; ++c) // task, host, state, step
        QCOMPARE(rebuiltTasks->item(0, c)->text(), liveTasks->item(0, c)->text());
    QCOMPARE(rebuilt->placementTree()->topLevelItemCount(), live->placementTree()->topLevelItemCount());
    QCOMPARE(find<QLabel>(rebuilt, "runState")->text(), QString("Completed"));
    QVERIFY(!find<QPushButton>(rebuilt, "stopButton")->isVisible());

    // A run whose directory is gone is answered in the banner.
    const QString dir = window.run().runDir();
    QVERIFY(QDir(dir).removeRecursively());
    QVERIFY(!window.openRun(id));
    QVERIFY(window.banner()->text().contains(dir));
}

void TestHistoryCompare::historyIsFilteredRenamedTaggedAndDeleted()
{
    auto dialogs = std::make_unique<ScriptedDialogs>();
    ScriptedDialogs* script = dialogs.get();
    ui::MainWindow window(STRATA_ENGINE_PATH, std::move(dialogs));
    window.show();
    QString error;
    const QString runDir = m_dir.filePath("runs/cnn-mirrored");
    QVERIFY(QDir().mkpath(runDir));
    QFile marker(runDir + "/launch.strata.json"); // what makes a directory a run's
    QVERIFY(marker.open(QIODevice::WriteOnly));
    marker.close();
    for (auto [name, strategy, status, day] :
         {std::tuple{"mlp-one", "OneDevice", app::RunStatus::Completed, 1}, {"mlp-mirrored", "Mirrored", app::RunStatus::Failed, 2},
          {"cnn-mirrored", "Mirrored", app::RunStatus::Completed, 3}}) {
        app::RunRecord r = historytest::makeRun(name, strategy, status, 1763800000 + day * 86400);
        if (QString(name) == "cnn-mirrored")
            r.runDir = runDir;
        QVERIFY2(window.history().insertRun(r, &error), qPrintable(error));
    }
    window.showPage(ui::MainWindow::HistoryPageIndex);
    ui::HistoryPage* page = window.historyPage();
    page->refresh();
    app::HistoryModel* model = page->model();
    QCOMPARE(model->rowCount(), 3);
    QCOMPARE(model->record(0).name, QString("cnn-mirrored")); // newest first

    // Filters: text, strategy, status.
    QTest::keyClicks(find<QLineEdit>(page, "historyText"), "mirrored");
    QCOMPARE(model->rowCount(), 2);
    find<QLineEdit>(page, "historyText")->clear();
    auto* status = find<QComboBox>(page, "historyStatus");
    status->setCurrentIndex(status->findText("failed"));
    QCOMPARE(model->rowCount(), 1);
    QCOMPARE(model->record(0).name, QString("mlp-mirrored"));
    status->setCurrentIndex(0);
    auto* strategy = find<QComboBox>(page, "historyStrategy");
    strategy->setCurrentIndex(strategy->findData("OneDevice"));
    QCOMPARE(model->rowCount(), 1);
    strategy->setCurrentIndex(0);
    QCOMPARE(model->rowCount(), 3);

    // Rename and tag the newest run.
    const qint64 id = model->runId(0);
    page->selectRuns({id});
    script->texts = {QString("best so far")};
    QTest::mouseClick(find<QPushButton>(page, "renameRun"), Qt::LeftButton);
    QCOMPARE(window.history().run(id, &error)->label, QString("best so far"));
    script->texts = {QString("cnn, baseline ,")};
    QTest::mouseClick(find<QPushButton>(page, "tagRuns"), Qt::LeftButton);
    QCOMPARE(window.history().run(id, &error)->tags, (QStringList{"baseline", "cnn"}));
    QTest::keyClicks(find<QLineEdit>(page, "historyText"), "baseline"); // tags are searched too
    QCOMPARE(model->rowCount(), 1);
    find<QLineEdit>(page, "historyText")->clear();

    // Delete asks first: cancelled, nothing happens; confirmed with the files, both go.
    page->selectRuns({id});
    script->deleteAnswers = {ui::Dialogs::DeleteChoice::Cancel};
    QTest::mouseClick(find<QPushButton>(page, "deleteRuns"), Qt::LeftButton);
    QCOMPARE(model->rowCount(), 3);
    QVERIFY(QFileInfo::exists(runDir));
    page->selectRuns({id});
    script->deleteAnswers = {ui::Dialogs::DeleteChoice::ForgetAndDeleteFiles};
    QTest::mouseClick(find<QPushButton>(page, "deleteRuns"), Qt::LeftButton);
    QCOMPARE(script->deleteQuestions, 2);
    QCOMPARE(model->rowCount(), 2);
    QVERIFY(!QFileInfo::exists(runDir));

    // Compare needs two runs selected.
    page->selectRuns({model->runId(0)});
    QVERIFY(!find<QPushButton>(page, "compareRuns")->isEnabled());
    page->selectRuns({model->runId(0), model->runId(1)});
    QVERIFY(find<QPushButton>(page, "compareRuns")->isEnabled());
}

void TestHistoryCompare::comparisonIsExported()
{
    auto dialogs = std::make_unique<ScriptedDialogs>();
    ScriptedDialogs* script = dialogs.get();
    ui::MainWindow window(STRATA_ENGINE_PATH, std::move(dialogs));
    window.show();
    sweep(window);
    if (QTest::currentTestFailed())
        return;
    ui::ComparePage* page = window.comparePage();

    const QString csv = m_dir.filePath("comparison.csv"), md = m_dir.filePath("comparison.md");
    script->files = {csv};
    QTest::mouseClick(find<QPushButton>(page, "exportTable"), Qt::LeftButton);
    const QList<QByteArray> rows = readAll(csv).trimmed().split('\n');
    QCOMPARE(rows.size(), 3); // the header, one row per run
    QVERIFY(rows[0].startsWith("run,strategy,replicas"));
    QVERIFY(rows[2].startsWith("Mirrored x2,Mirrored,2"));
    script->files = {md};
    QTest::mouseClick(find<QPushButton>(page, "exportTable"), Qt::LeftButton);
    const QByteArray markdown = readAll(md);
    QVERIFY(markdown.contains("| OneDevice"));
    QVERIFY(markdown.contains("strategy.type"));

    // The whole comparison as one PDF: text and the four plots.
    const QString pdf = m_dir.filePath("comparison.pdf");
    QString error;
    QVERIFY2(page->exportReport(pdf, &error), qPrintable(error));
    QVERIFY(readAll(pdf).startsWith("%PDF"));
    QVERIFY(QFileInfo(pdf).size() > 20000);
    QVERIFY(!page->exportReport("/nonexistent-dir/comparison.pdf", &error));
    QVERIFY2(error.contains("/nonexistent-dir/comparison.pdf"), qPrintable(error));

    // A target loss adds the time each run took to reach it.
    auto* target = find<QDoubleSpinBox>(page, "targetLoss");
    target->setValue(5.0); // any run's loss starts below this
    QCOMPARE(page->table()->verticalHeaderItem(page->table()->rowCount() - 2)->text(), QString("time to loss <= 5 (s)"));
    QVERIFY(page->table()->item(page->table()->rowCount() - 2, 0)->text() != "not reached");
}

void TestHistoryCompare::finishedRunIsExportedToKeras()
{
    auto dialogs = std::make_unique<ScriptedDialogs>();
    ScriptedDialogs* script = dialogs.get();
    ui::MainWindow window(STRATA_ENGINE_PATH, std::move(dialogs));
    window.show();
    window.document().replace(apptest::tinyExperiment(1), "tiny");
    QVERIFY(window.launch());
    QTRY_VERIFY_WITH_TIMEOUT(!window.run().isRunning(), 60000);
    QCOMPARE(window.run().outcome(), app::RunOutcome::Completed);
    const qint64 id = window.run().historyId();
    const QString runDir = window.run().runDir();

    window.showPage(ui::MainWindow::HistoryPageIndex);
    ui::HistoryPage* history = window.historyPage();
    auto* exportButton = find<QPushButton>(history, "exportKeras");
    QVERIFY(!exportButton->isEnabled()); // nothing selected
    history->selectRuns({id});
    QVERIFY(exportButton->isEnabled());
    const QString parent = m_dir.filePath("keras-exports");
    QVERIFY(QDir().mkpath(parent));
    script->files.push_back(parent); // the folder the dialog answers
    QTest::mouseClick(exportButton, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!history->kerasExport()->running(), 60000);
    const QString out = parent + "/" + QFileInfo(runDir).fileName() + "-keras";
    for (const char* f : {"config.json", "model.weights.h5", "metadata.json"})
        QVERIFY2(QFile::exists(out + "/" + f), qPrintable(out + "/" + f));
    QVERIFY2(window.banner()->text().contains("Exported to") && window.banner()->text().contains(out),
             qPrintable(window.banner()->text()));

    // A run whose directory lost its final weights: said so, before asking where.
    QVERIFY(QFile::remove(runDir + "/model.weights"));
    QTest::mouseClick(exportButton, Qt::LeftButton);
    QVERIFY(!history->kerasExport()->running());
    QVERIFY2(window.banner()->text().contains("no final weights"), qPrintable(window.banner()->text()));
}

QTEST_MAIN(TestHistoryCompare)
#include "tst_history_compare.moc"
