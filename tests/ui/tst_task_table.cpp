// The dashboard's task table for a job of 64 workers over 16 hosts, worked as a user works it,
// with real input through the window (tests/ui/real_input.h): a click on a column's header
// sorts by it (again: the other way; a third time: back to the store's order), numbers as
// numbers and tasks in natural order; the sort and the selection stay while the run updates the
// rows; words typed in the filter above keep the tasks whose name, host or state hold them, and
// the count beside says how many. A run of a few tasks has no filter to take the plots' room. A
// straggler's row has the warning sign and says, hovered, how much slower since when.

#include "app/metrics/metrics_store.h"
#include "app/metrics/stragglers.h"
#include "app/metrics/task_table_model.h"
#include "real_input.h"
#include "ui/dashboard/dashboard_page.h"
#include "ui/dashboard/task_filter_bar.h"
#include "ui/dashboard/task_table.h"

#include "../app/large_job_events.h"
#include "../app/simulated_jobs.h"

#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QTest>
#include <QToolTip>

#include <memory>

using namespace strata;
using Tasks = app::TaskTableModel;

namespace {

bool isYellow(const QColor& c) { return c.hsvSaturation() > 120 && c.hsvHue() >= 30 && c.hsvHue() <= 70; }

// A dashboard on a job of `workers` over `hosts`, shown.
struct Shown {
    app::MetricsStore store;
    std::unique_ptr<ui::DashboardPage> page;

    explicit Shown(int workers = 64, int hosts = 16)
    {
        apptest::feedLargeJob(store, workers, hosts);
        page = std::make_unique<ui::DashboardPage>(store, nullptr, nullptr);
        page->resize(1600, 1000);
        page->show();
        if (QTest::qWaitForWindowExposed(page.get()))
            page->refresh();
    }
    ui::TaskTable* table() const { return page->taskTable(); }
    QStringList firstTasks(int n) const
    {
        QStringList out;
        for (int row = 0; row < n && row < table()->shownCount(); ++row)
            out << table()->text(row, Tasks::TaskColumn);
        return out;
    }
    // A click on the header of `column`, as a hand gives it.
    void clickHeader(int column) const
    {
        QHeaderView* header = table()->horizontalHeader();
        const QPoint at(header->sectionViewportPosition(column) + header->sectionSize(column) / 2, header->height() / 2);
        QCOMPARE(realinput::under(header->viewport(), at), header->viewport());
        realinput::click(header->viewport(), at);
    }
};

} // namespace

