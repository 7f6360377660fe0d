// HistoryModel over a RunHistory: rows and columns a QTableView shows (checked by Qt's
// QAbstractItemModelTester), the text, tooltip, alignment and sort value of every column,
// filters and header sorting re-querying the database, refresh after changes, and a failed
// query reported with the rows kept.

#include "history_test_util.h"

#include "app/history/history_model.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace strata::app;
using namespace historytest;

class TestHistoryModel : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    int m_files = 0;

    // A history of three runs, ids 1..3, started a minute apart.
    void fill(RunHistory& history)
    {
        QString error;
        QVERIFY2(history.open(m_dir.filePath(QStringLiteral("h-%1.sqlite").arg(++m_files)), &error), qPrintable(error));
        std::vector<RunRecord> runs{
            makeRun("fashion-mnist-mlp", "OneDevice", RunStatus::Completed, 1763800000, 0.8696, {"baseline"}),
            makeRun("fashion-mnist-mlp", "Mirrored", RunStatus::Failed, 1763800060, 0.1, {"b", "a"}),
            makeRun("cifar10-cnn", "Mirrored", RunStatus::Running, 1763800120),
        };
        runs[0].samplesPerSec = 21034.4;
        runs[0].wallSeconds = 3725;
        runs[2].metrics = "{}";
        runs[2].batchJob = "Slurm job 12: PENDING (Resources)";
        for (auto& r : runs)
            QVERIFY2(history.insertRun(r, &error), qPrintable(error));
    }

    static QList<qint64> ids(const HistoryModel& model)
    {
        QList<qint64> out;
        for (int row = 0; row < model.rowCount(); ++row)
            out << model.runId(row);
        return out;
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void columnsAndRoles()
    {
        RunHistory history;
        fill(history);
        HistoryModel model(&history);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0); // nothing read until asked
        QVERIFY(model.refresh());
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.columnCount(), int(HistoryModel::ColumnCount));
        QCOMPARE(ids(model), (QList<qint64>{3, 2, 1})); // newest first
        QCOMPARE(model.rowOf(1), 2);
        QCOMPARE(model.rowOf(42), -1);

        const QStringList headers{"Started", "Name", "Strategy", "Replicas", "Status", "Steps", "Samples/s",
                                  "Test accuracy", "Test loss", "Wall time", "Tags", "Against the plan"};
        for (int c = 0; c < model.columnCount(); ++c)
            QCOMPARE(model.headerData(c, Qt::Horizontal).toString(), headers[c]);

        const auto text = [&](int row, int column) { return model.index(row, column).data().toString(); };
        // The completed run (row 2).
        QCOMPARE(text(2, HistoryModel::StartedColumn), QDateTime::fromSecsSinceEpoch(1763800000).toString("yyyy-MM-dd HH:mm"));
        QCOMPARE(text(2, HistoryModel::NameColumn), QString("fashion-mnist-mlp"));
        QCOMPARE(text(2, HistoryModel::StrategyColumn), QString("OneDevice"));
        QCOMPARE(text(2, HistoryModel::ReplicasColumn), QString("1"));
        QCOMPARE(text(2, HistoryModel::StatusColumn), QString("completed"));
        QCOMPARE(text(2, HistoryModel::StepsColumn), QLocale().toString(1000));
        QCOMPARE(text(2, HistoryModel::SamplesPerSecColumn), QLocale().toString(21034.4, 'f', 0));
        QCOMPARE(text(2, HistoryModel::TestAccuracyColumn), QString("0.8696"));
        QCOMPARE(text(2, HistoryModel::TestLossColumn), QString("0.1304"));
        QCOMPARE(text(2, HistoryModel::WallTimeColumn), QString("1:02:05"));
        QCOMPARE(text(2, HistoryModel::TagsColumn), QString("baseline"));
        // The running one, a Slurm job waiting in the queue: Slurm's account beside the status;
        // no metrics, no wall time yet.
        QCOMPARE(text(0, HistoryModel::StatusColumn), QString("running · Slurm job 12: PENDING (Resources)"));
        QCOMPARE(model.index(0, HistoryModel::StatusColumn).data(HistoryModel::SortRole).toString(), QString("running"));
        QCOMPARE(model.index(0, HistoryModel::StatusColumn).data(Qt::ToolTipRole).toString(),
                 QString("Slurm job 12: PENDING (Resources)"));
        QCOMPARE(text(0, HistoryModel::TestAccuracyColumn), QString());
        QCOMPARE(text(0, HistoryModel::WallTimeColumn), QString());
        QCOMPARE(text(1, HistoryModel::TagsColumn), QString("a, b"));

        // Raw values for sorting, alignment, ids.
        QCOMPARE(model.index(2, HistoryModel::StartedColumn).data(HistoryModel::SortRole).toLongLong(), qint64(1763800000));
        QCOMPARE(model.index(2, HistoryModel::TestAccuracyColumn).data(HistoryModel::SortRole).toDouble(), 0.8696);
        QVERIFY(!model.index(0, HistoryModel::TestAccuracyColumn).data(HistoryModel::SortRole).isValid());
        QCOMPARE(model.index(2, HistoryModel::SamplesPerSecColumn).data(HistoryModel::SortRole).toDouble(), 21034.4);
        QCOMPARE(model.index(1, HistoryModel::NameColumn).data(HistoryModel::RunIdRole).toLongLong(), qint64(2));
        const auto alignment = [&](int column) {
            return model.index(0, column).data(Qt::TextAlignmentRole).value<Qt::Alignment>() & Qt::AlignHorizontal_Mask;
        };
        QCOMPARE(alignment(HistoryModel::StepsColumn), Qt::Alignment(Qt::AlignRight));
        QCOMPARE(alignment(HistoryModel::NameColumn), Qt::Alignment(Qt::AlignLeft));

        // Tooltips: what the cells leave out.
        const QString status = model.index(1, HistoryModel::StatusColumn).data(Qt::ToolTipRole).toString();
        QCOMPARE(status, QString("worker:0: exited with status 3"));
        const QString name = model.index(2, HistoryModel::NameColumn).data(Qt::ToolTipRole).toString();
        QVERIFY2(name.contains("/runs/fashion-mnist-mlp"), qPrintable(name));
        const QString metrics = model.index(2, HistoryModel::TestAccuracyColumn).data(Qt::ToolTipRole).toString();
        QCOMPARE(metrics, QString("train: accuracy 0.8600, loss 0.4000\ntest: accuracy 0.8696, loss 0.1304"));
        const QString started = model.index(2, HistoryModel::StartedColumn).data(Qt::ToolTipRole).toString();
        QVERIFY2(started.startsWith("Started ") && started.contains(", ended "), qPrintable(started));
    }

    void filterAndSortRequery()
    {
        RunHistory history;
        fill(history);
        HistoryModel model(&history);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        RunFilter filter;
        filter.strategy = "Mirrored";
        QVERIFY(model.setFilter(filter));
        QCOMPARE(ids(model), (QList<qint64>{3, 2}));
        QCOMPARE(reset.count(), 1);
        QCOMPARE(model.filter().strategy, QString("Mirrored"));

        // A header click: the database sorts, the filter stays.
        model.sort(HistoryModel::NameColumn, Qt::AscendingOrder);
        QCOMPARE(ids(model), (QList<qint64>{3, 2}));
        model.sort(HistoryModel::StartedColumn, Qt::AscendingOrder);
        QCOMPARE(ids(model), (QList<qint64>{2, 3}));
        QCOMPARE(model.filter().sort, RunFilter::StartedAt);
        QCOMPARE(model.filter().order, Qt::AscendingOrder);
        QCOMPARE(model.filter().strategy, QString("Mirrored"));
        model.sort(HistoryModel::TestAccuracyColumn, Qt::DescendingOrder);
        QCOMPARE(ids(model), (QList<qint64>{2, 3})); // the run without metrics last

        // Text and status filters.
        filter = {};
        filter.text = "cifar";
        QVERIFY(model.setFilter(filter));
        QCOMPARE(ids(model), QList<qint64>{3});
        filter = {};
        filter.status = RunStatus::Completed;
        QVERIFY(model.setFilter(filter));
        QCOMPARE(ids(model), QList<qint64>{1});

        // Changes show on refresh.
        QString error;
        QVERIFY2(history.rename(1, "first", &error), qPrintable(error));
        QVERIFY(model.refresh());
        QCOMPARE(model.index(0, HistoryModel::NameColumn).data().toString(), QString("first"));
    }

    void failedQueryKeepsTheRows()
    {
        RunHistory history;
        fill(history);
        HistoryModel model(&history);
        QVERIFY(model.refresh());
        QSignalSpy errors(&model, &HistoryModel::errorOccurred);
        history.close();
        QVERIFY(!model.refresh());
        QCOMPARE(errors.count(), 1);
        QVERIFY2(model.error().contains("is not open"), qPrintable(model.error()));
        QCOMPARE(errors.first().first().toString(), model.error());
        QCOMPARE(model.rowCount(), 3);
    }
};

QTEST_GUILESS_MAIN(TestHistoryModel)
#include "tst_history_model.moc"
