// The task table's rows as the dashboard shows them, for a job of 64 workers over 16 hosts:
// each column's text; sorting by every column (numbers as numbers, tasks and hosts in natural
// order, states failures first, what has no value last either way, ties in the tasks' order);
// filtering by task, host and state words; a refresh that keeps the sort without resetting the
// rows; a straggler's mark and tooltip.

#include "app/metrics/natural_order.h"
#include "app/metrics/placement.h"
#include "app/metrics/task_table_model.h"
#include "app/metrics/task_table_sort_filter.h"

#include "large_job_events.h"

#include <QSignalSpy>
#include <QtTest>

using namespace strata::app;
using Model = TaskTableModel;

namespace {

// The tasks as the proxy shows them, top to bottom.
QStringList shownTasks(const QAbstractItemModel& rows)
{
    QStringList out;
    for (int row = 0; row < rows.rowCount(); ++row)
        out << rows.index(row, Model::TaskColumn).data().toString();
    return out;
}

struct Table {
    MetricsStore store;
    Model model;
    TaskTableSortFilter rows;
    Table()
    {
        apptest::feedLargeJob(store);
        model.setTasks(taskSummaries(store));
        rows.setSourceModel(&model);
    }
    void refresh() { model.setTasks(taskSummaries(store)); }
};

} // namespace

