#include "ui/setup/slurm_job_box.h"

#include "app/experiment/field_labels.h"
#include "app/launch/backends/slurm/job_script.h"
#include "app/launch/launch_plan.h"
#include "ui/setup/field_marks.h"
#include "ui/setup/field_spin_box.h"
#include "ui/setup/form_layout.h"

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace strata::ui {

namespace {

QString path(const char* field) { return QStringLiteral("cluster.slurm.") + QLatin1String(field); }

QString label(const char* field) { return app::fieldTitle(path(field)) + ':'; }

void showNumber(FieldSpinBox* spin, int value)
{
    const QSignalBlocker blocker(spin);
    spin->setValue(value);
}

// The document's text, unless the user is typing another one there.
void showText(QLineEdit* edit, const QString& text)
{
    if (edit->text() == text || (edit->hasFocus() && edit->isModified()))
        return;
    const QSignalBlocker blocker(edit);
    edit->setText(text);
}

// The options of the extra lines, as written to the document (trimmed, blank lines left out).
QStringList optionLines(const QString& text)
{
    QStringList out;
    for (const QString& line : text.split(QLatin1Char('\n')))
        if (const QString option = line.trimmed(); !option.isEmpty())
            out << option;
    return out;
}

// "worker:0, worker:1, ... worker:7 and 4 more".
QString taskList(const QStringList& tasks)
{
    constexpr int kShown = 6;
    if (tasks.size() <= kShown)
        return tasks.join(QStringLiteral(", "));
    return SlurmJobBox::tr("%1, ... and %2 more (%3 tasks)")
        .arg(tasks.mid(0, kShown).join(QStringLiteral(", ")))
        .arg(tasks.size() - kShown)
        .arg(tasks.size());
}

// The forms of `boxes` with one label width and one width of spin box: their fields line up.
void alignForms(const QList<QWidget*>& boxes)
{
    QList<QWidget*> labels;
    for (QWidget* box : boxes)
        if (auto* form = qobject_cast<QFormLayout*>(box->layout()))
            for (int row = 0; row < form->rowCount(); ++row)
                if (QLayoutItem* item = form->itemAt(row, QFormLayout::LabelRole); item && item->widget())
                    labels << item->widget();
    int labelWidth = 0, spinWidth = 0;
    for (QWidget* l : labels)
        labelWidth = std::max(labelWidth, l->sizeHint().width());
    QList<FieldSpinBox*> spins;
    for (QWidget* box : boxes)
        spins += box->findChildren<FieldSpinBox*>(QString(), Qt::FindDirectChildrenOnly);
    for (FieldSpinBox* s : spins)
        spinWidth = std::max(spinWidth, s->sizeHint().width());
    for (QWidget* l : labels)
        l->setMinimumWidth(labelWidth);
    for (FieldSpinBox* s : spins)
        s->setFixedWidth(spinWidth);
}

} // namespace

SlurmJobBox::SlurmJobBox(app::ExperimentDocument* document, QWidget* parent)
    : QWidget(parent), m_document(document), m_cluster(*document)
{
    setObjectName("slurmJob");
    // The settings in a column, their forms' labels and numbers as wide as each other's; the
    // script beside them, as tall as the page (it is read top to bottom).
    QWidget* allocation = makeAllocationBox();
    QWidget* tasks = makeTasksBox();
    alignForms({allocation, tasks});
    auto* settings = new QVBoxLayout;
    settings->addWidget(allocation);
    settings->addWidget(tasks);
    settings->addWidget(makeExtraBox(), 1);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(settings);
    layout->addWidget(makeScriptBox(), 1);

    connect(document, &app::ExperimentDocument::changed, this, &SlurmJobBox::refresh);
    refresh();
}

// The extra lines are not committed as the box goes: the document may be gone already.
SlurmJobBox::~SlurmJobBox() { m_extra->removeEventFilter(this); }

void SlurmJobBox::setEngine(const QString& engine)
{
    m_engine = engine;
    refresh();
}

FieldSpinBox* SlurmJobBox::number(const char* field, int minimum, const QString& special,
                                  void (app::ClusterEditing::*set)(int))
{
    auto* s = new FieldSpinBox(this);
    s->setObjectName(QLatin1String(field));
    s->setAllowedRange(minimum, 65535);
    s->setKeyboardTracking(false); // one edit when the user is done typing
    s->setSpecialText(special);
    markProblems(s, m_document, path(field));
    connect(s, &QSpinBox::valueChanged, this, [this, set](int value) { (m_cluster.*set)(value); });
    return s;
}

QLineEdit* SlurmJobBox::text(const char* field, void (app::ClusterEditing::*set)(const QString&))
{
    auto* edit = new QLineEdit(this);
    edit->setObjectName(QLatin1String(field));
    fitWidth(edit, FieldWidth::Short);
    markProblems(edit, m_document, path(field));
    connect(edit, &QLineEdit::editingFinished, this, [this, edit, set] { (m_cluster.*set)(edit->text()); });
    return edit;
}

// Where the job is submitted from and what it asks Slurm for.
QWidget* SlurmJobBox::makeAllocationBox()
{
    m_login = new QComboBox(this);
    m_login->setObjectName("login");
    m_login->setToolTip(tr("The machine that submits the job with sbatch and follows it through the run directory "
                           "the nodes share: this machine, or a node of the list below reached over SSH (the "
                           "cluster's login node; the run directory is under its work directory)."));
    markProblems(m_login, m_document, path("login"));
    connect(m_login, &QComboBox::activated, this,
            [this](int index) { m_cluster.setSlurmLogin(m_login->itemData(index).toString()); });
    m_partition = text("partition", &app::ClusterEditing::setSlurmPartition);
    m_partition->setPlaceholderText(tr("the default partition"));
    m_nodes = number("nodes", 1, {}, &app::ClusterEditing::setSlurmNodes);
    m_tasksPerNode = number("tasks_per_node", 1, {}, &app::ClusterEditing::setSlurmTasksPerNode);
    m_cpus = number("cpus_per_task", 1, {}, &app::ClusterEditing::setSlurmCpusPerTask);
    m_gpus = number("gpus_per_task", 0, tr("none"), &app::ClusterEditing::setSlurmGpusPerTask);
    m_gpus->setToolTip(tr("--gpus-per-task. None: not requested here (request them in the extra lines, --gres or "
                          "--gpus); each task then uses its share of the GPUs Slurm gives its node"));
    m_timeLimit = text("time_limit", &app::ClusterEditing::setSlurmTimeLimit);
    m_timeLimit->setPlaceholderText(tr("partition's limit"));
    m_timeLimit->setToolTip(tr("Slurm's formats: minutes, minutes:seconds, hours:minutes:seconds, days-hours, "
                               "days-hours:minutes, days-hours:minutes:seconds; UNLIMITED"));
    m_account = text("account", &app::ClusterEditing::setSlurmAccount);
    m_account->setPlaceholderText(tr("your default account"));
    m_qos = text("qos", &app::ClusterEditing::setSlurmQos);
    m_qos->setPlaceholderText(tr("the default QoS"));

    auto* box = new QGroupBox(tr("Slurm job"), this);
    auto* form = makeForm(box);
    form->addRow(label("login"), m_login);
    form->addRow(label("partition"), m_partition);
    // Two numbers a row (the page fits a 1280x720 window): nodes x tasks, CPUs and GPUs.
    const auto pair = [box](FieldSpinBox* first, const char* second, FieldSpinBox* field) {
        auto* row = new QHBoxLayout;
        row->addWidget(first);
        row->addSpacing(12);
        auto* name = new QLabel(label(second), box);
        name->setBuddy(field);
        row->addWidget(name);
        row->addWidget(field);
        row->addStretch(1);
        return row;
    };
    form->addRow(label("nodes"), pair(m_nodes, "tasks_per_node", m_tasksPerNode));
    form->addRow(label("cpus_per_task"), pair(m_cpus, "gpus_per_task", m_gpus));
    form->addRow(label("time_limit"), m_timeLimit);
    form->addRow(label("account"), m_account);
    form->addRow(label("qos"), m_qos);
    return box;
}

// The tasks by type, their names, and what happens near the job's end.
QWidget* SlurmJobBox::makeTasksBox()
{
    auto* jobs = new QWidget(this);
    jobs->setObjectName("jobs");
    markProblems(jobs, m_document, path("jobs"));
    // Two types a row, their names right-aligned: chief, worker / ps, evaluator.
    auto* jobsLayout = new QGridLayout(jobs);
    jobsLayout->setContentsMargins(0, 0, 0, 0);
    jobsLayout->setColumnMinimumWidth(2, 8);
    const QStringList types = app::ClusterEditing::taskTypes();
    for (int i = 0; i < types.size(); ++i) {
        const QString type = types[i];
        auto* count = new FieldSpinBox(jobs);
        count->setObjectName(QStringLiteral("jobs.") + type);
        count->setAllowedRange(0, 65535);
        count->setKeyboardTracking(false);
        markProblems(count, m_document, path("jobs.") + type);
        connect(count, &QSpinBox::valueChanged, this, [this, type](int n) { m_cluster.setSlurmJobCount(type, n); });
        auto* name = new QLabel(type + QLatin1Char(':'), jobs);
        name->setBuddy(count);
        const int row = i / 2, column = (i % 2) * 3;
        jobsLayout->addWidget(name, row, column, Qt::AlignRight | Qt::AlignVCenter);
        jobsLayout->addWidget(count, row, column + 1);
        m_jobs.insert(type, count);
    }
    jobsLayout->setColumnStretch(5, 1);
    jobs->setToolTip(tr("How many tasks of each type the job runs, together as many as nodes x tasks per node; "
                        "none written: every task a worker"));
    m_taskNames = new QLabel(this);
    m_taskNames->setObjectName("slurmTasks");
    m_taskNames->setWordWrap(true);
    m_taskNames->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_taskNames->setMinimumWidth(fontMetrics().averageCharWidth() * 36);

    m_requeue = new QCheckBox(app::fieldTitle(path("requeue")), this);
    m_requeue->setObjectName("requeue");
    m_requeue->setToolTip(tr("When Slurm preempts the job or its time limit nears, every task checkpoints at the "
                             "same step and the job requeues itself, to resume there"));
    markProblems(m_requeue, m_document, path("requeue"));
    connect(m_requeue, &QCheckBox::toggled, this, [this](bool on) { m_cluster.setSlurmRequeue(on); });
    m_signal = number("signal_seconds", 0, {}, &app::ClusterEditing::setSlurmSignalSeconds);
    m_signal->setNumberSuffix(tr(" s"));
    m_signal->setToolTip(tr("Slurm warns the job this long before its time limit (--signal=B:USR2@N): enough for "
                            "every task to reach a step and write a checkpoint"));

    // The warning's lead and what follows it, on one row.
    auto* end = new QHBoxLayout;
    end->addWidget(m_signal);
    end->addSpacing(12);
    end->addWidget(m_requeue);
    end->addStretch(1);

    auto* box = new QGroupBox(tr("Tasks and the job's end"), this);
    auto* form = makeForm(box);
    form->addRow(label("jobs"), jobs);
    form->addRow(tr("Tasks:"), m_taskNames);
    form->addRow(label("signal_seconds"), end);
    return box;
}

// More sbatch options, one a line.
QWidget* SlurmJobBox::makeExtraBox()
{
    m_extra = new QPlainTextEdit(this);
    m_extra->setObjectName("extra_sbatch");
    m_extra->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_extra->setPlaceholderText(QStringLiteral("--mem=64G\n--constraint=a100\n--mail-type=END"));
    m_extra->setTabChangesFocus(true);
    m_extra->setLineWrapMode(QPlainTextEdit::NoWrap);
    markProblemsWithin(m_extra, m_document, path("extra_sbatch"));
    m_extra->installEventFilter(this);
    // One edit when the typing pauses or the editor is left, not one a key.
    m_extraIdle = new QTimer(this);
    m_extraIdle->setSingleShot(true);
    m_extraIdle->setInterval(1000);
    connect(m_extraIdle, &QTimer::timeout, this, &SlurmJobBox::commitExtraLines);
    connect(m_extra, &QPlainTextEdit::textChanged, m_extraIdle, qOverload<>(&QTimer::start));

    m_extra->setToolTip(tr("More sbatch options, one a line, each written to the script as an #SBATCH line"));
    // At least three lines, more as the page has room: its size hint (a dozen lines) would make
    // the page scroll at 1280x720.
    m_extra->setMinimumHeight(m_extra->fontMetrics().lineSpacing() * 3 + 2 * m_extra->frameWidth() + 8);
    m_extra->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Ignored);
    auto* box = new QGroupBox(app::fieldTitle(path("extra_sbatch")), this);
    auto* layout = new QVBoxLayout(box);
    layout->addWidget(m_extra, 1);
    return box;
}

