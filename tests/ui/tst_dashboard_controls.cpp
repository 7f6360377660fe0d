// The dashboard's plots as a user works them, with real input through the window (the widget
// under the cursor gets it: tests/ui/real_input.h): a right click on any plot opens its menu,
// whose items work; the toolbar shown while the mouse is over a plot; pan and fit linked across
// the step plots; the crosshair on every plot at once and gone when the mouse leaves; legend
// entries that hide their line; maximise. And the states a user must be able to trust: empty
// plots with sensible fixed ranges and what to do, a single point visible, whole step ticks,
// validation per epoch as markers, the progress bar's phase, only the tabs that apply, a new
// run starting from clean axes.

#include "app/launch/run_controller.h"
#include "app/metrics/metrics_store.h"
#include "app/metrics/run_phase.h"
#include "many_workers.h"
#include "real_input.h"
#include "scripted_dialogs.h"
#include "ui/dashboard/dashboard_page.h"
#include "ui/dashboard/task_table.h"
#include "ui/dashboard/dashboard_panels.h"
#include "ui/dashboard/headline_view.h"
#include "ui/dashboard/worker_heatmap_view.h"
#include "ui/plot/series_plot.h"
#include "ui/shell/theme.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QProgressBar>
#include <QRegularExpression>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QToolTip>

#include <cmath>

using namespace strata;
using D = ui::DashboardPage;

namespace {

// A one-replica run of `steps` steps, every step reported (as the step records give them), with
// accuracy, and an epoch's validation every `perEpoch` steps.
QByteArray runLines(int steps, int perEpoch, const QString& task = "worker:0")
{
    QByteArray lines = QStringLiteral(R"({"v":1,"type":"start","t":1000,"task":"%1","total_steps":%2,"epochs":%3,"strategy":"OneDevice"}
)")
                           .arg(task)
                           .arg(steps)
                           .arg(steps / perEpoch)
                           .toUtf8();
    for (int s = 1; s <= steps; ++s) {
        const double loss = 0.3 + 2.0 / std::sqrt(double(s));
        lines += QStringLiteral(R"({"v":1,"type":"step","t":%1,"task":"%2","step":%3,"epoch":0,"steps":1,"loss":%4,)"
                                R"("replicas":[{"replica":0,"device":"cpu:0","loss":%4,"samples":32}],"metrics":{"accuracy":%5},)"
                                R"("time_ms":{"step":2.0,"compute":1.5,"comm":0.1,"input":0.1},"samples_per_sec":%6})")
                     .arg(1000 + s * 0.01)
                     .arg(task)
                     .arg(s)
                     .arg(loss)
                     .arg(1.0 - loss / 3)
                     .arg(15000 + s)
                     .toUtf8() +
                 '\n';
        if (s % perEpoch == 0)
            lines += QStringLiteral(R"({"v":1,"type":"epoch","t":%1,"task":"%2","epoch":%3,"epochs":%4,"step":%5,)"
                                    R"("train":{"loss":%6,"accuracy":0.8},"validation":{"loss":%7,"accuracy":0.78},"seconds":1})")
                         .arg(1000 + s * 0.01)
                         .arg(task)
                         .arg(s / perEpoch - 1)
                         .arg(steps / perEpoch)
                         .arg(s)
                         .arg(loss)
                         .arg(loss * 1.1)
                         .toUtf8() +
                     '\n';
    }
    return lines;
}

// A dashboard on a store, shown at a size where every plot has room.
struct Shown {
    app::MetricsStore store;
    uitest::ScriptedDialogs dialogs;
    std::unique_ptr<D> page;

    explicit Shown(const QByteArray& lines = {}, QSize size = QSize(1600, 1000), const QString& task = "worker:0")
    {
        if (!lines.isEmpty())
            store.ingestLines(task, lines);
        page = std::make_unique<D>(store, nullptr, &dialogs);
        page->resize(size);
        page->show();
        if (QTest::qWaitForWindowExposed(page.get()))
            page->refresh();
    }
    ui::SeriesPlot* plot(D::PlotKind kind) const { return page->plot(kind); }
};

// The middle of a plot's axis rectangle, in the SeriesPlot's coordinates.
QPoint plotCentre(ui::SeriesPlot* plot)
{
    return plot->plot()->mapTo(plot, plot->plot()->axisRect()->rect().center());
}

QStringList visibleTexts(QMenu* menu)
{
    QStringList texts;
    for (QAction* a : menu->actions())
        if (a->isVisible() && !a->isSeparator())
            texts << a->text();
    return texts;
}

} // namespace

