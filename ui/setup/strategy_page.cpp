#include "ui/setup/strategy_page.h"

#include "app/experiment/catalogs.h"
#include "app/experiment/cluster_editing.h"
#include "app/experiment/field_labels.h"
#include "app/launch/engine_info.h"
#include "ui/setup/field_binding.h"
#include "ui/setup/field_marks.h"
#include "ui/setup/field_spin_box.h"
#include "ui/setup/form_layout.h"
#include "ui/shell/theme.h"

#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QSignalBlocker>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace strata::ui {

StrategyPage::StrategyPage(app::ExperimentDocument* document, QWidget* parent)
    : QWidget(parent), m_document(document), m_strategies(app::strategies()), m_list(new QListWidget(this)),
      m_title(new QLabel(this)), m_description(new QLabel(this)), m_bestUse(new QLabel(this)),
      m_whyNot(new QLabel(this)), m_options(new QStackedWidget(this))
{
    m_list->setObjectName("strategyList");
    for (const auto& s : m_strategies) {
        auto* item = new QListWidgetItem(s.runsHere ? s.title : tr("%1 (cannot run here)").arg(s.title), m_list);
        item->setData(Qt::UserRole, s.type);
        item->setToolTip(s.runsHere ? s.description : s.whyNot);
        if (!s.runsHere)
            item->setForeground(palette().color(QPalette::Disabled, QPalette::Text));
    }
    m_list->setFixedWidth(m_list->sizeHintForColumn(0) + 2 * m_list->frameWidth() + 12);

    QFont titleFont = m_title->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.3);
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    for (auto* label : {m_description, m_bestUse, m_whyNot})
        label->setWordWrap(true);
    m_whyNot->setObjectName("strategyWhyNot");
    m_options->setObjectName("strategyOptions");

    auto* about = new QGroupBox(tr("About"), this);
    auto* aboutLayout = new QVBoxLayout(about);
    aboutLayout->addWidget(m_title);
    aboutLayout->addWidget(m_description);
    aboutLayout->addWidget(m_bestUse);
    aboutLayout->addWidget(m_whyNot);

    for (const auto& s : m_strategies)
        m_options->addWidget(makeOptions(s.type));
    auto* options = new QGroupBox(tr("Options"), this);
    auto* optionsLayout = new QVBoxLayout(options);
    optionsLayout->addWidget(m_options);

    auto* logical = new FieldSpinBox(this);
    logical->setObjectName("logicalCpuDevices");
    logical->setAllowedRange(0, 4096);
    logical->setSpecialText(tr("one per core"));
    logical->setToolTip(tr("Split this machine's CPU into this many logical devices, as "
                           "tf.config.set_logical_device_configuration does"));
    bindSpinBox(logical, document, "/strategy/logical_cpu_devices");
    m_logicalGpus = new FieldSpinBox(this);
    m_logicalGpus->setObjectName("logicalGpuDevices");
    m_logicalGpus->setAllowedRange(0, 64);
    m_logicalGpus->setSpecialText(tr("the physical GPUs"));
    bindSpinBox(m_logicalGpus, document, "/strategy/logical_gpu_devices");
    updateLogicalGpus();
    auto* hostForm = makeForm();
    hostForm->addRow(app::fieldTitle("strategy.logical_cpu_devices") + ':', logical);
    hostForm->addRow(app::fieldTitle("strategy.logical_gpu_devices") + ':', m_logicalGpus);
    optionsLayout->addLayout(hostForm);

    fitToCurrentPage(m_options);
    auto* right = new QVBoxLayout;
    right->addWidget(about);
    right->addWidget(options);
    right->addStretch(1);
    auto* layout = new QHBoxLayout(this);
    layout->addWidget(m_list);
    layout->addLayout(right, 1);

    // A strategy of several processes comes with the tasks it needs (ClusterEditing::chooseStrategy).
    connect(m_list, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row >= 0)
            app::ClusterEditing(*m_document)
                .chooseStrategy(m_strategies[row].type, {"logical_cpu_devices", "logical_gpu_devices"});
    });
    connect(document, &app::ExperimentDocument::changed, this, [this] {
        // More or fewer logical devices: the device editors list the new ones.
        if (deviceNames() != m_shownDevices)
            rebuildOptions();
        else
            refresh();
    });
    m_shownDevices = deviceNames();
    refresh();
}

