#include "ui/setup/training_page.h"

#include "app/experiment/catalogs.h"
#include "app/experiment/field_labels.h"
#include "ui/setup/field_binding.h"
#include "ui/setup/field_marks.h"
#include "ui/setup/field_spin_box.h"
#include "ui/setup/form_layout.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QStackedWidget>

#include <limits>

namespace strata::ui {

namespace {
FieldSpinBox* spin(const QString& name, int minimum, const QString& special = {})
{
    auto* s = new FieldSpinBox;
    s->setObjectName(name);
    s->setAllowedRange(minimum, std::numeric_limits<int>::max());
    s->setGroupSeparatorShown(true);
    s->setSpecialText(special);
    return s;
}

QString label(const char* path) { return app::fieldTitle(QLatin1String(path)) + ':'; }
} // namespace

TrainingPage::TrainingPage(app::ExperimentDocument* document, QWidget* parent)
    : QWidget(parent), m_document(document), m_globalBatch(new QLabel(this)), m_optimizerForms(new QStackedWidget(this))
{
    QGroupBox* schedule = makeScheduleBox(document);
    QGroupBox* loss = makeLossBox(document);
    QGroupBox* optimizer = makeOptimizerBox(document);
    QGroupBox* checkpoint = makeCheckpointBox(document);

    // The boxes as wide as their forms; the space left over stays beside them, not inside.
    auto* layout = new QGridLayout(this);
    layout->addWidget(schedule, 0, 0);
    layout->addWidget(loss, 1, 0);
    layout->addWidget(optimizer, 0, 1);
    layout->addWidget(checkpoint, 1, 1);
    layout->setRowStretch(2, 1);
    layout->setColumnStretch(2, 1);

    connect(document, &app::ExperimentDocument::validationChanged, this, &TrainingPage::refresh);
    refresh();
}

// Epochs, the batch, steps per epoch, threads and the seed.
QGroupBox* TrainingPage::makeScheduleBox(app::ExperimentDocument* document)
{
    auto* epochs = spin("epochs", 1);
    bindSpinBox(epochs, document, "/training/epochs");
    auto* batch = spin("batchSize", 1);
    bindSpinBox(batch, document, "/training/batch_size");
    m_globalBatch->setObjectName("globalBatch");
    m_globalBatch->setWordWrap(true);
    auto* batchRow = new QHBoxLayout;
    batchRow->addWidget(batch);
    batchRow->addWidget(m_globalBatch, 1);
    auto* steps = spin("stepsPerEpoch", 0, tr("one pass over the data"));
    bindSpinBox(steps, document, "/training/steps_per_epoch");
    auto* threads = spin("threads", 0, tr("the cores divided among the replicas"));
    bindSpinBox(threads, document, "/training/threads");
    auto* seed = spin("seed", 0);
    bindSpinBox(seed, document, "/seed");

    auto* schedule = new QGroupBox(tr("Schedule"), this);
    auto* scheduleForm = makeForm(schedule);
    scheduleForm->addRow(label("training.epochs"), epochs);
    scheduleForm->addRow(label("training.batch_size"), batchRow);
    scheduleForm->addRow(label("training.steps_per_epoch"), steps);
    scheduleForm->addRow(label("training.threads"), threads);
    scheduleForm->addRow(label("seed"), seed);

    return schedule;
}

// The loss and the metrics shown while training.
QGroupBox* TrainingPage::makeLossBox(app::ExperimentDocument* document)
{
    auto* fromLogits = new QCheckBox(tr("the model outputs logits"), this);
    fromLogits->setObjectName("fromLogits");
    bindCheckBox(fromLogits, document, "/training/loss/from_logits");
    auto* metrics = new QWidget(this);
    auto* metricsLayout = new QHBoxLayout(metrics);
    metricsLayout->setContentsMargins(0, 0, 0, 0);
    const QStringList defaultMetrics = app::fieldDefault("/training/metrics").toStringList();
    for (const auto& name : app::metricNames()) {
        auto* check = new QCheckBox(name, metrics);
        check->setObjectName("metric_" + name);
        metricsLayout->addWidget(check);
        auto show = [this, check, name, defaultMetrics] {
            const QVariant v = m_document->get("/training/metrics");
            const QSignalBlocker blocker(check);
            check->setChecked((v.isValid() ? v.toStringList() : defaultMetrics).contains(name));
        };
        show();
        connect(document, &app::ExperimentDocument::changed, check, show);
        connect(check, &QCheckBox::toggled, this, [this, name, defaultMetrics](bool on) {
            const QVariant v = m_document->get("/training/metrics");
            QStringList list = v.isValid() ? v.toStringList() : defaultMetrics;
            list.removeAll(name);
            if (on)
                list << name;
            m_document->setValue("/training/metrics", list);
        });
    }
    metricsLayout->addStretch(1);
    markProblems(metrics, document, "training.metrics");
    auto* loss = new QGroupBox(tr("Loss and metrics"), this);
    auto* lossForm = makeForm(loss);
    lossForm->addRow(label("training.loss"),
                     makeTypeChoice("loss", "/training/loss", app::lossNames(), {"from_logits"}));
    lossForm->addRow(QString(), fromLogits);
    lossForm->addRow(label("training.metrics"), metrics);

    return loss;
}

// The optimizer, its learning rate and scaling, and the chosen optimizer's own fields.
QGroupBox* TrainingPage::makeOptimizerBox(app::ExperimentDocument* document)
{
    for (const auto& name : app::optimizerNames())
        m_optimizerForms->addWidget(makeOptimizerForm(name));
    auto* learningRate = new QLineEdit(this);
    learningRate->setObjectName("learningRate");
    learningRate->setPlaceholderText(tr("the optimizer's default"));
    fitWidth(learningRate, FieldWidth::Short);
    bindNumberEdit(learningRate, document, "/training/optimizer/learning_rate");
    auto* scaling = new QComboBox(this);
    scaling->setObjectName("lrScaling");
    scaling->addItem(tr("none"), "none");
    scaling->addItem(tr("linear (times the number of replicas)"), "linear");
    bindComboBox(scaling, document, "/training/lr_scaling");
    auto* optimizer = new QGroupBox(tr("Optimizer"), this);
    auto* optimizerForm = makeForm(optimizer);
    optimizerForm->addRow(label("training.optimizer"), makeTypeChoice("optimizer", "/training/optimizer",
                                                                      app::optimizerNames(), {"learning_rate"}));
    optimizerForm->addRow(label("training.optimizer.learning_rate"), learningRate);
    optimizerForm->addRow(label("training.lr_scaling"), scaling);
    optimizerForm->addRow(m_optimizerForms);

    return optimizer;
}

QGroupBox* TrainingPage::makeCheckpointBox(app::ExperimentDocument* document)
{
    auto* checkpoints = new QCheckBox(tr("write checkpoints"), this);
    checkpoints->setObjectName("checkpointEnabled");
    bindCheckBox(checkpoints, document, "/training/checkpoint/enabled");
    auto* everyEpochs = spin("checkpointEpochs", 0, tr("never"));
    bindSpinBox(everyEpochs, document, "/training/checkpoint/every_epochs");
    auto* everySteps = spin("checkpointSteps", 0, tr("never"));
    bindSpinBox(everySteps, document, "/training/checkpoint/every_steps");
    auto* checkpoint = new QGroupBox(tr("%1 (also written when a run stops or ends)")
                                         .arg(app::fieldTitle("training.checkpoint")),
                                     this);
    auto* checkpointForm = makeForm(checkpoint);
    checkpointForm->addRow(QString(), checkpoints);
    checkpointForm->addRow(label("training.checkpoint.every_epochs"), everyEpochs);
    checkpointForm->addRow(label("training.checkpoint.every_steps"), everySteps);

    return checkpoint;
}

QWidget* TrainingPage::makeTypeChoice(const QString& name, const QString& pointer, const QStringList& types,
                                      const QStringList& keep)
{
    const QString absent = app::fieldDefault(pointer + "/type").toString();
    // Not a plain field binding: switching type drops the old type's own fields.
    auto* combo = new QComboBox;
    combo->setObjectName(name);
    combo->addItems(types);
    markProblems(combo, m_document, app::fieldPath(pointer + "/type"));
    auto show = [this, combo, pointer, absent] {
        const QString type = m_document->get(pointer + "/type").toString();
        const QSignalBlocker blocker(combo);
        combo->setCurrentIndex(combo->findText(type.isEmpty() ? absent : type));
    };
    show();
    connect(m_document, &app::ExperimentDocument::changed, combo, show);
    connect(combo, &QComboBox::activated, this, [this, combo, pointer, keep] {
        m_document->setType(pointer, combo->currentText(), keep);
    });
    return combo;
}

QWidget* TrainingPage::makeOptimizerForm(const QString& type)
{
    // Keras' fields for each optimizer, with the engine's defaults.
    auto* page = new QWidget;
    auto* form = makeForm(page);
    form->setContentsMargins(0, 0, 0, 0);
    const QString base = "/training/optimizer/";
    auto number = [&](const QString& field) {
        auto* edit = new QLineEdit;
        edit->setObjectName(field);
        edit->setPlaceholderText(app::fieldDefault(base + field, type).toString());
        fitWidth(edit, FieldWidth::Number);
        bindNumberEdit(edit, m_document, base + field);
        form->addRow(field + ':', edit);
    };
    auto flag = [&](const QString& field) {
        auto* check = new QCheckBox;
        check->setObjectName(field);
        bindCheckBox(check, m_document, base + field);
        form->addRow(field + ':', check);
    };
    if (type == "sgd") {
        number("momentum");
        flag("nesterov");
    } else if (type == "adam") {
        number("beta_1");
        number("beta_2");
        number("epsilon");
    } else if (type == "rmsprop") {
        number("rho");
        number("momentum");
        number("epsilon");
        flag("centered");
    }
    return page;
}

void TrainingPage::refresh()
{
    const app::Validation& v = m_document->validation();
    QString text;
    if (v.strategy == QLatin1String("ParameterServer")) {
        text = tr("= global batch %1 (each step is one worker's batch; the workers step asynchronously)")
                   .arg(v.globalBatch);
    } else if (v.globalBatch > 0) {
        QString replicas = tr("x %n replica(s)", nullptr, v.replicas);
        if (v.workers > 1)
            replicas += tr(" (on %1 workers)").arg(v.workers);
        text = tr("%1 = global batch %2").arg(replicas).arg(v.globalBatch);
    }
    m_globalBatch->setText(text);
    const QString type = m_document->get("/training/optimizer/type").toString();
    const QString shown = type.isEmpty() ? app::fieldDefault("/training/optimizer/type").toString() : type;
    m_optimizerForms->setCurrentIndex(std::max(0, static_cast<int>(app::optimizerNames().indexOf(shown))));
}

} // namespace strata::ui
