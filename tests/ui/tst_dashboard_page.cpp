// The dashboard's looks, as a user judges them (offscreen): no two tick labels of a plot
// touch, at the window's size or smaller; a table cell the view cuts shows its whole text as
// its tooltip; the throughput is smoothed by default, on its own (the loss as it is); and a
// dark desktop palette makes the plots, their axes and the banner dark, and a light one light
// again.

#include "../event_deadline.h"
#include "app/metrics/metrics_store.h"
#include "many_workers.h"
#include "ui/dashboard/dashboard_page.h"
#include "ui/dashboard/worker_heatmap_view.h"
#include "ui/plot/series_plot.h"
#include "ui/shell/elided_text_tips.h"
#include "ui/shell/message_banner.h"
#include "ui/shell/theme.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QFontMetrics>
#include <QRegularExpression>
#include <QSet>
#include <QHelpEvent>
#include <QTableWidget>
#include <QTest>
#include <QToolTip>
#include <QVBoxLayout>

#include <cmath>

using namespace strata;

namespace {

// A two-replica run of `steps` steps as the engine reports it: windows of 50 steps with a
// noisy throughput, device reports (variables in kilobytes, the process in megabytes) every
// 500 steps.
void feedRun(app::MetricsStore& store, int steps)
{
    QByteArray lines = R"({"v":1,"type":"hello","t":1000,"task":"worker:0","host":"box","devices":[{"name":"cpu:0","kind":"cpu"},{"name":"cpu:1","kind":"cpu"}]}
{"v":1,"type":"start","t":1000,"task":"worker:0","total_steps":30000}
{"v":1,"type":"placement","t":1000,"task":"worker:0","strategy":"Mirrored","replicas":[{"replica":0,"device":"cpu:0"},{"replica":1,"device":"cpu:1"}],"variables":[{"name":"dense/kernel","shape":[784,128],"bytes":401408,"devices":["cpu:0","cpu:1"]}],"reduction":{"algorithm":"in-process all-reduce","cross_device_ops":"all_reduce","bytes_per_step":401408}}
)";
    for (int s = 50; s <= steps; s += 50) {
        const double loss = 0.3 + 2.0 / std::sqrt(double(s));
        const double rate = 150000 + 20000 * std::sin(s * 0.37) + (s % 700 == 0 ? -60000 : 0);
        lines += QStringLiteral(R"({"v":1,"type":"step","t":%1,"task":"worker:0","step":%2,"epoch":0,"steps":50,"loss":%3,)"
                                R"("replicas":[{"replica":0,"device":"cpu:0","loss":%3,"samples":1600},{"replica":1,"device":"cpu:1","loss":%4,"samples":1600}],)"
                                R"("time_ms":{"step":0.25,"compute":0.15,"comm":0.09,"input":0.01},"samples_per_sec":%5})")
                     .arg(1000 + s / 1000.0)
                     .arg(s)
                     .arg(loss)
                     .arg(loss * 1.01)
                     .arg(rate)
                     .toUtf8() +
                 '\n';
        if (s % 500 == 0)
            lines += QStringLiteral(R"({"v":1,"type":"device","t":%1,"task":"worker:0","step":%2,"window_ms":1000,"devices":[)"
                                    R"({"device":"cpu:0","replica":0,"utilization":0.66,"variable_bytes":401408},)"
                                    R"({"device":"cpu:1","replica":1,"utilization":0.58,"variable_bytes":401408}],)"
                                    R"("process":{"rss_bytes":%3}})")
                         .arg(1000 + s / 1000.0)
                         .arg(s)
                         .arg(95e6 + s)
                         .toUtf8() +
                     '\n';
    }
    store.ingestLines("worker:0", lines);
}

// Tick labels of `axis` that touch their neighbour, as "a|b"; empty when none do.
QStringList touching(QCPAxis* axis)
{
    const QVector<double> ticks = axis->tickVector();
    const QVector<QString> labels = axis->tickVectorLabels();
    const QFontMetrics metrics(axis->tickLabelFont());
    const bool horizontal = axis->orientation() == Qt::Horizontal;
    QStringList out;
    for (qsizetype i = 1; i < ticks.size(); ++i) {
        const double distance = std::abs(axis->coordToPixel(ticks[i]) - axis->coordToPixel(ticks[i - 1]));
        const double extent = horizontal ? (metrics.horizontalAdvance(labels[i]) + metrics.horizontalAdvance(labels[i - 1])) / 2.0
                                         : metrics.height();
        if (distance <= extent)
            out << labels[i - 1] + '|' + labels[i];
    }
    return out;
}

} // namespace

