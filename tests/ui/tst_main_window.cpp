// The window driven as a user drives it (offscreen): a model built with clicks and keys, a
// real Mirrored run of the real engine watched live and stopped, and the bad inputs a
// user meets (no engine, an engine that dies, a corrupt file, an unusable run history,
// unsaved changes on close). The Cluster page edits a node's work directory and the
// unattended stop, and checks this machine's node. Runs launched from the window are in its
// run history. Closing with a run asks: Cancel keeps the window, Stop stops the run first,
// Leave running lets the job train on without the window, and the next window offers it and
// reattaches it. Both runs' placement maps show what their placement events say (hosts,
// devices, replicas, variables), devices updated as they report. Ctrl+1..9 show the pages,
// Ctrl+R launches and Ctrl+. stops; the window's size and layout outlive it (QSettings in a
// folder of the test's own).

#include "../event_deadline.h"
#include "app/experiment/catalogs.h"
#include "app/experiment/cluster_editing.h"
#include "app/experiment/recent_files.h"
#include "app/history/run_history.h"
#include "app/metrics/placement.h"
#include "ui/setup/cluster_page.h"
#include "ui/setup/field_marks.h"
#include "ui/dashboard/dashboard_page.h"
#include "ui/dashboard/placement_map_view.h"
#include "ui/dashboard/task_table.h"
#include "ui/shell/elided_text_tips.h"
#include "ui/shell/dialogs.h"
#include "ui/history/history_page.h"
#include "ui/shell/main_window.h"
#include "ui/shell/message_banner.h"
#include "ui/shell/theme.h"
#include "ui/plot/series_plot.h"
#include "ui/setup/validation_panel.h"

#include "scripted_dialogs.h"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardPaths>
#include <QTableView>
#include <QTabWidget>
#include <QTableWidget>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QTreeWidget>

#include <nlohmann/json.hpp>

#include <csignal>
#include <cerrno>

using namespace strata;

namespace {

using uitest::ScriptedDialogs;

template<typename T>
T* find(QWidget* root, const QString& name)
{
    T* child = root->findChild<T*>(name);
    if (!child)
        qFatal("no %s named %s", T::staticMetaObject.className(), qPrintable(name));
    return child;
}

// The one of several editors of that name on the page shown (strategies' options share names).
template<typename T>
T* findShown(QWidget* root, const QString& name)
{
    for (T* child : root->findChildren<T*>(name))
        if (child->isVisibleTo(root))
            return child;
    qFatal("no %s named %s shown", T::staticMetaObject.className(), qPrintable(name));
}

void typeInto(QWidget* editor, const QString& text)
{
    editor->setFocus();
    if (auto* line = qobject_cast<QLineEdit*>(editor))
        line->selectAll();
    else if (auto* spin = qobject_cast<QAbstractSpinBox*>(editor))
        spin->selectAll();
    QTest::keyClicks(editor, text);
}

// The document's value at `pointer` as compact JSON text.
QString jsonAt(const app::ExperimentDocument& doc, const QString& pointer)
{
    return QString::fromStdString(doc.value(pointer).dump());
}

// Picks a combo item with the arrow keys, as a keyboard user does.
void chooseWithKeys(QComboBox* combo, const QString& text)
{
    const int target = combo->findText(text);
    QVERIFY2(target >= 0, qPrintable(text));
    for (int guard = 0; combo->currentIndex() != target && guard < 100; ++guard)
        QTest::keyClick(combo, combo->currentIndex() < target ? Qt::Key_Down : Qt::Key_Up);
    QCOMPARE(combo->currentText(), text);
}

void clickItem(QListWidget* list, const QString& startsWith)
{
    for (int i = 0; i < list->count(); ++i)
        if (list->item(i)->text().startsWith(startsWith)) {
            QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualItemRect(list->item(i)).center());
            return;
        }
    QFAIL(qPrintable("no item " + startsWith));
}

void addLayer(ui::MainWindow& window, const QString& type)
{
    auto* add = find<QToolButton>(&window, "addLayer");
    for (QAction* action : add->menu()->actions())
        if (action->text() == type) {
            action->trigger();
            return;
        }
    QFAIL(qPrintable("no layer type " + type));
}

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& content, bool executable = false)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(path));
    f.write(content);
    f.close();
    if (executable)
        f.setPermissions(f.permissions() | QFileDevice::ExeOwner);
    return path;
}

using Tasks = strata::app::TaskTableModel; // the task table's columns

// What the run's events files say of the placement: each task's last `placement` event, and
// the hosts its tasks' `hello` events name.
struct WrittenPlacement {
    QMap<QString, app::Json> placements; // by task
    QSet<QString> hosts;
};

WrittenPlacement writtenPlacement(const QString& runDir)
{
    WrittenPlacement out;
    const QDir dir(runDir);
    for (const QString& name : dir.entryList({"events-*.jsonl"}, QDir::Files)) {
        QFile file(dir.filePath(name));
        if (!file.open(QIODevice::ReadOnly))
            qFatal("cannot read %s", qPrintable(file.fileName()));
        while (!file.atEnd()) {
            const app::Json event = app::Json::parse(file.readLine().toStdString(), nullptr, false);
            if (!event.is_object())
                continue;
            const QString task = QString::fromStdString(event.value("task", ""));
            if (event.value("type", "") == "placement")
                out.placements[task] = event;
            else if (event.value("type", "") == "hello")
                out.hosts << QString::fromStdString(event.value("host", ""));
        }
    }
    return out;
}

