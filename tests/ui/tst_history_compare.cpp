// The History and Compare pages driven offscreen with the real engine: a sweep of two
// strategies on a tiny model started from the Compare page and compared when done; a
// recorded run's dashboard rebuilt from its directory equal to the live one; the history
// filtered, renamed, tagged and deleted from the page; the comparison exported. Then, on run
// directories written by the test: what the empty pages say, failed runs marked in History,
// the run chips clicked, one colour per run wherever it is shown, the step-time split's names
// that never overlap at 1600x1000 and 1280x720, splitters that never collapse the comparison.

#include "../event_deadline.h"
#include "app/history/history_model.h"
#include "tests/app/app_test_util.h"
#include "tests/app/history_test_util.h"
#include "ui/compare/compare_page.h"
#include "ui/dashboard/dashboard_page.h"
#include "ui/dashboard/task_table.h"
#include "ui/history/history_page.h"
#include "ui/shell/main_window.h"
#include "ui/shell/message_banner.h"
#include "ui/dashboard/run_window.h"
#include "ui/plot/series_plot.h"
#include "ui/compare/split_bars.h"
#include "ui/compare/sweep_panel.h"
#include "ui/compare/run_chips.h"
#include "ui/shell/theme.h"

#include "scripted_dialogs.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QCheckBox>
#include <QHelpEvent>
#include <QSplitter>
#include <QStackedWidget>
#include <QToolButton>
#include <QToolTip>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QTreeWidget>
#include <QDir>
#include <QFileInfo>
#include <QLineEdit>
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

QCPBars* barsNamed(QCustomPlot* plot, const QString& name)
{
    for (int i = 0; i < plot->plottableCount(); ++i)
        if (plot->plottable(i)->name() == name)
            return qobject_cast<QCPBars*>(plot->plottable(i));
    return nullptr;
}

QCPGraph* graphNamed(QCustomPlot* plot, const QString& name)
{
    for (int i = 0; i < plot->graphCount(); ++i)
        if (plot->graph(i)->name() == name)
            return plot->graph(i);
    return nullptr;
}

int rowLabelled(QTableWidget* table, const QString& label)
{
    for (int row = 0; row < table->rowCount(); ++row)
        if (table->verticalHeaderItem(row) && table->verticalHeaderItem(row)->text() == label)
            return row;
    return -1;
}

// The colour in the middle of an icon (a run's swatch).
QColor iconColour(const QIcon& icon)
{
    return icon.pixmap(24, 24).toImage().pixelColor(12, 12);
}

app::Json eventOf(const char* type, double t, app::Json fields = app::Json::object())
{
    app::Json e{{"v", 1}, {"type", type}, {"t", t}, {"task", "worker:0"}};
    e.update(fields);
    return e;
}

// A finished run's directory as the engine and the launcher leave one, without training: 100
// steps in windows of 10, the loss falling from 2, `commMs` of every 10 ms step reducing
// gradients; its experiment the tiny one under `strategy` (and `batch` per replica).
QString writeRun(const QString& dir, const QString& strategy, int replicas, double commMs, int batch = 16)
{
    QDir().mkpath(dir);
    app::Json experiment = apptest::tinyExperiment();
    experiment["strategy"] = {{"type", strategy.toStdString()}};
    experiment["training"]["batch_size"] = batch;
    apptest::writeFile(dir + "/launch.strata.json", QByteArray::fromStdString(experiment.dump()));
    std::string lines;
    const auto add = [&](const app::Json& e) { lines += e.dump() + "\n"; };
    add(eventOf("hello", 1000, {{"version", "0.1.0"}}));
    add(eventOf("start", 1000.5, {{"strategy", strategy.toStdString()}, {"replicas", replicas},
                                  {"batch_size", batch * replicas}, {"total_steps", 100}}));
    add(eventOf("placement", 1000.5, {{"strategy", strategy.toStdString()}}));
    for (int step = 10; step <= 100; step += 10)
        add(eventOf("step", 1000 + step / 10.0,
                    {{"step", step}, {"loss", 2.0 - step / 100.0}, {"samples_per_sec", 1000.0 * replicas},
                     {"replicas", app::Json::array({{{"replica", 0}, {"device", "cpu:0"}, {"loss", 2.0 - step / 100.0},
                                                      {"samples", 160}}})},
                     {"time_ms", {{"step", 10}, {"compute", 9 - commMs}, {"comm", commMs}, {"input", 1}}}}));
    add(eventOf("done", 1011, {{"status", "completed"}, {"steps", 100}, {"test", {{"loss", 1.1}, {"accuracy", 0.6}}}}));
    apptest::writeFile(dir + "/events-worker-0.jsonl", QByteArray::fromStdString(lines));
    return dir;
}