class TestDashboardPage : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void tickLabelsNeverTouch_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::newRow("large") << QSize(1600, 1000);
        QTest::newRow("the window's") << QSize(1080, 700);
        QTest::newRow("smaller") << QSize(900, 560);
    }

    void tickLabelsNeverTouch()
    {
        QFETCH(QSize, size);
        app::MetricsStore store;
        feedRun(store, 17500);
        ui::DashboardPage dashboard(store, nullptr, nullptr);
        dashboard.resize(size);
        dashboard.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dashboard));
        dashboard.refresh(); // at the size shown
        using D = ui::DashboardPage;
        for (int kind = 0; kind < D::PlotCount; ++kind)
            QVERIFY2(dashboard.plot(D::PlotKind(kind))->followsData(), qPrintable(dashboard.plot(D::PlotKind(kind))->objectName()));
        for (D::PlotKind kind : {D::LossPlot, D::ThroughputPlot, D::StepTimePlot, D::UtilizationPlot, D::MemoryPlot}) {
            QCustomPlot* plot = dashboard.plot(kind)->plot();
            for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) {
                const QString where = dashboard.plot(kind)->objectName() + (axis == plot->xAxis ? " x" : " y");
                QVERIFY2(axis->tickVector().size() >= 2, qPrintable(where)); // labels kept, not all dropped
                QVERIFY2(touching(axis).isEmpty(), qPrintable(where + ": " + touching(axis).join(", ")));
                const QVector<QString> labels = axis->tickVectorLabels();
                QCOMPARE(QSet<QString>(labels.begin(), labels.end()).size(), labels.size()); // no two alike
            }
        }
        // Memory ticks read as round sizes ("100 MB"), not 2^n-based ("95.4 MB").
        const QCPAxis* memory = dashboard.plot(D::MemoryPlot)->plot()->yAxis;
        for (const QString& label : memory->tickVectorLabels())
            QVERIFY2(QRegularExpression("^(1|10|100) (B|kB|MB|GB)$").match(label).hasMatch(),
                     qPrintable(label + " in " + memory->tickVectorLabels().join(", ") +
                                QStringLiteral(" [%1, %2]").arg(memory->range().lower).arg(memory->range().upper)));
    }

    // A device holding no variables (a ParameterServer worker) reports 0 bytes: the memory plot's
    // log scale starts four decades under the top instead of at a tiny number.
    void memoryScaleLeavesOutZeros()
    {
        app::MetricsStore store;
        store.ingestLines("worker:0", R"({"v":1,"type":"device","t":1,"task":"worker:0","step":10,"window_ms":1000,"devices":[{"device":"cpu:0","replica":0,"utilization":0.5,"variable_bytes":0}],"process":{"rss_bytes":100000000}}
{"v":1,"type":"device","t":2,"task":"worker:0","step":20,"window_ms":1000,"devices":[{"device":"cpu:0","replica":0,"utilization":0.5,"variable_bytes":0}],"process":{"rss_bytes":120000000}}
)");
        ui::DashboardPage dashboard(store, nullptr, nullptr);
        dashboard.resize(1200, 800);
        dashboard.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dashboard));
        dashboard.refresh();
        const QCPRange y = dashboard.plot(ui::DashboardPage::MemoryPlot)->plot()->yAxis->range();
        QVERIFY2(y.lower >= 1e3 && y.upper >= 120e6, qPrintable(QStringLiteral("%1 %2").arg(y.lower).arg(y.upper)));
    }

    void cutCellsShowTheirText()
    {
        QWidget window;
        auto* table = new QTableWidget(2, 2, &window);
        auto* layout = new QVBoxLayout(&window);
        layout->addWidget(table);
        const QString longText = "lost worker:1 (connection reset by peer after 3.0 s of silence)";
        table->setItem(0, 0, new QTableWidgetItem(longText));
        table->setItem(0, 1, new QTableWidgetItem("ok"));
        auto* own = new QTableWidgetItem(longText);
        own->setToolTip("its own tooltip");
        table->setItem(1, 0, own);
        table->setColumnWidth(0, 80);
        table->setColumnWidth(1, 80);
        ui::showElidedTextAsTips(&window);
        window.resize(400, 200);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        // The tooltip a hover shows there; empty when the view shows none.
        const auto tipAt = [&](int row, int column) {
            QToolTip::hideText();
            if (!QTest::qWaitFor([] { return !QToolTip::isVisible(); }, testing::kEventDeadlineMs))
                return QStringLiteral("(the previous tooltip stayed)");
            const QPoint at = table->visualRect(table->model()->index(row, column)).center();
            QHelpEvent help(QEvent::ToolTip, at, table->viewport()->mapToGlobal(at));
            QApplication::sendEvent(table->viewport(), &help);
            return QToolTip::isVisible() ? QToolTip::text() : QString();
        };
        QVERIFY(qobject_cast<ui::ElidedTextTips*>(table->itemDelegate()));
        QCOMPARE(tipAt(0, 0), longText);        // cut: the whole text
        QCOMPARE(tipAt(0, 1), QString());       // fits: nothing
        QCOMPARE(tipAt(1, 0), QString("its own tooltip"));
        table->setColumnWidth(0, 800);
        QCOMPARE(tipAt(0, 0), QString());       // wide enough now
    }

    void throughputIsSmoothedByDefault()
    {
        app::MetricsStore store;
        ui::DashboardPage dashboard(store, nullptr, nullptr);
        using D = ui::DashboardPage;
        QCOMPARE(dashboard.smoothing(D::ThroughputPlot), D::kThroughputSmoothing);
        QCOMPARE(dashboard.smoothing(D::ThroughputPlot).kind, app::Smoothing::Kind::Ema);
        // The loss as TensorBoard smooths it by default (EMA 0.6), the raw steps drawn beneath.
        QCOMPARE(dashboard.smoothing(D::LossPlot), (app::Smoothing{app::Smoothing::Kind::Ema, 0.6, 10}));
        store.ingestLines("worker:0", R"({"v":1,"type":"step","t":1,"task":"worker:0","step":10,"loss":1.0,"samples_per_sec":100}
{"v":1,"type":"step","t":2,"task":"worker:0","step":20,"loss":2.0,"samples_per_sec":200}
)");
        // TensorBoard's debiased EMA with weight 0.8: 100, then (0.16*100 + 0.2*200) / (1 - 0.64).
        QList<double> throughput, loss;
        dashboard.source(D::ThroughputPlot).forEachPoint(0, [&](double, double y) { throughput << y; });
        dashboard.source(D::LossPlot).forEachPoint(0, [&](double, double y) { loss << y; });
        QCOMPARE(throughput.size(), 2);
        QCOMPARE(throughput[0], 100.0);
        QVERIFY(std::abs(throughput[1] - 56.0 / 0.36) < 1e-3);
        // Debiased EMA 0.6: 1, then (0.24 * 1 + 0.4 * 2) / (1 - 0.36).
        QCOMPARE(loss.size(), 2);
        QCOMPARE(loss[0], 1.0);
        QVERIFY(std::abs(loss[1] - 1.04 / 0.64) < 1e-6);
        // The plot's title says so; another choice replaces it.
        auto* title = qobject_cast<QCPTextElement*>(dashboard.plot(D::ThroughputPlot)->plot()->plotLayout()->element(0, 0));
        QVERIFY(title);
        QCOMPARE(title->text(), QString("Throughput (EMA 0.8)"));
        dashboard.setSmoothing(D::ThroughputPlot, {});
        QCOMPARE(title->text(), QString("Throughput"));
        throughput.clear();
        dashboard.source(D::ThroughputPlot).forEachPoint(0, [&](double, double y) { throughput << y; });
        QCOMPARE(throughput, QList<double>({100.0, 200.0}));
    }

    // 64 workers: each plot's per-worker lines are a band (its median in the legend, a fill
    // between its least and greatest values beneath) with the slowest workers (the highest
    // losses) drawn and named; beside the loss, a heatmap of 64 rows in which the slow workers'
    // rows stand out, labelled as many as fit without touching.
    void manyWorkersAreABandAndAHeatmap()
    {
        app::MetricsStore store;
        uitest::feedWorkers(store, 64, 300, {17, 40});
        ui::DashboardPage dashboard(store, nullptr, nullptr);
        dashboard.resize(1600, 1000);
        dashboard.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dashboard));
        dashboard.refresh();
        using D = ui::DashboardPage;
        const auto legend = [&](D::PlotKind kind) {
            QStringList names;
            QCustomPlot* plot = dashboard.plot(kind)->plot();
            for (int i = 0; i < plot->legend->itemCount(); ++i)
                if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot->legend->item(i)))
                    names << item->plottable()->name();
            return names;
        };
        QCOMPARE(legend(D::StepTimePlot),
                 QStringList({"compute: median of 64 workers", "slowest: worker:17 compute", "slowest: worker:40 compute",
                              "slowest: worker:63 compute", "gradient reduction: median of 64 workers",
                              "input wait: median of 64 workers"}));
        QCOMPARE(legend(D::ThroughputPlot), QStringList({"median of 64 workers", "slowest: worker:17", "slowest: worker:40",
                                                         "slowest: worker:63"}));
        QCOMPARE(legend(D::LossPlot),
                 QStringList({"median of 64 replicas", "highest: worker:63 replica 0 (cpu:0)",
                              "highest: worker:62 replica 0 (cpu:0)", "highest: worker:61 replica 0 (cpu:0)"}));
        // The fill: the band's greatest values filled down to its least, in its median's colour.
        QCustomPlot* stepTime = dashboard.plot(D::StepTimePlot)->plot();
        QCOMPARE(stepTime->graph(0)->name(), QString("compute: median of 64 workers"));
        QCPGraph* low = stepTime->graph(1);
        QCPGraph* high = stepTime->graph(2);
        QCOMPARE(high->channelFillGraph(), low);
        QCOMPARE(high->brush().color().rgb(), stepTime->graph(0)->pen().color().rgb());
        QVERIFY(high->brush().color().alpha() < 128);
        QCOMPARE(low->pen().style(), Qt::NoPen);
        // Its edges are the workers' least and greatest compute time: 6 ms (worker:0) and 15 ms.
        QCOMPARE(low->data()->at(low->dataCount() / 2)->value, 6.0);
        QCOMPARE(high->data()->at(high->dataCount() / 2)->value, 15.0);
        QVERIFY(stepTime->graph(3)->visible() && stepTime->graph(3)->pen().color() != stepTime->graph(0)->pen().color());

        ui::WorkerHeatmapView* heatmap = dashboard.workerHeatmap();
        QVERIFY(heatmap->isVisible());
        const app::HeatmapGrid& grid = heatmap->grid();
        QCOMPARE(grid.rows.size(), 64);
        QCOMPARE(grid.rows[17], QString("worker:17"));
        QVERIFY(grid.columns > 100);
        // Relative to the median worker's 6.825 ms of its own a step: the slow ones over twice as long.
        const int c = grid.columns / 2;
        QVERIFY(std::abs(grid.medianMs[size_t(c)] - (6.0 + 0.325 + 0.5)) < 1e-3);
        QCOMPARE(heatmap->colorMap()->data()->cell(c, 17), (15.0 + 0.5) / grid.medianMs[size_t(c)]);
        QVERIFY(heatmap->colorMap()->data()->cell(c, 16) < 1.0);
        // As many row labels as fit, far enough apart to be read.
        QCPAxis* rows = heatmap->plot()->yAxis;
        const QVector<double> ticks = rows->tickVector();
        QVERIFY2(ticks.size() >= 4 && ticks.size() < 64, qPrintable(QString::number(ticks.size())));
        QCOMPARE(rows->tickVectorLabels().first(), QString("worker:0"));
        const double apart = std::abs(rows->coordToPixel(ticks[1]) - rows->coordToPixel(ticks[0]));
        QVERIFY2(apart >= QFontMetrics(rows->tickLabelFont()).height(), qPrintable(QString::number(apart)));
    }

    // A window made smaller: a strip plot too short for its legend of four entries below the axes
    // shows none (before, the legend taken out of the layout was still drawn where it had been,
    // over the axes' place).
    void aShortenedPlotDropsItsLegend()
    {
        app::MetricsStore store;
        uitest::feedWorkers(store, 64, 300, {17, 40});
        QWidget window;
        auto* dashboard = new ui::DashboardPage(store, nullptr, nullptr, &window);
        auto* layout = new QVBoxLayout(&window);
        layout->addWidget(dashboard);
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCustomPlot* throughput = dashboard->plot(ui::DashboardPage::ThroughputPlot)->plot();
        const auto below = [&] { return throughput->plotLayout()->hasElement(2, 0) && throughput->plotLayout()->element(2, 0) == throughput->legend; };
        QTRY_VERIFY(below() && throughput->legend->visible());
        window.resize(1130, 620);
        QTRY_VERIFY(throughput->height() < 210);
        QTRY_VERIFY(!below());
        QVERIFY(!throughput->legend->visible());
        QVERIFY(!throughput->axisRect()->insetLayout()->elements(false).contains(throughput->legend));
    }

    // Eight workers: a line each, as before, and no heatmap.
    void fewWorkersKeepTheirLines()
    {
        app::MetricsStore store;
        uitest::feedWorkers(store, 8, 100, {3});
        ui::DashboardPage dashboard(store, nullptr, nullptr);
        dashboard.resize(1600, 1000);
        dashboard.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dashboard));
        dashboard.refresh();
        using D = ui::DashboardPage;
        QCOMPARE(dashboard.source(D::ThroughputPlot).lineCount(), 8 + 1);
        QCOMPARE(dashboard.source(D::StepTimePlot).lineCount(), 8 * 3);
        QCOMPARE(dashboard.source(D::StepTimePlot).lineName(0), QString("worker:0 compute"));
        QCOMPARE(dashboard.source(D::LossPlot).lineCount(), 8);
        for (int i = 0; i < dashboard.source(D::StepTimePlot).lineCount(); ++i)
            QCOMPARE(dashboard.source(D::StepTimePlot).look(i).role, app::LineLook::Role::Line);
        QVERIFY(dashboard.plot(D::StepTimePlot)->plot()->graph(0)->channelFillGraph() == nullptr);
        QVERIFY(!dashboard.workerHeatmap()->isVisible());
    }

    void darkPaletteIsFollowed()
    {
        app::MetricsStore store;
        feedRun(store, 2000);
        QWidget window;
        auto* banner = new ui::MessageBanner(&window);
        auto* dashboard = new ui::DashboardPage(store, nullptr, nullptr, &window);
        auto* layout = new QVBoxLayout(&window);
        layout->addWidget(banner);
        layout->addWidget(dashboard);
        window.resize(1200, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        banner->showError("the engine cannot be started");
        const QPalette light = QApplication::palette();
        const QPalette dark = ui::theme::darkPalette();
        ui::SeriesPlot* plot = dashboard->plot(ui::DashboardPage::LossPlot);
        const auto corner = [&] { return plot->grab().toImage().pixelColor(3, 3); };
        QCOMPARE(corner(), light.color(QPalette::Base));

        QApplication::setPalette(dark);
        QTRY_VERIFY(ui::theme::isDark(dashboard->palette())); // the desktop's change arrives as events
        QCOMPARE(corner(), dark.color(QPalette::Base));
        QCOMPARE(plot->plot()->xAxis->tickLabelColor(), dark.color(QPalette::Text));
        QCOMPARE(plot->plot()->yAxis->labelColor(), dark.color(QPalette::Text));
        QCOMPARE(plot->plot()->legend->textColor(), dark.color(QPalette::Text));
        // The lines in the dark palette's colours (brighter than the light one's).
        QCOMPARE(plot->plot()->graph(0)->pen().color(), ui::theme::series(0, dark));
        QVERIFY(ui::theme::series(0, dark).lightness() > ui::theme::series(0, light).lightness());
        QCOMPARE(banner->background(), ui::theme::errorBackground(dark));
        QCOMPARE(banner->grab().toImage().pixelColor(4, 4), ui::theme::errorBackground(dark));
        QVERIFY(ui::theme::errorBackground(dark).lightness() < 128);

        QApplication::setPalette(light);
        QTRY_COMPARE(corner(), light.color(QPalette::Base));
        QCOMPARE(plot->plot()->xAxis->tickLabelColor(), light.color(QPalette::Text));
        QCOMPARE(banner->grab().toImage().pixelColor(4, 4), ui::theme::errorBackground(light));
    }
};

QTEST_MAIN(TestDashboardPage)
#include "tst_dashboard_page.moc"