// The script submitted, as it will be.
QWidget* SlurmJobBox::makeScriptBox()
{
    m_script = new QPlainTextEdit(this);
    m_script->setObjectName("jobScriptPreview");
    m_script->setReadOnly(true);
    m_script->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_script->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    auto* note = new QLabel(tr("Launch writes it to the run directory as slurm-job.sh and submits it with sbatch."),
                            this);
    note->setToolTip(tr("The run's name and directory and the launch id are filled in at launch"));
    note->setWordWrap(true);
    auto* box = new QGroupBox(tr("Job script submitted"), this);
    auto* layout = new QVBoxLayout(box);
    layout->addWidget(note);
    layout->addWidget(m_script, 1);
    return box;
}

bool SlurmJobBox::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_extra && event->type() == QEvent::FocusOut)
        commitExtraLines();
    return QWidget::eventFilter(watched, event);
}

void SlurmJobBox::commitExtraLines()
{
    m_extraIdle->stop();
    const QStringList lines = optionLines(m_extra->toPlainText());
    if (lines != m_cluster.slurmJob().extraSbatch)
        m_cluster.setSlurmExtraSbatch(lines);
}

void SlurmJobBox::refreshLogin(const app::SlurmJob& job)
{
    const QSignalBlocker blocker(m_login);
    m_login->clear();
    m_login->addItem(tr("This machine"), QStringLiteral("local"));
    // The cluster's nodes reached over SSH: a login node.
    for (const app::ClusterNode& node : m_cluster.nodes())
        if (node.auth != QLatin1String("none"))
            m_login->addItem(tr("%1 (over SSH)").arg(node.name), node.name);
    if (m_login->findData(job.login) < 0)
        m_login->addItem(job.login, job.login); // as written; validation names a problem
    m_login->setCurrentIndex(m_login->findData(job.login));
}