class TestDashboardControls : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // Before: the menu was asked for on the SeriesPlot, but a right click reaches the QCustomPlot
    // under the cursor: no menu opened with a real mouse.
    void rightClickOpensEveryPlotsMenu()
    {
        Shown shown(runLines(400, 100));
        for (int kind = 0; kind < D::PlotCount; ++kind) {
            ui::SeriesPlot* plot = shown.plot(D::PlotKind(kind));
            if (!plot->isVisible())
                continue; // a tab not shown, or not applicable to this run
            const QPoint at = plotCentre(plot);
            QVERIFY(plot->isAncestorOf(realinput::under(plot, at)));
            QStringList texts;
            QVERIFY2(realinput::withContextMenu(plot, at, [&](QMenu* menu) { texts = visibleTexts(menu); }),
                     qPrintable(plot->objectName()));
            for (const char* item : {"Fit to data", "Logarithmic y axis", "Export image (PNG, SVG, PDF)...", "Export data (CSV)..."})
                QVERIFY2(texts.contains(QString(item)), qPrintable(plot->objectName() + ": " + texts.join(", ")));
        }
        // The throughput's own smoothing is in its menu.
        QStringList texts;
        realinput::withContextMenu(shown.plot(D::ThroughputPlot), plotCentre(shown.plot(D::ThroughputPlot)),
                                   [&](QMenu* menu) { texts = visibleTexts(menu); });
        QVERIFY(texts.contains("Smoothing"));
    }

    void menuItemsWork()
    {
        Shown shown(runLines(400, 100));
        ui::SeriesPlot* loss = shown.plot(D::LossPlot);
        const QTemporaryDir dir;
        // Export data: every point of every line, written where the dialog said.
        const QString csv = dir.filePath("loss.csv");
        shown.dialogs.files.push_back(csv);
        QVERIFY(realinput::withContextMenu(loss, plotCentre(loss),
                                           [](QMenu* menu) { QVERIFY(realinput::clickMenuItem(menu, "Export data (CSV)...")); }));
        QFile file(csv);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QList<QByteArray> rows = file.readAll().trimmed().split('\n');
        QCOMPARE(rows.size(), 1 + 400); // a header, then a row per step (validation at 4 of them)
        // Export image.
        const QString png = dir.filePath("loss.png");
        shown.dialogs.files.push_back(png);
        QVERIFY(realinput::withContextMenu(loss, plotCentre(loss), [](QMenu* menu) {
            QVERIFY(realinput::clickMenuItem(menu, "Export image (PNG, SVG, PDF)..."));
        }));
        QVERIFY(QImage(png).width() > 100);
        // Log y, then fit after a pan.
        QVERIFY(realinput::withContextMenu(loss, plotCentre(loss),
                                           [](QMenu* menu) { QVERIFY(realinput::clickMenuItem(menu, "Logarithmic y axis")); }));
        QVERIFY(loss->isYLogarithmic());
        QCOMPARE(loss->plot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
        realinput::drag(loss, plotCentre(loss), plotCentre(loss) + QPoint(80, 0));
        QVERIFY(!loss->followsData());
        QVERIFY(realinput::withContextMenu(loss, plotCentre(loss),
                                           [](QMenu* menu) { QVERIFY(realinput::clickMenuItem(menu, "Fit to data")); }));
        QVERIFY(loss->followsData());
    }

    // TensorBoard's step, relative and wall time, for every step plot at once.
    void xAxisAgainstTime()
    {
        Shown shown(runLines(400, 100));
        ui::SeriesPlot* loss = shown.plot(D::LossPlot);
        const auto choose = [&](const QString& item) {
            return realinput::withContextMenu(loss, plotCentre(loss), [&](QMenu* menu) {
                QMenu* axis = menu->findChild<QMenu*>("xAxisMenu");
                QVERIFY(axis);
                QVERIFY(realinput::clickMenuItem(menu, "X axis"));
                QTRY_VERIFY(axis->isVisible());
                QVERIFY(realinput::clickMenuItem(axis, item));
            });
        };
        QVERIFY(choose("Relative time"));
        for (D::PlotKind kind : {D::LossPlot, D::AccuracyPlot, D::ThroughputPlot, D::UtilizationPlot})
            QCOMPARE(shown.plot(kind)->xAxis(), app::XAxis::RelativeSeconds);
        QCOMPARE(loss->plot()->xAxis->label(), QString("seconds since the start"));
        QList<QPointF> points;
        shown.page->source(D::LossPlot).forEachPoint(0, [&](double x, double y) { points << QPointF(x, y); });
        QCOMPARE(points.size(), 400);
        QVERIFY(std::abs(points.first().x() - 0.01) < 1e-6); // step 1, 10 ms after the start
        QVERIFY(std::abs(points.last().x() - 4.0) < 1e-6);
        QVERIFY(loss->plot()->xAxis->range().contains(2.0));
        QVERIFY(choose("Wall time"));
        QCOMPARE(loss->plot()->xAxis->label(), QString("time of day"));
        points.clear();
        shown.page->source(D::LossPlot).forEachPoint(0, [&](double x, double y) { points << QPointF(x, y); });
        QVERIFY(std::abs(points.first().x() - 1000.01) < 1e-6);
        QVERIFY(loss->plot()->xAxis->range().contains(1002));
        QVERIFY(choose("Step"));
        QCOMPARE(shown.page->xAxis(), app::XAxis::Step);
        QCOMPARE(loss->plot()->xAxis->label(), QString("step"));
        QVERIFY(loss->plot()->xAxis->range().contains(200));
    }

    void hoverToolbarComesAndGoes()
    {
        Shown shown(runLines(400, 100));
        ui::SeriesPlot* loss = shown.plot(D::LossPlot);
        QWidget* toolbar = loss->hoverToolbar();
        QVERIFY(!toolbar->isVisible());
        realinput::move(loss, plotCentre(loss));
        QTRY_VERIFY(toolbar->isVisible());
        // A real click on its log button.
        auto* logButton = toolbar->findChild<QToolButton*>("plotLogYButton");
        QVERIFY(logButton && logButton->isVisible());
        const QPoint button = logButton->mapTo(loss, logButton->rect().center());
        QCOMPARE(realinput::under(loss, button), logButton);
        realinput::click(loss, button);
        QVERIFY(loss->isYLogarithmic());
        // The mouse leaves: the toolbar and the crosshair go.
        realinput::move(loss, plotCentre(loss));
        QTRY_VERIFY(loss->crosshairVisible());
        realinput::move(shown.page->headline(), QPoint(5, 5));
        QTRY_VERIFY(!toolbar->isVisible());
        QVERIFY(!loss->crosshairVisible());
    }

    // Before: crosshairs stayed where the mouse left, and each plot zoomed alone.
    void stepPlotsMoveTogether()
    {
        Shown shown(runLines(400, 100));
        ui::SeriesPlot* loss = shown.plot(D::LossPlot);
        ui::SeriesPlot* throughput = shown.plot(D::ThroughputPlot);
        ui::SeriesPlot* accuracy = shown.plot(D::AccuracyPlot);
        realinput::move(loss, plotCentre(loss));
        QTRY_VERIFY(loss->crosshairVisible());
        QVERIFY(throughput->crosshairVisible());
        QVERIFY(accuracy->crosshairVisible());
        realinput::move(shown.page->headline(), QPoint(5, 5));
        QTRY_VERIFY(!loss->crosshairVisible());
        QVERIFY(!throughput->crosshairVisible());

        realinput::drag(loss, plotCentre(loss), plotCentre(loss) + QPoint(120, 0));
        QVERIFY(!loss->followsData());
        QVERIFY(!throughput->followsData());
        QCOMPARE(throughput->xRange(), loss->xRange());
        QCOMPARE(accuracy->xRange(), loss->xRange());
        realinput::doubleClick(throughput, plotCentre(throughput)); // fit, from another plot
        QTRY_VERIFY(loss->followsData());
        QVERIFY(throughput->followsData());
        QVERIFY(accuracy->followsData());
    }

    void legendClickHidesALine()
    {
        Shown shown(runLines(400, 100));
        ui::SeriesPlot* loss = shown.plot(D::LossPlot);
        QCustomPlot* p = loss->plot();
        QCPAbstractLegendItem* item = p->legend->item(0);
        QVERIFY(item);
        const QPoint at = p->mapTo(loss, item->outerRect().center());
        realinput::click(loss, at);
        QVERIFY(!loss->isLineVisible(0));
        realinput::click(loss, at);
        QVERIFY(loss->isLineVisible(0));
    }

    void maximiseShowsOnePlot()
    {
        Shown shown(runLines(400, 100));
        ui::SeriesPlot* throughput = shown.plot(D::ThroughputPlot);
        realinput::move(throughput, plotCentre(throughput));
        auto* button = throughput->hoverToolbar()->findChild<QToolButton*>("plotMaximiseButton");
        QTRY_VERIFY(button->isVisible());
        realinput::click(throughput, button->mapTo(throughput, button->rect().center()));
        QCOMPARE(shown.page->maximizedPlot(), throughput);
        QVERIFY(!shown.plot(D::LossPlot)->isVisible());
        QVERIFY(!shown.page->taskTable()->isVisible());
        QTRY_VERIFY(throughput->width() > 1200); // the dashboard's width, not a fifth of it
        realinput::move(throughput, plotCentre(throughput));
        QTRY_VERIFY(button->isVisible());
        realinput::click(throughput, button->mapTo(throughput, button->rect().center()));
        QCOMPARE(shown.page->maximizedPlot(), nullptr);
        QVERIFY(shown.plot(D::LossPlot)->isVisible());
        QVERIFY(shown.page->taskTable()->isVisible());
    }

    // Before: five empty plots with 0..5 axes; utilization's range was the data's, not 0..1.
    void emptyPlotsSayWhatToDo()
    {
        app::RunController controller; // a live page with no run yet
        D page(controller.store(), &controller, nullptr);
        page.resize(1280, 720);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        page.refresh();
        const QCPRange busy = page.plot(D::UtilizationPlot)->plot()->yAxis->range();
        QCOMPARE(busy.lower, 0.0);
        QCOMPARE(busy.upper, 1.05);
        for (const ui::DashboardPanel& panel : ui::dashboardPanels()) {
            QCustomPlot* p = page.plot(panel.kind)->plot();
            QCPItemText* empty = nullptr;
            for (int i = 0; i < p->itemCount(); ++i)
                if (auto* text = qobject_cast<QCPItemText*>(p->item(i)))
                    empty = text;
            QVERIFY(empty && empty->visible());
            QVERIFY2(empty->text().startsWith("No run yet: press Launch"), qPrintable(empty->text()));
            // Whole steps from 0.
            for (const QString& label : p->xAxis->tickVectorLabels())
                QVERIFY2(!panel.stepAxis || !label.contains('.'), qPrintable(label));
        }
        QCOMPARE(page.progressBar()->text(), QString("no run yet"));
        // Nothing but the placement, the log and the timeline before a run: no Evaluation,
        // Staleness or PS tabs.
        QTabWidget* tabs = page.tabs();
        for (int i = 0; i < tabs->count(); ++i)
            QCOMPARE(tabs->isTabVisible(i), i < 4);
    }

    // Before: a ParameterServer run's single evaluation was invisible (one point draws no line).
    void aSinglePointIsVisible()
    {
        Shown shown(R"({"v":1,"type":"evaluation","t":5,"task":"evaluator:0","step":40,"epoch":0,"metrics":{"loss":0.6}}
)", QSize(1600, 1000), "evaluator:0");
        QTabWidget* tabs = shown.page->tabs();
        const int evaluation = tabs->indexOf(shown.plot(D::EvaluationPlot));
        QVERIFY(tabs->isTabVisible(evaluation));
        tabs->setCurrentIndex(evaluation);
        ui::SeriesPlot* plot = shown.plot(D::EvaluationPlot);
        plot->refresh();
        QCustomPlot* p = plot->plot();
        QCPGraph* graph = p->graph(0);
        QCOMPARE(graph->dataCount(), 1);
        QVERIFY(graph->scatterStyle().shape() != QCPScatterStyle::ssNone);
        QVERIFY(p->xAxis->range().contains(40));
        QVERIFY(p->yAxis->range().contains(0.6));
        // Drawn: the marker's colour is on the picture.
        const QImage image = plot->grab().toImage();
        const QColor colour = graph->pen().color();
        int pixels = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x)
                pixels += image.pixelColor(x, y) == colour;
        QVERIFY2(pixels >= 10, qPrintable(QString::number(pixels)));
    }

    // Before: fractional step ticks ("2.5") on a short run.
    void stepTicksAreWhole()
    {
        Shown shown(runLines(6, 3), QSize(1600, 1000));
        for (D::PlotKind kind : {D::LossPlot, D::AccuracyPlot, D::ThroughputPlot, D::StepTimePlot}) {
            const QVector<double> ticks = shown.plot(kind)->plot()->xAxis->tickVector();
            QVERIFY(ticks.size() >= 2);
            for (const double t : ticks)
                QVERIFY2(t == std::round(t), qPrintable(shown.plot(kind)->objectName() + QString(" %1").arg(t)));
        }
    }

    // Before: no accuracy or validation anywhere on the dashboard.
    void lossAndAccuracyWithValidationMarkers()
    {
        Shown shown(runLines(400, 100));
        const app::PlotSource& loss = shown.page->source(D::LossPlot);
        QCOMPARE(loss.lineCount(), 2);
        QCOMPARE(loss.lineName(1), QString("validation loss"));
        QCOMPARE(loss.pointCount(0), 400); // every step, from step 1
        QCOMPARE(loss.pointCount(1), 4);   // every epoch
        double first = -1;
        loss.forEachPoint(0, [&](double x, double) { first = first < 0 ? x : first; });
        QCOMPARE(first, 1.0);
        const app::PlotSource& accuracy = shown.page->source(D::AccuracyPlot);
        QCOMPARE(accuracy.lineCount(), 2);
        QCOMPARE(accuracy.lineName(0), QString("accuracy"));
        QCOMPARE(accuracy.lineName(1), QString("validation accuracy"));
        QCOMPARE(accuracy.pointCount(1), 4);
        QCPGraph* validation = shown.plot(D::AccuracyPlot)->plot()->graph(1);
        QCOMPARE(validation->name(), QString("validation accuracy"));
        QVERIFY(validation->scatterStyle().shape() != QCPScatterStyle::ssNone);
        QVERIFY(shown.plot(D::AccuracyPlot)->plot()->graph(0)->scatterStyle().shape() == QCPScatterStyle::ssNone);
        // The figures in large type.
        QCOMPARE(shown.page->headline()->value("loss"), QString::number(0.3 + 2.0 / 20, 'f', 4));
        QCOMPARE(shown.page->headline()->value("epoch"), QString("4 / 4"));
    }

    void smoothingKeepsTheRawLineBeneath()
    {
        Shown shown(runLines(400, 100));
        auto* kind = shown.page->findChild<QComboBox*>("smoothingKind");
        kind->setCurrentIndex(1); // EMA
        ui::SeriesPlot* loss = shown.plot(D::LossPlot);
        QCustomPlot* p = loss->plot();
        QCPGraph* smoothed = p->graph(0);
        QCPCurve* raw = nullptr;
        for (int i = 0; i < p->plottableCount() && !raw; ++i)
            raw = qobject_cast<QCPCurve*>(p->plottable(i));
        QVERIFY(raw);
        QVERIFY(raw->visible());
        QVERIFY(raw->dataCount() > 0);
        QVERIFY(raw->pen().color().alpha() < 255);
        QVERIFY(!p->legend->itemWithPlottable(raw)); // not a line of its own
        QVERIFY(smoothed->data()->at(0)->value == raw->data()->at(0)->value);   // debiased EMA starts at the value
        QVERIFY(smoothed->data()->at(10)->value != raw->data()->at(10)->value); // then smooths
        // The validation markers are not smoothed, and have no raw line.
        int rawShown = 0;
        for (int i = 0; i < p->plottableCount(); ++i)
            if (auto* curve = qobject_cast<QCPCurve*>(p->plottable(i)))
                rawShown += curve->visible() && curve->dataCount() > 0;
        QCOMPARE(rawShown, 1);
        kind->setCurrentIndex(0);
        QVERIFY(!raw->visible());
    }

    void progressSaysWhatTheRunDoes_data()
    {
        QTest::addColumn<QByteArray>("lines");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("state");
        const QByteArray start = R"({"v":1,"type":"start","t":1,"task":"worker:0","total_steps":100}
)";
        QTest::newRow("failed at once") << start + R"({"v":1,"type":"error","t":2,"task":"worker:0","kind":"data","message":"no such file","fatal":true}
)" << "failed before its first step" << "Failed";
        QTest::newRow("failed on the way")
            << start + R"({"v":1,"type":"step","t":2,"task":"worker:0","step":40,"loss":1}
{"v":1,"type":"error","t":3,"task":"worker:0","kind":"numeric","message":"NaN loss","fatal":true}
)" << "failed at step 40 / 100" << "Failed";
        QTest::newRow("stopped") << start + R"({"v":1,"type":"step","t":2,"task":"worker:0","step":40,"loss":1}
{"v":1,"type":"done","t":3,"task":"worker:0","status":"stopped","steps":40}
)" << "stopped at step 40 / 100" << "Stopped";
        QTest::newRow("completed") << start + R"({"v":1,"type":"step","t":2,"task":"worker:0","step":100,"loss":1}
{"v":1,"type":"done","t":3,"task":"worker:0","status":"completed","steps":100}
)" << "completed: step 100 / 100" << "Completed";
    }

    void progressSaysWhatTheRunDoes()
    {
        QFETCH(QByteArray, lines);
        QFETCH(QString, text);
        QFETCH(QString, state);
        Shown shown(lines);
        shown.store.taskEnded("worker:0", state == "Completed" || state == "Stopped" ? 0 : 1, false, {});
        shown.page->refresh();
        QCOMPARE(shown.page->progressBar()->text(), text);
        QCOMPARE(shown.page->findChild<QLabel*>("runState")->text(), state);
        const QColor bar = shown.page->progressBar()->palette().color(QPalette::Highlight);
        const QPalette pal = shown.page->palette();
        QCOMPARE(bar, state == "Failed" ? ui::theme::error(pal) : state == "Stopped" ? ui::theme::warning(pal) : ui::theme::success(pal));
    }

    void evaluatingAfterTheLastStep()
    {
        app::MetricsStore store;
        store.ingestLines("worker:0", R"({"v":1,"type":"start","t":1,"task":"worker:0","total_steps":100}
{"v":1,"type":"step","t":2,"task":"worker:0","step":100,"loss":1}
)");
        QCOMPARE(app::runStatus(store, app::RunOutcome::Running).phase, app::RunPhase::Evaluating);
        QCOMPARE(app::runStatus(store, app::RunOutcome::Running).text, QString("step 100 / 100: evaluating"));
        store.ingestLines("worker:0", R"({"v":1,"type":"done","t":3,"task":"worker:0","status":"completed","steps":100}
)");
        QCOMPARE(app::runStatus(store, app::RunOutcome::Completed).phase, app::RunPhase::Completed);
    }

    // Before: a Mirrored run showed Evaluation, Staleness and Parameter servers tabs with empty axes.
    void onlyTheTabsThatApply()
    {
        Shown mirrored(runLines(50, 25));
        QTabWidget* tabs = mirrored.page->tabs();
        QVERIFY(!tabs->isTabVisible(tabs->indexOf(mirrored.plot(D::EvaluationPlot))));
        QVERIFY(!tabs->isTabVisible(tabs->indexOf(mirrored.plot(D::StalenessPlot))));
        QVERIFY(!tabs->isTabVisible(4 + 2)); // Parameter servers
        Shown ps(R"({"v":1,"type":"start","t":1,"task":"chief:0","total_steps":100,"strategy":"ParameterServer"}
{"v":1,"type":"ps","t":2,"task":"ps:0","bytes_in_per_s":100,"bytes_out_per_s":100,"updates_per_s":3}
)");
        tabs = ps.page->tabs();
        QVERIFY(tabs->isTabVisible(tabs->indexOf(ps.plot(D::StalenessPlot))));
        QVERIFY(tabs->isTabVisible(4 + 2));
        QVERIFY(!tabs->isTabVisible(tabs->indexOf(ps.plot(D::EvaluationPlot))));
    }

    // Before: a run that failed at once kept the previous run's axes.
    void aNewRunStartsFromCleanAxes()
    {
        Shown shown(runLines(400, 100));
        ui::SeriesPlot* loss = shown.plot(D::LossPlot);
        realinput::drag(loss, plotCentre(loss), plotCentre(loss) + QPoint(100, 0));
        QVERIFY(!loss->followsData());
        shown.store.clear();
        shown.page->reset();
        shown.page->refresh();
        QVERIFY(loss->followsData());
        QCOMPARE(loss->xRange(), (QPair<double, double>(0, 10)));
        QCOMPARE(loss->plot()->yAxis->range().lower, 0.0);
        QCOMPARE(loss->plot()->yAxis->range().upper, 1.0);
    }

    // Before: a log axis read "1·10³".
    void tickLabelsAreShortNumbers()
    {
        ui::SeriesPlot plot;
        plot.resize(400, 600);
        plot.setYLogarithmic(true);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        plot.plot()->yAxis->setRange(0.5, 2e6);
        plot.plot()->replot();
        const QVector<QString> labels = plot.plot()->yAxis->tickVectorLabels();
        QVERIFY(labels.size() >= 3);
        for (const QString& label : labels)
            QVERIFY2(!label.contains(QChar(0xB7)) && !label.contains("e+") && !label.contains("e-"), qPrintable(label));
    }

    void taskTableIsAsTallAsItsRows()
    {
        Shown shown(runLines(10, 5));
        auto* table = shown.page->taskTable();
        QCOMPARE(table->shownCount(), 1);
        QVERIFY2(table->height() < 110, qPrintable(QString::number(table->height())));
        // The loss plot, not the table, has the room.
        QVERIFY(shown.plot(D::LossPlot)->height() > 2 * table->height());
        QVERIFY(shown.plot(D::LossPlot)->width() > 600);
    }

    // 64 workers: the step time plot's menu switches its band off (every worker's lines, the
    // split of each: 192) and on again (three bands and the slowest three), saying which it shows.
    void bandSwitchedOffAndOnFromTheMenu()
    {
        Shown shown;
        uitest::feedWorkers(shown.store, 64, 200, {17});
        shown.page->refresh();
        ui::SeriesPlot* plot = shown.plot(D::StepTimePlot);
        QCOMPARE(plot->plot()->graphCount(), 3 * 3 + 3);
        QCOMPARE(plot->plot()->graph(0)->name(), QString("compute: median of 64 workers"));
        const QString item = QString::fromUtf8("Draw as a band (median, min–max)");
        const auto toggle = [&](bool checkedBefore) {
            return realinput::withContextMenu(plot, plotCentre(plot), [&](QMenu* menu) {
                QAction* band = nullptr;
                for (QAction* a : menu->actions())
                    band = a->text() == item ? a : band;
                QVERIFY2(band, qPrintable(visibleTexts(menu).join(", ")));
                QVERIFY(band->isCheckable());
                QCOMPARE(band->isChecked(), checkedBefore);
                QVERIFY(realinput::clickMenuItem(menu, item));
            });
        };
        QVERIFY(toggle(true));
        QCOMPARE(plot->plot()->graphCount(), 64 * 3);
        QCOMPARE(plot->plot()->graph(0)->name(), QString("worker:0 compute"));
        QCOMPARE(plot->plot()->graph(0)->channelFillGraph(), nullptr);
        QVERIFY(toggle(false));
        QCOMPARE(plot->plot()->graphCount(), 3 * 3 + 3);
        QCOMPARE(plot->plot()->graph(3)->name(), QString("slowest: worker:17 compute"));
        QCOMPARE(plot->plot()->graph(2)->channelFillGraph(), plot->plot()->graph(1));
        // The other plots kept theirs; a plot of few lines offers no band.
        QCOMPARE(shown.plot(D::ThroughputPlot)->plot()->graph(0)->name(), QString("median of 64 workers"));
        Shown few(runLines(100, 50));
        QVERIFY(realinput::withContextMenu(few.plot(D::StepTimePlot), plotCentre(few.plot(D::StepTimePlot)),
                                           [&](QMenu* menu) { QVERIFY(!visibleTexts(menu).contains(item)); }));
    }

    // The mouse over a heatmap cell names its worker, its steps and its time; off the cells, nothing.
    void hoveringTheHeatmapNamesTheCell()
    {
        Shown shown;
        uitest::feedWorkers(shown.store, 64, 200, {17});
        shown.page->refresh();
        ui::WorkerHeatmapView* heatmap = shown.page->workerHeatmap();
        QVERIFY(heatmap->isVisible());
        QCustomPlot* plot = heatmap->plot();
        const QPoint cell(int(plot->xAxis->coordToPixel(100)), int(plot->yAxis->coordToPixel(17)));
        QVERIFY(plot->isAncestorOf(realinput::under(plot, cell)) || realinput::under(plot, cell) == plot);
        realinput::move(plot, cell);
        QTRY_VERIFY(QToolTip::isVisible());
        const QString text = QToolTip::text();
        // The steps of the column under the mouse (the step there among them), its 15 ms of
        // compute and 0.5 of input, against the median worker's.
        const QRegularExpressionMatch steps =
            QRegularExpression(QString::fromUtf8("^<b>worker:17</b>, steps? (\\d+)(–(\\d+))?<br>")).match(text);
        QVERIFY2(steps.hasMatch(), qPrintable(text));
        const double under = plot->xAxis->pixelToCoord(cell.x());
        const int first = steps.captured(1).toInt(), last = steps.captured(3).isEmpty() ? first : steps.captured(3).toInt();
        QVERIFY2(first <= std::ceil(under) && std::floor(under) <= last, qPrintable(QString::number(under) + " " + text));
        QVERIFY2(text.contains("15.5 ms a step") && text.contains(QString::fromUtf8("2.27× the median worker's 6.82 ms")),
                 qPrintable(text));
        // Another row: another worker, about the median.
        realinput::move(plot, QPoint(cell.x(), int(plot->yAxis->coordToPixel(3))));
        QTRY_VERIFY(QToolTip::text().contains("<b>worker:3</b>"));
        QVERIFY2(QToolTip::text().contains(QString::fromUtf8("0.9")), qPrintable(QToolTip::text()));
        // Off the cells (the title): no tooltip.
        realinput::move(plot, QPoint(plot->width() / 2, 4));
        QTRY_VERIFY(!QToolTip::isVisible());
    }

    // 64 rows need the height: the heatmap's menu (a plot's) maximises it, the plots hidden, and
    // restores it; fit puts the step plots, whose steps it shows, back to the whole run.
    void heatmapMaximisedFromItsMenu()
    {
        Shown shown;
        uitest::feedWorkers(shown.store, 64, 200, {17});
        shown.page->refresh();
        ui::WorkerHeatmapView* heatmap = shown.page->workerHeatmap();
        QCustomPlot* plot = heatmap->plot();
        const int height = heatmap->height();
        const QPoint at = plot->axisRect()->rect().center();
        QVERIFY(realinput::withContextMenu(plot, at, [](QMenu* menu) {
            QStringList texts = visibleTexts(menu);
            QVERIFY2(texts.contains("Fit to data") && texts.contains("Export image (PNG, SVG, PDF)...") &&
                         !texts.contains("Export data (CSV)..."),
                     qPrintable(texts.join(", ")));
            QVERIFY(realinput::clickMenuItem(menu, "Maximise"));
        }));
        QTRY_VERIFY(heatmap->height() > height * 2);
        QVERIFY(!shown.plot(D::LossPlot)->isVisible() && !shown.page->taskTable()->isVisible());
        QVERIFY(heatmap->isMaximized());
        QVERIFY(realinput::withContextMenu(plot, plot->axisRect()->rect().center(),
                                           [](QMenu* menu) { QVERIFY(realinput::clickMenuItem(menu, "Restore")); }));
        QTRY_VERIFY(shown.plot(D::LossPlot)->isVisible());
        QVERIFY(heatmap->isVisible() && !heatmap->isMaximized());
        // Fit: the linked step plots (and the heatmap with them) back to following the run.
        realinput::drag(shown.plot(D::LossPlot), plotCentre(shown.plot(D::LossPlot)), plotCentre(shown.plot(D::LossPlot)) + QPoint(60, 0));
        QVERIFY(!shown.plot(D::LossPlot)->followsData());
        const double panned = heatmap->grid().x0;
        QVERIFY(realinput::withContextMenu(plot, plot->axisRect()->rect().center(),
                                           [](QMenu* menu) { QVERIFY(realinput::clickMenuItem(menu, "Fit to data")); }));
        QVERIFY(shown.plot(D::LossPlot)->followsData());
        QVERIFY(heatmap->grid().x0 != panned);
        QCOMPARE(heatmap->grid().x0, shown.plot(D::LossPlot)->xRange().first);
    }
};

QTEST_MAIN(TestDashboardControls)
#include "tst_dashboard_controls.moc"
