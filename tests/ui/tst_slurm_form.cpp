// The Cluster page's Slurm job as a user fills it in, with real input through the window (the
// widget under the cursor gets it: real_input.h): "A Slurm cluster" replaces the nodes and tasks
// by the job's settings; the nodes typed, the partition pasted from the line edit's context menu
// (a real right click), an extra #SBATCH line typed reach cluster.slurm and the job script shown;
// a time limit Slurm cannot read and a line that is no option are marked; "These machines"
// brings the nodes and tasks back as they were; undo restores the Slurm job, then the cluster
// before it. A node reached over SSH is picked as the login node. The page fits a 1280x720
// window without scrolling.

#include "app/experiment/cluster_editing.h"
#include "app/experiment/experiment_document.h"
#include "real_input.h"
#include "scripted_dialogs.h"
#include "ui/setup/cluster_page.h"
#include "ui/setup/field_marks.h"
#include "ui/setup/field_spin_box.h"
#include "ui/setup/slurm_job_box.h"
#include "ui/shell/main_window.h"

#include <QAbstractScrollArea>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QRadioButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QTableWidget>
#include <QtTest>
#include <QVBoxLayout>

using namespace strata;

namespace {

// The page in a shown window of the size the main window gives it.
struct Shown {
    QWidget window;

    explicit Shown(QWidget* page, QSize size = {1400, 900})
    {
        auto* layout = new QVBoxLayout(&window);
        page->setParent(&window);
        layout->addWidget(page);
        window.resize(size);
        window.show();
        window.activateWindow();
        if (!QTest::qWaitForWindowActive(&window))
            qFatal("the window is not shown");
    }
};

bool hasFocusIn(QWidget* editor)
{
    QWidget* focus = QApplication::focusWidget();
    return focus && (focus == editor || editor->isAncestorOf(focus));
}

// A click into `editor`'s text (a scroll area's viewport), as a hand puts the cursor there.
void clickInto(QWidget* editor)
{
    auto* area = qobject_cast<QAbstractScrollArea*>(editor);
    QWidget* target = area ? area->viewport() : editor;
    QVERIFY2(realinput::under(target, target->rect().center()), "nothing under the cursor");
    realinput::click(target, QPoint(target->width() / 4, target->height() / 2));
    QTRY_VERIFY(hasFocusIn(editor));
}

// Keys through the window, to the widget with the focus.
void keys(QWidget* widget, const QString& text)
{
    for (const QChar c : text)
        QTest::keyClick(realinput::windowOf(widget), c.toLatin1());
}

void key(QWidget* widget, Qt::Key k, Qt::KeyboardModifiers modifiers = {})
{
    QTest::keyClick(realinput::windowOf(widget), k, modifiers);
}

// Clicks into `editor`, selects its text and types `text`, then Return.
void typeInto(QWidget* editor, const QString& text)
{
    clickInto(editor);
    key(editor, Qt::Key_A, Qt::ControlModifier);
    keys(editor, text);
    key(editor, Qt::Key_Return);
}

QStringList tableRows(QTableWidget* table)
{
    QStringList rows;
    for (int r = 0; r < table->rowCount(); ++r) {
        QStringList cells;
        for (int c = 0; c < table->columnCount(); ++c)
            cells << (table->item(r, c) ? table->item(r, c)->text() : QString());
        rows << cells.join('|');
    }
    return rows;
}

} // namespace

