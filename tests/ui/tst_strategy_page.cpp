// The Strategy page's ParameterServer options against the document: the partitioner (each
// type writes the fields it needs, its own fields shown and edited, None removes it), the
// staleness bound (asynchronous: absent; bounded: k), the timeout (default 3 s), undo; and the
// Cluster page's hint and "Add tasks" for what a ParameterServer cluster lacks.

#include "app/experiment/cluster_editing.h"
#include "app/experiment/experiment_document.h"
#include "ui/setup/cluster_page.h"
#include "ui/setup/strategy_page.h"

#include "scripted_dialogs.h"

#include <QComboBox>
#include <QLineEdit>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QStackedWidget>
#include <QTest>

using namespace strata;

namespace {

// Picks `index` in `combo` as a user would (activated).
void choose(QComboBox* combo, int index)
{
    combo->setCurrentIndex(index);
    Q_EMIT combo->activated(index);
}

int indexOfData(QComboBox* combo, const QVariant& data)
{
    const int index = combo->findData(data);
    if (index < 0)
        qFatal("no item with data %s", qPrintable(data.toString()));
    return index;
}

template<typename T>
T* child(QWidget* parent, const QString& name)
{
    T* found = parent->findChild<T*>(name);
    if (!found)
        qFatal("no %s", qPrintable(name));
    return found;
}

} // namespace

class TestStrategyPage : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void parameterServerOptionsRoundTrip()
    {
        app::ExperimentDocument document;
        document.newDocument();
        ui::StrategyPage page(&document);
        page.show();
        auto* list = child<QListWidget>(&page, "strategyList");
        for (int row = 0; row < list->count(); ++row)
            if (list->item(row)->data(Qt::UserRole).toString() == "ParameterServer") {
                QVERIFY(!list->item(row)->text().contains("cannot run here"));
                list->setCurrentRow(row);
            }
        QCOMPARE(document.get("/strategy/type").toString(), QString("ParameterServer"));

        auto* partitioner = child<QComboBox>(&page, "partitioner");
        QCOMPARE(partitioner->currentData().toString(), QString()); // none
        choose(partitioner, indexOfData(partitioner, "FixedShards"));
        QCOMPARE(document.get("/strategy/partitioner/type").toString(), QString("FixedShards"));
        QCOMPARE(document.get("/strategy/partitioner/num_shards").toInt(), 2);
        auto* shards = child<QSpinBox>(&page, "FixedShards.num_shards");
        QCOMPARE(shards->value(), 2);
        QVERIFY(shards->isVisibleTo(&page));
        shards->setValue(4);
        QCOMPARE(document.get("/strategy/partitioner/num_shards").toInt(), 4);

        choose(partitioner, indexOfData(partitioner, "MaxSize"));
        QCOMPARE(document.get("/strategy/partitioner/max_shard_bytes").toLongLong(), qint64(64 * 1024));
        QVERIFY(!document.get("/strategy/partitioner/num_shards").isValid());
        auto* largest = child<QSpinBox>(&page, "MaxSize.max_shard_bytes");
        QVERIFY(largest->isVisibleTo(&page));
        QVERIFY(!shards->isVisibleTo(&page));
        largest->setValue(128); // KiB
        QCOMPARE(document.get("/strategy/partitioner/max_shard_bytes").toLongLong(), qint64(128 * 1024));
        auto* most = child<QSpinBox>(&page, "MaxSize.max_shards");
        QCOMPARE(most->text(), QString("no maximum"));
        most->setValue(3);
        QCOMPARE(document.get("/strategy/partitioner/max_shards").toInt(), 3);
        most->setValue(0);
        QVERIFY(!document.get("/strategy/partitioner/max_shards").isValid());
        for (const app::Problem& p : document.validation().problems) // the cluster's are the Cluster page's
            QVERIFY2(!p.path.startsWith("strategy"), qPrintable(p.text()));

        choose(partitioner, indexOfData(partitioner, "MinSize"));
        QCOMPARE(document.get("/strategy/partitioner/min_shard_bytes").toLongLong(), qint64(256 * 1024));
        QCOMPARE(child<QSpinBox>(&page, "MinSize.min_shard_bytes")->value(), 256);

        // The staleness bound: asynchronous is the field absent.
        auto* staleness = child<QComboBox>(&page, "staleness");
        auto* bound = child<QSpinBox>(&page, "max_staleness");
        QCOMPARE(staleness->currentIndex(), 0);
        QVERIFY(!bound->isEnabled());
        choose(staleness, 1);
        QCOMPARE(document.get("/strategy/max_staleness").toInt(), 0);
        QVERIFY(bound->isEnabled());
        bound->setValue(2);
        QCOMPARE(document.get("/strategy/max_staleness").toInt(), 2);

        auto* timeout = child<QLineEdit>(child<QStackedWidget>(&page, "strategyOptions")->currentWidget(), "timeout_seconds");
        QCOMPARE(timeout->placeholderText(), QString("3 (default)")); // the engine's ParameterServer default
        QTest::keyClicks(timeout, "5");
        QCOMPARE(document.get("/strategy/timeout_seconds").toDouble(), 5.0);

        // The document's own changes come back to the editors.
        document.undo(); // the timeout
        QVERIFY(timeout->text().isEmpty());
        document.undo(); // the bound (k = 0, then 2 at once: one edit)
        QCOMPARE(staleness->currentIndex(), 0);
        QVERIFY(!bound->isEnabled());
        QVERIFY(!document.get("/strategy/max_staleness").isValid());
        choose(partitioner, indexOfData(partitioner, QString()));
        QVERIFY(!document.get("/strategy/partitioner").isValid());
        QCOMPARE(partitioner->currentIndex(), 0);
    }

    void clusterPageSaysWhatParameterServerLacks()
    {
        app::ExperimentDocument document;
        document.newDocument();
        document.setValue("/strategy", QVariantMap{{"type", "ParameterServer"}});
        uitest::ScriptedDialogs dialogs;
        ui::ClusterPage page(&document, &dialogs);
        // The default cluster: one worker, so no chief and no ps task.
        QVERIFY(!page.taskHint()->isHidden());
        QVERIFY2(page.taskHint()->text().contains("exactly one chief task"), qPrintable(page.taskHint()->text()));
        QVERIFY(page.taskHint()->text().contains("Add tasks adds a chief"));
        auto* add = child<QPushButton>(&page, "addAssignment");
        add->click();
        QVERIFY(page.taskHint()->text().contains("at least one ps task"));
        add->click();
        QVERIFY2(page.taskHint()->isHidden(), qPrintable(page.taskHint()->text()));
        QVERIFY(document.validation().ok());
        app::ClusterEditing cluster(document);
        QCOMPARE(cluster.tasks(), QStringList({"chief:0", "worker:0", "ps:0"}));
        add->click(); // nothing lacks: another worker
        QCOMPARE(cluster.tasks(), QStringList({"chief:0", "worker:0", "worker:1", "ps:0"}));
    }
};

QTEST_MAIN(TestStrategyPage)
#include "tst_strategy_page.moc"