void StrategyPage::updateLogicalGpus()
{
    // Logical GPUs are made from a GPU: nothing to split without one.
    m_logicalGpus->setEnabled(m_gpus > 0);
    m_logicalGpus->setToolTip(m_gpus > 0 ? tr("Split the first GPU into this many logical devices (Mirrored over "
                                              "them runs on one GPU), as tf.config.set_logical_device_configuration "
                                              "does")
                                         : tr("This host has no GPU (or the engine has no CUDA backend)"));
}

void StrategyPage::setHostDevices(int logicalCpus, int gpus)
{
    m_cpus = logicalCpus;
    m_gpus = gpus;
    updateLogicalGpus();
    rebuildOptions();
}

void StrategyPage::rebuildOptions()
{
    // Device editors are built from the device list: rebuild them.
    m_shownDevices = deviceNames();
    while (m_options->count() > 0) {
        QWidget* w = m_options->widget(0);
        m_options->removeWidget(w);
        delete w;
    }
    for (const auto& s : m_strategies)
        m_options->addWidget(makeOptions(s.type));
    fitToCurrentPage(m_options);
    refresh();
}

QStringList StrategyPage::deviceNames() const
{
    const int logical = m_document->get("/strategy/logical_cpu_devices").toInt();
    const int logicalGpus = m_document->get("/strategy/logical_gpu_devices").toInt();
    return app::deviceNames(logical > 0 ? logical : m_cpus, logicalGpus > 0 && m_gpus > 0 ? logicalGpus : m_gpus);
}

QWidget* StrategyPage::makeDeviceChoice(const QString& pointer)
{
    auto* combo = new QComboBox;
    combo->setObjectName(pointer.section('/', -1));
    combo->addItems(deviceNames());
    bindComboBox(combo, m_document, pointer);
    return combo;
}

QWidget* StrategyPage::makeDeviceChecklist(const QString& pointer, const QString& whenNone)
{
    // Nothing ticked: the field is absent and the engine takes every device.
    auto* list = new QListWidget;
    list->setObjectName(pointer.section('/', -1));
    list->setMaximumWidth(list->fontMetrics().averageCharWidth() * 24);
    for (const auto& name : deviceNames()) {
        auto* item = new QListWidgetItem(name, list);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Unchecked);
    }
    // As tall as its devices, up to 7 of them.
    const int rows = std::min<int>(list->count(), 7);
    list->setFixedHeight(rows * list->sizeHintForRow(0) + 2 * list->frameWidth() + 4);
    auto show = [this, list, pointer] {
        const QSignalBlocker blocker(list);
        const QStringList chosen = m_document->get(pointer).toStringList();
        for (int i = 0; i < list->count(); ++i)
            list->item(i)->setCheckState(chosen.contains(list->item(i)->text()) ? Qt::Checked : Qt::Unchecked);
    };
    show();
    connect(m_document, &app::ExperimentDocument::changed, list, show);
    markProblems(list, m_document, app::fieldPath(pointer));
    connect(list, &QListWidget::itemChanged, this, [this, list, pointer] {
        QStringList chosen;
        for (int i = 0; i < list->count(); ++i)
            if (list->item(i)->checkState() == Qt::Checked)
                chosen << list->item(i)->text();
        m_document->setValue(pointer, chosen.isEmpty() ? QVariant() : QVariant(chosen));
    });
    auto* box = new QWidget;
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(list);
    auto* hint = new QLabel(whenNone);
    hint->setWordWrap(true);
    layout->addWidget(hint);
    return box;
}