// The dashboard's placement map against the placement events the run wrote: a host box per
// host, each task's devices, each replica on its device, every variable with a copy on each
// device the events put one, each drawn in its place's colour; and every device's utilization
// once the devices have reported.
void mapShowsThePlacementEvents(ui::DashboardPage* dash, const QString& runDir, int tasks)
{
    QTRY_COMPARE_WITH_TIMEOUT(writtenPlacement(runDir).placements.size(), tasks, testing::kEventDeadlineMs);
    const WrittenPlacement written = writtenPlacement(runDir);
    ui::PlacementMapView* view = dash->placementMap();
    QTRY_COMPARE_WITH_TIMEOUT(view->map().hosts.size(), written.hosts.size(), testing::kEventDeadlineMs);
    const app::PlacementMap& map = view->map();
    QCOMPARE(map.strategy, QString::fromStdString(written.placements.first().value("strategy", "")));
    QMap<QString, app::MapTask> boxes;
    for (const app::MapHost& host : map.hosts) {
        QVERIFY(!view->boxOf(host.place).isNull());
        for (const app::MapTask& t : host.tasks)
            boxes[t.id] = t;
    }
    QStringList variables;        // in the events' order
    QMap<QString, int> copies;    // by variable: the devices holding one, over every task
    for (auto it = written.placements.cbegin(); it != written.placements.cend(); ++it) {
        QVERIFY2(boxes.contains(it.key()), qPrintable(it.key()));
        QMap<QString, QStringList> replicas; // by device
        for (const app::Json& r : it.value()["replicas"])
            replicas[QString::fromStdString(r["device"])] << QStringLiteral("replica %1").arg(r["replica"].get<int>());
        QStringList devices;
        for (const app::MapDevice& d : boxes[it.key()].devices) {
            devices << d.name;
            QCOMPARE(d.replicas, replicas.value(d.name));
            QVERIFY2(view->boxOf(boxes[it.key()].id).contains(view->boxOf(d.id)), qPrintable(d.id));
        }
        QCOMPARE(devices, replicas.keys());
        for (const app::Json& v : it.value()["variables"]) {
            const QString name = QString::fromStdString(v["name"]);
            if (!variables.contains(name))
                variables << name;
            copies[name] += int(v["devices"].size());
        }
    }
    QStringList drawn;
    for (const app::MapVariable& v : map.variables) {
        drawn << v.name;
        QCOMPARE(v.pieces.size(), copies[v.name]);
    }
    QCOMPARE(drawn, variables);
    // Painted: each place's colour on the picture.
    QTabWidget* tabs = dash->tabs();
    for (int i = 0; i < tabs->count(); ++i)
        if (tabs->tabText(i) == "Placement map")
            tabs->setCurrentIndex(i);
    const QImage image = view->grab().toImage();
    for (int place = 0; place < map.places.size(); ++place) {
        const QColor colour = ui::PlacementMapView::placeColour(place, view->palette());
        int pixels = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x)
                pixels += image.pixelColor(x, y) == colour;
        QVERIFY2(pixels > 300, qPrintable(map.places[place]));
    }
    // Live: each device's latest report (about one a second).
    const auto everyDeviceReported = [&] {
        for (const app::MapHost& host : view->map().hosts)
            for (const app::MapTask& t : host.tasks)
                for (const app::MapDevice& d : t.devices)
                    if (d.usage.utilization < 0)
                        return false;
        return true;
    };
    QTRY_VERIFY_WITH_TIMEOUT(everyDeviceReported(), testing::kEventDeadlineMs);
}

QStringList arrowsOf(const app::PlacementMap& map)
{
    QStringList out;
    for (const app::MapArrow& a : map.arrows)
        out << a.from + " -> " + a.to;
    return out;
}

QStringList lineNames(const app::PlotSource& source)
{
    QStringList names;
    for (int i = 0; i < source.lineCount(); ++i)
        names << source.lineName(i);
    return names;
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        // The windows' remembered layouts stay in this test.
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.filePath("settings"));
    }

    void buildsAModelWithClicksAndKeys();
    void editsListFieldsAsText();
    void launchesWatchesAndStopsAMirroredRun();
    void multiWorkerJobWatchedAndAWorkerKilled();
    void clusterPageChecksTheNodes();
    void invalidModelDisablesLaunchUntilUndone();
    void missingEngineIsReported();
    void engineThatDiesIsReported();
    void unusableHistoryIsReportedAndRunsGoOn();
    void engineKilledMidRunKeepsWhatItSent();
    void corruptFileIsReportedAndNothingIsLost();
    void asksBeforeClosingWithUnsavedChanges();
    void closingWithARunAsksWhetherToStopIt();
    void runLeftRunningIsReattachedByTheNextWindow();
    void resumeOfADifferentExperimentAsksWhatToDo();
    void savesAndRemembersRecentFiles();
    void logicalDevicesAreOffered();
    void keysShowPagesLaunchAndStop();
    void remembersItsSizeAndLayout();

private:
    QTemporaryDir m_dir;
};

