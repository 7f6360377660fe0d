// The placement map painted offscreen: a ParameterServer job's picture holds each ps task's
// colour (its box, its shards, the variables' bars) and the arrows from the workers; a
// Mirrored run's picture is drawn too (no ps colours); no placement yet: a short message.
// And the dashboard shows it, fed by the store, beside ParameterServer's plots.

#include "app/metrics/placement.h"
#include "app/metrics/placement_map.h"
#include "ui/dashboard/dashboard_page.h"
#include "ui/dashboard/placement_map_view.h"
#include "ui/dashboard/series_plot.h"

#include "../app/ps_job_events.h"

#include <QImage>
#include <QTableWidget>
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
        const int ps0 = pixelsOf(image, ui::PlacementMapView::psColour(0));
        const int ps1 = pixelsOf(image, ui::PlacementMapView::psColour(1));
        QVERIFY2(ps0 > 2000 && ps1 > 2000, qPrintable(QStringLiteral("%1 %2").arg(ps0).arg(ps1)));
        QVERIFY(ui::PlacementMapView::psColour(0) != ui::PlacementMapView::psColour(1));
        // The third colour is nobody's.
        QCOMPARE(pixelsOf(image, ui::PlacementMapView::psColour(2)), 0);
    }

    void mirroredRunHasNoPsColours()
    {
        app::MetricsStore store;
        store.ingestLines("worker:0", R"({"v":1,"type":"placement","t":1,"task":"worker:0","strategy":"Mirrored","replicas":[{"replica":0,"device":"cpu:0"},{"replica":1,"device":"cpu:1"}],"variables":[{"name":"dense/kernel","shape":[8,4],"bytes":128,"devices":["cpu:0","cpu:1"]}],"reduction":{"algorithm":"all-reduce","cross_device_ops":"all_reduce","bytes_per_step":144}}
)");
        ui::PlacementMapView view;
        const app::PlacementMap map = app::placementMap(app::placements(store), app::taskSummaries(store));
        QCOMPARE(map.arrows.size(), 2); // the ring of two devices
        view.setMap(map);
        const QImage image = painted(view);
        QVERIFY(pixelsOf(image, ui::PlacementMapView::psColour(-1)) > 500); // the variable's bar
        QCOMPARE(pixelsOf(image, ui::PlacementMapView::psColour(0)), 0);
    }

    void emptyUntilThePlacementArrives()
    {
        ui::PlacementMapView view;
        QVERIFY(view.map().empty());
        QVERIFY(!painted(view).isNull());
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
        for (int row = 0; row < dashboard.taskTable()->rowCount(); ++row)
            states << dashboard.taskTable()->item(row, 0)->text() + ' ' + dashboard.taskTable()->item(row, 2)->text();
        QCOMPARE(states, QStringList({"chief:0 running", "worker:0 lost", "worker:1 waiting (staleness bound)",
                                      "ps:0 running", "ps:1 running"}));
    }
};

QTEST_MAIN(TestPlacementMapView)
#include "tst_placement_map_view.moc"
