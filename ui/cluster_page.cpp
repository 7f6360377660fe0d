#include "ui/cluster_page.h"

#include "ui/dialogs.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace strata::ui {

namespace {
enum NodeColumn { NodeName, NodeHost, NodePort, NodeUser, NodeAuth, NodeKey, NodeEngine, NodeColumns };
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

void showNumber(QSpinBox* spin, int value)
{
    const QSignalBlocker blocker(spin);
    spin->setValue(value);
}

QSpinBox* spin(int minimum, int maximum, const QString& special = {})
{
    auto* s = new QSpinBox;
    s->setRange(minimum, maximum);
    s->setKeyboardTracking(false); // one edit when the user is done typing
    if (!special.isEmpty())
        s->setSpecialValueText(special);
    return s;
}
} // namespace

ClusterPage::ClusterPage(app::ExperimentDocument* document, Dialogs* dialogs, QWidget* parent)
    : QWidget(parent), m_document(document), m_cluster(*document), m_dialogs(dialogs),
      m_nodes(new QTableWidget(0, NodeColumns, this)), m_assignments(new QTableWidget(0, TaskColumns, this)),
      m_tasks(new QListWidget(this)), m_preview(new QPlainTextEdit(this))
{
    m_nodes->setObjectName("nodeTable");
    m_nodes->setHorizontalHeaderLabels(
        {tr("Name"), tr("Host"), tr("SSH port"), tr("User"), tr("Auth"), tr("Key file"), tr("Engine path")});
    m_nodes->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_nodes->verticalHeader()->hide();
    connect(m_nodes, &QTableWidget::itemChanged, this, [this](QTableWidgetItem* item) {
        if (!m_refreshing)
            nodeEdited(item->row());
    });
    auto* addNode = button("addNode", tr("Add node"), this);
    auto* removeNode = button("removeNode", tr("Remove node"), this);
    connect(addNode, &QPushButton::clicked, this, [this] {
        const int n = static_cast<int>(m_cluster.nodes().size());
        m_cluster.addNode({tr("node%1").arg(n + 1), tr("host%1.example").arg(n + 1), 22, {}, "agent", {}, {}});
    });
    connect(removeNode, &QPushButton::clicked, this, [this] {
        if (m_nodes->currentRow() >= 0)
            m_cluster.removeNode(m_nodes->currentRow());
    });

    m_assignments->setObjectName("assignmentTable");
    m_assignments->setHorizontalHeaderLabels({tr("Task type"), tr("Node"), tr("Count"), tr("First port")});
    m_assignments->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_assignments->verticalHeader()->hide();
    auto* addTask = button("addAssignment", tr("Add tasks"), this);
    auto* removeTask = button("removeAssignment", tr("Remove tasks"), this);
    connect(addTask, &QPushButton::clicked, this, [this] {
        const auto nodes = m_cluster.nodes();
        m_cluster.addAssignment({"worker", nodes.isEmpty() ? QString() : nodes.front().name, 1, 0});
    });
    connect(removeTask, &QPushButton::clicked, this, [this] {
        if (m_assignments->currentRow() >= 0)
            m_cluster.removeAssignment(m_assignments->currentRow());
    });

    m_tasks->setObjectName("clusterTasks");
    m_tasks->setMaximumWidth(180);
    m_preview->setObjectName("tfConfigPreview");
    m_preview->setReadOnly(true);
    m_preview->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    connect(m_tasks, &QListWidget::currentRowChanged, this, &ClusterPage::refreshPreview);
    auto* importButton = button("importTfConfig", tr("Import TF_CONFIG..."), this);
    auto* exportButton = button("exportTfConfig", tr("Export TF_CONFIG..."), this);
    connect(importButton, &QPushButton::clicked, this, &ClusterPage::importTfConfig);
    connect(exportButton, &QPushButton::clicked, this, &ClusterPage::exportTfConfig);

    auto* nodesBox = new QGroupBox(tr("Nodes"), this);
    auto* nodesLayout = new QVBoxLayout(nodesBox);
    nodesLayout->addWidget(m_nodes);
    auto* nodeButtons = new QHBoxLayout;
    nodeButtons->addWidget(addNode);
    nodeButtons->addWidget(removeNode);
    nodeButtons->addStretch(1);
    nodesLayout->addLayout(nodeButtons);

    auto* tasksBox = new QGroupBox(tr("Task assignment"), this);
    auto* tasksLayout = new QVBoxLayout(tasksBox);
    tasksLayout->addWidget(m_assignments);
    auto* taskButtons = new QHBoxLayout;
    taskButtons->addWidget(addTask);
    taskButtons->addWidget(removeTask);
    taskButtons->addStretch(1);
    tasksLayout->addLayout(taskButtons);

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

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(nodesBox, 2);
    layout->addWidget(tasksBox, 2);
    layout->addWidget(previewBox, 3);

    connect(document, &app::ExperimentDocument::changed, this, &ClusterPage::refresh);
    refresh();
}

