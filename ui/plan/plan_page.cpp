#include "ui/plan/plan_page.h"

#include "ui/plan/plan_curves.h"
#include "ui/plan/plan_table.h"
#include "ui/plan/probe_inputs_view.h"
#include "ui/shell/theme.h"

#include <QEvent>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace strata::ui {

using namespace app::plan;

namespace {

QFrame* frame(const QString& name, QWidget* parent)
{
    auto* f = new QFrame(parent);
    f->setObjectName(name);
    f->setFrameShape(QFrame::StyledPanel);
    return f;
}

QLabel* wrappingLabel(const QString& name, QWidget* parent)
{
    auto* label = new QLabel(parent);
    label->setObjectName(name);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

const char* const kErrorProperty = "planError"; // a warning label in the error colour

} // namespace

PlanPage::PlanPage(PlanSession* session, QWidget* parent)
    : QWidget(parent), m_session(session), m_probe(new QPushButton(tr("Probe"), this)),
      m_cancel(new QPushButton(tr("Cancel"), this)), m_status(new QLabel(this)),
      m_planOrHint(new QStackedWidget(this)), m_emptyHint(wrappingLabel("planEmptyHint", this)),
      m_recommendationFrame(frame("planRecommendationFrame", this)),
      m_recommendation(wrappingLabel("planRecommendation", this)), m_warningsFrame(frame("planWarnings", this)),
      m_warningsList(new QWidget(this)), m_warningsLayout(new QVBoxLayout(m_warningsList)), m_split(new QSplitter(Qt::Horizontal, this)),
      m_table(new PlanTable(this)), m_curves(new PlanCurves(this)), m_inputs(new ProbeInputsView(this))
{
    m_probe->setObjectName("probeButton");
    m_cancel->setObjectName("cancelProbe");
    m_status->setObjectName("probeStatus");
    m_probe->setToolTip(tr("Measure this experiment's model, the all-reduce between processes and the "
                           "ParameterServer round trip on this machine, then predict every strategy and worker count"));
    m_emptyHint->setAlignment(Qt::AlignCenter);
    m_emptyHint->setText(tr("No plan yet for this experiment.\n\nProbe measures the model's step, an all-reduce sweep "
                            "and the ParameterServer round trip on this machine (about a minute), then predicts the "
                            "step time, throughput and scaling efficiency of each strategy at 1 to 64 workers, "
                            "recommends one and warns where more workers would be slower."));

    auto* bar = new QHBoxLayout;
    bar->addWidget(m_probe);
    bar->addWidget(m_cancel);
    bar->addWidget(m_status, 1);

    auto* recommendationLayout = new QVBoxLayout(m_recommendationFrame);
    recommendationLayout->addWidget(m_recommendation);
    recommendationLayout->addStretch(1);
    m_warningsLayout->setSpacing(2);
    m_warningsLayout->setContentsMargins(0, 0, 0, 0);
    // Many long warnings scroll (at most ten lines high): the table and curves stay in view.
    auto* warnings = new QScrollArea(m_warningsFrame);
    warnings->setFrameShape(QFrame::NoFrame);
    warnings->setWidgetResizable(true);
    warnings->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    warnings->setWidget(m_warningsList);
    warnings->setObjectName("planWarningsScroll");
    warnings->setMaximumHeight(fontMetrics().lineSpacing() * 10 + 4);
    (new QVBoxLayout(m_warningsFrame))->addWidget(warnings);

    // The table over what the probe measured, beside the curves: all in view at 1280x720.
    auto* left = new QSplitter(Qt::Vertical, this);
    left->setObjectName("planTableSplit");
    // What the probe measured scrolls: on a small screen it keeps a few rows in view, not the table out.
    auto* inputs = new QScrollArea(this);
    inputs->setObjectName("probeInputsScroll");
    inputs->setFrameShape(QFrame::NoFrame);
    inputs->setWidgetResizable(true);
    inputs->setWidget(m_inputs);
    left->addWidget(m_table);
    left->addWidget(inputs);
    left->setSizes({600, 400});
    left->setChildrenCollapsible(false);
    m_split->setObjectName("planSplit");
    m_split->addWidget(left);
    m_split->addWidget(m_curves);
    m_split->setSizes({1200, 800}); // the table (eight columns) wider than the curves, whatever its columns ask for
    m_split->setChildrenCollapsible(false);

    auto* planWidget = new QWidget(this);
    auto* planLayout = new QVBoxLayout(planWidget);
    planLayout->setContentsMargins(0, 0, 0, 0);
    auto* top = new QHBoxLayout;
    top->addWidget(m_recommendationFrame, 1);
    top->addWidget(m_warningsFrame, 1);
    planLayout->addLayout(top);
    planLayout->addWidget(m_split, 1);
    m_planOrHint->addWidget(m_emptyHint);
    m_planOrHint->addWidget(planWidget);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_planOrHint, 1);

