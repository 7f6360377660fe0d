// The setup pages as a user fills them in, with real mouse clicks and keys: a spin box shows the
// document's value, a wrong one too, marked with the reason, and what is typed (a wrong value
// too) is written; problems are named with the pages' labels and their fields outlined; the
// data directory is checked before Launch; a strategy of one process says the cluster is not
// used, one of several gets a job that validates with one click; ParameterServer's global batch
// is one worker's batch; fields are as wide as their content; a field the document does not
// write shows the engine's default, from its table (strata/schema/defaults.h).

#include "app/experiment/cluster_editing.h"
#include "app/experiment/experiment_document.h"
#include "ui/setup/cluster_page.h"
#include "ui/setup/data_page.h"
#include "ui/setup/field_marks.h"
#include "ui/setup/field_spin_box.h"
#include "ui/setup/model_page.h"
#include "ui/setup/strategy_page.h"
#include "ui/setup/training_page.h"
#include "ui/setup/validation_panel.h"

#include "scripted_dialogs.h"

#include "strata/schema/defaults.h"
#include "strata/schema/experiment.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QTest>
#include <QVBoxLayout>

#include <algorithm>

using namespace strata;

namespace {

// The child of that name shown (the forms of other source types have theirs too).
template<typename T>
T* child(QWidget* parent, const QString& name)
{
    const QList<T*> all = parent->findChildren<T*>(name);
    for (T* found : all)
        if (found->isVisibleTo(parent))
            return found;
    if (all.isEmpty())
        qFatal("no %s", qPrintable(name));
    return all.front();
}

// A left click on what is under `point` of `widget`, as a user's: sent to the window's child
// there (childAt: the offscreen screen is smaller than the window, so widgetAt cannot see it all).
void clickAt(QWidget* widget, QPoint point)
{
    QWidget* window = widget->window();
    const QPoint at = widget->mapTo(window, point);
    QWidget* under = window->childAt(at);
    QVERIFY2(under, "nothing under the cursor");
    QTest::mouseClick(under, Qt::LeftButton, {}, under->mapFrom(window, at));
}

// Clicks into `editor`, selects its text and types `text`, then Return.
void typeInto(QWidget* editor, const QString& text)
{
    clickAt(editor, editor->rect().center() - QPoint(editor->width() / 4, 0));
    QTRY_VERIFY(QApplication::focusWidget() && (QApplication::focusWidget() == editor ||
                                                editor->isAncestorOf(QApplication::focusWidget())));
    QWidget* focus = QApplication::focusWidget();
    QTest::keyClick(focus, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(focus, text);
    QTest::keyClick(focus, Qt::Key_Return);
}

// A page in a shown window of the size the main window gives it, with the validation panel.
struct Shown {
    QWidget window;
    app::ExperimentDocument* document;
    ui::ValidationPanel* panel;

    Shown(app::ExperimentDocument* doc, QWidget* page, QSize size = {1400, 860}) : document(doc)
    {
        auto* layout = new QVBoxLayout(&window);
        page->setParent(&window);
        layout->addWidget(page, 1);
        panel = new ui::ValidationPanel(doc, &window);
        layout->addWidget(panel);
        window.resize(size);
        window.show();
        window.activateWindow();
        if (!QTest::qWaitForWindowActive(&window))
            qFatal("the window is not shown");
    }

    QStringList problems() const
    {
        QStringList out;
        auto* list = child<QListWidget>(panel, "problemList");
        for (int i = 0; i < list->count(); ++i)
            out << list->item(i)->text();
        return out;
    }
};

QString text(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

// A document that writes no optional field: every editor shows what the engine would use.
app::Json bareExperiment()
{
    return app::Json::parse(R"({
      "strata": 1,
      "model": {"input_shape": [4], "layers": [{"type": "Dense", "units": 2}]},
      "data": {"source": {"type": "synthetic"}},
      "training": {}
    })");
}

bool hasProblemAt(const app::ExperimentDocument& document, const QString& path)
{
    for (const app::Problem& p : document.validation().problems)
        if (p.path == path)
            return true;
    return false;
}

} // namespace

class TestSetupForms : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // A Dense layer loaded with "units": 0 showed 1 and typing 1 changed nothing.
    void spinBoxShowsAndWritesTheDocumentsValue()
    {
        app::ExperimentDocument document;
        document.newDocument();
        document.setValue("/model/layers/1/units", 0);
        uitest::ScriptedDialogs dialogs;
        auto* page = new ui::ModelPage(&document, &dialogs);
        Shown shown(&document, page);
        auto* table = child<QTableWidget>(page, "layerTable");
        clickAt(table->viewport(), table->visualRect(table->model()->index(1, 1)).center());
        auto* units = child<ui::FieldSpinBox>(page, "units");
        QTRY_VERIFY(units->isVisible());
        QCOMPARE(units->text(), QString("0"));
        QVERIFY(ui::isMarked(units));
        QVERIFY(child<QWidget>(units, "fieldOutline")->isVisible());
        QVERIFY2(units->toolTip().startsWith("must be between 1 and"), qPrintable(units->toolTip()));
        QVERIFY(shown.problems().contains("Model: layer 2 (Dense): units: must be between 1 and 1000000000, got 0"));

        typeInto(units, "1");
        QCOMPARE(document.get("/model/layers/1/units").toInt(), 1);
        QVERIFY(!ui::isMarked(units));
        QVERIFY(!child<QWidget>(units, "fieldOutline")->isVisible());
        QVERIFY(!hasProblemAt(document, "model.layers[1].units"));
        QVERIFY(!units->toolTip().startsWith("must"));

        // A value out of range is written and stays, marked, when the editor loses the focus.
        typeInto(units, "0");
        QCOMPARE(document.get("/model/layers/1/units").toInt(), 0);
        clickAt(table->viewport(), table->visualRect(table->model()->index(0, 1)).center());
        clickAt(table->viewport(), table->visualRect(table->model()->index(1, 1)).center());
        units = child<ui::FieldSpinBox>(page, "units");
        QCOMPARE(units->text(), QString("0"));
        QVERIFY(ui::isMarked(units));
        // The arrows step into the allowed range.
        QTest::keyClick(units, Qt::Key_Up);
        QCOMPARE(document.get("/model/layers/1/units").toInt(), 1);
        QTest::keyClick(units, Qt::Key_Down);
        QCOMPARE(document.get("/model/layers/1/units").toInt(), 1);
    }