QWidget* StrategyPage::makeOptions(const QString& type)
{
    auto* page = new QWidget;
    auto* form = makeForm(page);
    form->setContentsMargins(0, 0, 0, 0);
    auto crossDeviceOps = [this, form] {
        auto* ops = new QComboBox;
        ops->setObjectName("cross_device_ops");
        ops->addItem(tr("all-reduce (each replica reduces a part, then all gather it)"), "all_reduce");
        ops->addItem(tr("reduce to one device, then broadcast"), "reduce_to_one_device");
        bindComboBox(ops, m_document, "/strategy/cross_device_ops");
        form->addRow(app::fieldTitle("strategy.cross_device_ops") + ':', ops);
    };
    const QString everyDevice = tr("None ticked: every device (every GPU, else every logical CPU device).");
    if (type == "OneDevice") {
        form->addRow(app::fieldTitle("strategy.device") + ':', makeDeviceChoice("/strategy/device"));
    } else if (type == "Mirrored") {
        form->addRow(tr("Replica devices:"), makeDeviceChecklist("/strategy/devices", everyDevice));
        crossDeviceOps();
    } else if (type == "MultiWorkerMirrored") {
        auto* label = new QLabel(tr("Its workers are the chief and worker tasks of the Cluster page, each a process "
                                    "with the devices below; an evaluator task there evaluates the chief's "
                                    "checkpoints."));
        label->setWordWrap(true);
        form->addRow(label);
        form->addRow(tr("Devices of each worker:"),
                     makeDeviceChecklist("/strategy/devices", tr("None ticked: one replica per worker, on cpu:0.")));
        // Stored in bytes (the engine's field); edited in KiB, the unit its minimum is in; below
        // it, "auto".
        auto* bucket = new FieldSpinBox;
        bucket->setObjectName("bucket_bytes");
        bucket->setAllowedRange(0, 4 * 1024 * 1024); // auto, then 1 KiB .. 4 GiB
        bucket->setSpecialText(tr("auto"));
        bucket->setSingleStep(256);
        bucket->setGroupSeparatorShown(true);
        bucket->setNumberSuffix(tr(" KiB"));
        bucket->setToolTip(tr("Gradients are all-reduced across the workers in buckets of about this size, each "
                              "sent as soon as the backward pass has filled it. \"auto\": the bucket size and the "
                              "all-reduce algorithm are tuned in the first steps (the default kept unless another "
                              "is faster by 3%)"));
        bindScaledSpinBox(bucket, m_document, "/strategy/bucket_bytes", app::defaultBucketBytes(), 1024, "auto");
        form->addRow(app::fieldTitle("strategy.bucket_bytes") + ':', bucket);
        form->addRow(timeoutLabel(),
                     makeTimeout(tr("How long a worker waits for the others (to join, in a collective) before it "
                                    "reports them lost"),
                                 app::fieldDefault("/strategy/timeout_seconds", type).toDouble()));
    } else if (type == "CentralStorage") {
        form->addRow(app::fieldTitle("strategy.compute_devices") + ':',
                     makeDeviceChecklist("/strategy/compute_devices", everyDevice));
        form->addRow(app::fieldTitle("strategy.parameter_device") + ':',
                     makeDeviceChoice("/strategy/parameter_device"));
    } else if (type == "TPU") {
        auto* fallback = new QComboBox;
        fallback->setObjectName("fallback");
        fallback->addItem(tr("none (refuse to run without a TPU)"), "");
        fallback->addItem(tr("MirroredStrategy"), "Mirrored");
        bindComboBox(fallback, m_document, "/strategy/fallback");
        form->addRow(app::fieldTitle("strategy.fallback") + ':', fallback);
        form->addRow(tr("Fallback devices:"), makeDeviceChecklist("/strategy/devices", everyDevice));
        crossDeviceOps();
    } else if (type == "ParameterServer") {
        auto* label = new QLabel(tr("Its tasks are the Cluster page's: one chief (the coordinator: it schedules the "
                                    "steps, evaluates and writes checkpoints), the workers that compute the "
                                    "gradients, and the ps tasks that hold the variables and apply the updates."));
        label->setWordWrap(true);
        form->addRow(label);
        addParameterServerOptions(form);
    } else {
        form->addRow(new QLabel(tr("No options: one replica on the first device.")));
    }
    return page;
}

