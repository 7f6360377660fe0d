#include "ui/history/history_page.h"

#include "app/experiment/catalogs.h"
#include "app/launch/engine_info.h"
#include "ui/history/failed_run_rows.h"
#include "ui/shell/dialogs.h"

#include <QComboBox>
#include <QDateEdit>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace strata::ui {

namespace {
QPushButton* button(const QString& name, const QString& text, QWidget* parent)
{
    auto* b = new QPushButton(text, parent);
    b->setObjectName(name);
    return b;
}
} // namespace

HistoryPage::HistoryPage(app::RunHistory* history, Dialogs* dialogs, QWidget* parent)
    : QWidget(parent), m_history(history), m_dialogs(dialogs), m_model(history),
      m_rows(new FailedRunRows(this, this)), m_text(new QLineEdit(this)),
      m_strategy(new QComboBox(this)), m_status(new QComboBox(this)), m_from(new QDateEdit(this)),
      m_table(new QTableView(this)), m_emptyHint(new QLabel(this)), m_tableOrHint(new QStackedWidget(this)),
      m_count(new QLabel(this)),
      m_open(button("openRun", tr("Open dashboard"), this)),
      m_compare(button("compareRuns", tr("Compare selected"), this)),
      m_reattach(button("reattachRun", tr("Reattach"), this)), m_resume(button("resumeRun", tr("Resume"), this)),
      m_rename(button("renameRun", tr("Rename..."), this)), m_tag(button("tagRuns", tr("Tags..."), this)),
      m_delete(button("deleteRuns", tr("Delete..."), this)),
      m_exportKeras(button("exportKeras", tr("Export to Keras..."), this))
{
    setUpFilters();
    setUpTable();
    connectActions();
    auto* filters = new QHBoxLayout;
    filters->addWidget(m_text, 2);
    filters->addWidget(m_strategy, 1);
    filters->addWidget(m_status, 1);
    filters->addWidget(new QLabel(tr("Started from:"), this));
    filters->addWidget(m_from);
    auto* actions = new QHBoxLayout;
    for (QPushButton* b : {m_open, m_compare, m_reattach, m_resume, m_rename, m_tag, m_delete, m_exportKeras})
        actions->addWidget(b);
    actions->addStretch(1);
    actions->addWidget(m_count);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(filters);
    layout->addWidget(m_tableOrHint, 1);
    layout->addLayout(actions);
    applyFilter();
    updateActions(); // also when the history could not be read
    showTableOrHint();
}

// The filters over the table: text, strategy, status, start date.
void HistoryPage::setUpFilters()
{
    m_text->setObjectName("historyText");
    m_text->setPlaceholderText(tr("Filter: name, tag or host"));
    m_text->setClearButtonEnabled(true);
    m_strategy->setObjectName("historyStrategy");
    m_strategy->addItem(tr("All strategies"), QString());
    for (const auto& s : app::strategies())
        m_strategy->addItem(s.title, s.type);
    m_status->setObjectName("historyStatus");
    m_status->addItem(tr("Any status"), QString());
    for (auto status : {app::RunStatus::Running, app::RunStatus::Completed, app::RunStatus::Stopped,
                        app::RunStatus::Failed, app::RunStatus::Interrupted})
        m_status->addItem(app::statusName(status), app::statusName(status));
    m_from->setObjectName("historyFrom");
    m_from->setCalendarPopup(true);
    m_from->setMinimumDate(QDate(2000, 1, 1));
    m_from->setSpecialValueText(tr("any date"));
    m_from->setDate(m_from->minimumDate());
    m_from->setToolTip(tr("Runs started on or after this day"));

    connect(m_text, &QLineEdit::textChanged, this, &HistoryPage::applyFilter);
    connect(m_strategy, &QComboBox::currentIndexChanged, this, &HistoryPage::applyFilter);
    connect(m_status, &QComboBox::currentIndexChanged, this, &HistoryPage::applyFilter);
    connect(m_from, &QDateEdit::dateChanged, this, &HistoryPage::applyFilter);
}

// The runs' table, or the hint when it has none.
void HistoryPage::setUpTable()
{
    m_table->setObjectName("historyTable");
    m_rows->setSourceModel(&m_model);
    m_table->setModel(m_rows);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(app::HistoryModel::StartedColumn, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(app::HistoryModel::NameColumn, QHeaderView::Stretch);
    m_table->setAlternatingRowColors(true);
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        Q_EMIT openRequested(m_model.runId(index.row()));
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &HistoryPage::updateActions);
    connect(&m_model, &QAbstractItemModel::modelReset, this, &HistoryPage::updateActions);
    connect(&m_model, &QAbstractItemModel::modelReset, this, &HistoryPage::showTableOrHint);
    connect(&m_model, &app::HistoryModel::errorOccurred, this, &HistoryPage::showTableOrHint);
    m_emptyHint->setObjectName("historyEmpty");
    m_emptyHint->setAlignment(Qt::AlignCenter);
    m_emptyHint->setWordWrap(true);
    m_emptyHint->setMargin(24);
    m_tableOrHint->addWidget(m_table);
    m_tableOrHint->addWidget(m_emptyHint);
    connect(&m_model, &app::HistoryModel::errorOccurred, this, [this](const QString& e) { Q_EMIT message(e, true); });
}