    // A special text ("never") stands for the allowed minimum; a number below it is shown.
    void specialTextAndValuesBelowIt()
    {
        app::ExperimentDocument document;
        document.newDocument();
        document.setValue("/training/checkpoint/every_steps", -3);
        auto* page = new ui::TrainingPage(&document);
        Shown shown(&document, page);
        auto* steps = child<ui::FieldSpinBox>(page, "checkpointSteps");
        QCOMPARE(steps->text(), QString("-3"));
        QVERIFY(ui::isMarked(steps));
        QVERIFY(shown.problems().join('\n').contains("Training: Checkpoints: Every N steps: "));
        typeInto(steps, "never");
        QCOMPARE(document.get("/training/checkpoint/every_steps").toInt(), 0);
        QCOMPARE(steps->text(), QString("never"));
        QVERIFY(!ui::isMarked(steps));
    }

    // MultiWorkerMirrored's bucket size takes "auto" (docs/tuning.md), typed or stepped down
    // to below 1 KiB, and back to a size.
    void bucketSizeTakesAuto()
    {
        app::ExperimentDocument document;
        document.newDocument();
        document.setType("/strategy", "MultiWorkerMirrored");
        auto* page = new ui::StrategyPage(&document);
        Shown shown(&document, page);
        auto* bucket = child<ui::FieldSpinBox>(page, "bucket_bytes");
        typeInto(bucket, "auto");
        QCOMPARE(document.get("/strategy/bucket_bytes").toString(), QString("auto"));
        QCOMPARE(bucket->text(), QString("auto"));
        QVERIFY(!shown.problems().join('\n').contains("bucket"));
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Up);
        QCOMPARE(document.get("/strategy/bucket_bytes").toLongLong(), 256LL * 1024);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Down);
        QCOMPARE(document.get("/strategy/bucket_bytes").toString(), QString("auto"));
        document.setValue("/strategy/bucket_bytes", 64 * 1024);
        QCOMPARE(bucket->value(), 64);
    }

    // The data directory is checked before Launch; the field is outlined, the problem named.
    void dataDirectoryCheckedBeforeLaunch()
    {
        app::ExperimentDocument document;
        document.newDocument();
        document.setValue("/data/source/dir", "/nonexistent/fashion");
        uitest::ScriptedDialogs dialogs;
        auto* page = new ui::DataPage(&document, &dialogs);
        Shown shown(&document, page);
        auto* path = child<QLineEdit>(child<QWidget>(page, "dir"), "path");
        QVERIFY(ui::isMarked(path));
        QVERIFY2(shown.problems().value(0).startsWith("Data: Dataset: Directory: /nonexistent/fashion: directory "
                                                      "not found"),
                 qPrintable(shown.problems().join('\n')));
        QVERIFY(!shown.panel->launchEnabled());
        typeInto(path, "/usr/share/datasets/fashion-mnist");
        QCOMPARE(document.get("/data/source/dir").toString(), QString("/usr/share/datasets/fashion-mnist"));
        QVERIFY(!ui::isMarked(path));
        QVERIFY2(shown.panel->launchEnabled(), qPrintable(shown.problems().join('\n')));
    }

    // OneDevice showed a worker task and its TF_CONFIG; choosing ParameterServer then greeted
    // the user with errors until three more clicks.
    void strategiesAndTheirClusters()
    {
        app::ExperimentDocument document;
        document.newDocument();
        uitest::ScriptedDialogs dialogs;
        auto* both = new QWidget;
        auto* layout = new QVBoxLayout(both);
        auto* strategy = new ui::StrategyPage(&document, both);
        auto* cluster = new ui::ClusterPage(&document, &dialogs, both);
        layout->addWidget(strategy);
        layout->addWidget(cluster);
        Shown shown(&document, both, {1400, 1000});
        QVERIFY(cluster->notUsedNotice()->isVisible());
        QVERIFY2(cluster->notUsedNotice()->text().contains("OneDevice trains in one process, on this machine"),
                 qPrintable(cluster->notUsedNotice()->text()));
        QVERIFY(!cluster->assignmentTable()->isVisible());
        QVERIFY(!cluster->preview()->isVisible());

        auto* list = child<QListWidget>(strategy, "strategyList");
        const auto row = [list](const QString& type) {
            for (int i = 0; i < list->count(); ++i)
                if (list->item(i)->data(Qt::UserRole).toString() == type)
                    return list->visualItemRect(list->item(i)).center();
            qFatal("no %s", qPrintable(type));
        };
        clickAt(list->viewport(), row("ParameterServer"));
        QCOMPARE(document.get("/strategy/type").toString(), QString("ParameterServer"));
        QVERIFY2(document.validation().ok(), qPrintable(shown.problems().join('\n')));
        QVERIFY(!cluster->notUsedNotice()->isVisible());
        QVERIFY(cluster->assignmentTable()->isVisible());
        QVERIFY(cluster->taskHint()->isHidden());
        QCOMPARE(app::ClusterEditing(document).tasks(), QStringList({"chief:0", "worker:0", "worker:1", "ps:0", "ps:1"}));
        QVERIFY(cluster->preview()->toPlainText().contains("\"ps\""));

        clickAt(list->viewport(), row("Mirrored"));
        QVERIFY2(document.validation().ok(), qPrintable(shown.problems().join('\n')));
        QVERIFY(cluster->notUsedNotice()->isVisible());
        QVERIFY(cluster->notUsedNotice()->text().contains("Mirrored trains in one process"));
    }

    void oneClickSetsUpALocalJob()
    {
        app::ExperimentDocument document;
        document.newDocument();
        document.setValue("/strategy", QVariantMap{{"type", "MultiWorkerMirrored"}}); // one worker, as loaded
        uitest::ScriptedDialogs dialogs;
        auto* page = new ui::ClusterPage(&document, &dialogs);
        Shown shown(&document, page);
        QPushButton* setUp = page->setUpLocalButton();
        QVERIFY(setUp->isVisible());
        QCOMPARE(setUp->text(), QString("Set up 2 workers on this machine"));
        clickAt(setUp, setUp->rect().center());
        QCOMPARE(app::ClusterEditing(document).tasks(), QStringList({"worker:0", "worker:1"}));
        QVERIFY2(document.validation().ok(), qPrintable(shown.problems().join('\n')));
        QCOMPARE(document.validation().workers, 2);
    }

    // Each task its own GPUs: the task list says each task's share of its node's GPUs (the
    // count is known after Check nodes), and the preview still follows the task selected.
    void taskListSaysEachTasksGpus()
    {
        app::ExperimentDocument document;
        document.newDocument();
        document.setValue("/strategy", QVariantMap{{"type", "MultiWorkerMirrored"}});
        uitest::ScriptedDialogs dialogs;
        auto* page = new ui::ClusterPage(&document, &dialogs);
        Shown shown(&document, page);
        QCOMPARE(page->taskList()->count(), 1);
        QCOMPARE(page->taskList()->item(0)->text(), QString("worker:0")); // alone: the whole node
        clickAt(page->setUpLocalButton(), page->setUpLocalButton()->rect().center());
        QCOMPARE(page->taskList()->count(), 2);
        QCOMPARE(page->taskList()->item(1)->text(), QString("worker:1: its share of the node's GPUs (1 of 2 tasks)"));
        QVERIFY(page->taskList()->item(1)->toolTip().contains("CUDA_VISIBLE_DEVICES"));
        document.setValue("/cluster/gpus_per_task", 2);
        QCOMPARE(page->taskList()->item(0)->text(), QString("worker:0: 2 of the node's GPUs (gpus_per_task)"));
        page->taskList()->setCurrentRow(1);
        QVERIFY2(page->preview()->toPlainText().contains("\"index\": 1"), qPrintable(page->preview()->toPlainText()));
    }

    // A count of 0 in the file showed 1.
    void clusterCellsShowTheDocumentsValue()
    {
        app::ExperimentDocument document;
        document.newDocument();
        document.setValue("/strategy", QVariantMap{{"type", "MultiWorkerMirrored"}});
        document.setValue("/cluster", QVariantMap{{"nodes", QVariantList{QVariantMap{{"name", "local"}, {"host", "localhost"}}}},
                                                  {"tasks", QVariantList{QVariantMap{{"type", "worker"}, {"node", "local"},
                                                                                     {"count", 0}}}}});
        uitest::ScriptedDialogs dialogs;
        auto* page = new ui::ClusterPage(&document, &dialogs);
        Shown shown(&document, page);
        auto* count = qobject_cast<ui::FieldSpinBox*>(page->assignmentTable()->cellWidget(0, 2));
        QVERIFY(count);
        QCOMPARE(count->text(), QString("0"));
        QVERIFY(ui::isMarked(count));
        typeInto(count, "2");
        QCOMPARE(document.get("/cluster/tasks/0/count").toInt(), 2);
        QVERIFY(!ui::isMarked(count));
    }

    // The Training page said 64 (32 x 2 workers); the engine's step is one worker's 32.
    void parameterServerGlobalBatch()
    {
        app::ExperimentDocument document;
        document.newDocument();
        app::ClusterEditing(document).chooseStrategy("ParameterServer", {});
        auto* page = new ui::TrainingPage(&document);
        Shown shown(&document, page);
        const QString text = child<QLabel>(page, "globalBatch")->text();
        QVERIFY2(text.contains("global batch 32 (each step is one worker's batch"), qPrintable(text));
        QVERIFY(child<QLabel>(shown.panel, "runSummary")->text().contains("global batch 32."));
    }

    // The editors of absent fields show the engine's defaults (the table), not numbers of their own.
    void trainingPageShowsTheEnginesDefaults()
    {
        app::ExperimentDocument document;
        document.replace(bareExperiment(), "bare");
        auto* page = new ui::TrainingPage(&document);
        Shown shown(&document, page);
        using namespace strata::schema;
        const QList<std::pair<const char*, int64_t>> counts{{"epochs", defaultInteger("training.epochs")},
                                                            {"batchSize", defaultInteger("training.batch_size")},
                                                            {"stepsPerEpoch", defaultInteger("training.steps_per_epoch")},
                                                            {"threads", defaultInteger("training.threads")},
                                                            {"seed", defaultInteger("seed")},
                                                            {"checkpointEpochs", defaultInteger("training.checkpoint.every_epochs")},
                                                            {"checkpointSteps", defaultInteger("training.checkpoint.every_steps")}};
        for (const auto& [name, value] : counts)
            QVERIFY2(child<ui::FieldSpinBox>(page, name)->value() == value, name);
        QCOMPARE(child<QCheckBox>(page, "fromLogits")->isChecked(), defaultFlag("training.loss.from_logits"));
        QCOMPARE(child<QCheckBox>(page, "checkpointEnabled")->isChecked(), defaultFlag("training.checkpoint.enabled"));
        const std::vector<std::string> metrics = namesOf(defaultNames("training.metrics"));
        for (const char* metric : {"accuracy", "mae", "mse"})
            QVERIFY2(child<QCheckBox>(page, QString("metric_") + metric)->isChecked() ==
                         (std::find(metrics.begin(), metrics.end(), metric) != metrics.end()),
                     metric);
        QCOMPARE(child<QComboBox>(page, "loss")->currentText(), text(defaultText("training.loss.type")));
        QCOMPARE(child<QComboBox>(page, "optimizer")->currentText(), text(defaultText("training.optimizer.type")));
        QCOMPARE(child<QComboBox>(page, "lrScaling")->currentData().toString(), text(defaultText("training.lr_scaling")));
        // Adam's form, its placeholders the engine's numbers.
        for (const char* field : {"beta_1", "beta_2", "epsilon"})
            QCOMPARE(child<QLineEdit>(page, field)->placeholderText(),
                     QString::number(defaultWhen<double>(std::string("training.optimizer.") + field, "adam")));
        QCOMPARE(child<QLineEdit>(page, "epsilon")->placeholderText(), QString("1e-07"));
        document.setType("/training/optimizer", "rmsprop");
        QCOMPARE(child<QLineEdit>(page, "rho")->placeholderText(), QString::number(defaultNumber("training.optimizer.rho")));
        QCOMPARE(child<QLineEdit>(page, "momentum")->placeholderText(),
                 QString::number(defaultNumber("training.optimizer.momentum")));
    }

    void dataPageShowsTheEnginesDefaults()
    {
        app::ExperimentDocument document;
        document.replace(bareExperiment(), "bare");
        uitest::ScriptedDialogs dialogs;
        auto* page = new ui::DataPage(&document, &dialogs);
        Shown shown(&document, page);
        using namespace strata::schema;
        QCOMPARE(child<QComboBox>(page, "validation")->currentData().toString(), text(defaultText("data.validation")));
        QCOMPARE(child<QComboBox>(page, "shardPolicy")->currentData().toString(), text(defaultText("data.shard_policy")));
        QCOMPARE(child<QCheckBox>(page, "shuffle")->isChecked(), defaultFlag("data.shuffle"));
        QCOMPARE(child<QCheckBox>(page, "evaluateTest")->isChecked(), defaultFlag("data.evaluate_test"));
        QCOMPARE(child<ui::FieldSpinBox>(page, "prefetch")->value(), int(defaultInteger("data.prefetch")));
        QCOMPARE(child<ui::FieldSpinBox>(page, "trainLimit")->value(), int(defaultInteger("data.train_limit")));
        QCOMPARE(child<ui::FieldSpinBox>(page, "testLimit")->value(), int(defaultInteger("data.test_limit")));
        // The synthetic task the engine generates when none is named (the page said classification).
        QCOMPARE(child<QComboBox>(page, "task")->currentData().toString(), text(defaultText("data.source.task")));
        for (const char* field : {"samples", "test_samples", "features", "classes"})
            QVERIFY2(child<ui::FieldSpinBox>(page, field)->value() ==
                         defaultWhen<int64_t>(std::string("data.source.") + field, ""),
                     field);
        document.setType("/data/source", "text");
        QCOMPARE(child<ui::FieldSpinBox>(page, "vocabSize")->value(), int(defaultInteger("data.source.vocab_size")));
        QCOMPARE(child<ui::FieldSpinBox>(page, "maxLength")->value(), int(defaultInteger("data.source.max_length")));
        document.setType("/data/source", "fashion_mnist");
        QCOMPARE(child<QLineEdit>(child<QWidget>(page, "dir"), "path")->placeholderText(),
                 text(defaultText("data.source.dir", "fashion_mnist")));
    }

    void strategyPageShowsTheEnginesDefaults()
    {
        app::ExperimentDocument document;
        document.replace(bareExperiment(), "bare");
        auto* page = new ui::StrategyPage(&document);
        Shown shown(&document, page);
        using namespace strata::schema;
        QCOMPARE(child<QListWidget>(page, "strategyList")->currentItem()->data(Qt::UserRole).toString(),
                 text(defaultText("strategy.type")));
        QCOMPARE(child<QComboBox>(page, "device")->currentText(), text(defaultText("strategy.device")));
        QCOMPARE(child<ui::FieldSpinBox>(page, "logicalCpuDevices")->value(),
                 int(defaultInteger("strategy.logical_cpu_devices")));
        QCOMPARE(child<ui::FieldSpinBox>(page, "logicalGpuDevices")->value(),
                 int(defaultInteger("strategy.logical_gpu_devices")));
        document.setType("/strategy", "Mirrored");
        QCOMPARE(child<QComboBox>(page, "cross_device_ops")->currentData().toString(),
                 text(defaultText("strategy.cross_device_ops")));
        document.setType("/strategy", "CentralStorage");
        QCOMPARE(child<QComboBox>(page, "parameter_device")->currentText(), text(defaultText("strategy.parameter_device")));
        document.setType("/strategy", "MultiWorkerMirrored");
        QCOMPARE(child<ui::FieldSpinBox>(page, "bucket_bytes")->value(), int(defaultInteger("strategy.bucket_bytes") / 1024));
        QCOMPARE(child<QLineEdit>(page, "timeout_seconds")->placeholderText(),
                 QString("%1 (default)").arg(defaultWhen<double>("strategy.timeout_seconds", "MultiWorkerMirrored")));
        document.setType("/strategy", "ParameterServer");
        QCOMPARE(child<QLineEdit>(page, "timeout_seconds")->placeholderText(),
                 QString("%1 (default)").arg(kParameterServerTimeoutSeconds));
        document.setValue("/strategy/partitioner", QVariantMap{{"type", "MinSize"}});
        QCOMPARE(child<ui::FieldSpinBox>(page, "MinSize.max_shards")->value(),
                 int(defaultInteger("strategy.partitioner.max_shards", "MinSize")));
        QCOMPARE(child<ui::FieldSpinBox>(page, "MinSize.min_shard_bytes")->value(),
                 int(defaultInteger("strategy.partitioner.min_shard_bytes") / 1024));
    }

    // Fields stretched across the page beside 100 px ones.
    void fieldsAreAsWideAsTheirContent()
    {
        app::ExperimentDocument document;
        document.newDocument();
        app::ClusterEditing(document).chooseStrategy("ParameterServer", {});
        uitest::ScriptedDialogs dialogs;
        auto* model = new ui::ModelPage(&document, &dialogs);
        model->selectLayer(1);
        for (QWidget* page : std::initializer_list<QWidget*>{new ui::StrategyPage(&document), model,
                                                             new ui::DataPage(&document, &dialogs),
                                                             new ui::TrainingPage(&document)}) {
            Shown shown(&document, page, {1600, 1000});
            for (QWidget* field : page->findChildren<QWidget*>()) {
                if (!field->isVisible() || !(qobject_cast<QLineEdit*>(field) || qobject_cast<QComboBox*>(field) ||
                                             qobject_cast<QAbstractSpinBox*>(field)))
                    continue;
                QVERIFY2(field->width() <= 640, qPrintable(QString("%1 %2 on %3: %4 px")
                                                               .arg(field->metaObject()->className(),
                                                                    field->objectName(),
                                                                    page->metaObject()->className())
                                                               .arg(field->width())));
            }
        }
    }
};

QTEST_MAIN(TestSetupForms)
#include "tst_setup_forms.moc"
