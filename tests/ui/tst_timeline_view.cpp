// The dashboard's Timeline panel with real input (tests/ui/real_input.h) on a store whose tasks
// recorded their steps' timelines (traced_workers.h): it follows the latest steps as they come;
// the wheel zooms the time around the cursor, a drag pans it, and either stops the following; a
// double click (or Fit) follows again; the mouse over a span names its task, lane, phase, step,
// start and duration; chosen, its tab is shown maximised (its menu restores it, maximises it
// again and sets the steps followed); 64 workers' rows at
// 1280x720 scroll, never lower than the minimum, their labels apart; a run without timelines
// says so. And a real MultiWorkerMirrored run of the build's engine: its workers' steps and
// buckets on the panel, hovered.

#include "../app/app_test_util.h"
#include "app/launch/job_launcher.h"
#include "app/metrics/metrics_store.h"
#include "real_input.h"
#include "scripted_dialogs.h"
#include "traced_workers.h"
#include "ui/dashboard/dashboard_page.h"
#include "ui/dashboard/task_table.h"
#include "ui/dashboard/timeline_view.h"

#include <qcustomplot.h>

#include <QFileInfo>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTabBar>
#include <QTabWidget>
#include <QTest>
#include <QToolTip>

using namespace strata;

namespace {

// A dashboard on a traced job, its Timeline tab shown.
struct Shown {
    app::MetricsStore store;
    uitest::ScriptedDialogs dialogs;
    uitest::TracedJob job;
    std::unique_ptr<ui::DashboardPage> page;

    explicit Shown(uitest::TracedJob j, int64_t steps, QSize size = QSize(1600, 1000)) : job(std::move(j))
    {
        store.setNotifyInterval(0);
        if (steps > 0)
            job.feed(store, 1, steps);
        page = std::make_unique<ui::DashboardPage>(store, nullptr, &dialogs);
        page->resize(size);
        page->show();
        if (QTest::qWaitForWindowExposed(page.get()))
            page->tabs()->setCurrentWidget(page->timeline());
        page->refresh();
        // Chosen, it is maximised: drawn once laid out at that size.
        settle(page.get(), page->timeline());
    }
    static void settle(ui::DashboardPage* page, ui::TimelineView* view)
    {
        QTRY_VERIFY2(view->height() > page->height() / 2 && view->upToDate(),
                     qPrintable(QStringLiteral("%1 of %2, %3").arg(view->height()).arg(page->height()).arg(view->upToDate())));
    }
    ui::TimelineView* view() const { return page->timeline(); }
    QCustomPlot* plot() const { return view()->plot(); }
    // The middle of `worker`'s span `name` at `step` (its step lane, or its reduce lane), in the plot.
    QPoint spanMiddle(int worker, int64_t step, const QString& name) const
    {
        const app::Timeline& t = view()->timeline();
        for (const app::TimelineSpan& s : t.spans)
            if (s.step == step && s.name == name && t.tasks[size_t(t.rows[size_t(s.row)].task)].task == QStringLiteral("worker:%1").arg(worker))
                return {view()->msX(double(s.startUs + s.durUs / 2 - view()->originUs()) / 1000), view()->rowY(s.row)};
        return {-1, -1};
    }
};

QPoint axisCentre(QCustomPlot* plot)
{
    return plot->axisRect()->rect().center();
}

} // namespace