void SlurmJobBox::refresh()
{
    const app::SlurmJob job = m_cluster.slurmJob();
    refreshLogin(job);
    showText(m_partition, job.partition);
    showNumber(m_nodes, job.nodes);
    showNumber(m_tasksPerNode, job.tasksPerNode);
    showNumber(m_cpus, job.cpusPerTask);
    showNumber(m_gpus, job.gpusPerTask);
    showText(m_timeLimit, job.timeLimit);
    showText(m_account, job.account);
    showText(m_qos, job.qos);
    if (optionLines(m_extra->toPlainText()) != job.extraSbatch && !m_extraIdle->isActive()) {
        const QSignalBlocker blocker(m_extra);
        m_extra->setPlainText(job.extraSbatch.join(QLatin1Char('\n')));
    }
    {
        const QSignalBlocker blocker(m_requeue);
        m_requeue->setChecked(job.requeue);
    }
    showNumber(m_signal, job.signalSeconds);
    // No jobs: every task a worker, as many as the job has tasks.
    for (auto it = m_jobs.cbegin(); it != m_jobs.cend(); ++it) {
        const bool worker = it.key() == QLatin1String("worker");
        showNumber(it.value(), job.jobs.isEmpty() ? (worker ? job.nodes * job.tasksPerNode : 0)
                                                  : job.jobs.value(it.key()));
    }
    const QString tasks = taskList(m_cluster.slurmTasks());
    m_taskNames->setText(job.jobs.isEmpty() ? tr("%1 (every task a worker)").arg(tasks) : tasks);

    // The engine as the login node names it for the compute nodes.
    QString engine = m_engine;
    for (const app::ClusterNode& node : m_cluster.nodes())
        if (node.name == job.login && node.auth != QLatin1String("none"))
            engine = node.engine.isEmpty() ? app::kDefaultRemoteEngine : node.engine;
    const QString script = app::jobScriptPreview(m_cluster.slurmSettings(), engine);
    if (script != m_script->toPlainText()) {
        // The reader's place kept as the script changes under it.
        const int scrolled = m_script->verticalScrollBar() ? m_script->verticalScrollBar()->value() : 0;
        m_script->setPlainText(script);
        m_script->verticalScrollBar()->setValue(scrolled);
    }
}

} // namespace strata::ui
