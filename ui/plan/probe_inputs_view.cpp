#include "ui/plan/probe_inputs_view.h"

#include "ui/shell/theme.h"

#include <QGridLayout>
#include <QLabel>

namespace strata::ui {

using namespace app::plan;

namespace {

QString ms(double seconds) { return QObject::tr("%1 ms").arg(seconds * 1000, 0, 'f', seconds < 0.01 ? 3 : 2); }

// The robust spread (median absolute deviation), as the planner's noise verdict judges it;
// `rounds`: each sample a round's mean.
QString spread(const Spread& s, bool rounds = false)
{
    return (rounds ? QObject::tr("±%1% over %2 rounds") : QObject::tr("±%1% over %2 samples"))
        .arg(s.robustCv * 100, 0, 'f', 1)
        .arg(s.samples);
}

QString bytes(double b)
{
    if (b >= 1 << 20)
        return QObject::tr("%1 MiB").arg(b / double(1 << 20), 0, 'f', 1);
    return QObject::tr("%1 KiB").arg(b / 1024.0, 0, 'f', 1);
}

} // namespace

ProbeInputsView::ProbeInputsView(QWidget* parent) : QGroupBox(tr("What the probe measured"), parent), m_grid(new QGridLayout(this))
{
    setObjectName("probeInputs");
    m_grid->setColumnStretch(0, 1);
    m_grid->setColumnStretch(2, 1);
}

void ProbeInputsView::addRow(const QString& name, const QString& value, const QString& spreadText, bool noisy,
                             const QString& details)
{
    const int row = int(m_rows.size());
    m_rows << QStringList{name, value, noisy ? spreadText + tr(" (noisy)") : spreadText};
    auto* label = new QLabel(name, this);
    label->setToolTip(details);
    auto* number = new QLabel(value, this);
    auto* how = new QLabel(spreadText, this);
    how->setWordWrap(true); // a long spread wraps rather than pushing the page sideways at 1280x720
    number->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    QFont bold = number->font();
    bold.setBold(true);
    number->setFont(bold);
    if (noisy) {
        QPalette p = how->palette();
        p.setColor(QPalette::WindowText, theme::warning(palette()));
        how->setPalette(p);
        how->setText(m_rows.back()[2]);
    }
    m_grid->addWidget(label, row, 0);
    m_grid->addWidget(number, row, 1);
    m_grid->addWidget(how, row, 2);
}

void ProbeInputsView::setPlan(const ScalingPlan& plan)
{
    while (QLayoutItem* item = m_grid->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    m_rows.clear();
    const ProbeResult& probe = plan.probe;
    const double noisy = plan.noise.threshold;
    const ComputeProbe& c = probe.compute;
    // The step at each thread count and number of copies computing at once (the cores shared).
    for (const ComputePoint& point : c.points)
        addRow(tr("Compute per step, %1 thread%2, %3")
                   .arg(point.threads)
                   .arg(point.threads == 1 ? "" : "s")
                   .arg(point.copies == 1 ? tr("alone") : tr("%1 copies at once").arg(point.copies)),
               ms(point.step.typical()), spread(point.step), point.step.robustCv > noisy);
    if (c.input.samples > 0)
        addRow(tr("Input pipeline per batch"), ms(c.input.typical()), spread(c.input), c.input.robustCv > noisy);
    const CollectiveProbe& a = probe.collective;
    double worst = 0;
    for (const CollectivePoint& p : a.points)
        worst = std::max(worst, p.seconds.robustCv);
    const QString sweep = tr("fit ±%1% over %2 sizes, worst ±%3%")
                              .arg(a.fitError * 100, 0, 'f', 1)
                              .arg(a.points.size())
                              .arg(worst * 100, 0, 'f', 0);
    const QString how = tr("%1 ranks, %2: %3").arg(a.ranks).arg(a.transport, a.algorithm);
    addRow(tr("All-reduce latency per ring step (%1 ranks)").arg(a.ranks),
           QStringLiteral("%1 µs").arg(a.latencySeconds * 1e6, 0, 'f', 1), sweep, worst > noisy, how);
    addRow(tr("All-reduce bandwidth per link"), tr("%1/s").arg(bytes(a.bytesPerSecond)), sweep, worst > noisy, how);
    if (a.rehearsal.samples > 0)
        addRow(tr("MultiWorkerMirrored step, %1 workers rehearsed").arg(a.ranks), ms(a.rehearsal.typical()),
               spread(a.rehearsal, true), a.rehearsal.robustCv > noisy,
               tr("A short MultiWorkerMirrored job of the experiment on %1 worker tasks here, %2 thread(s) each: "
                  "what the model adds beyond its parts")
                   .arg(a.ranks)
                   .arg(a.rehearsalThreads));
    if (probe.ps) {
        const PsProbe& ps = *probe.ps;
        addRow(tr("ps round trip, pull + push of %1").arg(bytes(double(ps.variableBytes))),
               ms(ps.roundTrip.typical()), spread(ps.roundTrip), ps.roundTrip.robustCv > noisy);
        addRow(tr("ps latency, bandwidth"),
               tr("%1, %2/s").arg(ms(ps.latencySeconds), bytes(ps.bytesPerSecond)), spread(ps.smallRoundTrip),
               ps.smallRoundTrip.robustCv > noisy);
    }
    setTitle(tr("What the probe measured on %1 (%2, %3 cores), batch %4, in %5 s")
                 .arg(probe.host, probe.cpu)
                 .arg(probe.cores)
                 .arg(c.batch)
                 .arg(probe.probeSeconds, 0, 'f', 1));
}

} // namespace strata::ui