    connect(m_probe, &QPushButton::clicked, this, [this] {
        m_status->setText(tr("Starting the probe..."));
        m_session->probe(m_options);
    });
    connect(m_cancel, &QPushButton::clicked, m_session, &PlanSession::cancel);
    connect(m_session, &PlanSession::probingChanged, this, &PlanPage::showProbing);
    connect(m_session, &PlanSession::progress, this,
            [this](const QString& what) { m_status->setText(tr("Probing: %1...").arg(what)); });
    connect(m_session, &PlanSession::failed, this, [this](const QString& error) {
        m_status->setText(tr("The probe failed (the message is above)."));
        Q_EMIT message(tr("The planner's probe failed: %1").arg(error), true);
    });
    connect(m_session, &PlanSession::cancelled, this, [this] { m_status->setText(tr("Probe cancelled.")); });
    connect(m_session, &PlanSession::planChanged, this, &PlanPage::showPlan);
    styleFrames();
    showProbing(m_session->probing());
    showPlan();
}

void PlanPage::showProbing(bool probing)
{
    m_probe->setEnabled(!probing);
    m_cancel->setVisible(probing);
    if (!probing && m_status->text().startsWith(tr("Probing")))
        m_status->clear();
}

void PlanPage::showPlan()
{
    const std::optional<ScalingPlan>& plan = m_session->plan();
    m_planOrHint->setCurrentIndex(plan ? 1 : 0);
    if (!plan)
        return;
    m_status->setText(tr("Plan of %1, made %2 from a probe of %3 s on %4.")
                          .arg(plan->request.experiment.isEmpty() ? tr("this experiment") : plan->request.experiment,
                               QLocale().toString(m_session->madeAt(), QLocale::ShortFormat))
                          .arg(plan->probe.probeSeconds, 0, 'f', 1)
                          .arg(plan->probe.host));

    const Recommendation& r = plan->recommendation;
    QString text = (r.workers == 1 ? tr("<b>Recommended: %1 with one worker</b>").arg(strategyName(r.strategy))
                                   : tr("<b>Recommended: %1 with %2 workers</b>").arg(strategyName(r.strategy)).arg(r.workers));
    for (const Prediction& p : plan->predictions)
        if (p.strategy == r.strategy && p.workers == r.workers)
            text += tr(": %1 samples/s predicted, %2x one worker").arg(p.samplesPerSecond, 0, 'f', 0).arg(p.speedup, 0, 'f', 2);
    if (!r.reasons.isEmpty()) {
        text += QStringLiteral("<ul style=\"margin-left: -20px\">");
        for (const QString& reason : r.reasons)
            text += QStringLiteral("<li>%1</li>").arg(reason.toHtmlEscaped());
        text += QStringLiteral("</ul>");
    }
    if (const QString note = m_session->calibrationNote(); !note.isEmpty())
        text += QStringLiteral("<i>%1</i>").arg(note.toHtmlEscaped());
    m_recommendation->setText(text);

    showWarnings(*plan);
    m_table->setPlan(*plan);
    m_curves->setPlan(*plan);
    m_inputs->setPlan(*plan);
}

void PlanPage::showWarnings(const ScalingPlan& plan)
{
    while (QLayoutItem* item = m_warningsLayout->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    QList<std::pair<QString, bool>> shown; // text, in the error colour
    bool noiseSaid = false;
    for (const Warning& w : plan.warnings) {
        shown.append({w.text, w.kind == WarningKind::SpeedupBelowOne});
        noiseSaid = noiseSaid || w.kind == WarningKind::NoisyInputs;
    }
    if (plan.noise.tooNoisy && !noiseSaid)
        shown.append({plan.noise.text, false});
    for (const auto& [text, error] : shown) {
        QLabel* label = wrappingLabel("planWarning", m_warningsList);
        label->setText(QStringLiteral("\u26A0 ") + text);
        label->setProperty(kErrorProperty, error);
        m_warningsLayout->addWidget(label);
        label->show(); // now, not once the layout's queued show comes
    }
    m_warningsLayout->addStretch(1);
    // About two lines a warning, up to the ten the scroll area shows.
    m_warningsFrame->findChild<QScrollArea*>("planWarningsScroll")
        ->setMinimumHeight(fontMetrics().lineSpacing() * std::min(10, 2 * int(shown.size())) + 4);
    m_warningsFrame->setVisible(!shown.isEmpty());
    styleFrames();
}

QList<QLabel*> PlanPage::warningLabels() const
{
    return m_warningsList->findChildren<QLabel*>("planWarning", Qt::FindDirectChildrenOnly);
}

void PlanPage::styleFrames()
{
    const QPalette& pal = palette();
    const QColor warning = theme::warning(pal), error = theme::error(pal);
    m_warningsFrame->setStyleSheet(QStringLiteral("QFrame#planWarnings { border: 1px solid %1; border-radius: 4px; }")
                                       .arg(warning.name()));
    m_recommendationFrame->setStyleSheet(
        QStringLiteral("QFrame#planRecommendationFrame { border: 1px solid %1; border-radius: 4px; background: %2; }")
            .arg(theme::success(pal).name(), theme::infoBackground(pal).name()));
    for (QLabel* label : warningLabels()) {
        QPalette p = label->palette();
        p.setColor(QPalette::WindowText, label->property(kErrorProperty).toBool() ? error : warning);
        label->setPalette(p);
    }
}

void PlanPage::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        styleFrames();
}

} // namespace strata::ui