class TestTaskTable : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void headerClicksSort()
    {
        Shown shown;
        QCOMPARE(shown.table()->shownCount(), 64);
        QCOMPARE(shown.firstTasks(3), QStringList({"worker:0", "worker:1", "worker:2"})); // the store's order
        // Step time: the slowest first (55 ms), ties in natural order; as numbers.
        shown.clickHeader(Tasks::StepTimeColumn);
        QCOMPARE(shown.firstTasks(5), QStringList({"worker:9", "worker:25", "worker:41", "worker:57", "worker:2"}));
        QCOMPARE(shown.table()->text(0, Tasks::StepTimeColumn), QString("55.0 ms"));
        QCOMPARE(shown.table()->horizontalHeader()->sortIndicatorSection(), int(Tasks::StepTimeColumn));
        // Again: the fastest first (40 ms).
        shown.clickHeader(Tasks::StepTimeColumn);
        QCOMPARE(shown.firstTasks(4), QStringList({"worker:0", "worker:16", "worker:32", "worker:48"}));
        // A third time: the store's order again.
        shown.clickHeader(Tasks::StepTimeColumn);
        QCOMPARE(shown.firstTasks(3), QStringList({"worker:0", "worker:1", "worker:2"}));
        QCOMPARE(shown.table()->horizontalHeader()->sortIndicatorSection(), -1);
        // Tasks in natural order: worker:10 after worker:9, not after worker:1.
        shown.clickHeader(Tasks::TaskColumn);
        QCOMPARE(shown.table()->text(10, Tasks::TaskColumn), QString("worker:10"));
        shown.clickHeader(Tasks::TaskColumn);
        QCOMPARE(shown.firstTasks(2), QStringList({"worker:63", "worker:62"}));
        // Samples/s: the slowest first, as the step time's.
        shown.clickHeader(Tasks::SamplesPerSecColumn);
        QCOMPARE(shown.firstTasks(2), QStringList({"worker:9", "worker:25"}));
    }

    // The sort holds as the rows change: a worker that slows down moves to the top, and the
    // task selected stays selected wherever its row goes.
    void sortAndSelectionStayAsTheRunGoesOn()
    {
        Shown shown;
        shown.clickHeader(Tasks::StateColumn); // failures first
        shown.clickHeader(Tasks::StepTimeColumn);
        ui::TaskTable* table = shown.table();
        QCOMPARE(table->text(1, Tasks::TaskColumn), QString("worker:25"));
        realinput::click(table->viewport(), table->visualRect(table->model()->index(1, Tasks::HostColumn)).center());
        QCOMPARE(table->selectedTask(), QString("worker:25"));
        shown.store.ingestLines("worker:40", R"({"v":1,"type":"step","t":1003.0,"task":"worker:40","step":30,"epoch":0,"steps":10,"loss":1.2,"replicas":[{"replica":0,"device":"cpu:0","loss":1.2,"samples":320}],"time_ms":{"step":120.0,"compute":110.0,"comm":10.0,"input":0.0},"samples_per_sec":266.7}
)");
        // The store's coalesced `updated` refreshes the page.
        QTRY_COMPARE_WITH_TIMEOUT(table->text(0, Tasks::TaskColumn), QString("worker:40"), testing::kEventDeadlineMs);
        QCOMPARE(table->horizontalHeader()->sortIndicatorSection(), int(Tasks::StepTimeColumn));
        QCOMPARE(table->selectedTask(), QString("worker:25"));
        QCOMPARE(table->currentIndex().row(), 2);
        // A failed worker: first once sorted by state.
        shown.store.taskEnded("worker:37", 1, false, "out of memory");
        shown.clickHeader(Tasks::StateColumn);
        QTRY_COMPARE_WITH_TIMEOUT(table->text(0, Tasks::TaskColumn), QString("worker:37"), testing::kEventDeadlineMs);
        QCOMPARE(table->text(0, Tasks::StateColumn), QString("failed"));
    }

    void filterKeepsTheTasksTyped()
    {
        Shown shown;
        auto* bar = shown.page->taskFilter();
        QVERIFY(bar->isVisible()); // more tasks than the table shows at once
        QCOMPARE(bar->count()->text(), QString("64 tasks"));
        QLineEdit* field = bar->field();
        realinput::click(field, field->rect().center());
        QVERIFY(field->hasFocus());
        QTest::keyClicks(field, "node-3");
        QCOMPARE(shown.firstTasks(10), QStringList({"worker:8", "worker:9", "worker:10", "worker:11"}));
        QCOMPARE(bar->count()->text(), QString("4 of 64 tasks"));
        // Sorting sorts what the filter keeps.
        shown.clickHeader(Tasks::StepTimeColumn);
        QCOMPARE(shown.firstTasks(10), QStringList({"worker:9", "worker:11", "worker:8", "worker:10"})); // 55, 53, 48, 46 ms
        // A state: the failed one.
        shown.store.taskEnded("worker:37", 1, false, "out of memory");
        field->selectAll();
        QTest::keyClicks(field, "failed");
        QTRY_COMPARE_WITH_TIMEOUT(shown.firstTasks(10), QStringList({"worker:37"}), testing::kEventDeadlineMs);
        QCOMPARE(bar->count()->text(), QString("1 of 64 tasks"));
        field->selectAll();
        QTest::keyClick(field, Qt::Key_Backspace);
        QCOMPARE(shown.table()->shownCount(), 64);
        QCOMPARE(bar->count()->text(), QString("64 tasks"));
        // The table's height is the tasks', not what the filter keeps: typing does not move the page.
        const int height = shown.table()->height();
        QTest::keyClicks(field, "no such task");
        QCOMPARE(bar->count()->text(), QString("0 of 64 tasks"));
        QCOMPARE(shown.table()->height(), height);
    }

    void stragglersRowIsMarked()
    {
        // A MultiWorkerMirrored job whose worker:2 computes three times slower from step 200 on
        // (simulated_jobs.h): a straggler still at the end. The warning sign by its name, and
        // hovering its row says how slow since when; the other rows have neither.
        app::MetricsStore store;
        apptest::feed(store, false, 4,
                      apptest::mirroredJob(4, 600, [](int w, int64_t s) { return w == 2 && s >= 200 ? 30.0 : 10.0; }),
                      10);
        ui::DashboardPage page(store, nullptr, nullptr);
        page.resize(1600, 1000);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        page.refresh();
        const std::vector<app::Straggler> found = store.stragglers();
        QCOMPARE(int(found.size()), 1);
        ui::TaskTable* table = page.taskTable();
        const int slow = table->rowOf("worker:2");
        QVERIFY(slow >= 0);
        // The sign drawn: the only yellow at the start of a name cell is its (the current cell's
        // frame is blue).
        const QImage shot = table->viewport()->grab().toImage();
        const auto colouredAtStart = [&](int row) {
            const QRect cell = table->visualRect(table->model()->index(row, Tasks::TaskColumn));
            int n = 0;
            for (int y = cell.top(); y <= cell.bottom(); ++y)
                for (int x = cell.left(); x < cell.left() + cell.height(); ++x)
                    n += isYellow(QColor(shot.pixel(x, y))) ? 1 : 0;
            return n;
        };
        for (int row = 0; row < table->shownCount(); ++row) {
            QCOMPARE(table->model()->index(row, Tasks::TaskColumn).data(Tasks::StragglingRole).toBool(), row == slow);
            if (row == slow)
                QVERIFY2(colouredAtStart(row) > 20, qPrintable(QString::number(colouredAtStart(row))));
            else
                QCOMPARE(colouredAtStart(row), 0);
        }
        // A hand resting on its row (its state): the tooltip, after the usual delay.
        QToolTip::hideText();
        QVERIFY(QTest::qWaitFor([] { return !QToolTip::isVisible(); }, testing::kEventDeadlineMs));
        const QPoint at = table->visualRect(table->model()->index(slow, Tasks::StateColumn)).center();
        realinput::move(table->viewport(), at);
        QVERIFY(QTest::qWaitFor([] { return QToolTip::isVisible(); }, testing::kEventDeadlineMs));
        QCOMPARE(QToolTip::text(), app::stretchText(found[0]));
        QVERIFY2(QToolTip::text().startsWith("worker:2 on n3 (198.18.0.3): 3.0x the median time per step (30 ms against "
                                             "10 ms) since step 200"),
                 qPrintable(QToolTip::text()));
        QToolTip::hideText();
    }

    void aFewTasksHaveNoFilter()
    {
        Shown shown(4, 2);
        QCOMPARE(shown.table()->shownCount(), 4);
        QVERIFY(!shown.page->taskFilter()->isVisible());
        // Their header still sorts.
        shown.clickHeader(Tasks::StepTimeColumn);
        QCOMPARE(shown.firstTasks(1), QStringList({"worker:2"})); // 54 ms
    }
};

QTEST_MAIN(TestTaskTable)
#include "tst_task_table.moc"