// The buttons under the table, and what they ask for.
void HistoryPage::connectActions()
{
    m_exportKeras->setToolTip(tr("Write the run's model and final weights as Keras 3 files (config.json, "
                                 "model.weights.h5), for keras.models.model_from_json and load_weights"));
    m_compare->setToolTip(tr("Overlay the selected runs' curves and compare their throughput and results"));
    connect(m_open, &QPushButton::clicked, this, [this] {
        for (qint64 id : selectedRuns())
            Q_EMIT openRequested(id);
    });
    connect(m_compare, &QPushButton::clicked, this, [this] { Q_EMIT compareRequested(selectedRuns()); });
    m_reattach->setToolTip(tr("Follow the selected run again: it went on while no Strata followed it (the dashboard "
                              "catches up with what it did meanwhile, then shows it live)"));
    connect(m_reattach, &QPushButton::clicked, this, [this] {
        if (const QList<qint64> ids = selectedRuns(); ids.size() == 1)
            Q_EMIT reattachRequested(ids.front());
    });
    m_resume->setToolTip(tr("Train the window's experiment on in the selected run's directory, from its newest "
                            "checkpoint (more epochs continue it; a different experiment is refused, and you choose "
                            "to start fresh or to load only its weights)"));
    connect(m_resume, &QPushButton::clicked, this, [this] {
        if (const QList<qint64> ids = selectedRuns(); ids.size() == 1)
            Q_EMIT resumeRequested(ids.front());
    });
    connect(m_rename, &QPushButton::clicked, this, &HistoryPage::renameSelected);
    connect(m_tag, &QPushButton::clicked, this, &HistoryPage::tagSelected);
    connect(m_delete, &QPushButton::clicked, this, &HistoryPage::deleteSelected);
    connect(m_exportKeras, &QPushButton::clicked, this, &HistoryPage::exportSelectedToKeras);
    connect(&m_kerasExport, &app::KerasExport::finished, this, [this](const app::KerasExportResult& r) {
        Q_EMIT message(r.message, !r.ok);
        updateActions();
    });
}

void HistoryPage::showTableOrHint()
{
    const app::RunFilter& f = m_model.filter();
    const bool filtered = !f.text.isEmpty() || !f.strategy.isEmpty() || f.status || f.startedFrom.isValid();
    if (!m_model.error().isEmpty() && m_model.rowCount() == 0)
        m_emptyHint->setText(tr("<p><b>The run history cannot be read.</b></p><p>%1</p>").arg(m_model.error().toHtmlEscaped()));
    else if (filtered)
        m_emptyHint->setText(tr("<p><b>No run matches the filter.</b></p><p>Clear the filter above to see every run.</p>"));
    else
        m_emptyHint->setText(tr("<p><b>No runs yet.</b></p><p>Press <i>Launch</i> (Ctrl+R) to train the experiment, or "
                                "run <i>Compare strategies</i> on the Compare page: every run is recorded here, "
                                "to open its dashboard again, compare it with others, resume or export it.</p>"));
    m_tableOrHint->setCurrentWidget(m_model.rowCount() > 0 ? static_cast<QWidget*>(m_table) : m_emptyHint);
}

void HistoryPage::applyFilter()
{
    app::RunFilter f = m_model.filter();
    f.text = m_text->text().trimmed();
    f.strategy = m_strategy->currentData().toString();
    f.status = app::statusFromName(m_status->currentData().toString());
    f.startedFrom = m_from->date() == m_from->minimumDate() ? QDateTime() : m_from->date().startOfDay();
    m_model.setFilter(f);
}

void HistoryPage::refresh()
{
    const QList<qint64> selected = selectedRuns();
    m_model.refresh();
    selectRuns(selected);
}

QList<qint64> HistoryPage::selectedRuns() const
{
    QList<int> rows;
    for (const QModelIndex& index : m_table->selectionModel()->selectedRows())
        rows << index.row();
    std::sort(rows.begin(), rows.end());
    QList<qint64> ids;
    for (int row : rows)
        ids << m_model.runId(row);
    return ids;
}