QString StrategyPage::timeoutLabel() { return tr("%1 (s):").arg(app::fieldTitle("strategy.timeout_seconds")); }

QWidget* StrategyPage::makeTimeout(const QString& toolTip, double absent)
{
    // Seconds as written (2.5, 0.25): a number field shows any value exactly.
    auto* timeout = new QLineEdit;
    timeout->setObjectName("timeout_seconds");
    timeout->setPlaceholderText(tr("%1 (default)").arg(absent));
    timeout->setToolTip(toolTip);
    fitWidth(timeout, FieldWidth::Short);
    bindNumberEdit(timeout, m_document, "/strategy/timeout_seconds");
    return timeout;
}

void StrategyPage::addParameterServerOptions(QFormLayout* form)
{
    addPartitionerOptions(form);
    addStalenessOptions(form);
    form->addRow(timeoutLabel(), makeTimeout(tr("A task unheard this long is lost: a lost worker's steps go to the "
                                                "others, a lost ps task stops the job"),
                                             app::fieldDefault("/strategy/timeout_seconds", "ParameterServer").toDouble()));
}

// The partitioner: its type, then the fields of the chosen one.
void StrategyPage::addPartitionerOptions(QFormLayout* form)
{
    const QList<app::PartitionerInfo> partitioners = app::partitioners();
    auto* partitioner = new QComboBox;
    partitioner->setObjectName("partitioner");
    partitioner->setToolTip(tr("How each variable is split along its first axis into shards, placed round-robin "
                               "on the ps tasks (tf.distribute.experimental.partitioners)"));
    auto* fields = new QStackedWidget;
    for (const app::PartitionerInfo& p : partitioners) {
        partitioner->addItem(p.title, p.type);
        auto* page = new QWidget;
        auto* pageForm = makeForm(page);
        pageForm->setContentsMargins(0, 0, 0, 0);
        const auto label = [](const QString& field) {
            return app::fieldTitle("strategy.partitioner." + field) + ':';
        };
        const auto kibBox = [&](const QString& field, qint64 absent) {
            auto* box = new FieldSpinBox;
            box->setObjectName(p.type + '.' + field); // "MinSize.min_shard_bytes": fields repeat
            box->setAllowedRange(1, 1 << 30);
            box->setGroupSeparatorShown(true);
            box->setNumberSuffix(tr(" KiB"));
            bindScaledSpinBox(box, m_document, "/strategy/partitioner/" + field, absent, 1024);
            pageForm->addRow(label(field), box);
        };
        const auto countBox = [&](const QString& field, int minimum, const QString& special) {
            auto* box = new FieldSpinBox;
            box->setObjectName(p.type + '.' + field);
            box->setAllowedRange(minimum, 1 << 20);
            box->setSpecialText(special);
            // The engine's default for this partitioner; a required field (num_shards) shows its minimum.
            const QVariant absent = app::fieldDefault("/strategy/partitioner/" + field, p.type);
            if (special.isEmpty())
                bindSpinBox(box, m_document, "/strategy/partitioner/" + field, absent.isValid() ? absent.toInt() : minimum);
            else
                bindOptionalSpinBox(box, m_document, "/strategy/partitioner/" + field);
            pageForm->addRow(label(field), box);
        };
        const QVariantMap& initial = p.initial;
        if (p.type == "FixedShards") {
            countBox("num_shards", 1, {});
        } else if (p.type == "MinSize") {
            kibBox("min_shard_bytes", initial["min_shard_bytes"].toLongLong());
            countBox("max_shards", 1, {});
        } else if (p.type == "MaxSize") {
            kibBox("max_shard_bytes", initial["max_shard_bytes"].toLongLong());
            countBox("max_shards", 0, tr("no maximum"));
        } else {
            auto* none = new QLabel(tr("Each variable stays whole on one ps task; the variables are placed "
                                       "round-robin."));
            pageForm->addRow(none);
        }
        fields->addWidget(page);
    }
    const auto showPartitioner = [this, partitioner, fields] {
        const QSignalBlocker blocker(partitioner);
        const int index = std::max(0, partitioner->findData(m_document->get("/strategy/partitioner/type").toString()));
        partitioner->setCurrentIndex(index);
        fields->setCurrentIndex(index);
    };
    showPartitioner();
    connect(m_document, &app::ExperimentDocument::changed, partitioner, showPartitioner);
    connect(partitioner, &QComboBox::activated, this, [this, partitioners](int index) {
        const QVariantMap& initial = partitioners[index].initial;
        if (m_document->get("/strategy/partitioner/type").toString() != partitioners[index].type)
            m_document->setValue("/strategy/partitioner", initial.isEmpty() ? QVariant() : QVariant(initial));
    });
    markProblems(partitioner, m_document, "strategy.partitioner");
    fitToCurrentPage(fields);
    form->addRow(app::fieldTitle("strategy.partitioner") + ':', partitioner);
    form->addRow(QString(), fields);
}