class TestTimelineView : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void followsTheLatestSteps()
    {
        Shown shown({.workers = 8}, 20);
        ui::TimelineView* view = shown.view();
        QVERIFY(view->isVisible());
        QVERIFY(view->followsLatest());
        const app::Timeline& t = view->timeline();
        // 8 workers, a step lane and a reduce lane each, in order.
        QCOMPARE(t.tasks.size(), size_t(8));
        QCOMPARE(t.rows.size(), size_t(16));
        QCOMPARE(t.tasks[1].task, "worker:1");
        QCOMPARE(t.rows[3].lane, "reduce");
        // The last 4 steps, from worker:0's start of step 17 (the first to start it).
        QCOMPARE(t.followStep, 17);
        QCOMPARE(view->originUs(), shown.job.stepT0(17));
        const auto [lower, upper] = view->xRange();
        const double stepMs = double(shown.job.stepUs() + 100) / 1000;
        QVERIFY2(lower < 0 && lower > -1 && upper > 4 * stepMs - 0.1 && upper < 4 * stepMs + 1,
                 qPrintable(QStringLiteral("%1 %2").arg(lower).arg(upper)));
        QCOMPARE(shown.plot()->xAxis->label(), "ms since step 17 began on worker:0");
        QCOMPARE(view->legendPhases(), QStringList({"step", "input", "forward", "backward", "wait", "bucket", "optimizer"}));
        QVERIFY(view->emptyText().isEmpty());
        // Every row on screen (16 fit 1600x1000's tab), no scroll bar.
        QCOMPARE(view->rowsShown(), 16.0);
        QVERIFY(!view->rowScroll()->isVisible());

        // More steps: the view moves on to them.
        shown.job.feed(shown.store, 21, 30);
        QTRY_COMPARE(view->timeline().followStep, 27);
        QCOMPARE(view->originUs(), shown.job.stepT0(27));
    }

    void hoverNamesTheSpan()
    {
        Shown shown({.workers = 8, .slow = {3}}, 20);
        QCustomPlot* plot = shown.plot();
        // worker:3's backward pass at step 19: 6 ms, from 2.5 ms into the step.
        const QPoint at = shown.spanMiddle(3, 19, "backward");
        QVERIFY(at.y() > 0);
        QCOMPARE(realinput::under(plot, at), plot);
        realinput::move(plot, at);
        QTRY_VERIFY(QToolTip::isVisible());
        QCOMPARE(QToolTip::text(), QString::fromUtf8("<b>worker:3</b> · step<br>backward, step 19<br>starts 2.500 ms into "
                                                     "the step, lasts 6.000 ms"));
        // worker:0's bucket 1 on its reduce lane: from where its own backward pass ended (5.5 ms).
        realinput::move(plot, shown.spanMiddle(0, 18, "bucket 1"));
        QTRY_COMPARE(QToolTip::text(), QString::fromUtf8("<b>worker:0</b> · reduce<br>bucket 1, step 18<br>starts 5.500 ms "
                                                         "into the step, lasts 1.000 ms"));
        // worker:0 waits for worker:3: 4 ms.
        realinput::move(plot, shown.spanMiddle(0, 18, "wait"));
        QTRY_VERIFY2(QToolTip::text().contains("wait, step 18<br>starts 5.500 ms into the step, lasts 4.000 ms"),
                     qPrintable(QToolTip::text()));
        // Between two steps, nothing; off the axes (the title), nothing.
        const app::Timeline& t = shown.view()->timeline();
        const double gapMs = double(shown.job.stepT0(19) - 50 - shown.view()->originUs()) / 1000;
        realinput::move(plot, QPoint(shown.view()->msX(gapMs), shown.view()->rowY(t.tasks[0].firstRow)));
        QTRY_VERIFY(!QToolTip::isVisible());
        realinput::move(plot, shown.spanMiddle(3, 19, "backward"));
        QTRY_VERIFY(QToolTip::isVisible());
        realinput::move(plot, QPoint(plot->width() / 2, 4));
        QTRY_VERIFY(!QToolTip::isVisible());
    }

    void wheelZoomsAroundTheCursorDragPansDoubleClickFollows()
    {
        Shown shown({.workers = 4}, 20);
        ui::TimelineView* view = shown.view();
        QCustomPlot* plot = shown.plot();
        const auto [lower, upper] = view->xRange();
        const QPoint at(axisCentre(plot).x() + plot->axisRect()->width() / 4, axisCentre(plot).y());
        const double underBefore = plot->xAxis->pixelToCoord(at.x());
        realinput::move(plot, at);
        realinput::wheel(plot, at, 3);
        // Narrower, and the time under the cursor stays under it.
        const auto [zl, zu] = view->xRange();
        QVERIFY2(zu - zl < (upper - lower) * 0.7, qPrintable(QStringLiteral("%1 %2").arg(zl).arg(zu)));
        QVERIFY2(std::abs(plot->xAxis->coordToPixel(underBefore) - at.x()) < 30,
                 qPrintable(QStringLiteral("%1 %2").arg(plot->xAxis->coordToPixel(underBefore)).arg(at.x())));
        QVERIFY(!view->followsLatest());
        QVERIFY(shown.plot()->xAxis->label().contains("step 17"));
        // New steps do not move a zoomed view, nor its origin.
        const int64_t origin = view->originUs();
        shown.job.feed(shown.store, 21, 24);
        QTRY_VERIFY(view->timeline().followStep == 21);
        QCOMPARE(view->xRange(), qMakePair(zl, zu));
        QCOMPARE(view->originUs(), origin);

        // A drag to the right shows earlier time: the range moves by the drag's length.
        const double msPerPx = (zu - zl) / plot->axisRect()->width();
        realinput::drag(plot, at, at + QPoint(200, 0));
        const auto [pl, pu] = view->xRange();
        QVERIFY2(std::abs((zl - pl) - 200 * msPerPx) < 2 * msPerPx, qPrintable(QStringLiteral("%1 %2 %3").arg(zl).arg(pl).arg(msPerPx)));
        QVERIFY(!view->followsLatest());
        // Dragged back to steps no longer kept: said so.
        for (int i = 0; i < 30 && view->emptyText().isEmpty(); ++i) {
            realinput::drag(plot, at - QPoint(150, 0), at + QPoint(250, 0));
            QCoreApplication::processEvents();
        }
        QTRY_VERIFY(view->emptyText().contains("no longer kept"));

        // A double click: the latest steps again.
        realinput::doubleClick(plot, axisCentre(plot));
        QTRY_VERIFY(view->followsLatest());
        QCOMPARE(view->timeline().followStep, 21);
        QCOMPARE(view->originUs(), shown.job.stepT0(21));
        QVERIFY(view->emptyText().isEmpty());
    }

    void shownMaximisedRestoredFromItsMenu()
    {
        Shown shown({.workers = 4}, 20);
        ui::TimelineView* view = shown.view();
        QCustomPlot* plot = shown.plot();
        // Its tab chosen: the panel as tall as the page allows, the task table hidden.
        QVERIFY(view->isMaximized());
        QVERIFY(!shown.page->taskTable()->isVisible());
        const int height = view->height();
        QVERIFY(realinput::withContextMenu(plot, axisCentre(plot), [](QMenu* menu) {
            QVERIFY(realinput::clickMenuItem(menu, "Restore"));
        }));
        QTRY_VERIFY(shown.page->taskTable()->isVisible() && view->height() < height / 2 && view->upToDate());
        QVERIFY(!view->isMaximized() && view->isVisible());
        QVERIFY(realinput::withContextMenu(plot, axisCentre(plot), [](QMenu* menu) {
            QVERIFY(realinput::clickMenuItem(menu, "Maximise"));
        }));
        QTRY_VERIFY(view->height() == height && view->upToDate());
        QVERIFY(!shown.page->taskTable()->isVisible());
        // Another tab puts the page back.
        QTabBar* tabs = shown.page->tabs()->tabBar();
        realinput::click(tabs, tabs->tabRect(0).center());
        QTRY_VERIFY(shown.page->taskTable()->isVisible());
        QVERIFY(!view->isMaximized() && !view->isVisible());
        realinput::click(tabs, tabs->tabRect(shown.page->tabs()->indexOf(view)).center());
        QTRY_VERIFY(view->isMaximized());
        Shown::settle(shown.page.get(), view);

        // Steps followed: 8.
        QVERIFY(realinput::withContextMenu(plot, axisCentre(plot), [](QMenu* menu) {
            QAction* steps = nullptr;
            for (QAction* a : menu->actions())
                if (a->text() == "Steps followed")
                    steps = a;
            QVERIFY(steps && steps->menu());
            QTest::mouseClick(menu->windowHandle(), Qt::LeftButton, {}, menu->actionGeometry(steps).center());
            QTRY_VERIFY(steps->menu()->isVisible());
            QVERIFY(realinput::clickMenuItem(steps->menu(), "The last 8 steps"));
        }));
        QTRY_COMPARE(view->stepsFollowed(), 8);
        QCOMPARE(view->timeline().followStep, 13);
        QVERIFY(view->followsLatest());
    }

    // 64 workers' 128 rows at 1280x720: no lower than the minimum, labels apart, the rest
    // scrolled to (the scroll bar, or a vertical drag).
    void sixtyFourWorkersScroll()
    {
        Shown shown({.workers = 64, .slow = {17}}, 12, QSize(1280, 720));
        ui::TimelineView* view = shown.view();
        QCustomPlot* plot = shown.plot();
        QCOMPARE(view->timeline().rows.size(), size_t(128));
        QVERIFY(view->rowScroll()->isVisible());
        const double rowPx = plot->axisRect()->height() / view->rowsShown();
        QVERIFY2(rowPx >= ui::TimelineView::kMinRowPx - 0.01, qPrintable(QString::number(rowPx)));
        QVERIFY(view->rowsShown() < 128);
        // The labels shown are a line apart at least.
        const auto ticker = plot->yAxis->ticker().dynamicCast<QCPAxisTickerText>();
        QVERIFY(ticker && !ticker->ticks().isEmpty());
        const QList<double> ticks = ticker->ticks().keys();
        const int line = QFontMetrics(plot->yAxis->tickLabelFont()).height();
        for (int i = 1; i < ticks.size(); ++i)
            QVERIFY(std::abs(plot->yAxis->coordToPixel(ticks[i]) - plot->yAxis->coordToPixel(ticks[i - 1])) >= line);
        QCOMPARE(ticker->ticks().first(), rowPx >= line ? QStringLiteral("worker:0 · step") : QStringLiteral("worker:0"));

        // A drag upwards shows later rows.
        QCOMPARE(view->firstRowShown(), 0.0);
        realinput::drag(plot, axisCentre(plot) + QPoint(0, 60), axisCentre(plot) - QPoint(0, 60));
        QTRY_VERIFY(view->firstRowShown() > 5);
        QCOMPARE(view->rowScroll()->value(), qRound(view->firstRowShown()));
        // The wheel over the scroll bar to its end: the last worker's rows.
        QScrollBar* scroll = view->rowScroll();
        realinput::wheel(scroll, QPoint(scroll->width() / 2, scroll->height() / 2), -60);
        QTRY_COMPARE(view->firstRowShown() + view->rowsShown(), 128.0);
        QVERIFY(view->rowY(127) > 0);
        // Hovering there names worker:63.
        const QPoint at = shown.spanMiddle(63, 11, "forward");
        realinput::move(plot, at);
        QTRY_VERIFY2(QToolTip::text().startsWith("<b>worker:63</b> · step"), qPrintable(QToolTip::text()));
    }

    // A real 2-worker MultiWorkerMirrored job (the build's engine, through the launcher): both
    // workers' last steps, their step lane holding the phases and their reduce lane the buckets,
    // on one clock.
    void realMultiWorkerRun()
    {
        QVERIFY2(QFileInfo(QStringLiteral(STRATA_ENGINE_PATH)).isExecutable(), STRATA_ENGINE_PATH);
        QTemporaryDir dir;
        app::MetricsStore store;
        app::JobLauncher launcher(&store);
        QSignalSpy finished(&launcher, &app::JobLauncher::finished);
        QString error;
        QVERIFY2(launcher.start(apptest::multiWorker(apptest::tinyExperiment(1), 2), QStringLiteral(STRATA_ENGINE_PATH),
                                dir.filePath("run"), &error),
                 qPrintable(error));
        QVERIFY(finished.wait(testing::kEventDeadlineMs));
        uitest::ScriptedDialogs dialogs;
        ui::DashboardPage page(store, nullptr, &dialogs);
        page.resize(1600, 1000);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        page.tabs()->setCurrentWidget(page.timeline());
        page.refresh();
        ui::TimelineView* view = page.timeline();
        Shown::settle(&page, view);
        const app::Timeline& t = view->timeline();
        QCOMPARE(t.tasks.size(), size_t(2));
        QCOMPARE(t.tasks[0].task, "worker:0");
        QStringList lanes;
        for (const app::TimelineRow& r : t.rows)
            lanes << r.lane;
        QVERIFY2(lanes.mid(0, 2) == QStringList({"step", "reduce"}), qPrintable(lanes.join(", ")));
        // The last 4 steps followed.
        int64_t last = 0;
        for (const app::TimelineStepStart& s : t.stepStarts)
            last = std::max(last, s.step);
        QVERIFY(last >= 5);
        QCOMPARE(t.followStep, last - 3);
        const QStringList phases = view->legendPhases();
        for (const char* phase : {"step", "forward", "backward", "bucket"})
            QVERIFY2(phases.contains(phase), qPrintable(phases.join(", ")));
        // Both workers' next-to-last step within a few ms of each other on the job clock, each phase inside its step.
        int64_t t0[2] = {0, 0};
        for (const app::TimelineSpan& s : t.spans) {
            if (s.step == last - 1 && s.name == "step")
                t0[t.rows[size_t(s.row)].task] = s.startUs;
            if (s.depth > 0)
                QVERIFY(s.startUs >= s.stepT0Us);
        }
        QVERIFY(t0[0] > 0 && t0[1] > 0);
        QVERIFY2(std::abs(t0[0] - t0[1]) < 50'000, qPrintable(QString::number(t0[0] - t0[1])));
        // worker:1's widest phase of that step, hovered (on a loaded machine a tiny model's
        // backward pass can be narrower than a pixel: its middle would round onto the step).
        const app::TimelineSpan* phase = nullptr;
        for (const app::TimelineSpan& s : t.spans)
            if (s.step == last - 1 && s.depth > 0 && t.rows[size_t(s.row)].task == 1 &&
                t.rows[size_t(s.row)].lane == "step" && (!phase || s.durUs > phase->durUs))
                phase = &s;
        QVERIFY(phase);
        QCustomPlot* plot = view->plot();
        const QPoint at(view->msX(double(phase->startUs + phase->durUs / 2 - view->originUs()) / 1000), view->rowY(phase->row));
        const QString expected =
            QString::fromUtf8("<b>worker:1</b> · step<br>%1, step %2<br>starts ").arg(phase->name).arg(last - 1);
        const QString where = QStringLiteral("at %1,%2 (%3 px wide); the view says \"%4\"")
                                  .arg(at.x())
                                  .arg(at.y())
                                  .arg(view->msX(double(phase->startUs + phase->durUs - view->originUs()) / 1000) -
                                       view->msX(double(phase->startUs - view->originUs()) / 1000))
                                  .arg(view->textAt(at));
        QVERIFY2(view->textAt(at).startsWith(expected), qPrintable(where));
        realinput::move(plot, at);
        QTRY_VERIFY2(QToolTip::text().startsWith(expected), qPrintable(QToolTip::text() + "; " + where));
    }

    void runWithoutTimelinesSaysSo()
    {
        Shown none({.workers = 2}, 0);
        QCOMPARE(none.view()->emptyText(), "This run recorded no steps");
        // A run whose engines record no timelines (a record without `trace`).
        app::MetricsStore& store = none.store;
        std::vector<app::ParsedEvent> records;
        records.push_back(*app::EventParser::forThisThread().parseStepRecord(R"({"t":1764000000.5,"step":1,"loss":1.5})"));
        store.ingest("worker:0", {}, std::move(records));
        QTRY_VERIFY(none.view()->emptyText().startsWith("No step timelines yet"));
        QVERIFY(none.view()->timeline().empty());
        // Its first traced step: drawn.
        none.job.feed(store, 2, 2);
        QTRY_VERIFY(!none.view()->timeline().empty());
        QVERIFY(none.view()->emptyText().isEmpty());
    }
};

QTEST_MAIN(TestTimelineView)
#include "tst_timeline_view.moc"