void HistoryPage::selectRuns(const QList<qint64>& ids)
{
    QItemSelection selection;
    for (qint64 id : ids)
        if (const int row = m_model.rowOf(id); row >= 0)
            selection.select(m_rows->index(row, 0), m_rows->index(row, m_rows->columnCount() - 1));
    m_table->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect);
}

void HistoryPage::updateActions()
{
    const int selected = int(m_table->selectionModel()->selectedRows().size());
    m_open->setEnabled(selected >= 1);
    m_compare->setEnabled(selected >= 2);
    bool reattachable = false;
    if (selected == 1) {
        const app::RunStatus status = m_model.record(m_model.rowOf(selectedRuns().front())).status;
        reattachable = status == app::RunStatus::Running || status == app::RunStatus::Interrupted;
    }
    m_reattach->setEnabled(reattachable);
    // A run that ended (or whose Strata died with it) can go on in its directory.
    m_resume->setEnabled(selected == 1 && !reattachable);
    bool finished = false;
    if (selected == 1) {
        const app::RunStatus status = m_model.record(m_model.rowOf(selectedRuns().front())).status;
        finished = status == app::RunStatus::Completed || status == app::RunStatus::Stopped;
    }
    m_exportKeras->setEnabled(finished && !m_kerasExport.running());
    m_rename->setEnabled(selected == 1);
    m_tag->setEnabled(selected >= 1);
    m_delete->setEnabled(selected >= 1);
    m_count->setText(tr("%n run(s)", nullptr, m_model.rowCount()) +
                     (selected ? tr(", %1 selected").arg(selected) : QString()));
}

void HistoryPage::exportSelectedToKeras()
{
    const QList<qint64> ids = selectedRuns();
    if (ids.size() != 1 || m_kerasExport.running())
        return;
    const app::RunRecord& run = m_model.record(m_model.rowOf(ids.front()));
    if (const QString problem = app::kerasExportProblem(run.runDir); !problem.isEmpty()) {
        Q_EMIT message(problem, true);
        return;
    }
    const QString parent = m_dialogs->directory(this, tr("Export to Keras: choose a folder"), run.runDir);
    if (parent.isEmpty())
        return;
    // A folder of its own in the chosen one, so nothing there is overwritten by accident.
    const QString out = QDir(parent).filePath(QFileInfo(run.runDir).fileName() + "-keras");
    m_kerasExport.start(m_enginePath.isEmpty() ? app::defaultEnginePath() : m_enginePath, run.runDir, out);
    updateActions();
}

void HistoryPage::renameSelected()
{
    const QList<qint64> ids = selectedRuns();
    if (ids.size() != 1)
        return;
    const app::RunRecord& run = m_model.record(m_model.rowOf(ids.front()));
    const auto label = m_dialogs->askText(this, tr("Rename run"),
                                          tr("Name of the run (empty: the experiment's, %1):").arg(run.name),
                                          run.label);
    QString error;
    if (label && !m_history->rename(ids.front(), label->trimmed(), &error))
        Q_EMIT message(error, true);
    refresh();
}

void HistoryPage::tagSelected()
{
    const QList<qint64> ids = selectedRuns();
    if (ids.isEmpty())
        return;
    const app::RunRecord& first = m_model.record(m_model.rowOf(ids.front()));
    const auto text = m_dialogs->askText(this, tr("Tags"), tr("Tags, separated by commas:"), first.tags.join(", "));
    if (!text)
        return;
    QStringList tags;
    for (const QString& tag : text->split(',', Qt::SkipEmptyParts))
        if (!tag.trimmed().isEmpty())
            tags << tag.trimmed();
    QString error;
    for (qint64 id : ids)
        if (!m_history->setTags(id, tags, &error)) {
            Q_EMIT message(error, true);
            break;
        }
    refresh();
}

void HistoryPage::deleteSelected()
{
    const QList<qint64> ids = selectedRuns();
    if (ids.isEmpty())
        return;
    const QString what = ids.size() == 1 ? tr("the run \"%1\"").arg(m_model.record(m_model.rowOf(ids.front())).displayName())
                                         : tr("%1 runs").arg(ids.size());
    const Dialogs::DeleteChoice choice = m_dialogs->askToDelete(this, what);
    if (choice == Dialogs::DeleteChoice::Cancel)
        return;
    QStringList problems;
    for (qint64 id : ids) {
        QString error;
        if (!m_history->removeRun(id, choice == Dialogs::DeleteChoice::ForgetAndDeleteFiles, &error))
            problems << error;
    }
    if (!problems.isEmpty())
        Q_EMIT message(problems.join('\n'), true);
    refresh();
}

} // namespace strata::ui