// The staleness bound: none (TensorFlow's asynchronous training), or k steps.
void StrategyPage::addStalenessOptions(QFormLayout* form)
{
    auto* staleness = new QComboBox;
    staleness->setObjectName("staleness");
    staleness->addItem(tr("asynchronous (TensorFlow's: no bound)"), false);
    staleness->addItem(tr("bounded: a worker at most k steps ahead of the slowest"), true);
    staleness->setToolTip(tr("How stale a worker's gradients may be. k = 0: lockstep rounds, every step of a "
                             "round sees all updates of the previous one"));
    auto* bound = new FieldSpinBox;
    bound->setObjectName("max_staleness");
    bound->setAllowedRange(0, 1 << 30);
    bound->setNumberPrefix(tr("k = "));
    bindSpinBox(bound, m_document, "/strategy/max_staleness", 0);
    const auto showStaleness = [this, staleness, bound] {
        const QSignalBlocker blocker(staleness);
        const QVariant k = m_document->get("/strategy/max_staleness");
        // A wrong bound (-2) is shown, and marked, as a bound.
        const bool bounded = k.isValid() && k.toInt() != -1;
        staleness->setCurrentIndex(bounded ? 1 : 0);
        bound->setEnabled(bounded);
    };
    showStaleness();
    connect(m_document, &app::ExperimentDocument::changed, staleness, showStaleness);
    connect(staleness, &QComboBox::activated, this, [this, staleness, bound] {
        m_document->setValue("/strategy/max_staleness",
                             staleness->currentData().toBool() ? QVariant(bound->value()) : QVariant());
    });
    auto* stalenessRow = new QHBoxLayout;
    stalenessRow->addWidget(staleness);
    stalenessRow->addWidget(bound);
    stalenessRow->addStretch(1);
    form->addRow(app::fieldTitle("strategy.max_staleness") + ':', stalenessRow);
}

void StrategyPage::refresh()
{
    const QString type = m_document->get("/strategy/type").toString();
    const QString current = type.isEmpty() ? app::fieldDefault("/strategy/type").toString() : type;
    int row = -1;
    for (int i = 0; i < m_strategies.size(); ++i)
        if (m_strategies[i].type == current)
            row = i;
    {
        const QSignalBlocker blocker(m_list);
        m_list->setCurrentRow(row);
    }
    if (row < 0)
        return;
    const auto& s = m_strategies[row];
    m_title->setText(s.title);
    m_description->setText(s.description);
    m_bestUse->setText(tr("Best for: %1").arg(s.bestUse));
    m_whyNot->setText(s.whyNot);
    m_whyNot->setVisible(!s.whyNot.isEmpty());
    // A strategy that runs says what it cannot do yet in the ordinary colour.
    m_whyNot->setStyleSheet(s.runsHere ? QString() : QStringLiteral("color: %1").arg(theme::error(palette()).name()));
    m_options->setCurrentIndex(row);
}

} // namespace strata::ui