// More logical CPU devices: the replica device list offers them at once. Logical GPUs are
// made from a GPU: without one (this machine) their spin box is off, saying why.
void TestMainWindow::logicalDevicesAreOffered()
{
    ui::MainWindow window(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
    window.show();
    QVERIFY2(window.engine().usable(), qPrintable(window.engine().error));
    window.showPage(ui::MainWindow::StrategyPageIndex);
    clickItem(find<QListWidget>(&window, "strategyList"), "MirroredStrategy");
    const auto shownDevices = [&] {
        QStringList names;
        for (auto* list : window.findChildren<QListWidget*>("devices"))
            if (list->isVisible())
                for (int i = 0; i < list->count(); ++i)
                    names << list->item(i)->text();
        return names;
    };
    typeInto(find<QSpinBox>(&window, "logicalCpuDevices"), "3");
    QCOMPARE(shownDevices(), QStringList({"cpu:0", "cpu:1", "cpu:2"}));
    auto* gpus = find<QSpinBox>(&window, "logicalGpuDevices");
    if (window.engine().host.gpus == 0) {
        QVERIFY(!gpus->isEnabled());
        QVERIFY(gpus->toolTip().contains("no GPU"));
    } else {
        typeInto(gpus, "2");
        QVERIFY(shownDevices().contains("gpu:1"));
    }
}

void TestMainWindow::buildsAModelWithClicksAndKeys()
{
    ui::MainWindow window(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
    window.show();
    window.showPage(ui::MainWindow::ModelPageIndex);
    auto& doc = window.document();
    auto* table = find<QTableWidget>(&window, "layerTable");

    // Empty the default model with the Remove button.
    while (doc.layerCount() > 0) {
        table->selectRow(0);
        QTest::mouseClick(find<QToolButton>(&window, "removeLayer"), Qt::LeftButton);
    }
    QCOMPARE(table->rowCount(), 0);

    typeInto(find<QLineEdit>(&window, "inputShape"), "28, 28");
    QCOMPARE(doc.get("/model/input_shape").toList(), (QVariantList{28, 28}));
    addLayer(window, "Flatten");
    addLayer(window, "Dense");
    typeInto(find<QSpinBox>(&window, "units"), "64");
    chooseWithKeys(find<QComboBox>(&window, "activation"), "relu");
    addLayer(window, "Dropout");
    addLayer(window, "Dense");
    typeInto(find<QSpinBox>(&window, "units"), "10");

    QCOMPARE(doc.layerCount(), 4);
    QCOMPARE(doc.layer(1).value("units").toInt(), 64);
    QCOMPARE(doc.layer(1).value("activation").toString(), QString("relu"));
    QCOMPARE(doc.layer(2).value("type").toString(), QString("Dropout"));
    // Shapes and parameters follow the typing: 784*64+64 = 50240, 64*10+10 = 650.
    QCOMPARE(table->item(1, 2)->text(), QString("(None, 64)"));
    QCOMPARE(table->item(3, 2)->text(), QString("(None, 10)"));
    QCOMPARE(doc.validation().totalParams, 50890);
    QVERIFY(find<QLabel>(&window, "totalParams")->text().contains(QLocale().toString(50890)));

    // Reorder with the buttons: move the Dropout above the first Dense, then back.
    table->selectRow(2);
    QTest::mouseClick(find<QToolButton>(&window, "moveLayerUp"), Qt::LeftButton);
    QCOMPARE(doc.layer(1).value("type").toString(), QString("Dropout"));
    QTest::mouseClick(find<QToolButton>(&window, "moveLayerDown"), Qt::LeftButton);
    QCOMPARE(doc.layer(2).value("type").toString(), QString("Dropout"));

    // Undo steps back through the edits, one per user action: the two moves, typing "10"
    // (one edit, not one per key), adding the Dense and the Dropout, choosing relu...
    for (int i = 0; i < 6; ++i)
        doc.undo();
    QCOMPARE(doc.layerCount(), 2);
    QVERIFY(doc.layer(1).value("activation").toString() != "relu");
    QCOMPARE(doc.layer(1).value("units").toInt(), 64);
    // ...and typing "64" was one edit: one more undo gives the new Dense's usual 32, not "6".
    doc.undo();
    QCOMPARE(doc.layer(1).value("units").toInt(), 32);
}

// The list fields of the new layers are typed as integers: ZeroPadding2D's padding (n, h, w, or
// top, bottom, left, right), Reshape's target shape (with -1), Dropout's noise shape (None
// entries); the document gets Keras' JSON, and its changes come back as text.
void TestMainWindow::editsListFieldsAsText()
{
    ui::MainWindow window(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
    window.show();
    window.showPage(ui::MainWindow::ModelPageIndex);
    auto& doc = window.document();
    auto* table = find<QTableWidget>(&window, "layerTable");
    while (doc.layerCount() > 0) {
        table->selectRow(0);
        QTest::mouseClick(find<QToolButton>(&window, "removeLayer"), Qt::LeftButton);
    }
    typeInto(find<QLineEdit>(&window, "inputShape"), "8, 8, 1");

    addLayer(window, "ZeroPadding2D");
    auto* padding = find<QLineEdit>(&window, "padding");
    QVERIFY(padding->text().isEmpty()); // the default, shown as the placeholder
    typeInto(padding, "0, 2, 3, 1");
    QCOMPARE(jsonAt(doc, "/model/layers/0/padding"), QString("[[0,2],[3,1]]"));
    QCOMPARE(table->item(0, 2)->text(), QString("(None, 10, 12, 1)"));
    typeInto(padding, "1, 2, 3"); // three numbers are no padding: marked, the last valid text ("1, 2") kept
    QVERIFY(ui::isMarked(padding));
    QVERIFY2(padding->toolTip().startsWith("not integers"), qPrintable(padding->toolTip()));
    QCOMPARE(jsonAt(doc, "/model/layers/0/padding"), QString("[1,2]"));
    QCOMPARE(table->item(0, 2)->text(), QString("(None, 10, 12, 1)"));

    addLayer(window, "Reshape");
    typeInto(find<QLineEdit>(&window, "target_shape"), "-1, 4");
    QCOMPARE(jsonAt(doc, "/model/layers/1/target_shape"), QString("[-1,4]"));
    QCOMPARE(table->item(1, 2)->text(), QString("(None, 30, 4)"));

    addLayer(window, "Dropout");
    auto* noise = find<QLineEdit>(&window, "noise_shape");
    typeInto(noise, "None, 1, 4");
    QCOMPARE(jsonAt(doc, "/model/layers/2/noise_shape"), QString("[null,1,4]"));
    QVERIFY(doc.validation().ok());
    typeInto(noise, "None, 2, 4"); // written: the shapes say what is wrong
    QVERIFY(!doc.validation().ok());
    // A change of the document (an undo, an import) shows in the editor.
    doc.set("/model/layers/2/noise_shape", app::Json::parse("[null, null, 1]"));
    QCOMPARE(noise->text(), QString("None, None, 1"));
    QVERIFY(doc.validation().ok());
    noise->selectAll();
    QTest::keyClick(noise, Qt::Key_Delete);
    QVERIFY(!doc.layer(2).contains("noise_shape"));
}

void TestMainWindow::launchesWatchesAndStopsAMirroredRun()
{
    ui::MainWindow window(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
    window.show();
    QVERIFY2(window.engine().usable(), qPrintable(window.engine().error));
    auto& doc = window.document();

    window.showPage(ui::MainWindow::StrategyPageIndex);
    clickItem(find<QListWidget>(&window, "strategyList"), "MirroredStrategy");
    QCOMPARE(doc.get("/strategy/type").toString(), QString("Mirrored"));
    typeInto(find<QSpinBox>(&window, "logicalCpuDevices"), "2");
    window.showPage(ui::MainWindow::TrainingPageIndex);
    typeInto(find<QSpinBox>(&window, "epochs"), "200"); // stopped long before the end
    QVERIFY(find<QLabel>(&window, "globalBatch")->text().contains("64"));
    window.showPage(ui::MainWindow::DataPageIndex);
    chooseWithKeys(find<QComboBox>(&window, "validation"), "none");

    auto* launch = window.validationPanel()->launchButton();
    QVERIFY2(launch->isEnabled(), qPrintable(window.validationPanel()->findChild<QLabel*>("runSummary")->text()));
    QTest::mouseClick(launch, Qt::LeftButton);
    QVERIFY2(window.run().isRunning(), qPrintable(window.banner()->text()));
    QCOMPARE(window.currentPage(), ui::MainWindow::DashboardPageIndex);

    // Every plot gets data, and from every replica where it is per replica or per device.
    ui::DashboardPage* dash = window.dashboard();
    using D = ui::DashboardPage;
    auto everyLineHasPoints = [&](D::PlotKind kind, int lines) {
        const app::PlotSource& s = dash->source(kind);
        if (s.lineCount() < lines)
            return false;
        for (int i = 0; i < s.lineCount(); ++i)
            if (s.pointCount(i) == 0)
                return false;
        return dash->plot(kind)->drawnPoints() > 0;
    };
    QTRY_VERIFY_WITH_TIMEOUT(everyLineHasPoints(D::LossPlot, 2) && everyLineHasPoints(D::ThroughputPlot, 1) &&
                                 everyLineHasPoints(D::StepTimePlot, 3) && everyLineHasPoints(D::UtilizationPlot, 2) &&
                                 everyLineHasPoints(D::MemoryPlot, 2),
                             testing::kEventDeadlineMs);
    QCOMPARE(dash->source(D::LossPlot).lineCount(), 2);
    QVERIFY(dash->source(D::LossPlot).lineName(0).contains("replica 0"));
    QVERIFY(dash->source(D::LossPlot).lineName(1).contains("replica 1"));
    QVERIFY(dash->progressBar()->value() > 0);
    QTRY_VERIFY_WITH_TIMEOUT(dash->placementTree()->topLevelItemCount() == 1, testing::kEventDeadlineMs);
    mapShowsThePlacementEvents(dash, window.run().runDir(), 1);
    QCOMPARE(dash->placementMap()->map().places.size(), 2); // a copy on each replica's device
    const QTreeWidgetItem* task = dash->placementTree()->topLevelItem(0);
    QVERIFY(task->text(0).startsWith("worker:0"));
    QVERIFY(task->text(1).contains("Mirrored"));
    int replicas = 0;
    for (int i = 0; i < task->childCount(); ++i)
        replicas += task->child(i)->text(0).startsWith("cpu:") ? task->child(i)->childCount() : 0;
    QCOMPARE(replicas, 2);

    // Smoothing recomputes over every point.
    find<QComboBox>(dash, "smoothingKind")->setCurrentIndex(1);
    QCOMPARE(dash->source(D::LossPlot).lineCount(), 2);

    QTest::mouseClick(find<QPushButton>(dash, "stopButton"), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!window.run().isRunning(), testing::kEventDeadlineMs);
    QVERIFY2(window.run().outcome() == app::RunOutcome::Stopped, qPrintable(window.run().summary()));
    QCOMPARE(dash->taskTable()->text(0, Tasks::StateColumn), app::stateName(app::TaskState::Stopped));
    QVERIFY(!dash->logView()->toPlainText().isEmpty());
    QVERIFY(QFileInfo::exists(window.run().runDir() + "/checkpoints"));
    QVERIFY(window.validationPanel()->launchButton()->isEnabled());

    // Recorded in the run history, as started from the window.
    QString error;
    const std::optional<app::RunRecord> recorded = window.history().run(window.run().historyId(), &error);
    QVERIFY2(recorded, qPrintable(error));
    QCOMPARE(recorded->source, QString("app"));
    QCOMPARE(recorded->status, app::RunStatus::Stopped);
    QCOMPARE(recorded->strategy, QString("Mirrored"));
    QCOMPARE(recorded->replicas, 2);
    QCOMPARE(recorded->runDir, window.run().runDir());
}

void TestMainWindow::multiWorkerJobWatchedAndAWorkerKilled()
{
    ui::MainWindow window(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
    window.show();
    QVERIFY2(window.engine().usable(), qPrintable(window.engine().error));
    auto& doc = window.document();

    // MultiWorkerMirrored runs here now: its note says what it cannot do yet, not that it cannot run.
    window.showPage(ui::MainWindow::StrategyPageIndex);
    clickItem(find<QListWidget>(&window, "strategyList"), "MultiWorkerMirroredStrategy");
    QCOMPARE(doc.get("/strategy/type").toString(), QString("MultiWorkerMirrored"));
    QVERIFY(find<QLabel>(&window, "strategyWhyNot")->text().contains("SSH"));
    // Its options, bound to the document: the bucket size in KiB (bytes in the file), the timeout.
    auto* bucket = find<QSpinBox>(&window, "bucket_bytes");
    QCOMPARE(bucket->value(), app::defaultBucketBytes() / 1024); // the engine's default, in KiB
    typeInto(bucket, "256");
    QCOMPARE(doc.get("/strategy/bucket_bytes").toLongLong(), 256LL * 1024);
    typeInto(findShown<QLineEdit>(&window, "timeout_seconds"), "5");
    QCOMPARE(doc.get("/strategy/timeout_seconds").toDouble(), 5.0);
    doc.undo(); // back to the default timeout...
    QVERIFY(!doc.get("/strategy/timeout_seconds").isValid());
    QVERIFY(findShown<QLineEdit>(&window, "timeout_seconds")->text().isEmpty()); // ...which the editor says
    QCOMPARE(findShown<QLineEdit>(&window, "timeout_seconds")->placeholderText(), QString("10 (default)"));
    typeInto(findShown<QLineEdit>(&window, "timeout_seconds"), "5");

    // Two workers on this machine, as the Cluster page edits them (a free port: tests run side by side).
    QTcpServer probe;
    QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
    const int port = probe.serverPort();
    probe.close();
    // Choosing the strategy set up two workers here (ClusterEditing::chooseStrategy).
    app::ClusterEditing cluster(doc);
    QCOMPARE(cluster.tasks(), (QStringList{"worker:0", "worker:1"}));
    cluster.updateAssignment(0, {"worker", "local", 2, port});
    QCOMPARE(cluster.tasks(), (QStringList{"worker:0", "worker:1"}));
    window.showPage(ui::MainWindow::TrainingPageIndex);
    typeInto(find<QSpinBox>(&window, "epochs"), "200"); // killed long before the end
    // The global batch is the job's: one replica on each of two workers.
    QCOMPARE(find<QLabel>(&window, "globalBatch")->text(), QString("x 2 replica(s) (on 2 workers) = global batch 64"));
    window.showPage(ui::MainWindow::DataPageIndex);
    chooseWithKeys(find<QComboBox>(&window, "validation"), "none");

    auto* launch = window.validationPanel()->launchButton();
    const QString summary = window.validationPanel()->findChild<QLabel*>("runSummary")->text();
    QVERIFY2(launch->isEnabled(), qPrintable(summary));
    QVERIFY2(summary.startsWith("Ready: MultiWorkerMirrored, 2 workers, 2 replica(s) in all, global batch 64."), qPrintable(summary));
    QTest::mouseClick(launch, Qt::LeftButton);
    QVERIFY2(window.run().isRunning(), qPrintable(window.banner()->text()));
    QCOMPARE(window.run().tasks(), (QStringList{"worker:0", "worker:1"}));

    // Each worker's replica is a line of its own (cpu:0 on both), each worker's throughput and the total.
    ui::DashboardPage* dash = window.dashboard();
    using D = ui::DashboardPage;
    const auto everyLineHasPoints = [&](D::PlotKind kind, int lines) {
        const app::PlotSource& s = dash->source(kind);
        if (s.lineCount() < lines)
            return false;
        for (int i = 0; i < s.lineCount(); ++i)
            if (s.pointCount(i) == 0)
                return false;
        return dash->plot(kind)->drawnPoints() > 0;
    };
    QTRY_VERIFY_WITH_TIMEOUT(everyLineHasPoints(D::LossPlot, 2) && everyLineHasPoints(D::ThroughputPlot, 3), testing::kEventDeadlineMs);
    QStringList lossLines = lineNames(dash->source(D::LossPlot));
    lossLines.sort(); // in the order the workers first reported
    QCOMPARE(lossLines, (QStringList{"worker:0 replica 0 (cpu:0)", "worker:1 replica 0 (cpu:0)"}));
    QStringList throughputLines = lineNames(dash->source(D::ThroughputPlot));
    QCOMPARE(throughputLines.size(), 3);
    QCOMPARE(throughputLines.back(), QString("total"));

    // Placement: a task per worker, each with its device and replica and the reduction across both.
    QTRY_VERIFY_WITH_TIMEOUT(dash->placementTree()->topLevelItemCount() == 2, testing::kEventDeadlineMs);
    for (int i = 0; i < 2; ++i) {
        const QTreeWidgetItem* task = dash->placementTree()->topLevelItem(i);
        QVERIFY2(task->text(1).contains("MultiWorkerMirrored") && task->text(1).contains("of 2 tasks"),
                 qPrintable(task->text(1)));
        bool device = false, reduction = false;
        for (int c = 0; c < task->childCount(); ++c) {
            const QTreeWidgetItem* child = task->child(c);
            device = device || (child->text(0) == "cpu:0" && child->childCount() == 1);
            if (child->text(0) == "gradient reduction") {
                reduction = child->text(2).contains("bucket") && child->childCount() == 1 &&
                            child->child(0)->text(1) == "worker:0, worker:1";
            }
        }
        QVERIFY2(device && reduction, qPrintable(task->text(0)));
    }
    mapShowsThePlacementEvents(dash, window.run().runDir(), 2);
    QCOMPARE(arrowsOf(dash->placementMap()->map()), QStringList({"worker:0 -> worker:1", "worker:1 -> worker:0"}));

    // Kill worker:1 (the dashboard's Kill task on its row): the job ends within 15 s.
    ui::TaskTable* tasks = dash->taskTable();
    QTRY_COMPARE_WITH_TIMEOUT(tasks->shownCount(), 2, testing::kEventDeadlineMs);
    QCOMPARE(tasks->text(tasks->rowOf("worker:1"), Tasks::HostColumn), QString("local (localhost)"));
    QList<qint64> pids;
    window.run().store().read([&](const std::vector<app::TaskData>& all, const std::vector<app::LogEntry>&) {
        for (const app::TaskData& t : all)
            pids << t.hello.value("pid", qint64{0});
    });
    tasks->selectRow(tasks->rowOf("worker:1"));
    QTRY_VERIFY_WITH_TIMEOUT(find<QPushButton>(dash, "killTask")->isEnabled(), testing::kEventDeadlineMs);
    QElapsedTimer clock;
    clock.start();
    QTest::mouseClick(find<QPushButton>(dash, "killTask"), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!window.run().isRunning(), testing::kEventDeadlineMs);
    QVERIFY(clock.elapsed() < 15000);
    QCOMPARE(window.run().outcome(), app::RunOutcome::Failed);
    // worker:1 is lost (with why); worker:0 failed, its error naming worker:1.
    const int killed = tasks->rowOf("worker:1"), survivor = tasks->rowOf("worker:0");
    QCOMPARE(tasks->text(killed, Tasks::StateColumn), QString("lost"));
    QVERIFY2(tasks->text(killed, Tasks::ResultColumn).startsWith("killed by signal 9"),
             qPrintable(tasks->text(killed, Tasks::ResultColumn)));
    QCOMPARE(tasks->text(survivor, Tasks::StateColumn), app::stateName(app::TaskState::Failed));
    QVERIFY2(tasks->text(survivor, Tasks::ResultColumn).startsWith("lost worker:1 ("),
             qPrintable(tasks->text(survivor, Tasks::ResultColumn)));
    QVERIFY(dash->logView()->toPlainText().contains("lost worker:1"));
    // Nothing left running.
    QCOMPARE(pids.size(), 2);
    for (qint64 pid : pids)
        QVERIFY2(pid > 0 && ::kill(pid_t(pid), 0) != 0 && errno == ESRCH, qPrintable(QString::number(pid)));
}

void TestMainWindow::clusterPageChecksTheNodes()
{
    ui::MainWindow window(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
    window.show();
    auto& doc = window.document();
    window.showPage(ui::MainWindow::ClusterPageIndex);
    ui::ClusterPage* page = window.clusterPage();
    // One process (the default OneDevice): no cluster to edit, said so.
    QVERIFY(page->notUsedNotice()->isVisible());
    QVERIFY(!page->nodeTable()->isVisible());
    app::ClusterEditing(doc).chooseStrategy("MultiWorkerMirrored", {});
    QVERIFY(!page->notUsedNotice()->isVisible());
    QVERIFY(page->nodeTable()->isVisible());

    // A node's work directory and the unattended stop, edited on the page.
    app::ClusterEditing(doc).addNode({"gpu1", "gpu1.example", 22, {}, "agent", {}, {}});
    QTableWidget* nodes = page->nodeTable();
    QCOMPARE(nodes->horizontalHeaderItem(7)->text(), QString("Work directory"));
    nodes->item(1, 7)->setText("/scratch/runs");
    QCOMPARE(doc.get("/cluster/nodes/1/work_dir").toString(), QString("/scratch/runs"));
    auto* unattended = find<QSpinBox>(page, "stopUnattendedSeconds");
    QCOMPARE(unattended->text(), QString("never"));
    typeInto(unattended, "900");
    QTest::keyClick(unattended, Qt::Key_Return);
    QCOMPARE(doc.get("/cluster/stop_unattended_seconds").toInt(), 900);
    doc.undo();
    QCOMPARE(unattended->value(), 0);

    // Check nodes: this machine's node (gpu1 runs no task, so it is not asked), its engine.
    QVERIFY(!page->checkResults()->isVisible());
    QTest::mouseClick(page->checkButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!page->isChecking(), testing::kEventDeadlineMs);
    QTableWidget* checks = page->checkResults();
    QVERIFY(checks->isVisible());
    QCOMPARE(checks->rowCount(), 1);
    QCOMPARE(checks->item(0, 0)->text(), QString("local (localhost)"));
    QVERIFY2(checks->item(0, 1)->text().startsWith("OK"), qPrintable(checks->item(0, 1)->text()));
    QCOMPARE(checks->item(0, 2)->text(), "strata-engine " + window.engine().version);
    QVERIFY(checks->item(0, 3)->text().contains("cpu:0"));
    QCOMPARE(page->checkState()->text(), QString("1 node(s) checked: ready"));

    // A cluster with problems is not checked: the banner says why.
    app::ClusterEditing(doc).updateAssignment(0, {"worker", "nowhere", 1, 0});
    QTest::mouseClick(page->checkButton(), Qt::LeftButton);
    QVERIFY(!page->isChecking());
    QCOMPARE(window.banner()->kind(), ui::MessageBanner::Kind::Error);
    QVERIFY2(window.banner()->text().contains("Cluster: Task assignment: row 1 (worker): Node: "),
             qPrintable(window.banner()->text()));
    QCOMPARE(checks->rowCount(), 1); // the last check's results stay
}

void TestMainWindow::invalidModelDisablesLaunchUntilUndone()
{
    ui::MainWindow window(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
    window.show();
    window.showPage(ui::MainWindow::ModelPageIndex);
    QVERIFY(window.validationPanel()->launchEnabled());
    auto* table = find<QTableWidget>(&window, "layerTable");
    table->selectRow(0); // after the Flatten: a Conv2D needs (height, width, channels)
    addLayer(window, "Conv2D");
    QVERIFY(!window.validationPanel()->launchEnabled());
    QCOMPARE(table->item(1, 2)->text(), QString("error"));
    QVERIFY(!table->item(1, 2)->toolTip().isEmpty());
    auto* problems = find<QListWidget>(&window, "problemList");
    QVERIFY(problems->count() > 0);
    QVERIFY2(problems->item(0)->text().startsWith("Model: layer 2 (Conv2D)"), qPrintable(problems->item(0)->text()));

    window.showPage(ui::MainWindow::TrainingPageIndex);
    clickItem(problems, "Model: layer 2"); // a click opens the page and the layer
    QCOMPARE(window.currentPage(), ui::MainWindow::ModelPageIndex);
    QCOMPARE(table->currentRow(), 1);

    window.document().undo();
    QVERIFY(window.validationPanel()->launchEnabled());
    QCOMPARE(table->rowCount(), 3);
}

void TestMainWindow::missingEngineIsReported()
{
    const QString missing = m_dir.filePath("no-such-engine");
    ui::MainWindow window(missing, std::make_unique<ScriptedDialogs>());
    window.show();
    QVERIFY(window.banner()->isVisible());
    QCOMPARE(window.banner()->kind(), ui::MessageBanner::Kind::Error);
    QVERIFY(window.banner()->text().contains(missing));
    QVERIFY(!window.validationPanel()->launchEnabled());
    QVERIFY(!window.launch());

    const QString notExecutable = writeFile(m_dir, "engine-not-executable", "#!/bin/sh\n");
    ui::MainWindow second(notExecutable, std::make_unique<ScriptedDialogs>());
    QVERIFY(second.banner()->text().contains("not executable"));
    QVERIFY(!second.validationPanel()->launchEnabled());
}

void TestMainWindow::engineThatDiesIsReported()
{
    // Answers the window's probes like the engine, then reports one step and dies.
    const QString engine = writeFile(m_dir, "dying-engine",
                                     "#!/bin/sh\n"
                                     "case \"$1\" in\n"
                                     "  --version) echo 'strata-engine 0.1.0'; exit 0 ;;\n"
                                     "  devices) echo '{\"name\":\"cpu:0\",\"kind\":\"cpu\"}'; exit 0 ;;\n"
                                     "esac\n"
                                     "echo '{\"event\":\"hello\",\"version\":1,\"task\":\"worker:0\",\"time\":1}'\n"
                                     "echo 'out of memory while allocating 4 GiB' >&2\n"
                                     "exit 3\n",
                                     true);
    ui::MainWindow window(engine, std::make_unique<ScriptedDialogs>());
    window.show();
    QVERIFY2(window.engine().usable(), qPrintable(window.engine().error));
    QVERIFY(window.launch());
    QTRY_VERIFY_WITH_TIMEOUT(!window.run().isRunning(), testing::kEventDeadlineMs);
    QCOMPARE(window.run().outcome(), app::RunOutcome::Failed);
    QCOMPARE(window.banner()->kind(), ui::MessageBanner::Kind::Error);
    const QString message = window.banner()->text();
    QVERIFY2(message.contains("worker:0") && message.contains('3') && message.contains("out of memory"),
             qPrintable(message));
    ui::TaskTable* tasks = window.dashboard()->taskTable();
    QCOMPARE(tasks->text(0, Tasks::StateColumn), app::stateName(app::TaskState::Failed));
    QVERIFY(tasks->text(0, Tasks::ExitColumn).contains('3'));
    QVERIFY(window.dashboard()->logView()->toPlainText().contains("out of memory"));
}

void TestMainWindow::unusableHistoryIsReportedAndRunsGoOn()
{
    // A damaged history file: said in the banner when the window opens, the file kept, and
    // runs still launch.
    const QString damaged = writeFile(m_dir, "damaged-history.sqlite", QByteArray(4096, 'z'));
    qputenv("STRATA_HISTORY", damaged.toLocal8Bit());
    ui::MainWindow window(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
    qunsetenv("STRATA_HISTORY");
    window.show();
    QCOMPARE(window.banner()->kind(), ui::MessageBanner::Kind::Error);
    const QString message = window.banner()->text();
    QVERIFY2(message.startsWith("Runs will not be recorded in the run history: ") && message.contains(damaged),
             qPrintable(message));
    QVERIFY(!window.history().isOpen());
    window.document().setValue("/training/epochs", 200);
    QVERIFY(window.launch());
    QTRY_VERIFY_WITH_TIMEOUT(window.run().store().eventCount() > 0, testing::kEventDeadlineMs);
    window.stop();
    QTRY_VERIFY_WITH_TIMEOUT(!window.run().isRunning(), testing::kEventDeadlineMs);
    QVERIFY2(window.run().outcome() == app::RunOutcome::Stopped, qPrintable(window.run().summary()));
    QCOMPARE(window.run().historyId(), qint64(0));
    QFile file(damaged);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), QByteArray(4096, 'z'));
}

void TestMainWindow::engineKilledMidRunKeepsWhatItSent()
{
    ui::MainWindow window(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
    window.show();
    window.document().setValue("/training/epochs", 200); // still running when it is killed
    QVERIFY(window.launch());
    ui::DashboardPage* dash = window.dashboard();
    const app::PlotSource& loss = dash->source(ui::DashboardPage::LossPlot);
    QTRY_VERIFY_WITH_TIMEOUT(loss.lineCount() > 0 && loss.pointCount(0) >= 3, testing::kEventDeadlineMs);
    // Kill task, on the task selected in the table: SIGKILL, as the OOM killer would.
    ui::TaskTable* tasks = dash->taskTable();
    QTRY_VERIFY_WITH_TIMEOUT(tasks->shownCount() == 1, testing::kEventDeadlineMs);
    tasks->selectRow(0);
    QTRY_VERIFY_WITH_TIMEOUT(find<QPushButton>(dash, "killTask")->isEnabled(), testing::kEventDeadlineMs);
    QTest::mouseClick(find<QPushButton>(dash, "killTask"), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!window.run().isRunning(), testing::kEventDeadlineMs);
    QCOMPARE(window.run().outcome(), app::RunOutcome::Failed);
    const QString message = window.banner()->text();
    QVERIFY2(message.contains("worker:0") && message.contains("signal 9"), qPrintable(message));
    // Every point received before the kill is still there and drawn.
    QVERIFY(loss.pointCount(0) >= 3);
    QVERIFY(dash->plot(ui::DashboardPage::LossPlot)->drawnPoints() > 0);
    QCOMPARE(tasks->text(0, Tasks::StateColumn), app::stateName(app::TaskState::Failed));
    QVERIFY(tasks->text(0, Tasks::ExitColumn).contains("signal"));
}

void TestMainWindow::corruptFileIsReportedAndNothingIsLost()
{
    ui::MainWindow window(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
    window.document().setValue("/training/epochs", 7);
    const QString corrupt = writeFile(m_dir, "corrupt.strata.json", "{\n  \"strata\": 1,\n  \"model\": [\n");
    QVERIFY(!window.openFile(corrupt));
    QCOMPARE(window.banner()->kind(), ui::MessageBanner::Kind::Error);
    QVERIFY(window.banner()->text().contains("corrupt.strata.json"));
    QVERIFY(window.banner()->text().contains("line"));
    QCOMPARE(window.document().get("/training/epochs").toInt(), 7);
    QVERIFY(window.document().isDirty());
}

void TestMainWindow::asksBeforeClosingWithUnsavedChanges()
{
    auto dialogs = std::make_unique<ScriptedDialogs>();
    ScriptedDialogs* script = dialogs.get();
    ui::MainWindow window(STRATA_ENGINE_PATH, std::move(dialogs));
    window.show();
    QVERIFY(window.close()); // nothing to save: no question
    QCOMPARE(script->saveQuestions, 0);

    window.show();
    window.showPage(ui::MainWindow::TrainingPageIndex);
    typeInto(find<QSpinBox>(&window, "epochs"), "9");
    QVERIFY(window.isWindowModified());
    script->saveAnswers = {ui::Dialogs::SaveChoice::Cancel};
    QVERIFY(!window.close());
    QVERIFY(window.isVisible());
    QCOMPARE(script->saveQuestions, 1);
    script->saveAnswers = {ui::Dialogs::SaveChoice::Discard};
    QVERIFY(window.close());
    QCOMPARE(script->saveQuestions, 2);
}

// The trainers' pids (from their hello events).
static QList<qint64> trainerPids(ui::MainWindow& window)
{
    QList<qint64> pids;
    window.run().store().read([&](const std::vector<app::TaskData>& all, const std::vector<app::LogEntry>&) {
        for (const app::TaskData& t : all)
            pids << t.hello.value("pid", qint64{0});
    });
    return pids;
}

static bool alive(qint64 pid) { return pid > 0 && ::kill(pid_t(pid), 0) == 0; }

void TestMainWindow::closingWithARunAsksWhetherToStopIt()
{
    auto dialogs = std::make_unique<ScriptedDialogs>();
    ScriptedDialogs* script = dialogs.get();
    ui::MainWindow window(STRATA_ENGINE_PATH, std::move(dialogs));
    window.show();
    window.document().setValue("/training/epochs", 200);
    QVERIFY(window.launch());
    QTRY_VERIFY_WITH_TIMEOUT(window.run().store().eventCount() > 0, testing::kEventDeadlineMs);

    // Cancel: the window and the run stay.
    script->saveAnswers = {ui::Dialogs::SaveChoice::Discard};
    script->runningAnswers = {ui::Dialogs::RunningChoice::Cancel};
    QVERIFY(!window.close());
    QCOMPARE(script->runningQuestions, 1);
    QVERIFY(window.isVisible());
    QVERIFY(window.run().isRunning());

    // Stop (the scripted default): stopped with a checkpoint, then the window closes.
    script->saveAnswers = {ui::Dialogs::SaveChoice::Discard};
    QVERIFY(!window.close());
    QCOMPARE(script->runningQuestions, 2);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isVisible(), testing::kEventDeadlineMs);
    QVERIFY2(window.run().outcome() == app::RunOutcome::Stopped, qPrintable(window.run().summary()));
    QCOMPARE(script->runningQuestions, 2); // asked once per close
}

void TestMainWindow::runLeftRunningIsReattachedByTheNextWindow()
{
    // A history of this test's own: the next window offers exactly the run left here.
    qputenv("STRATA_HISTORY", QFile::encodeName(m_dir.filePath("left-running.sqlite")));
    QList<qint64> pids;
    QString runDir;
    qint64 id = 0;
    {
        auto dialogs = std::make_unique<ScriptedDialogs>();
        ScriptedDialogs* script = dialogs.get();
        ui::MainWindow window(STRATA_ENGINE_PATH, std::move(dialogs));
        window.show();
        window.document().setValue("/training/epochs", 200);
        QVERIFY(window.launch());
        const app::PlotSource& loss = window.dashboard()->source(ui::DashboardPage::LossPlot);
        QTRY_VERIFY_WITH_TIMEOUT(loss.lineCount() > 0 && loss.pointCount(0) >= 3, testing::kEventDeadlineMs);
        pids = trainerPids(window);
        runDir = window.run().runDir();
        id = window.run().historyId();
        script->saveAnswers = {ui::Dialogs::SaveChoice::Discard};
        script->runningAnswers = {ui::Dialogs::RunningChoice::LeaveRunning};
        QVERIFY(window.close());
        QCOMPARE(script->runningQuestions, 1);
    }
    // The window and its launcher are gone; the job trains on, still `running` in the history.
    QCOMPARE(pids.size(), 1);
    QVERIFY(alive(pids[0]));
    const QString events = runDir + "/events-worker-0.jsonl";
    const qint64 size = QFileInfo(events).size();
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(events).size() > size, testing::kEventDeadlineMs);

    auto dialogs = std::make_unique<ScriptedDialogs>();
    ui::MainWindow next(STRATA_ENGINE_PATH, std::move(dialogs));
    qunsetenv("STRATA_HISTORY");
    next.show();
    QCOMPARE(next.banner()->kind(), ui::MessageBanner::Kind::Info);
    QCOMPARE(next.banner()->text(), QString("1 run went on without Strata: reattach it from the History page."));
    QString error;
    QCOMPARE(next.history().run(id, &error)->status, app::RunStatus::Running);

    next.showPage(ui::MainWindow::HistoryPageIndex);
    auto* reattach = find<QPushButton>(next.historyPage(), "reattachRun");
    next.historyPage()->selectRuns({});
    QVERIFY(!reattach->isEnabled());
    next.historyPage()->selectRuns({id});
    QVERIFY(reattach->isEnabled());
    QTest::mouseClick(reattach, Qt::LeftButton);
    QVERIFY2(next.run().isRunning(), qPrintable(next.banner()->text()));
    QCOMPARE(next.run().runDir(), runDir);
    QCOMPARE(next.currentPage(), ui::MainWindow::DashboardPageIndex);
    // What it did while no window followed it, then live.
    const app::PlotSource& loss = next.dashboard()->source(ui::DashboardPage::LossPlot);
    const int seen = loss.lineCount() > 0 ? int(loss.pointCount(0)) : 0;
    QVERIFY(seen >= 3);
    QTRY_VERIFY_WITH_TIMEOUT(loss.pointCount(0) > seen, testing::kEventDeadlineMs);
    // Reattaching twice is refused while it is followed.
    QVERIFY(!next.reattach(id));
    QVERIFY(next.banner()->text().contains(QStringLiteral("Cannot reattach run #%1").arg(id)));

    QTest::mouseClick(find<QPushButton>(next.dashboard(), "stopButton"), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!next.run().isRunning(), testing::kEventDeadlineMs);
    QVERIFY2(next.run().outcome() == app::RunOutcome::Stopped, qPrintable(next.run().summary()));
    QCOMPARE(next.history().run(id, &error)->status, app::RunStatus::Stopped);
    QTRY_VERIFY_WITH_TIMEOUT(!alive(pids[0]), testing::kEventDeadlineMs);
}

void TestMainWindow::resumeOfADifferentExperimentAsksWhatToDo()
{
    qputenv("STRATA_HISTORY", QFile::encodeName(m_dir.filePath("resume.sqlite")));
    auto dialogs = std::make_unique<ScriptedDialogs>();
    ScriptedDialogs* script = dialogs.get();
    ui::MainWindow window(STRATA_ENGINE_PATH, std::move(dialogs));
    qunsetenv("STRATA_HISTORY");
    window.show();
    const QString experiment = writeFile(m_dir, "small-resume.strata.json", R"({
      "strata": 1, "name": "small-resume", "seed": 3,
      "model": {"input_shape": [8], "layers": [{"type": "Dense", "units": 16, "activation": "relu"},
                                               {"type": "Dense", "units": 3, "activation": "softmax"}]},
      "data": {"source": {"type": "synthetic", "task": "classification", "samples": 300, "test_samples": 60,
                          "features": 8, "classes": 3}},
      "training": {"epochs": 1, "batch_size": 16, "threads": 1}})");
    QVERIFY(window.openFile(experiment));
    QVERIFY(window.launch());
    QTRY_VERIFY_WITH_TIMEOUT(!window.run().isRunning(), testing::kEventDeadlineMs);
    QVERIFY2(window.run().outcome() == app::RunOutcome::Completed, qPrintable(window.run().summary()));
    const QString runDir = window.run().runDir();
    const qint64 id = window.run().historyId();

    // More epochs: Resume goes on from the checkpoint, nothing asked.
    window.document().setValue("/training/epochs", 2);
    window.showPage(ui::MainWindow::HistoryPageIndex);
    window.historyPage()->selectRuns({id});
    auto* resume = find<QPushButton>(window.historyPage(), "resumeRun");
    QVERIFY(resume->isEnabled());
    QTest::mouseClick(resume, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!window.run().isRunning(), testing::kEventDeadlineMs);
    QVERIFY2(window.run().outcome() == app::RunOutcome::Completed, qPrintable(window.run().summary()));
    QCOMPARE(window.run().runDir(), runDir);
    QCOMPARE(script->resumeQuestions, 0);

    // Another seed: refused; Cancel leaves the directory as it is and says why.
    window.document().setValue("/seed", 4);
    QVERIFY(window.resume(id));
    QTRY_VERIFY_WITH_TIMEOUT(script->resumeQuestions == 1, testing::kEventDeadlineMs);
    QCOMPARE(script->resumeDifferences, QStringList{"seed: 3 (checkpoint) vs 4 (experiment)"});
    QVERIFY(script->weightsOnlyOffered);
    QTRY_VERIFY_WITH_TIMEOUT(window.banner()->text().contains("Not resumed"), testing::kEventDeadlineMs);
    QVERIFY(window.banner()->text().contains("seed: 3 (checkpoint) vs 4 (experiment)"));
    QCOMPARE(QDir(runDir).entryList({"set-aside-*"}, QDir::Dirs).size(), 0);

    // Again, answered "Start fresh": launched again into the same directory with --fresh.
    script->resumeAnswers = {ui::Dialogs::ResumeAnswer::Fresh};
    QVERIFY(window.resume(id));
    QTRY_VERIFY_WITH_TIMEOUT(script->resumeQuestions == 2, testing::kEventDeadlineMs);
    QTRY_VERIFY_WITH_TIMEOUT(window.run().outcome() == app::RunOutcome::Completed &&
                                 QDir(runDir).entryList({"set-aside-*"}, QDir::Dirs).size() == 1, testing::kEventDeadlineMs);
    QCOMPARE(window.run().runDir(), runDir);
    QVERIFY(window.run().resumeRefusal() == std::nullopt);
}

void TestMainWindow::savesAndRemembersRecentFiles()
{
    auto dialogs = std::make_unique<ScriptedDialogs>();
    ScriptedDialogs* script = dialogs.get();
    ui::MainWindow window(STRATA_ENGINE_PATH, std::move(dialogs));
    window.document().setValue("/training/epochs", 3);
    const QString path = m_dir.filePath("mine"); // the suffix is added
    script->files = {path};
    QVERIFY(window.save());
    QVERIFY(QFileInfo::exists(path + ".strata.json"));
    QVERIFY(!window.isWindowModified());
    QCOMPARE(app::RecentFiles::list().value(0), path + ".strata.json");

    ui::MainWindow other(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
    QVERIFY(other.openFile(path + ".strata.json"));
    QCOMPARE(other.document().get("/training/epochs").toInt(), 3);
}

// Ctrl+1..9 show the pages in the list's order; Ctrl+R launches, Ctrl+. stops; the cells of
// every table tell their whole text when they are cut.
void TestMainWindow::keysShowPagesLaunchAndStop()
{
    ui::MainWindow window(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
    window.show();
    QApplication::setActiveWindow(&window);
    QVERIFY(QTest::qWaitForWindowActive(&window));
    for (int page = ui::MainWindow::PlanPageIndex; page >= ui::MainWindow::StrategyPageIndex; --page) {
        QTest::keyClick(&window, Qt::Key(Qt::Key_1 + page), Qt::ControlModifier);
        QCOMPARE(int(window.currentPage()), page);
    }
    QVERIFY(qobject_cast<ui::ElidedTextTips*>(window.dashboard()->placementTree()->itemDelegate()));
    QVERIFY(qobject_cast<ui::ElidedTextTips*>(window.dashboard()->taskTable()->itemDelegate()));

    window.document().setValue("/training/epochs", 200); // stopped long before the end
    window.document().setValue("/data/validation", "none");
    QTest::keyClick(&window, Qt::Key_R, Qt::ControlModifier);
    QVERIFY2(window.run().isRunning(), qPrintable(window.banner()->text()));
    QCOMPARE(window.currentPage(), ui::MainWindow::DashboardPageIndex);
    QTRY_VERIFY_WITH_TIMEOUT(window.run().store().progress().step > 0, testing::kEventDeadlineMs);
    QTest::keyClick(&window, Qt::Key_Period, Qt::ControlModifier);
    QTRY_VERIFY_WITH_TIMEOUT(!window.run().isRunning(), testing::kEventDeadlineMs);
    QCOMPARE(window.run().outcome(), app::RunOutcome::Stopped);
}

// The window closed is how the next one opens: its size, the dashboard's splitter and tab.
void TestMainWindow::remembersItsSizeAndLayout()
{
    QList<int> sizes;
    QSize size;
    {
        ui::MainWindow window(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
        window.show();
        window.resize(window.size() - QSize(60, 40)); // not the default, and on the offscreen screen
        size = window.size();
        window.showPage(ui::MainWindow::DashboardPageIndex);
        auto* splitter = find<QSplitter>(window.dashboard(), "dashboardSplitter");
        splitter->setSizes({200, 300});
        sizes = splitter->sizes();
        window.dashboard()->tabs()->setCurrentIndex(1); // the placement map
        QVERIFY(window.close());
    }
    ui::MainWindow next(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
    next.show();
    QCOMPARE(next.size(), size);
    next.showPage(ui::MainWindow::DashboardPageIndex);
    QCOMPARE(find<QSplitter>(next.dashboard(), "dashboardSplitter")->sizes(), sizes);
    QCOMPARE(next.dashboard()->tabs()->currentIndex(), 1);
    // Something else in the settings (another version's, or damage) is the default layout.
    QSettings().setValue("window/dashboard", QByteArray("garbage"));
    ui::MainWindow third(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
    QCOMPARE(third.dashboard()->tabs()->currentIndex(), 0);
}

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
