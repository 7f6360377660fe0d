#include "ui/compare/sweep_panel.h"

#include "app/experiment/catalogs.h"
#include "ui/compare/flow_layout.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>

namespace strata::ui {

SweepPanel::SweepPanel(QWidget* parent)
    : QWidget(parent), m_run(new QPushButton(tr("Run strategies"), this)), m_stop(new QPushButton(tr("Stop"), this)),
      m_progress(new QProgressBar(this)), m_status(new QLabel(this))
{
    // The choices, then the controls, wrapped onto as many rows as the width needs (two in a
    // 1280-pixel window, so that the page fits a laptop's screen).
    auto* layout = new FlowLayout(this, 12);
    layout->addWidget(new QLabel(tr("Compare strategies on this experiment:"), this));
    // Every strategy that runs here (TPU's fallback is Mirrored's row); the multi-process ones
    // as a job of their own on this machine (app::sweepVariant).
    for (const app::StrategyInfo& s : app::strategies()) {
        if (!s.runsHere || s.type == "TPU")
            continue;
        // A strategy and its count stay together when the row wraps.
        auto* choice = new QWidget(this);
        auto* pair = new QHBoxLayout(choice);
        pair->setContentsMargins(0, 0, 0, 0);
        Row row{s.type, new QCheckBox(s.type, choice), nullptr, false};
        row.chosen->setObjectName("sweep" + s.type);
        row.chosen->setToolTip(s.description);
        pair->addWidget(row.chosen);
        row.workers = app::isMultiProcess(s.type.toStdString());
        if (row.workers || s.type == "Mirrored" || s.type == "CentralStorage") {
            row.replicas = new QSpinBox(choice);
            row.replicas->setObjectName("sweep" + s.type + "Replicas");
            row.replicas->setRange(1, 64);
            row.replicas->setValue(2);
            row.replicas->setSuffix(row.workers ? tr(" workers") : tr(" replicas"));
            row.replicas->setToolTip(row.workers ? tr("Worker processes on this machine, one replica each (and, for "
                                                      "ParameterServer, a coordinator and one ps task)")
                                                 : tr("Replicas, one per logical CPU device"));
            pair->addWidget(row.replicas);
        }
        layout->addWidget(choice);
        m_rows.push_back(row);
    }
    m_run->setObjectName("runSweep");
    m_run->setToolTip(tr("Run the experiment under each ticked strategy, one after another, with the same model, "
                         "data and seed, then compare them"));
    m_stop->setObjectName("stopSweep");
    m_stop->setEnabled(false);
    m_progress->setObjectName("sweepProgress");
    m_progress->setMaximumWidth(160);
    m_progress->setVisible(false);
    m_status->setObjectName("sweepStatus");
    for (QWidget* control : std::initializer_list<QWidget*>{m_run, m_stop, m_progress, m_status})
        layout->addWidget(control);
    connect(m_run, &QPushButton::clicked, this, [this] { Q_EMIT runRequested(variants()); });
    connect(m_stop, &QPushButton::clicked, this, &SweepPanel::stopRequested);
    for (const QString& type : {QStringLiteral("OneDevice"), QStringLiteral("Mirrored"), QStringLiteral("CentralStorage")})
        choose(type, true);
}

void SweepPanel::setHostCpus(int cpus)
{
    m_hostCpus = std::max(cpus, 1);
    for (const Row& row : m_rows)
        if (row.replicas && !row.workers)
            row.replicas->setValue(std::max(m_hostCpus, 2));
}

void SweepPanel::choose(const QString& type, bool chosen, int replicas)
{
    for (const Row& row : m_rows)
        if (row.type == type) {
            row.chosen->setChecked(chosen);
            if (row.replicas && replicas > 0)
                row.replicas->setValue(replicas);
        }
}

QList<app::SweepVariant> SweepPanel::variants() const
{
    QList<app::SweepVariant> out;
    for (const Row& row : m_rows)
        if (row.chosen->isChecked())
            out << app::sweepVariant(row.type, row.replicas ? row.replicas->value() : 1, m_hostCpus);
    return out;
}

void SweepPanel::showProgress(int done, int count, const QString& running)
{
    m_run->setEnabled(false);
    m_stop->setEnabled(true);
    m_progress->setVisible(true);
    m_progress->setRange(0, count);
    m_progress->setValue(done);
    m_progress->setFormat(QStringLiteral("%v / %m"));
    m_status->setText(tr("running %1").arg(running));
}

void SweepPanel::showIdle(const QString& message)
{
    m_run->setEnabled(true);
    m_stop->setEnabled(false);
    m_progress->setVisible(false);
    m_status->setText(message);
}

} // namespace strata::ui
