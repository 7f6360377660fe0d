#include "ui/setup/cluster_page.h"

#include "app/experiment/field_labels.h"
#include "app/experiment/task_gpus_text.h"
#include "app/launch/engine_info.h"
#include "app/launch/node_check.h"
#include "app/ssh/connection.h"
#include "app/metrics/display_text.h"
#include "ui/setup/field_marks.h"
#include "ui/setup/field_spin_box.h"
#include "ui/setup/slurm_job_box.h"
#include "ui/shell/dialogs.h"
#include "ui/shell/theme.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>

namespace strata::ui {

namespace {
enum NodeColumn { NodeName, NodeHost, NodePort, NodeUser, NodeAuth, NodeKey, NodeEngine, NodeWorkDir, NodeColumns };
enum TaskColumn { TaskType, TaskNode, TaskCount, TaskPort, TaskColumns };

QPushButton* button(const QString& name, const QString& text, QWidget* parent)
{
    auto* b = new QPushButton(text, parent);
    b->setObjectName(name);
    return b;
}

// Cell editors are made once per row and updated in place: a refresh never deletes the
// editor the user is working in.
template<typename Editor, typename Make>
Editor* cellEditor(QTableWidget* table, int row, int column, Make make)
{
    if (auto* existing = qobject_cast<Editor*>(table->cellWidget(row, column)))
        return existing;
    Editor* editor = make();
    table->setCellWidget(row, column, editor);
    return editor;
}

void showChoice(QComboBox* combo, const QStringList& items, const QString& current)
{
    const QSignalBlocker blocker(combo);
    combo->clear();
    combo->addItems(items);
    if (combo->findText(current) < 0)
        combo->addItem(current); // as written; validation names the problem
    combo->setCurrentText(current);
}

void showNumber(FieldSpinBox* spin, int value)
{
    const QSignalBlocker blocker(spin);
    spin->setValue(value);
}

FieldSpinBox* spin(int minimum, int maximum, const QString& special = {})
{
    auto* s = new FieldSpinBox;
    s->setAllowedRange(minimum, maximum);
    s->setKeyboardTracking(false); // one edit when the user is done typing
    s->setSpecialText(special);
    return s;
}

// A table as tall as its rows (at least `least`, at most `most`, then it scrolls): no empty
// rows below one local node.
void fitRows(QTableWidget* table, int least, int most)
{
    const int rowHeight = table->rowCount() > 0 ? table->rowHeight(0) : table->verticalHeader()->defaultSectionSize();
    const int rows = std::clamp(table->rowCount(), least, most);
    const int scrollBar = table->horizontalScrollBar()->isVisible() ? table->horizontalScrollBar()->height() : 0;
    table->setFixedHeight(table->horizontalHeader()->height() + rows * rowHeight + 2 * table->frameWidth() + scrollBar);
}

// A cell editor marked while validation finds a problem with its field.
template<typename Editor>
Editor* marked(Editor* editor, app::ExperimentDocument* document, const QString& path)
{
    markProblems(editor, document, path);
    return editor;
}
} // namespace

ClusterPage::~ClusterPage() = default;

ClusterPage::ClusterPage(app::ExperimentDocument* document, Dialogs* dialogs, QWidget* parent)
    : QWidget(parent), m_document(document), m_cluster(*document), m_dialogs(dialogs),
      m_localEngine(app::defaultEnginePath()), m_nodes(new QTableWidget(0, NodeColumns, this)),
      m_stopUnattended(spin(0, std::numeric_limits<int>::max(), tr("never"))),
      m_check(button("checkNodes", tr("Check nodes"), this)), m_checkState(new QLabel(this)),
      m_checks(new QTableWidget(0, CheckColumns, this)), m_assignments(new QTableWidget(0, TaskColumns, this)),
      m_tasks(new QListWidget(this)), m_preview(new QPlainTextEdit(this)), m_taskHint(new QLabel(this)),
      m_notUsed(new QLabel(this)), m_setUpLocal(button("setUpLocalJob", QString(), this))
{
    QWidget* where = makeWhereRow();
    QGroupBox* nodesBox = makeNodesBox(document);
    QGroupBox* tasksBox = makeTasksBox();
    QGroupBox* previewBox = makePreviewBox();
    m_slurm = new SlurmJobBox(document, this);
    m_slurm->setEngine(m_localEngine);

    // A strategy of one process has no tasks to assign: said instead of a cluster that does not apply.
    m_notUsed->setObjectName("clusterNotUsed");
    m_notUsed->setWordWrap(true);
    m_notUsed->setTextFormat(Qt::RichText);
    m_notUsed->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_boxes = {nodesBox, tasksBox, previewBox};

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(where);
    layout->addWidget(m_notUsed);
    layout->addWidget(nodesBox);
    layout->addWidget(tasksBox);
    layout->addWidget(previewBox, 1);
    layout->addWidget(m_slurm, 1);
    m_notUsedStretch = new QWidget(this); // keeps the notice at the top when it is alone
    layout->addWidget(m_notUsedStretch, 1);

    connect(document, &app::ExperimentDocument::changed, this, &ClusterPage::refresh);
    refresh();
}

// Where the tasks run: these machines (the nodes and tasks), or a Slurm cluster.
QWidget* ClusterPage::makeWhereRow()
{
    auto* row = new QWidget(this);
    row->setObjectName("whereTasksRun");
    m_onMachines = new QRadioButton(tr("These machines"), row);
    m_onMachines->setObjectName("runOnMachines");
    m_onMachines->setToolTip(tr("Strata starts each task on its node: this machine, or a node over SSH"));
    m_onSlurm = new QRadioButton(tr("A Slurm cluster"), row);
    m_onSlurm->setObjectName("runOnSlurm");
    m_onSlurm->setToolTip(tr("Strata submits the run to Slurm as one batch job (sbatch), and Slurm places the "
                             "tasks on its nodes; the nodes and tasks set for these machines are kept"));
    // Clicked, not toggled: a refresh that shows the document's choice edits nothing.
    connect(m_onMachines, &QRadioButton::clicked, this, [this] { m_cluster.setSlurmJob(false); });
    connect(m_onSlurm, &QRadioButton::clicked, this, [this] { m_cluster.setSlurmJob(true); });
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* title = new QLabel(tr("Where the tasks run:"), row);
    QFont bold = title->font();
    bold.setBold(true);
    title->setFont(bold);
    layout->addWidget(title);
    layout->addSpacing(8);
    layout->addWidget(m_onMachines);
    layout->addWidget(m_onSlurm);
    layout->addStretch(1);
    return row;
}

// The nodes: their table, adding and removing, the unattended stop, checking them.
QGroupBox* ClusterPage::makeNodesBox(app::ExperimentDocument* document)
{
    m_nodes->setObjectName("nodeTable");
    m_nodes->setHorizontalHeaderLabels(
        {tr("Name"), tr("Host"), tr("SSH port"), tr("User"), tr("Auth"), tr("Key file"), tr("Engine path"),
         tr("Work directory")});
    m_nodes->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    for (int column : {NodePort, NodeAuth})
        m_nodes->horizontalHeader()->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    m_nodes->verticalHeader()->hide();
    connect(m_nodes, &QTableWidget::itemChanged, this, [this](QTableWidgetItem* item) {
        if (!m_refreshing)
            nodeEdited(item->row());
    });
    auto* addNode = button("addNode", tr("Add node"), this);
    auto* removeNode = button("removeNode", tr("Remove node"), this);
    connect(addNode, &QPushButton::clicked, this, [this] {
        const int n = static_cast<int>(m_cluster.nodes().size());
        m_cluster.addNode({tr("node%1").arg(n + 1), tr("host%1.example").arg(n + 1), app::ClusterNode{}.sshPort, {},
                           "agent", {}, {}});
    });
    connect(removeNode, &QPushButton::clicked, this, [this] {
        if (m_nodes->currentRow() >= 0)
            m_cluster.removeNode(m_nodes->currentRow());
    });

    m_stopUnattended->setObjectName("stopUnattendedSeconds");
    m_stopUnattended->setNumberSuffix(tr(" s"));
    markProblems(m_stopUnattended, document, "cluster.stop_unattended_seconds");
    m_stopUnattended->setToolTip(tr("A job goes on when Strata closes; after this long with no Strata following it, "
                                    "it checkpoints and stops by itself (cluster.stop_unattended_seconds)"));
    connect(m_stopUnattended, &FieldSpinBox::valueChanged, this,
            [this](int seconds) { m_cluster.setStopUnattendedSeconds(seconds); });

    m_check->setToolTip(tr("Connect to every node as a launch would and check the engine there, its version and "
                           "devices, the data and the ports"));
    connect(m_check, &QPushButton::clicked, this, &ClusterPage::checkNodes);
    m_checkState->setObjectName("checkState");
    m_checks->setObjectName("nodeChecks");
    m_checks->setHorizontalHeaderLabels({tr("Node"), tr("Result"), tr("Engine"), tr("Devices"), tr("Checked in")});
    m_checks->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_checks->horizontalHeader()->setSectionResizeMode(CheckResult, QHeaderView::Stretch);
    m_checks->verticalHeader()->hide();
    m_checks->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_checks->setWordWrap(true);
    m_checks->setVisible(false); // until a check

    auto* nodesBox = new QGroupBox(tr("Nodes"), this);
    auto* nodesLayout = new QVBoxLayout(nodesBox);
    nodesLayout->addWidget(m_nodes);
    auto* nodeButtons = new QHBoxLayout;
    nodeButtons->addWidget(addNode);
    nodeButtons->addWidget(removeNode);
    nodeButtons->addSpacing(24);
    nodeButtons->addWidget(new QLabel(app::fieldTitle("cluster.stop_unattended_seconds"), this));
    nodeButtons->addWidget(m_stopUnattended);
    nodeButtons->addWidget(new QLabel(tr("(0: never)"), this));
    nodeButtons->addStretch(1);
    nodeButtons->addWidget(m_checkState);
    nodeButtons->addWidget(m_check);
    nodesLayout->addLayout(nodeButtons);
    nodesLayout->addWidget(m_checks);

    return nodesBox;
}

// The task assignment: its table, adding and removing, what the strategy still needs.
QGroupBox* ClusterPage::makeTasksBox()
{
    m_assignments->setObjectName("assignmentTable");
    m_assignments->setHorizontalHeaderLabels({tr("Task type"), tr("Node"), tr("Count"), tr("First port")});
    // Each column as wide as its editors; the table no wider than its columns.
    m_assignments->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_assignments->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    m_assignments->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_assignments->verticalHeader()->hide();
    auto* addTask = button("addAssignment", tr("Add tasks"), this);
    auto* removeTask = button("removeAssignment", tr("Remove tasks"), this);
    connect(addTask, &QPushButton::clicked, this, [this] {
        const auto nodes = m_cluster.nodes();
        m_cluster.addAssignment({m_cluster.neededTaskType(), nodes.isEmpty() ? QString() : nodes.front().name, 1, 0});
    });
    connect(removeTask, &QPushButton::clicked, this, [this] {
        if (m_assignments->currentRow() >= 0)
            m_cluster.removeAssignment(m_assignments->currentRow());
    });

    m_taskHint->setObjectName("taskHint");
    m_taskHint->setWordWrap(true);
    m_taskHint->setStyleSheet(QStringLiteral("color: %1").arg(theme::error(palette()).name()));
    auto* tasksBox = new QGroupBox(tr("Task assignment"), this);
    auto* tasksLayout = new QVBoxLayout(tasksBox);
    tasksLayout->addWidget(m_assignments, 0, Qt::AlignLeft);
    tasksLayout->addWidget(m_taskHint);
    m_setUpLocal->setToolTip(tr("Replace the tasks by a small job on this machine, ready to launch"));
    connect(m_setUpLocal, &QPushButton::clicked, this, [this] { m_cluster.setUpLocalJob(); });
    auto* taskButtons = new QHBoxLayout;
    taskButtons->addWidget(addTask);
    taskButtons->addWidget(removeTask);
    taskButtons->addSpacing(24);
    taskButtons->addWidget(m_setUpLocal);
    taskButtons->addStretch(1);
    tasksLayout->addLayout(taskButtons);

    return tasksBox;
}

// The TF_CONFIG each task receives, imported and exported.
QGroupBox* ClusterPage::makePreviewBox()
{
    m_tasks->setObjectName("clusterTasks");
    m_tasks->setMaximumWidth(320); // "worker:1: GPUs 2,3 (of 4)"
    m_preview->setObjectName("tfConfigPreview");
    m_preview->setReadOnly(true);
    m_preview->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    connect(m_tasks, &QListWidget::currentRowChanged, this, &ClusterPage::refreshPreview);
    auto* importButton = button("importTfConfig", tr("Import TF_CONFIG..."), this);
    auto* exportButton = button("exportTfConfig", tr("Export TF_CONFIG..."), this);
    connect(importButton, &QPushButton::clicked, this, &ClusterPage::importTfConfig);
    connect(exportButton, &QPushButton::clicked, this, &ClusterPage::exportTfConfig);

    auto* previewBox = new QGroupBox(tr("TF_CONFIG each task receives"), this);
    auto* previewLayout = new QVBoxLayout(previewBox);
    auto* previewRow = new QHBoxLayout;
    previewRow->addWidget(m_tasks);
    previewRow->addWidget(m_preview, 1);
    previewLayout->addLayout(previewRow, 1);
    auto* previewButtons = new QHBoxLayout;
    previewButtons->addWidget(importButton);
    previewButtons->addWidget(exportButton);
    previewButtons->addStretch(1);
    previewLayout->addLayout(previewButtons);

    return previewBox;
}

void ClusterPage::refresh()
{
    m_refreshing = true;
    const QStringList nodeNames = refreshNodes();
    showNumber(m_stopUnattended, int(std::min<qint64>(m_cluster.stopUnattendedSeconds(), m_stopUnattended->maximum())));
    refreshAssignments(nodeNames);
    fitRows(m_nodes, 1, 6);
    fitRows(m_assignments, 1, 8);
    refreshTaskList();
    refreshHints();
    m_refreshing = false;
    refreshPreview();
}

// The nodes' table; their names, for the tasks' node choices.
QStringList ClusterPage::refreshNodes()
{
    const QList<app::ClusterNode> nodes = m_cluster.nodes();
    QStringList nodeNames;
    m_nodes->setRowCount(static_cast<int>(nodes.size()));
    for (int row = 0; row < nodes.size(); ++row) {
        const app::ClusterNode& n = nodes[row];
        nodeNames << n.name;
        const QStringList cells{n.name, n.host, {}, n.user, {}, n.keyFile, n.engine, n.workDir};
        for (int c : {NodeName, NodeHost, NodeUser, NodeKey, NodeEngine, NodeWorkDir}) {
            if (!m_nodes->item(row, c))
                m_nodes->setItem(row, c, new QTableWidgetItem);
            m_nodes->item(row, c)->setText(cells[c]);
        }
        auto* port = cellEditor<FieldSpinBox>(m_nodes, row, NodePort, [this, row] {
            auto* s = marked(spin(1, 65535), m_document, QStringLiteral("cluster.nodes[%1].ssh_port").arg(row));
            connect(s, &QSpinBox::valueChanged, this, [this, row] { nodeEdited(row); });
            return s;
        });
        showNumber(port, n.sshPort);
        auto* auth = cellEditor<QComboBox>(m_nodes, row, NodeAuth, [this, row] {
            auto* c = marked(new QComboBox, m_document, QStringLiteral("cluster.nodes[%1].auth").arg(row));
            c->setToolTip(tr("none: this machine, started without SSH; agent: the SSH agent's keys; key: a key "
                             "file; password: asked at launch, never stored"));
            connect(c, &QComboBox::activated, this, [this, row] { nodeEdited(row); });
            return c;
        });
        showChoice(auth, {"none", "agent", "key", "password"}, n.auth);
    }
    return nodeNames;
}

// The tasks' table: each row's type, node, count and port.
void ClusterPage::refreshAssignments(const QStringList& nodeNames)
{
    const QList<app::ClusterTaskAssignment> assignments = m_cluster.assignments();
    m_assignments->setRowCount(static_cast<int>(assignments.size()));
    for (int row = 0; row < assignments.size(); ++row) {
        const app::ClusterTaskAssignment& a = assignments[row];
        const auto path = [row](const char* field) { return QStringLiteral("cluster.tasks[%1].%2").arg(row).arg(field); };
        auto choice = [this, row, path](const char* field) {
            return [=, this] {
                auto* c = marked(new QComboBox, m_document, path(field));
                connect(c, &QComboBox::activated, this, [this, row] { assignmentEdited(row); });
                return c;
            };
        };
        auto number = [this, row, path](const char* field, int minimum, int maximum, const QString& special) {
            return [=, this] {
                auto* s = marked(spin(minimum, maximum, special), m_document, path(field));
                connect(s, &QSpinBox::valueChanged, this, [this, row] { assignmentEdited(row); });
                return s;
            };
        };
        showChoice(cellEditor<QComboBox>(m_assignments, row, TaskType, choice("type")),
                   app::ClusterEditing::taskTypes(), a.type);
        showChoice(cellEditor<QComboBox>(m_assignments, row, TaskNode, choice("node")), nodeNames, a.node);
        showNumber(cellEditor<FieldSpinBox>(m_assignments, row, TaskCount, number("count", 1, 4096, {})), a.count);
        showNumber(cellEditor<FieldSpinBox>(m_assignments, row, TaskPort, number("port", 0, 65535, tr("automatic"))),
                   a.port);
    }
}

// The list of tasks whose TF_CONFIG the preview shows, each with its GPUs when it shares its
// node's (the task's name in Qt::UserRole), the selection kept.
void ClusterPage::refreshTaskList()
{
    const QString selected = selectedTask();
    const schema::ClusterSpec cluster = app::readableCluster(m_document->json());
    const QSignalBlocker blocker(m_tasks);
    m_tasks->clear();
    for (const QString& task : m_cluster.tasks()) {
        const QString gpus = app::taskGpusText(cluster, m_cluster.strategy(), task, m_nodeGpus);
        auto* item = new QListWidgetItem(gpus.isEmpty() ? task : tr("%1: %2").arg(task, gpus), m_tasks);
        item->setData(Qt::UserRole, task);
        if (!gpus.isEmpty())
            item->setToolTip(tr("%1 gets %2: CUDA_VISIBLE_DEVICES is set for it when it starts, so that the tasks "
                                "sharing a node use their own GPUs (cluster.gpus_per_task; the node's GPU count "
                                "is known after Check nodes)").arg(task, gpus));
        if (task == selected)
            m_tasks->setCurrentItem(item);
    }
    if (!m_tasks->currentItem())
        m_tasks->setCurrentRow(0);
}

// What the strategy still needs, the local set-up offered, and whether the page applies at all.
void ClusterPage::refreshHints()
{
    // The tasks the strategy needs (ParameterServer: one chief, workers, ps tasks), as the
    // engine words it; "Add tasks" adds the first type missing.
    QStringList needs;
    for (const app::Problem& p : m_document->validation().problems)
        if (p.path == QLatin1String("cluster.tasks"))
            needs << p.message;
    m_taskHint->setText(needs.isEmpty() ? QString()
                                        : tr("%1 (Add tasks adds a %2).").arg(needs.join(QStringLiteral("; ")),
                                                                              m_cluster.neededTaskType()));
    m_taskHint->setVisible(!needs.isEmpty());
    const QString strategy = m_cluster.strategy();
    m_setUpLocal->setText(tr("Set up %1 on this machine").arg(app::ClusterEditing::localJobText(strategy)));
    m_setUpLocal->setVisible(m_cluster.usesTasks());
    // A strategy of one process: the tasks and TF_CONFIG do not apply, unless the cluster has
    // problems to fix (a file written by hand).
    bool clusterProblems = false;
    for (const app::Problem& p : m_document->validation().problems)
        clusterProblems = clusterProblems || p.path.startsWith(QLatin1String("cluster"));
    // A Slurm job: its box instead of the nodes, tasks and TF_CONFIG (also for one process: a
    // job of one task).
    const bool slurm = m_cluster.isSlurmJob();
    m_onMachines->setChecked(!slurm);
    m_onSlurm->setChecked(slurm);
    m_slurm->setVisible(slurm);
    const bool notUsed = !slurm && !m_cluster.usesTasks() && !clusterProblems;
    m_notUsed->setText(
        tr("<b>%1 trains in one process, on %2: there are no tasks to assign and no TF_CONFIG.</b><br>To train "
           "across several processes or machines, choose MultiWorkerMirrored or ParameterServer on the "
           "Strategy page; this page then sets up their tasks.")
            .arg(strategy.toHtmlEscaped(), m_cluster.singleProcessPlace().toHtmlEscaped()));
    m_notUsed->setVisible(notUsed);
    m_notUsedStretch->setVisible(notUsed);
    for (QWidget* box : m_boxes)
        box->setVisible(!notUsed && !slurm);
}

void ClusterPage::refreshPreview()
{
    const QString task = selectedTask();
    QString error;
    const QString text = task.isEmpty() ? QString() : m_cluster.tfConfigPreview(task, &error);
    m_preview->setPlainText(text.isEmpty() ? error : text);
}

// The task a row of the task list names (its text may add the task's GPUs).
QString ClusterPage::selectedTask() const
{
    return m_tasks->currentItem() ? m_tasks->currentItem()->data(Qt::UserRole).toString() : QString();
}

void ClusterPage::nodeEdited(int row)
{
    auto text = [this, row](int column) {
        const QTableWidgetItem* item = m_nodes->item(row, column);
        return item ? item->text().trimmed() : QString();
    };
    app::ClusterNode node{text(NodeName), text(NodeHost),
                          static_cast<FieldSpinBox*>(m_nodes->cellWidget(row, NodePort))->value(), text(NodeUser),
                          static_cast<QComboBox*>(m_nodes->cellWidget(row, NodeAuth))->currentText(), text(NodeKey),
                          text(NodeEngine), text(NodeWorkDir)};
    m_cluster.updateNode(row, node);
}

void ClusterPage::assignmentEdited(int row)
{
    app::ClusterTaskAssignment a{static_cast<QComboBox*>(m_assignments->cellWidget(row, TaskType))->currentText(),
                                 static_cast<QComboBox*>(m_assignments->cellWidget(row, TaskNode))->currentText(),
                                 static_cast<FieldSpinBox*>(m_assignments->cellWidget(row, TaskCount))->value(),
                                 static_cast<FieldSpinBox*>(m_assignments->cellWidget(row, TaskPort))->value()};
    m_cluster.updateAssignment(row, a);
}

} // namespace strata::ui