class TestTaskTableModel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void namesCompareAsPeopleCount()
    {
        QVERIFY(naturalCompare(u"worker:2", u"worker:10") < 0);
        QVERIFY(naturalCompare(u"worker:10", u"worker:2") > 0);
        QVERIFY(naturalCompare(u"node-9 (198.18.0.9)", u"node-16 (198.18.0.16)") < 0);
        QVERIFY(naturalCompare(u"chief:0", u"worker:0") < 0);
        QVERIFY(naturalCompare(u"worker", u"worker:0") < 0); // a prefix first
        QVERIFY(naturalCompare(u"Worker:1", u"worker:2") < 0); // any case
        QVERIFY(naturalCompare(u"worker:007", u"worker:8") < 0); // leading zeros do not count
        QVERIFY(naturalCompare(u"worker:1", u"worker:01") != 0); // distinct names never tie
        QCOMPARE(naturalCompare(u"ps:3", u"ps:3"), 0);
    }

    void everyColumnSaysItsValue()
    {
        Table t;
        QCOMPARE(t.model.rowCount(), 64);
        QCOMPARE(t.model.columnCount(), int(Model::ColumnCount));
        const auto cell = [&](int row, int column) { return t.model.index(row, column).data().toString(); };
        // worker:9: node-3, step 20 - 0, 40 + 63 mod 16 = 55 ms a step, 32 000 / 55 samples/s.
        QCOMPARE(cell(9, Model::TaskColumn), QString("worker:9"));
        QCOMPARE(cell(9, Model::HostColumn), QString("node-3 (198.18.0.3)"));
        QCOMPARE(cell(9, Model::StateColumn), QString("running"));
        QCOMPARE(cell(9, Model::StepColumn), QString("20 / 100"));
        QCOMPARE(cell(9, Model::StepTimeColumn), QString("55.0 ms"));
        QCOMPARE(cell(9, Model::SamplesPerSecColumn), QString("582"));
        QCOMPARE(cell(9, Model::ExitColumn), QString());
        QCOMPARE(t.model.index(9, Model::StepTimeColumn).data(Qt::TextAlignmentRole).toInt(),
                 int(Qt::AlignRight | Qt::AlignVCenter));
        QCOMPARE(t.model.headerData(Model::SamplesPerSecColumn, Qt::Horizontal).toString(), QString("Samples/s"));
    }

    // The first click on a header shows first what needs a look.
    void aHeaderFirstSortsTheWorstFirst()
    {
        Model model;
        const auto first = [&](int column) {
            return Qt::SortOrder(model.headerData(column, Qt::Horizontal, Qt::InitialSortOrderRole).toInt());
        };
        QCOMPARE(first(Model::StepTimeColumn), Qt::DescendingOrder); // the slowest
        QCOMPARE(first(Model::SamplesPerSecColumn), Qt::AscendingOrder); // the slowest
        QCOMPARE(first(Model::StepColumn), Qt::AscendingOrder);   // the one behind
        QCOMPARE(first(Model::StateColumn), Qt::AscendingOrder);  // failures
        QCOMPARE(first(Model::TaskColumn), Qt::AscendingOrder);
    }

    void tasksSortInNaturalOrder()
    {
        Table t;
        t.rows.sort(Model::TaskColumn, Qt::AscendingOrder);
        const QStringList shown = shownTasks(t.rows);
        QCOMPARE(shown.mid(0, 3), QStringList({"worker:0", "worker:1", "worker:2"}));
        QCOMPARE(shown[10], QString("worker:10"));
        QCOMPARE(shown.last(), QString("worker:63"));
        t.rows.sort(Model::TaskColumn, Qt::DescendingOrder);
        QCOMPARE(shownTasks(t.rows).mid(0, 2), QStringList({"worker:63", "worker:62"}));
        // Hosts too: node-3 before node-10.
        t.rows.sort(Model::HostColumn, Qt::AscendingOrder);
        QCOMPARE(shownTasks(t.rows).mid(8, 5), QStringList({"worker:8", "worker:9", "worker:10", "worker:11", "worker:12"}));
    }

    // Step time, samples/s and steps as numbers (a text sort would put "100" before "55");
    // tasks that tie stay in their natural order whichever way.
    void numbersSortAsNumbers()
    {
        Table t;
        // 55 ms a step: worker:9, 25, 41, 57; then 54 ms: worker:2, 18, 34, 50.
        const QStringList slowest{"worker:9", "worker:25", "worker:41", "worker:57",
                                  "worker:2", "worker:18", "worker:34", "worker:50"};
        t.rows.sort(Model::StepTimeColumn, Qt::DescendingOrder);
        QCOMPARE(shownTasks(t.rows).mid(0, 8), slowest);
        t.rows.sort(Model::SamplesPerSecColumn, Qt::AscendingOrder);
        QCOMPARE(shownTasks(t.rows).mid(0, 8), slowest);
        // 40 ms: worker:0, 16, 32, 48; then 41 ms: worker:7, 23.
        t.rows.sort(Model::StepTimeColumn, Qt::AscendingOrder);
        QCOMPARE(shownTasks(t.rows).mid(0, 6),
                 QStringList({"worker:0", "worker:16", "worker:32", "worker:48", "worker:7", "worker:23"}));
        // Steps 18 (n mod 3 = 2) first.
        t.rows.sort(Model::StepColumn, Qt::AscendingOrder);
        QCOMPARE(shownTasks(t.rows).mid(0, 3), QStringList({"worker:2", "worker:5", "worker:8"}));
        QCOMPARE(shownTasks(t.rows).last(), QString("worker:63"));
    }

    // A task with nothing to sort by (an evaluator's step time, a process that has not ended)
    // goes last whichever the order.
    void nothingSortsLast()
    {
        Table t;
        t.store.setTaskPlace("evaluator:0", "node-1", "198.18.0.1");
        t.store.ingestLines("evaluator:0", R"({"v":1,"type":"hello","t":1000.0,"task":"evaluator:0","version":"0.1.0","schema":1,"host":"node-1","pid":99,"devices":[]}
)");
        t.store.taskEnded("worker:37", 1, false, "out of memory");
        t.refresh();
        QCOMPARE(t.model.rowCount(), 65);
        for (const Qt::SortOrder order : {Qt::AscendingOrder, Qt::DescendingOrder}) {
            t.rows.sort(Model::StepTimeColumn, order);
            QCOMPARE(shownTasks(t.rows).last(), QString("evaluator:0"));
            t.rows.sort(Model::ExitColumn, order);
            QCOMPARE(shownTasks(t.rows).first(), QString("worker:37")); // the one that exited
            QCOMPARE(shownTasks(t.rows).mid(1, 2), QStringList({"evaluator:0", "worker:0"})); // ties: natural order
        }
    }

    // Failures first: failed, lost, unreachable, ..., running, completed.
    void statesSortFailuresFirst()
    {
        Table t;
        t.store.taskEnded("worker:37", 1, false, "out of memory");
        t.store.setTaskReachable("worker:50", false, "no answer from node-13 for 20 s");
        t.refresh();
        t.rows.sort(Model::StateColumn, Qt::AscendingOrder);
        QCOMPARE(shownTasks(t.rows).mid(0, 3), QStringList({"worker:37", "worker:50", "worker:0"}));
        t.rows.sort(Model::StateColumn, Qt::DescendingOrder);
        QCOMPARE(shownTasks(t.rows).mid(0, 2), QStringList({"worker:0", "worker:1"}));
        QCOMPARE(shownTasks(t.rows).mid(62), QStringList({"worker:50", "worker:37"}));
        // A failed row reads as a failure; an unreachable task's state as a warning, with why.
        const QModelIndex failed = t.model.index(37, Model::ResultColumn);
        QCOMPARE(Model::Concern(failed.data(Model::ConcernRole).toInt()), Model::Concern::Failure);
        const QModelIndex unreachable = t.model.index(50, Model::StateColumn);
        QCOMPARE(unreachable.data().toString(), QString("unreachable"));
        QCOMPARE(Model::Concern(unreachable.data(Model::ConcernRole).toInt()), Model::Concern::Warning);
        QVERIFY(unreachable.data(Qt::ToolTipRole).toString().contains("node-13"));
        QCOMPARE(stateRank(t.model.task(37)), 0);
    }

    void filterMatchesTaskHostAndState()
    {
        Table t;
        t.store.taskEnded("worker:37", 1, false, "out of memory");
        t.refresh();
        t.rows.setFilterText("node-3");
        QCOMPARE(shownTasks(t.rows), QStringList({"worker:8", "worker:9", "worker:10", "worker:11"}));
        t.rows.setFilterText("FAILED");
        QCOMPARE(shownTasks(t.rows), QStringList({"worker:37"}));
        // Every word, each anywhere: worker:1 on node-1 (not worker:10-19, on node-3 to 5).
        t.rows.setFilterText(" worker:1  node-1 ");
        QCOMPARE(shownTasks(t.rows), QStringList({"worker:1"}));
        t.rows.setFilterText("worker:6");
        QCOMPARE(shownTasks(t.rows), QStringList({"worker:6", "worker:60", "worker:61", "worker:62", "worker:63"}));
        t.rows.setFilterText("no such task");
        QCOMPARE(t.rows.rowCount(), 0);
        t.rows.setFilterText("");
        QCOMPARE(t.rows.rowCount(), 64);
        QVERIFY(taskMatches(t.model.task(0), ""));
    }

    // A refresh tells the rows that changed: no reset, and the sort moves a row that changed
    // where it now belongs. New tasks are inserted; another run's tasks reset the rows.
    void aStragglerIsMarked()
    {
        // Its name in the warning colour with the mark, every cell of its row saying how much
        // slower since when (before what the cell says itself); a straggler that failed is red.
        TaskSummary slow;
        slow.task = "worker:3";
        slow.state = TaskState::Running;
        slow.straggling = true;
        slow.straggler = "worker:3 on b: 2.4x the median time per step (41 ms against 17 ms) since step 120";
        TaskSummary recovered = slow;
        recovered.task = "worker:4";
        recovered.straggling = false;
        TaskSummary lost = slow;
        lost.task = "worker:5";
        lost.lost = true;
        lost.lostReason = "killed by signal 9";
        lost.error = "exited";
        Model model;
        model.setTasks({slow, recovered, lost});
        const auto at = [&](int row, int column, int role) { return model.index(row, column).data(role); };
        QCOMPARE(at(0, Model::TaskColumn, Model::StragglingRole).toBool(), true);
        QCOMPARE(at(1, Model::TaskColumn, Model::StragglingRole).toBool(), false);
        QCOMPARE(Model::Concern(at(0, Model::TaskColumn, Model::ConcernRole).toInt()), Model::Concern::Warning);
        QCOMPARE(Model::Concern(at(0, Model::HostColumn, Model::ConcernRole).toInt()), Model::Concern::None);
        QCOMPARE(Model::Concern(at(1, Model::TaskColumn, Model::ConcernRole).toInt()), Model::Concern::None);
        QCOMPARE(Model::Concern(at(2, Model::TaskColumn, Model::ConcernRole).toInt()), Model::Concern::Failure);
        for (int column = 0; column < Model::ColumnCount; ++column) {
            QCOMPARE(at(0, column, Qt::ToolTipRole).toString(), slow.straggler);
            QCOMPARE(at(1, column, Qt::ToolTipRole).toString(), slow.straggler); // recovered: still said
        }
        QCOMPARE(at(2, Model::ResultColumn, Qt::ToolTipRole).toString(), slow.straggler + "\nkilled by signal 9\nexited");
    }

    void aRefreshKeepsTheSort()
    {
        Table t;
        t.rows.sort(Model::StepTimeColumn, Qt::DescendingOrder);
        QSignalSpy resets(&t.model, &QAbstractItemModel::modelReset);
        QSignalSpy changes(&t.model, &QAbstractItemModel::dataChanged);
        t.refresh();
        QCOMPARE(changes.count(), 0); // nothing changed
        t.store.ingestLines("worker:40", R"({"v":1,"type":"step","t":1003.0,"task":"worker:40","step":30,"epoch":0,"steps":10,"loss":1.2,"replicas":[{"replica":0,"device":"cpu:0","loss":1.2,"samples":320}],"time_ms":{"step":120.0,"compute":110.0,"comm":10.0,"input":0.0},"samples_per_sec":266.7}
)");
        t.refresh();
        QCOMPARE(resets.count(), 0);
        QCOMPARE(changes.count(), 1);
        QCOMPARE(shownTasks(t.rows).first(), QString("worker:40")); // now the slowest
        QCOMPARE(t.rows.index(0, Model::StepTimeColumn).data().toString(), QString("120 ms"));
        QSignalSpy inserted(&t.model, &QAbstractItemModel::rowsInserted);
        t.store.ingestLines("evaluator:0", R"({"v":1,"type":"hello","t":1000.0,"task":"evaluator:0","version":"0.1.0","schema":1,"host":"node-1","pid":99,"devices":[]}
)");
        t.refresh();
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(resets.count(), 0);
        QCOMPARE(t.rows.rowCount(), 65);
        t.store.clear(); // a new run
        apptest::feedLargeJob(t.store, 8, 2);
        t.refresh();
        QCOMPARE(resets.count(), 1);
        QCOMPARE(t.rows.rowCount(), 8);
    }
};

QTEST_GUILESS_MAIN(TestTaskTableModel)
#include "tst_task_table_model.moc"