// Where QCustomPlot draws each of the x axis's tick labels (a bottom axis, labels outside,
// QCPAxisPainterPrivate::getTickLabelDrawOffset), a pixel in from each side.
QList<QPolygonF> tickLabelShapes(QCPAxis* axis)
{
    QList<QPolygonF> shapes;
    const auto ticker = axis->ticker().dynamicCast<QCPAxisTickerText>();
    const QFontMetrics metrics(axis->tickLabelFont());
    const double degrees = axis->tickLabelRotation(), radians = qDegreesToRadians(degrees);
    for (auto it = ticker->ticks().constBegin(); it != ticker->ticks().constEnd(); ++it) {
        if (it.value().isEmpty())
            continue;
        const QRect bounds = metrics.boundingRect(0, 0, 0, 0, Qt::TextDontClip | Qt::AlignHCenter, it.value());
        const double w = bounds.width(), h = bounds.height();
        QPointF offset(-w / 2, 0);
        if (degrees < 0)
            offset = {-std::cos(-radians) * w - std::sin(-radians) * h / 2, std::sin(-radians) * w};
        else if (degrees > 0)
            offset = {std::sin(radians) * h / 2, 0};
        QTransform place;
        place.translate(axis->coordToPixel(it.key()) + offset.x(), offset.y());
        place.rotate(degrees);
        shapes << place.map(QPolygonF(QRectF(1, 1, w - 2, h - 2)));
    }
    return shapes;
}

// A widget of the shown `window` clicked where a user would: under the cursor at its middle.
void clickUnderCursor(QWidget* window, QWidget* target)
{
    const QPoint at = target->mapTo(window, target->rect().center());
    QWidget* under = window->childAt(at);
    QVERIFY2(under == target || target->isAncestorOf(under), qPrintable(under ? under->objectName() : "nothing"));
    QTest::mouseClick(under, Qt::LeftButton, {}, under->mapFrom(window, at));
}