void ClusterPage::refresh()
{
    m_refreshing = true;
    const QList<app::ClusterNode> nodes = m_cluster.nodes();
    QStringList nodeNames;
    m_nodes->setRowCount(static_cast<int>(nodes.size()));
    for (int row = 0; row < nodes.size(); ++row) {
        const app::ClusterNode& n = nodes[row];
        nodeNames << n.name;
        const QStringList cells{n.name, n.host, {}, n.user, {}, n.keyFile, n.engine};
        for (int c : {NodeName, NodeHost, NodeUser, NodeKey, NodeEngine}) {
            if (!m_nodes->item(row, c))
                m_nodes->setItem(row, c, new QTableWidgetItem);
            m_nodes->item(row, c)->setText(cells[c]);
        }
        auto* port = cellEditor<QSpinBox>(m_nodes, row, NodePort, [this, row] {
            auto* s = spin(1, 65535);
            connect(s, &QSpinBox::valueChanged, this, [this, row] { nodeEdited(row); });
            return s;
        });
        showNumber(port, n.sshPort);
        auto* auth = cellEditor<QComboBox>(m_nodes, row, NodeAuth, [this, row] {
            auto* c = new QComboBox;
            c->setToolTip(tr("none: this machine, started without SSH; agent: the SSH agent's keys; key: a key "
                             "file; password: asked at launch, never stored"));
            connect(c, &QComboBox::activated, this, [this, row] { nodeEdited(row); });
            return c;
        });
        showChoice(auth, {"none", "agent", "key", "password"}, n.auth);
    }
    const QList<app::ClusterTaskAssignment> assignments = m_cluster.assignments();
    m_assignments->setRowCount(static_cast<int>(assignments.size()));
    for (int row = 0; row < assignments.size(); ++row) {
        const app::ClusterTaskAssignment& a = assignments[row];
        auto choice = [this, row] {
            auto* c = new QComboBox;
            connect(c, &QComboBox::activated, this, [this, row] { assignmentEdited(row); });
            return c;
        };
        auto number = [this, row](int minimum, int maximum, const QString& special) {
            return [=, this] {
                auto* s = spin(minimum, maximum, special);
                connect(s, &QSpinBox::valueChanged, this, [this, row] { assignmentEdited(row); });
                return s;
            };
        };
        showChoice(cellEditor<QComboBox>(m_assignments, row, TaskType, choice), app::ClusterEditing::taskTypes(), a.type);
        showChoice(cellEditor<QComboBox>(m_assignments, row, TaskNode, choice), nodeNames, a.node);
        showNumber(cellEditor<QSpinBox>(m_assignments, row, TaskCount, number(1, 4096, {})), a.count);
        showNumber(cellEditor<QSpinBox>(m_assignments, row, TaskPort, number(0, 65535, tr("automatic"))), a.port);
    }
    const QString selected = m_tasks->currentItem() ? m_tasks->currentItem()->text() : QString();
    {
        const QSignalBlocker blocker(m_tasks);
        m_tasks->clear();
        m_tasks->addItems(m_cluster.tasks());
        const auto match = m_tasks->findItems(selected, Qt::MatchExactly);
        m_tasks->setCurrentRow(match.isEmpty() ? 0 : m_tasks->row(match.front()));
    }
    m_refreshing = false;
    refreshPreview();
}

void ClusterPage::refreshPreview()
{
    const QString task = m_tasks->currentItem() ? m_tasks->currentItem()->text() : QString();
    QString error;
    const QString text = task.isEmpty() ? QString() : m_cluster.tfConfigPreview(task, &error);
    m_preview->setPlainText(text.isEmpty() ? error : text);
}

void ClusterPage::nodeEdited(int row)
{
    auto text = [this, row](int column) {
        const QTableWidgetItem* item = m_nodes->item(row, column);
        return item ? item->text().trimmed() : QString();
    };
    app::ClusterNode node{text(NodeName), text(NodeHost),
                          static_cast<QSpinBox*>(m_nodes->cellWidget(row, NodePort))->value(), text(NodeUser),
                          static_cast<QComboBox*>(m_nodes->cellWidget(row, NodeAuth))->currentText(), text(NodeKey),
                          text(NodeEngine)};
    m_cluster.updateNode(row, node);
}

void ClusterPage::assignmentEdited(int row)
{
    app::ClusterTaskAssignment a{static_cast<QComboBox*>(m_assignments->cellWidget(row, TaskType))->currentText(),
                                 static_cast<QComboBox*>(m_assignments->cellWidget(row, TaskNode))->currentText(),
                                 static_cast<QSpinBox*>(m_assignments->cellWidget(row, TaskCount))->value(),
                                 static_cast<QSpinBox*>(m_assignments->cellWidget(row, TaskPort))->value()};
    m_cluster.updateAssignment(row, a);
}

void ClusterPage::importTfConfig()
{
    const QString path = m_dialogs->openFile(this, tr("Import TF_CONFIG"), tr("JSON files (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    QString error;
    if (m_cluster.importTfConfigFile(path, &error))
        Q_EMIT message(tr("Imported the cluster of %1 (Edit > Undo brings the previous one back).").arg(path), false);
    else
        Q_EMIT message(error, true);
}

void ClusterPage::exportTfConfig()
{
    const QString task = m_tasks->currentItem() ? m_tasks->currentItem()->text() : QString();
    if (task.isEmpty())
        return;
    const QString suggested = QStringLiteral("tf_config-%1.json").arg(QString(task).replace(':', '-'));
    const QString path = m_dialogs->saveFile(this, tr("Export TF_CONFIG of %1").arg(task), suggested,
                                             tr("JSON files (*.json)"));
    if (path.isEmpty())
        return;
    QString error;
    if (m_cluster.exportTfConfig(path, task, &error))
        Q_EMIT message(tr("Wrote the TF_CONFIG of %1 to %2").arg(task, path), false);
    else
        Q_EMIT message(error, true);
}

} // namespace strata::ui
