// The placement map painted offscreen, for every strategy: each place holding variables in its
// colour (a ParameterServer job's ps tasks: their boxes, shards and the variables' bars; the
// devices holding copies under the others), every host, task and device drawn inside the
// picture; no placement yet: a short message. Exported as PNG, SVG and PDF, failures named.
// The dashboard shows it fed by the store, beside ParameterServer's plots, and updates each
// device's utilization as `device` events arrive; a dark palette paints it dark. A job of 64
// workers over 16 hosts is drawn as one group of hosts, opened and closed by real clicks, down
// to each task; a failed worker stands apart in the error colour.

#include "app/metrics/placement.h"
#include "app/metrics/placement_map.h"
#include "ui/dashboard/dashboard_page.h"
#include "ui/dashboard/placement_map_view.h"
#include "ui/dashboard/task_table.h"
#include "ui/plot/series_plot.h"
#include "ui/shell/theme.h"

#include "../app/large_job_events.h"
#include "../app/ps_job_events.h"
#include "real_input.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QScrollArea>
#include <QTabWidget>
#include <QTreeWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace strata;

namespace {

// Pixels of `image` within a small distance of `colour` (antialiasing blends edges).
int pixelsOf(const QImage& image, const QColor& colour)
{
    int count = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const QColor c = image.pixelColor(x, y);
            if (std::abs(c.red() - colour.red()) + std::abs(c.green() - colour.green()) +
                    std::abs(c.blue() - colour.blue()) <= 6)
                ++count;
        }
    return count;
}

QImage painted(ui::PlacementMapView& view)
{
    view.resize(view.sizeHint());
    return view.grab().toImage();
}

QColor place(const ui::PlacementMapView& view, int index) { return ui::PlacementMapView::placeColour(index, view.palette()); }

app::TaskPlacement placementFrom(const char* json, const QString& task = QStringLiteral("worker:0"))
{
    return app::placementOf(task, QStringLiteral("local (localhost)"), QStringLiteral("box"), app::Json::parse(json));
}

app::TaskSummary summary(const QString& task, const QString& place = QStringLiteral("local (localhost)"))
{
    app::TaskSummary s;
    s.task = task;
    s.place = place;
    return s;
}

// Every host, task and device of the map has a box inside the picture, devices inside their
// task and tasks inside their host.
void everyItemIsDrawn(const ui::PlacementMapView& view)
{
    const QRectF picture(QPointF(0, 0), QSizeF(view.sizeHint()));
    for (const app::MapHost& h : view.map().hosts) {
        const QRectF host = view.boxOf(h.place);
        QVERIFY2(!host.isNull() && picture.contains(host), qPrintable(h.place));
        for (const app::MapTask& t : h.tasks) {
            const QRectF task = view.boxOf(t.id);
            QVERIFY2(!task.isNull() && host.contains(task), qPrintable(t.id));
            for (const app::MapDevice& d : t.devices)
                QVERIFY2(task.contains(view.boxOf(d.id)), qPrintable(d.id));
        }
    }
}

} // namespace