// Drags a splitter's handle by `by` pixels with the mouse.
void dragHandle(QSplitterHandle* handle, QPoint by)
{
    const QPoint from = handle->rect().center();
    QTest::mousePress(handle, Qt::LeftButton, {}, from);
    for (int step = 1; step <= 4; ++step)
        QTest::mouseMove(handle, from + by * step / 4);
    QTest::mouseRelease(handle, Qt::LeftButton, {}, from + by);
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
    void emptyPagesSayWhatToDo();
    void failedRunsStandOutWithTheirError();
    void chipsHideAndShowARunOnEveryPlot();
    void aRunKeepsItsColourEverywhere();
    void stepSplitLabelsNeverOverlap_data();
    void stepSplitLabelsNeverOverlap();
    void splittersNeverCollapseTheComparison();

private:
    // Loads run directories written by writeRun() into the window's comparison, with the
    // history ids given, and shows the Compare page.
    void compare(ui::MainWindow& window, const QStringList& labels, const QList<qint64>& ids = {});

    // Runs OneDevice and Mirrored x2 from the Compare page and waits for the comparison.
    void sweep(ui::MainWindow& window);

    QTemporaryDir m_dir;
    int m_historyFile = 0;
    int m_runDirs = 0;
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
    QTRY_VERIFY_WITH_TIMEOUT(!window.sweep().isRunning(), testing::kEventDeadlineMs);
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
        QTRY_VERIFY_WITH_TIMEOUT(plot->drawnPoints() > 0, testing::kEventDeadlineMs);
        QCOMPARE(plot->plot()->graphCount(), 2);
    }
    // Each run's step-time split as a stacked bar: compute, gradient reduction, input wait.
    QCustomPlot* bars = page->stepSplit()->plot();
    for (const QString& run : {QString("OneDevice"), QString("Mirrored x2")})
        for (const char* part : {"compute", "gradient reduction", "input wait"}) {
            QCPBars* bar = barsNamed(bars, run + ": " + part);
            QVERIFY2(bar && bar->data()->size() == 1, qPrintable(run + ": " + part));
        }
    QVERIFY(barsNamed(bars, "Mirrored x2: compute")->data()->at(0)->value > 0);

    // The strategy differs, and nothing else does: a row by the field's label, a column per run.
    QTableWidget* differences = page->differences();
    QCOMPARE(differences->columnCount(), 2);
    const int strategyRow = rowLabelled(differences, "Strategy: type");
    QVERIFY(strategyRow >= 0);
    QCOMPARE(differences->item(strategyRow, 0)->text(), QString("OneDevice"));
    QCOMPARE(differences->item(strategyRow, 1)->text(), QString("Mirrored"));
    QVERIFY2(page->differencesSummary()->text().startsWith("Only the setup differs"),
             qPrintable(page->differencesSummary()->text()));

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
    QTRY_VERIFY_WITH_TIMEOUT(!window.run().isRunning(), testing::kEventDeadlineMs);
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
    for (D::PlotKind kind : {D::LossPlot, D::AccuracyPlot, D::ThroughputPlot, D::StepTimePlot, D::UtilizationPlot,
                             D::MemoryPlot}) {
        QCOMPARE(linesOf(rebuilt->source(kind)), linesOf(live->source(kind)));
        QVERIFY(rebuilt->source(kind).lineCount() > 0);
    }
    QCOMPARE(linesOf(rebuilt->source(D::LossPlot)).size(), 3); // both replicas, and each epoch's validation
    auto* liveTasks = live->taskTable();
    auto* rebuiltTasks = rebuilt->taskTable();
    QCOMPARE(rebuiltTasks->taskCount(), liveTasks->taskCount());
    for (int c = 0; c < 4; ++c) // task, host, state, step
        QCOMPARE(rebuiltTasks->text(0, c), liveTasks->text(0, c));
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
    // Its row just before the communication share's (the stragglers' row last).
    QTableWidget* table = page->table();
    const int last = table->rowCount() - 1;
    QCOMPARE(table->verticalHeaderItem(last)->text(), QString("stragglers"));
    QCOMPARE(table->verticalHeaderItem(last - 2)->text(), QString("time to loss <= 5 (s)"));
    QVERIFY(table->item(last - 2, 0)->text() != "not reached");
}