class TestSlurmForm : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void slurmJobFilledInAndSwitchedBack()
    {
        app::ExperimentDocument document;
        document.newDocument();
        app::ClusterEditing cluster(document);
        cluster.chooseStrategy("MultiWorkerMirrored", {}); // two workers on this machine
        const app::Json before = document.json();
        uitest::ScriptedDialogs dialogs;
        auto* page = new ui::ClusterPage(&document, &dialogs);
        Shown shown(page);
        ui::SlurmJobBox* slurm = page->slurmBox();
        QVERIFY(page->machinesChoice()->isChecked());
        QVERIFY(page->nodeTable()->isVisible());
        QVERIFY(!slurm->isVisible());
        const QStringList nodeRows = tableRows(page->nodeTable());

        // "A Slurm cluster": the job's box instead of the nodes, tasks and TF_CONFIG.
        QRadioButton* slurmChoice = page->slurmChoice();
        realinput::click(slurmChoice, QPoint(8, slurmChoice->height() / 2));
        QTRY_VERIFY(slurm->isVisible());
        QVERIFY(cluster.isSlurmJob());
        QVERIFY(slurmChoice->isChecked());
        QVERIFY(!page->nodeTable()->isVisible());
        QVERIFY(!page->assignmentTable()->isVisible());
        QVERIFY(!page->preview()->isVisible());
        QCOMPARE(slurm->loginCombo()->currentText(), QString("This machine"));
        QCOMPARE(slurm->nodesBox()->value(), 1);
        QCOMPARE(slurm->tasksPerNodeBox()->value(), 2);
        QCOMPARE(slurm->taskNames()->text(), QString("worker:0, worker:1 (every task a worker)"));
        QVERIFY2(document.validation().ok(), qPrintable(document.validation().problems.value(0).text()));

        typeInto(slurm->nodesBox(), "3");
        QCOMPARE(document.value("/cluster/slurm/nodes"), app::Json(3));
        QCOMPARE(slurm->jobCountBox("worker")->value(), 6);

        // The partition pasted with the line edit's own menu, then the focus moves on.
        QApplication::clipboard()->setText("gpu");
        QLineEdit* partition = slurm->partitionEdit();
        const bool pasted = realinput::withContextMenu(partition, partition->rect().center(), [](QMenu* menu) {
            for (QAction* action : menu->actions())
                if (action->text().startsWith("&Paste") && action->isEnabled()) {
                    realinput::clickMenuItem(menu, action->text());
                    return;
                }
            QFAIL("the line edit's menu has no Paste");
        });
        QVERIFY2(pasted, "no context menu on the partition");
        QCOMPARE(partition->text(), QString("gpu"));

        // An extra #SBATCH line typed; clicking on to the time limit leaves it.
        QPlainTextEdit* extra = slurm->extraSbatchEdit();
        clickInto(extra);
        QCOMPARE(document.value("/cluster/slurm/partition"), app::Json("gpu")); // the partition was left
        keys(extra, "--mem=64G");
        auto* timeLimit = slurm->findChild<QLineEdit*>("time_limit");
        clickInto(timeLimit);
        QCOMPARE(document.value("/cluster/slurm/extra_sbatch"), app::Json::parse(R"(["--mem=64G"])"));
        const QString script = slurm->scriptPreview()->toPlainText();
        for (const char* line : {"#SBATCH --nodes=3\n", "#SBATCH --partition=gpu\n", "#SBATCH --mem=64G\n"})
            QVERIFY2(script.contains(line), qPrintable(script));
        QVERIFY(slurm->scriptPreview()->isReadOnly());

        // A time limit Slurm cannot read: written as typed and marked with the reason.
        keys(timeLimit, "soon");
        key(timeLimit, Qt::Key_Return);
        QCOMPARE(document.value("/cluster/slurm/time_limit"), app::Json("soon"));
        QVERIFY(ui::isMarked(timeLimit));
        QVERIFY2(ui::markReason(timeLimit).contains("is not one of Slurm's time formats"),
                 qPrintable(ui::markReason(timeLimit)));
        typeInto(timeLimit, "4:00:00");
        QVERIFY(!ui::isMarked(timeLimit));
        QVERIFY(slurm->scriptPreview()->toPlainText().contains("#SBATCH --time=4:00:00\n"));

        // A line that is no sbatch option: written, the editor marked with the reason; removed, unmarked.
        clickInto(extra);
        key(extra, Qt::Key_End, Qt::ControlModifier);
        key(extra, Qt::Key_Return);
        keys(extra, "mem=1G");
        clickInto(timeLimit);
        QCOMPARE(document.value("/cluster/slurm/extra_sbatch"), app::Json::parse(R"(["--mem=64G", "mem=1G"])"));
        QVERIFY(ui::isMarked(extra));
        QVERIFY2(ui::markReason(extra).contains("must be an sbatch option"), qPrintable(ui::markReason(extra)));
        clickInto(extra);
        key(extra, Qt::Key_End, Qt::ControlModifier);
        for (int i = 0; i < 7; ++i)
            key(extra, Qt::Key_Backspace);
        clickInto(timeLimit);
        QCOMPARE(document.value("/cluster/slurm/extra_sbatch"), app::Json::parse(R"(["--mem=64G"])"));
        QVERIFY(!ui::isMarked(extra));

        // "These machines": the nodes and tasks as they were.
        QRadioButton* machines = page->machinesChoice();
        realinput::click(machines, QPoint(8, machines->height() / 2));
        QTRY_VERIFY(page->nodeTable()->isVisible());
        QVERIFY(!slurm->isVisible());
        QVERIFY(!cluster.isSlurmJob());
        QCOMPARE(tableRows(page->nodeTable()), nodeRows);
        QCOMPARE(document.json(), before);
        QVERIFY(page->assignmentTable()->isVisible());

        // Undo: the Slurm job comes back as it was left, then the cluster before it.
        document.undo();
        QVERIFY(slurm->isVisible());
        QVERIFY(page->slurmChoice()->isChecked());
        QCOMPARE(slurm->nodesBox()->value(), 3);
        QCOMPARE(partition->text(), QString("gpu"));
        QCOMPARE(extra->toPlainText(), QString("--mem=64G"));
        while (document.canUndo() && cluster.isSlurmJob())
            document.undo();
        QCOMPARE(document.json(), before);
        QVERIFY(page->machinesChoice()->isChecked());
        QVERIFY(page->nodeTable()->isVisible());
        QCOMPARE(tableRows(page->nodeTable()), nodeRows);
    }

    // The cluster's login node, one of its nodes reached over SSH, picked from the list with the
    // mouse: the job is submitted from there, and the script names the engine as it is there.
    void loginNodeOverSshPicked()
    {
        app::ExperimentDocument document;
        document.newDocument();
        app::ClusterEditing cluster(document);
        cluster.chooseStrategy("MultiWorkerMirrored", {});
        app::ClusterNode login;
        login.name = "login";
        login.host = "login.hpc.example.org";
        login.auth = "agent";
        login.engine = "/shared/strata/bin/strata-engine";
        cluster.addNode(login);
        uitest::ScriptedDialogs dialogs;
        auto* page = new ui::ClusterPage(&document, &dialogs);
        Shown shown(page);
        QRadioButton* slurmChoice = page->slurmChoice();
        realinput::click(slurmChoice, QPoint(8, slurmChoice->height() / 2));
        ui::SlurmJobBox* slurm = page->slurmBox();
        QTRY_VERIFY(slurm->isVisible());

        QComboBox* combo = slurm->loginCombo();
        realinput::click(combo, combo->rect().center());
        QTRY_VERIFY(combo->view()->isVisible());
        const int item = combo->findText("login (over SSH)");
        QVERIFY2(item > 0, "the SSH node is not offered as the login node");
        QVERIFY(combo->model()->flags(combo->model()->index(item, 0)) & Qt::ItemIsEnabled);
        const QRect rect = combo->view()->visualRect(combo->model()->index(item, 0));
        realinput::click(combo->view()->viewport(), rect.center());
        QTRY_VERIFY(!combo->view()->isVisible());
        QCOMPARE(document.value("/cluster/slurm/login"), app::Json("login"));
        QCOMPARE(combo->currentText(), QString("login (over SSH)"));
        QVERIFY2(document.validation().ok(), qPrintable(document.validation().problems.value(0).text()));
        QVERIFY2(slurm->scriptPreview()->toPlainText().contains("engine=/shared/strata/bin/strata-engine\n"),
                 qPrintable(slurm->scriptPreview()->toPlainText()));
    }

    // In the window at 1280x720, the Slurm job's page shows whole: no scrolling to the settings.
    void fitsAt1280x720()
    {
        ui::MainWindow window({}, std::make_unique<uitest::ScriptedDialogs>());
        app::ClusterEditing cluster(window.document());
        cluster.chooseStrategy("MultiWorkerMirrored", {});
        cluster.setSlurmJob(true);
        cluster.setSlurmExtraSbatch({"--mem=64G", "--constraint=a100"});
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.resize(1280, 720);
        window.showPage(ui::MainWindow::ClusterPageIndex);
        QTRY_COMPARE(window.size(), QSize(1280, 720));
        ui::ClusterPage* page = window.clusterPage();
        QTRY_VERIFY(page->slurmBox()->isVisible());
        auto* scroll = qobject_cast<QScrollArea*>(page->parentWidget()->parentWidget());
        QVERIFY(scroll);
        QTRY_VERIFY2(!scroll->verticalScrollBar()->isVisible() && !scroll->horizontalScrollBar()->isVisible(),
                 qPrintable(QStringLiteral("the page needs %1x%2 in %3x%4")
                                .arg(page->minimumSizeHint().width())
                                .arg(page->minimumSizeHint().height())
                                .arg(scroll->viewport()->width())
                                .arg(scroll->viewport()->height())));
        // Every field of the job in view, none cut.
        for (QWidget* field : page->slurmBox()->findChildren<QWidget*>())
            if (field->isVisible() && (qobject_cast<QLineEdit*>(field) || qobject_cast<QAbstractSpinBox*>(field)))
                QVERIFY2(field->visibleRegion().boundingRect().size() == field->size(), qPrintable(field->objectName()));
    }
};

QTEST_MAIN(TestSlurmForm)
#include "tst_slurm_form.moc"