class TestPlacementMapView : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void parameterServerJobInItsColours()
    {
        app::MetricsStore store;
        apptest::feedParameterServerJob(store);
        ui::PlacementMapView view;
        view.setMap(app::placementMap(app::placements(store), app::taskSummaries(store)));
        const QImage image = painted(view);
        QVERIFY(!image.isNull());
        QVERIFY2(image.width() >= 300 && image.height() >= 300, qPrintable(QStringLiteral("%1x%2").arg(image.width()).arg(image.height())));
        // Both ps tasks' colours, in quantity (shard chips and variable bars, not an edge).
        const int ps0 = pixelsOf(image, place(view, 0));
        const int ps1 = pixelsOf(image, place(view, 1));
        QVERIFY2(ps0 > 2000 && ps1 > 2000, qPrintable(QStringLiteral("%1 %2").arg(ps0).arg(ps1)));
        QVERIFY(place(view, 0) != place(view, 1));
        // The third colour is nobody's.
        QCOMPARE(pixelsOf(image, place(view, 2)), 0);
        everyItemIsDrawn(view);
    }

    void everyStrategyDrawsItsPlaces_data()
    {
        QTest::addColumn<QList<app::TaskPlacement>>("placements");
        QTest::addColumn<QList<app::TaskSummary>>("tasks");
        QTest::addColumn<int>("places");
        QTest::addColumn<int>("arrows");
        const char* variables = R"("variables": [{"name": "dense/kernel", "shape": [8, 4], "bytes": 128, "devices": [%1]}])";
        const auto json = [&](const char* head, const char* devices) {
            return QByteArray(head).replace("%V", QString::fromLatin1(variables).arg(devices).toLatin1());
        };
        const QByteArray oneDevice = json(R"({"strategy": "OneDevice", "replicas": [{"replica": 0, "device": "cpu:0"}], %V})",
                                          R"("cpu:0")");
        QTest::newRow("OneDevice") << QList<app::TaskPlacement>{placementFrom(oneDevice)}
                                   << QList<app::TaskSummary>{summary("worker:0")} << 1 << 0;
        const QByteArray mirrored = json(R"({"strategy": "Mirrored", "replicas": [{"replica": 0, "device": "cpu:0"},
            {"replica": 1, "device": "cpu:1"}], %V, "reduction": {"algorithm": "all-reduce", "cross_device_ops": "all_reduce"}})",
                                         R"("cpu:0", "cpu:1")");
        QTest::newRow("Mirrored") << QList<app::TaskPlacement>{placementFrom(mirrored)}
                                  << QList<app::TaskSummary>{summary("worker:0")} << 2 << 2;
        const QByteArray central = json(R"({"strategy": "CentralStorage", "parameter_device": "cpu:0", "replicas":
            [{"replica": 0, "device": "cpu:0"}, {"replica": 1, "device": "cpu:1"}], %V})", R"("cpu:0")");
        QTest::newRow("CentralStorage") << QList<app::TaskPlacement>{placementFrom(central)}
                                        << QList<app::TaskSummary>{summary("worker:0")} << 1 << 2;
        const QByteArray multiWorker = json(R"({"strategy": "MultiWorkerMirrored", "tasks": ["worker:0", "worker:1"],
            "replicas": [{"replica": 0, "device": "cpu:0"}], %V})", R"("cpu:0")");
        QTest::newRow("MultiWorkerMirrored on two hosts")
            << QList<app::TaskPlacement>{placementFrom(multiWorker, "worker:0"), placementFrom(multiWorker, "worker:1")}
            << QList<app::TaskSummary>{summary("worker:0", "a (10.0.0.1)"), summary("worker:1", "b (10.0.0.2)")} << 2 << 2;
    }

    void everyStrategyDrawsItsPlaces()
    {
        QFETCH(QList<app::TaskPlacement>, placements);
        QFETCH(QList<app::TaskSummary>, tasks);
        QFETCH(int, places);
        QFETCH(int, arrows);
        ui::PlacementMapView view;
        view.setMap(app::placementMap(placements, tasks));
        QCOMPARE(view.map().places.size(), places);
        QCOMPARE(view.map().arrows.size(), arrows);
        const QImage image = painted(view);
        // Each place's colour: its device's chip and its part of the variable's bar.
        for (int i = 0; i < places; ++i)
            QVERIFY2(pixelsOf(image, place(view, i)) > 400, qPrintable(QString::number(i)));
        QCOMPARE(pixelsOf(image, place(view, places)), 0);
        everyItemIsDrawn(view);
    }

    // bucket_bytes "auto": the caption says the job is tuning, then the bucket and algorithm kept,
    // drawn within the picture.
    void captionTellsTheTunedBuckets()
    {
        const auto job = [](const char* tuning, qint64 bucketBytes) {
            return placementFrom(qPrintable(QStringLiteral(R"({"strategy": "MultiWorkerMirrored",
                "tasks": ["worker:0", "worker:1"], "replicas": [{"replica": 0, "device": "cpu:0"}],
                "variables": [{"name": "dense/kernel", "shape": [4, 2], "bytes": 32, "devices": ["cpu:0"]}],
                "reduction": {"algorithm": "Gloo chunked ring all-reduce over TCP among 2 tasks in 2 buckets",
                              "bucket_bytes": %1, "buckets": 2, "bytes_per_step": 670208, "tuning": %2}})")
                                                .arg(bucketBytes)
                                                .arg(QLatin1String(tuning))));
        };
        ui::PlacementMapView view;
        view.setMap(app::placementMap({job(R"({"state": "tuning", "candidates": 6, "steps": 41})", 32 << 20)},
                                      {summary("worker:0")}));
        QVERIFY2(view.caption().startsWith("MultiWorkerMirrored — tuning buckets… (6 candidates, first 41 steps): "),
                 qPrintable(view.caption()));
        view.setMap(app::placementMap({job(R"({"state": "tuned", "candidates": 6, "steps": 41,
                                                "all_reduce": "chunked ring", "speedup": 1.05})", 256 << 10)},
                                      {summary("worker:0")}));
        QVERIFY2(view.caption().startsWith("MultiWorkerMirrored — bucket 256 KiB, chunked ring (tuned): Gloo"),
                 qPrintable(view.caption()));
        QVERIFY(!painted(view).isNull());
        everyItemIsDrawn(view);
    }

    void emptyUntilThePlacementArrives()
    {
        ui::PlacementMapView view;
        QVERIFY(view.map().empty());
        QVERIFY(!painted(view).isNull());
    }

    void exportsAsImages_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("magic");
        QTest::newRow("png") << "map.png" << QByteArray("\x89PNG");
        QTest::newRow("svg") << "map.svg" << QByteArray("<?xml");
        QTest::newRow("pdf") << "map.pdf" << QByteArray("%PDF");
    }

    void exportsAsImages()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, magic);
        app::MetricsStore store;
        apptest::feedParameterServerJob(store);
        ui::PlacementMapView view;
        view.setMap(app::placementMap(app::placements(store), app::taskSummaries(store)));
        QTemporaryDir dir;
        const QString path = dir.filePath(name);
        QString error;
        QVERIFY2(view.exportImage(path, &error), qPrintable(error));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray content = file.readAll();
        QVERIFY(content.startsWith(magic));
        if (name.endsWith(".png")) {
            // At twice the pixels, with the ps tasks' colours in it.
            const QImage image = QImage::fromData(content);
            QCOMPARE(image.size(), view.sizeHint() * 2);
            QVERIFY(pixelsOf(image, place(view, 1)) > 4 * 2000);
        }
        if (name.endsWith(".svg"))
            QVERIFY(content.contains("ps:1") && content.contains("dense/kernel/part_0"));
    }

    void exportFailuresAreNamed()
    {
        ui::PlacementMapView view;
        QString error;
        QVERIFY(!view.exportImage("/nonexistent-folder/map.png", &error));
        QVERIFY2(error.contains("/nonexistent-folder/map.png"), qPrintable(error));
        QVERIFY(!view.exportImage(QDir::tempPath() + "/map.bmp", &error));
        QVERIFY2(error.contains(".png, .svg or .pdf"), qPrintable(error));
    }

    void darkPaletteIsPaintedDark()
    {
        app::MetricsStore store;
        apptest::feedParameterServerJob(store);
        ui::PlacementMapView view;
        view.setMap(app::placementMap(app::placements(store), app::taskSummaries(store)));
        const QPalette dark = ui::theme::darkPalette();
        const QPalette light = QApplication::palette();
        const QColor lightPs0 = place(view, 0);
        view.resize(view.sizeHint());
        view.show(); // a window the desktop's palette reaches
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QApplication::setPalette(dark);
        QTRY_COMPARE(view.palette().color(QPalette::Base), dark.color(QPalette::Base)); // the change arrives as events
        const QImage image = painted(view);
        QApplication::setPalette(light);
        QTRY_COMPARE(view.palette().color(QPalette::Base), light.color(QPalette::Base));
        QCOMPARE(image.pixelColor(2, 2), dark.color(QPalette::Base)); // the background
        // The ps tasks' colours are brighter on a dark base, and used.
        QVERIFY(ui::PlacementMapView::placeColour(0, dark).lightness() > lightPs0.lightness());
        QVERIFY(pixelsOf(image, ui::PlacementMapView::placeColour(0, dark)) > 2000);
        QCOMPARE(pixelsOf(image, lightPs0), 0);
    }

    void dashboardUpdatesTheDevicesLive()
    {
        app::MetricsStore store;
        ui::DashboardPage dashboard(store, nullptr, nullptr);
        dashboard.resize(1200, 900);
        dashboard.show();
        store.ingestLines("worker:0", R"({"v":1,"type":"placement","t":1,"task":"worker:0","strategy":"Mirrored","replicas":[{"replica":0,"device":"cpu:0"},{"replica":1,"device":"cpu:1"}],"variables":[{"name":"v","shape":[4],"bytes":16,"devices":["cpu:0","cpu:1"]}],"reduction":{"algorithm":"all-reduce","cross_device_ops":"all_reduce","bytes_per_step":16}}
)");
        dashboard.refresh();
        const auto utilization = [&](int device) { return dashboard.placementMap()->map().hosts[0].tasks[0].devices[device].usage.utilization; };
        QCOMPARE(utilization(1), -1.0);
        store.ingestLines("worker:0", R"({"v":1,"type":"device","t":2,"task":"worker:0","step":10,"window_ms":1000,"devices":[{"device":"cpu:0","replica":0,"utilization":0.25,"variable_bytes":16},{"device":"cpu:1","replica":1,"utilization":0.5,"variable_bytes":16}]}
)");
        dashboard.refresh();
        QCOMPARE(utilization(1), 0.5);
        store.ingestLines("worker:0", R"({"v":1,"type":"device","t":3,"task":"worker:0","step":20,"window_ms":1000,"devices":[{"device":"cpu:0","replica":0,"utilization":0.9,"variable_bytes":16},{"device":"cpu:1","replica":1,"utilization":0.75,"variable_bytes":16}]}
)");
        dashboard.refresh();
        QCOMPARE(float(utilization(0)), 0.9f); // as the store keeps it
        QCOMPARE(utilization(1), 0.75);
    }

    void dashboardShowsTheJob()
    {
        app::MetricsStore store;
        ui::DashboardPage dashboard(store, nullptr, nullptr);
        dashboard.resize(1200, 900);
        dashboard.show();
        apptest::feedParameterServerJob(store);
        dashboard.refresh();
        QCOMPARE(dashboard.placementMap()->map().psTasks, QStringList({"ps:0", "ps:1"}));
        QCOMPARE(dashboard.source(ui::DashboardPage::StalenessPlot).lineCount(), 4);
        QCOMPARE(dashboard.source(ui::DashboardPage::PsTrafficPlot).lineCount(), 4);
        QCOMPARE(dashboard.source(ui::DashboardPage::PsUpdatesPlot).lineCount(), 2);
        QCOMPARE(dashboard.source(ui::DashboardPage::ThroughputPlot).lineName(2), QString("total"));
        // The task table: worker:0 lost to the coordinator, worker:1 held back by the bound.
        QStringList states;
        for (int row = 0; row < dashboard.taskTable()->shownCount(); ++row)
            states << dashboard.taskTable()->text(row, 0) + ' ' + dashboard.taskTable()->text(row, 2);
        QCOMPARE(states, QStringList({"chief:0 running", "worker:0 lost", "worker:1 waiting (staleness bound)",
                                      "ps:0 running", "ps:1 running"}));
    }

    // 64 workers over 16 hosts: one box for the 16 hosts alike; a click opens it (each host,
    // its four workers as one), a click on a host's workers shows each, clicks close both again.
    void groupsOpenAndCloseOnClick()
    {
        app::MetricsStore store;
        apptest::feedLargeJob(store);
        QScrollArea area; // as the dashboard's tab holds it
        auto* view = new ui::PlacementMapView;
        area.setWidget(view);
        area.setWidgetResizable(true);
        view->setMap(app::placementMap(app::placements(store), app::taskSummaries(store), app::deviceUsage(store)));
        area.resize(1600, 1000);
        area.show();
        QVERIFY(QTest::qWaitForWindowExposed(&area));
        const QString hosts = "hosts node-1 (198.18.0.1)", node2 = "node-2 (198.18.0.2)";
        const QRectF closed = view->boxOf(hosts);
        QVERIFY(!closed.isNull());
        QVERIFY2(view->sizeHint().width() < 700, qPrintable(QString::number(view->sizeHint().width())));
        QCOMPARE(view->shownIn(node2), hosts);
        QCOMPARE(view->shownIn("worker:5"), QString("tasks worker:0")); // the group's "4 workers each"
        QVERIFY(view->boxOf(node2).isNull());

        realinput::click(view, closed.center().toPoint());
        QVERIFY(view->isOpen(hosts));
        QTRY_VERIFY(view->width() >= view->sizeHint().width()); // the scroll area follows
        QVERIFY(view->sizeHint().width() > 1300);                // four hosts a row
        for (int n = 1; n <= 16; ++n) {
            const QString place = QStringLiteral("node-%1 (198.18.0.%1)").arg(n);
            QVERIFY2(view->boxOf(hosts).contains(view->boxOf(place)), qPrintable(place));
        }
        QCOMPARE(view->shownIn("worker:5"), QString("tasks worker:4"));
        QVERIFY(view->boxOf(node2).contains(view->boxOf("tasks worker:4")));

        realinput::click(view, view->boxOf("tasks worker:4").center().toPoint());
        for (const char* task : {"worker:4", "worker:5", "worker:6", "worker:7"}) {
            QVERIFY2(view->boxOf(node2).contains(view->boxOf(task)), task);
            QVERIFY(view->boxOf(task).contains(view->boxOf(QString(task) + "/cpu:0")));
        }
        QVERIFY(view->boxOf("worker:8").isNull()); // node-3's still one box
        // The title above them closes them again.
        realinput::click(view, view->boxOf("tasks worker:4").center().toPoint());
        QVERIFY(!view->isOpen("tasks worker:4"));
        QVERIFY(view->boxOf("worker:5").isNull());
        // The frame's title closes the hosts.
        const QRectF frame = view->boxOf(hosts);
        realinput::click(view, QPoint(int(frame.left()) + 40, int(frame.top()) + 10));
        QVERIFY(!view->isOpen(hosts));
        QVERIFY(view->boxOf(node2).isNull());
        QCOMPARE(view->boxOf(hosts).size(), closed.size());
        // A click elsewhere opens nothing.
        realinput::click(view, QPoint(5, 5));
        QVERIFY(!view->isOpen(hosts));
    }

    // A failed worker is never in a group: its host is drawn apart, the worker in its own box
    // saying so in the error colour; the map updates in place, what was open staying open.
    void aFailedWorkerStandsApart()
    {
        app::MetricsStore store;
        apptest::feedLargeJob(store);
        ui::PlacementMapView view;
        view.setMap(app::placementMap(app::placements(store), app::taskSummaries(store), app::deviceUsage(store)));
        view.resize(view.sizeHint());
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const QColor error = ui::theme::error(view.palette());
        QCOMPARE(pixelsOf(painted(view), error), 0);
        realinput::click(&view, view.boxOf("hosts node-1 (198.18.0.1)").center().toPoint());
        store.taskEnded("worker:37", 1, false, "out of memory");
        view.setMap(app::placementMap(app::placements(store), app::taskSummaries(store), app::deviceUsage(store)));
        QVERIFY(view.isOpen("hosts node-1 (198.18.0.1)")); // the 15 alike, still open
        const QRectF failed = view.boxOf("worker:37");
        QVERIFY(view.boxOf("node-10 (198.18.0.10)").contains(failed));
        QCOMPARE(view.shownIn("worker:36"), QString("tasks worker:36")); // its host's others, as one
        const QImage image = painted(view);
        // Its border and its word in the error colour.
        QVERIFY2(pixelsOf(image.copy(failed.toRect().adjusted(-2, -2, 2, 2)), error) > 400,
                 qPrintable(QString::number(pixelsOf(image, error))));
        // A new run (the dashboard empties the map first): its groups closed.
        const app::PlacementMap again = view.map();
        view.setMap({});
        view.setMap(again);
        QVERIFY(!view.isOpen("hosts node-1 (198.18.0.1)"));
    }

    // The placement tree of 64 workers: a line each, not 64 opened; a small job's tasks open.
    void aLargeJobsTreeHasALineATask()
    {
        app::MetricsStore store;
        apptest::feedLargeJob(store);
        ui::DashboardPage dashboard(store, nullptr, nullptr);
        dashboard.refresh();
        QTreeWidget* tree = dashboard.placementTree();
        QCOMPARE(tree->topLevelItemCount(), 64);
        for (int i = 0; i < tree->topLevelItemCount(); ++i)
            QVERIFY(!tree->topLevelItem(i)->isExpanded());
        app::MetricsStore small;
        apptest::feedLargeJob(small, 8, 2);
        ui::DashboardPage few(small, nullptr, nullptr);
        few.refresh();
        QCOMPARE(few.placementTree()->topLevelItemCount(), 8);
        QVERIFY(few.placementTree()->topLevelItem(7)->isExpanded());
    }
};

QTEST_MAIN(TestPlacementMapView)
#include "tst_placement_map_view.moc"