void TestHistoryCompare::finishedRunIsExportedToKeras()
{
    auto dialogs = std::make_unique<ScriptedDialogs>();
    ScriptedDialogs* script = dialogs.get();
    ui::MainWindow window(STRATA_ENGINE_PATH, std::move(dialogs));
    window.show();
    window.document().replace(apptest::tinyExperiment(1), "tiny");
    QVERIFY(window.launch());
    QTRY_VERIFY_WITH_TIMEOUT(!window.run().isRunning(), testing::kEventDeadlineMs);
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
    QTRY_VERIFY_WITH_TIMEOUT(!history->kerasExport()->running(), testing::kEventDeadlineMs);
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

void TestHistoryCompare::compare(ui::MainWindow& window, const QStringList& labels, const QList<qint64>& ids)
{
    QStringList dirs;
    for (const QString& label : labels)
        dirs << writeRun(m_dir.filePath(QStringLiteral("runs/%1").arg(++m_runDirs)),
                         label.contains("Mirrored") ? "Mirrored" : "OneDevice", label.contains("Mirrored") ? 2 : 1,
                         label.contains("Mirrored") ? 2 : 0);
    QString error;
    QVERIFY2(window.comparison().load(dirs, labels, &error, ids), qPrintable(error));
    window.showPage(ui::MainWindow::ComparePageIndex);
}

void TestHistoryCompare::emptyPagesSayWhatToDo()
{
    ui::MainWindow window(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
    window.resize(1280, 720);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    // History with no runs: what to do, not an empty table.
    window.showPage(ui::MainWindow::HistoryPageIndex);
    ui::HistoryPage* history = window.historyPage();
    QLabel* noRuns = history->emptyHint();
    QVERIFY(noRuns->isVisible());
    QVERIFY(!history->table()->isVisible());
    QVERIFY2(noRuns->text().contains("No runs yet") && noRuns->text().contains("Ctrl+R"), qPrintable(noRuns->text()));

    // A run: the table; a filter that leaves none says so.
    QString error;
    app::RunRecord run = historytest::makeRun("mlp", "OneDevice", app::RunStatus::Completed, 1763800000);
    QVERIFY2(window.history().insertRun(run, &error), qPrintable(error));
    history->refresh();
    QVERIFY(history->table()->isVisible());
    QVERIFY(!noRuns->isVisible());
    QTest::keyClicks(find<QLineEdit>(history, "historyText"), "no such run");
    QVERIFY(noRuns->isVisible());
    QVERIFY2(noRuns->text().contains("No run matches the filter"), qPrintable(noRuns->text()));

    // Compare with no runs: what to do instead of empty plots, and no controls for nothing.
    window.showPage(ui::MainWindow::ComparePageIndex);
    ui::ComparePage* page = window.comparePage();
    auto* nothing = find<QLabel>(page, "compareEmpty");
    QVERIFY(nothing->isVisible());
    QVERIFY2(nothing->text().contains("No runs compared yet") && nothing->text().contains("Compare selected")
                 && nothing->text().contains("Compare strategies"),
             qPrintable(nothing->text()));
    QVERIFY(!page->plot(app::ComparisonSession::LossByStep)->isVisible());
    QVERIFY(!find<QPushButton>(page, "exportTable")->isVisible());
    compare(window, {"OneDevice", "Mirrored x2"});
    QVERIFY(!nothing->isVisible());
    QVERIFY(page->plot(app::ComparisonSession::LossByStep)->isVisible());
    QVERIFY(find<QPushButton>(page, "exportTable")->isVisible());
}

void TestHistoryCompare::failedRunsStandOutWithTheirError()
{
    ui::MainWindow window(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
    window.resize(1280, 720);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QString error;
    app::RunRecord done = historytest::makeRun("done", "OneDevice", app::RunStatus::Completed, 1763800000);
    app::RunRecord failed = historytest::makeRun("failed", "Mirrored", app::RunStatus::Failed, 1763900000);
    QVERIFY2(window.history().insertRun(done, &error), qPrintable(error));
    QVERIFY2(window.history().insertRun(failed, &error), qPrintable(error));
    window.showPage(ui::MainWindow::HistoryPageIndex);
    ui::HistoryPage* page = window.historyPage();
    page->refresh();
    QTableView* table = page->table();
    const QColor errorColour = ui::theme::error(table->palette());
    // Pixels of a cell's text drawn in the error colour (or its antialiased edge).
    const auto errorPixels = [&](qint64 id, int column) {
        const QRect cell = table->visualRect(table->model()->index(page->model()->rowOf(id), column));
        const QImage image = table->viewport()->grab(cell).toImage();
        int count = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x) {
                const QColor c = image.pixelColor(x, y);
                count += std::abs(c.red() - errorColour.red()) + std::abs(c.green() - errorColour.green())
                             + std::abs(c.blue() - errorColour.blue()) < 40;
            }
        return count;
    };
    QVERIFY(errorPixels(failed.id, app::HistoryModel::NameColumn) > 0);
    QVERIFY(errorPixels(failed.id, app::HistoryModel::StatusColumn) > 0);
    QCOMPARE(errorPixels(done.id, app::HistoryModel::NameColumn), 0);

    // Pointing at any cell of the failed run tells why it failed.
    const QRect name = table->visualRect(table->model()->index(page->model()->rowOf(failed.id), app::HistoryModel::NameColumn));
    QHelpEvent hover(QEvent::ToolTip, name.center(), table->viewport()->mapToGlobal(name.center()));
    QApplication::sendEvent(table->viewport(), &hover);
    QTRY_VERIFY_WITH_TIMEOUT(QToolTip::isVisible(), testing::kEventDeadlineMs);
    QVERIFY2(QToolTip::text().contains("Failed: worker:0: exited with status 3"), qPrintable(QToolTip::text()));
    QVERIFY2(QToolTip::text().contains("/runs/failed"), qPrintable(QToolTip::text())); // the cell's own tip stays
    QToolTip::hideText();
}

void TestHistoryCompare::chipsHideAndShowARunOnEveryPlot()
{
    ui::MainWindow window(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
    window.resize(1600, 1000);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    compare(window, {"OneDevice", "Mirrored x2", "Mirrored x4"});
    ui::ComparePage* page = window.comparePage();
    ui::RunChips* chips = page->runChips();
    QCOMPARE(chips->count(), 3);
    QVERIFY(chips->chip(1)->isVisible());

    // A user clicks the second run's chip: its lines and its bar go from every plot, the others stay.
    clickUnderCursor(&window, chips->chip(1));
    QVERIFY(!chips->isRunShown(1));
    for (int kind = 0; kind < app::ComparisonSession::PlotCount; ++kind) {
        QCustomPlot* plot = page->plot(app::ComparisonSession::PlotKind(kind))->plot();
        QVERIFY(!graphNamed(plot, "Mirrored x2")->visible());
        QVERIFY(graphNamed(plot, "OneDevice")->visible());
        QVERIFY(graphNamed(plot, "Mirrored x4")->visible());
    }
    QCOMPARE(page->stepSplit()->tickLabels(), (QStringList{"OneDevice", "Mirrored x4"}));
    QVERIFY(!barsNamed(page->stepSplit()->plot(), "Mirrored x2: compute"));
    // The table still compares it.
    QCOMPARE(page->table()->columnCount(), 3);

    // Clicked again, it is back everywhere.
    clickUnderCursor(&window, chips->chip(1));
    QVERIFY(chips->isRunShown(1));
    for (int kind = 0; kind < app::ComparisonSession::PlotCount; ++kind)
        QVERIFY(graphNamed(page->plot(app::ComparisonSession::PlotKind(kind))->plot(), "Mirrored x2")->visible());
    QVERIFY(barsNamed(page->stepSplit()->plot(), "Mirrored x2: compute"));
}

void TestHistoryCompare::aRunKeepsItsColourEverywhere()
{
    ui::MainWindow window(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
    window.resize(1600, 1000);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    ui::ComparePage* page = window.comparePage();
    // Every place the page shows run `label` in, and the colour there.
    const auto coloursOf = [&](const QString& label) {
        QList<QRgb> colours;
        const int run = int(window.comparison().labels().indexOf(label));
        for (int kind = 0; kind < app::ComparisonSession::PlotCount; ++kind)
            colours << graphNamed(page->plot(app::ComparisonSession::PlotKind(kind))->plot(), label)->pen().color().rgb();
        colours << barsNamed(page->stepSplit()->plot(), label + ": compute")->brush().color().rgb();
        colours << iconColour(page->table()->horizontalHeaderItem(run)->icon()).rgb();
        colours << iconColour(page->differences()->horizontalHeaderItem(run)->icon()).rgb();
        colours << iconColour(page->runChips()->chip(run)->icon()).rgb();
        return colours;
    };

    // Runs #7, #8 and #9 of the history: three colours, each the same in every place.
    compare(window, {"OneDevice", "Mirrored x2", "Mirrored x4"}, {7, 8, 9});
    QMap<QString, QRgb> colour;
    for (const QString& label : window.comparison().labels()) {
        const QList<QRgb> places = coloursOf(label);
        QCOMPARE(places, QList<QRgb>(places.size(), places.front()));
        colour[label] = places.front();
    }
    QCOMPARE(QSet<QRgb>({colour["OneDevice"], colour["Mirrored x2"], colour["Mirrored x4"]}).size(), 3);

    // The same runs in another order, one left out: each keeps its colour, everywhere.
    compare(window, {"Mirrored x4", "OneDevice"}, {9, 7});
    QCOMPARE(coloursOf("Mirrored x4"), QList<QRgb>(coloursOf("Mirrored x4").size(), colour["Mirrored x4"]));
    QCOMPARE(coloursOf("OneDevice"), QList<QRgb>(coloursOf("OneDevice").size(), colour["OneDevice"]));
}

void TestHistoryCompare::stepSplitLabelsNeverOverlap_data()
{
    QTest::addColumn<QSize>("size");
    QTest::addColumn<int>("runs");
    for (const QSize size : {QSize(1600, 1000), QSize(1280, 720)})
        for (const int runs : {3, 8, 15})
            QTest::addRow("%dx%d, %d runs", size.width(), size.height(), runs) << size << runs;
}

void TestHistoryCompare::stepSplitLabelsNeverOverlap()
{
    QFETCH(QSize, size);
    QFETCH(int, runs);
    ui::MainWindow window(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
    window.resize(size);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    // Names as `strata compare` gives history runs: long, alike at the start, differing at the end.
    QStringList labels;
    for (int run = 0; run < runs; ++run)
        labels << QStringLiteral("#%1 fashion-mnist-mlp-%2").arg(100 + run).arg(run % 2 ? "Mirrored x2" : "OneDevice");
    compare(window, labels);
    ui::SplitBars* split = window.comparePage()->stepSplit();
    QCPAxis* axis = split->plot()->xAxis;
    // Any two names drawn over each other.
    const auto overlapping = [&] {
        const QList<QPolygonF> shapes = tickLabelShapes(axis);
        for (int a = 0; a < shapes.size(); ++a)
            for (int b = a + 1; b < shapes.size(); ++b)
                if (shapes[a].intersects(shapes[b]))
                    return QStringLiteral("labels %1 and %2 overlap (rotation %3): %4")
                        .arg(a).arg(b).arg(axis->tickLabelRotation()).arg(split->tickLabels().join(" | "));
        return QString();
    };
    // Settled: a replot that fits the names to the plot's width changes them no more.
    for (QStringList before; before != split->tickLabels();) {
        before = split->tickLabels();
        split->plot()->replot();
    }
    QVERIFY2(overlapping().isEmpty(), qPrintable(overlapping()));
    QVERIFY(tickLabelShapes(axis).size() >= std::min(runs, 4));
    // A name cut short keeps both its ends, and the tooltip over its bar has all of it.
    QVERIFY2(split->tickLabels().front().startsWith("#10") && split->tickLabels().front().endsWith("ice"), qPrintable(split->tickLabels().join(" | ")));
    const QPoint bar(int(axis->coordToPixel(1)), split->plot()->axisRect()->bottom() - 5);
    QHelpEvent hover(QEvent::ToolTip, bar, split->plot()->mapToGlobal(bar));
    QApplication::sendEvent(split->plot(), &hover);
    QTRY_VERIFY_WITH_TIMEOUT(QToolTip::isVisible(), testing::kEventDeadlineMs);
    QVERIFY2(QToolTip::text().contains(labels.front()) && QToolTip::text().contains("gradient reduction"),
             qPrintable(QToolTip::text()));
    QToolTip::hideText();
}

void TestHistoryCompare::splittersNeverCollapseTheComparison()
{
    ui::MainWindow window(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
    window.resize(1280, 720);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    compare(window, {"OneDevice", "Mirrored x2"});
    ui::ComparePage* page = window.comparePage();
    auto* splitter = find<QSplitter>(page, "compareSplitter");
    QWidget* plots = splitter->widget(0);
    QWidget* tables = splitter->widget(1);
    // Dragged far up, then far down: each side keeps at least its minimum.
    dragHandle(splitter->handle(1), QPoint(0, -2000));
    QVERIFY2(plots->height() >= plots->minimumSizeHint().height() && plots->height() > 300,
             qPrintable(QString::number(plots->height())));
    QVERIFY(page->plot(app::ComparisonSession::LossByStep)->height() > 100);
    dragHandle(splitter->handle(1), QPoint(0, 2000));
    QVERIFY2(tables->height() >= 90, qPrintable(QString::number(tables->height())));
    QVERIFY(page->table()->height() >= 90);

    auto* across = find<QSplitter>(page, "compareTablesSplitter");
    dragHandle(across->handle(1), QPoint(-3000, 0));
    QVERIFY2(page->table()->width() >= 220, qPrintable(QString::number(page->table()->width())));
    dragHandle(across->handle(1), QPoint(3000, 0));
    QVERIFY2(page->differences()->width() >= 200, qPrintable(QString::number(page->differences()->width())));
}

QTEST_MAIN(TestHistoryCompare)
#include "tst_history_compare.moc"
