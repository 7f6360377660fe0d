#include "ui/plan/plan_table.h"

#include "ui/shell/theme.h"

#include <QEvent>
#include <QHeaderView>

namespace strata::ui {

using namespace app::plan;

namespace {

QString ms(double seconds) { return QString::number(seconds * 1000, 'f', seconds < 0.01 ? 2 : 1); }

QString rate(double perSecond) { return QString::number(perSecond, 'f', perSecond < 100 ? 1 : 0); }

} // namespace

QString predictionToolTip(const Prediction& p)
{
    const ModelTerms& t = p.terms;
    QStringList lines;
    lines << QObject::tr("%1, %2 workers on %3 host(s): step %4 ms")
                 .arg(strategyName(p.strategy))
                 .arg(p.workers)
                 .arg(p.hosts)
                 .arg(ms(p.stepSeconds));
    if (!t.formula.isEmpty())
        lines << t.formula;
    QStringList terms;
    terms << QObject::tr("compute %1 ms").arg(ms(t.compute));
    if (t.stretch > 1)
        terms << QObject::tr("stretched x%1 by shared cores").arg(t.stretch, 0, 'f', 2);
    if (t.input > 0)
        terms << QObject::tr("input %1 ms").arg(ms(t.input));
    if (t.communication > 0)
        terms << QObject::tr("communication %1 ms (%2 ms hidden behind the backward pass, %3 ms exposed)")
                     .arg(ms(t.communication), ms(t.overlapped), ms(t.exposed));
    if (t.psService > 0)
        terms << QObject::tr("busiest ps %1 ms per worker step").arg(ms(t.psService));
    if (t.coresBound > 0)
        terms << QObject::tr("the cores allow %1 ms").arg(ms(t.coresBound));
    lines << terms.join(QStringLiteral("; "));
    lines << QObject::tr("%1 process(es) per host, %2 thread(s) per worker")
                 .arg(t.processesPerHost)
                 .arg(t.threadsPerWorker);
    if (p.calibration != 1)
        lines << QObject::tr("calibrated by finished runs: x%1").arg(p.calibration, 0, 'f', 2);
    if (p.workers > 1 && p.speedup > 0 && p.speedup < 1)
        lines << QObject::tr("Slower than one worker: speedup %1").arg(p.speedup, 0, 'f', 2);
    if (p.coresShared)
        lines << QObject::tr("The workers share the host's cores.");
    if (p.extrapolated)
        lines << QObject::tr("Extrapolated beyond what was probed.");
    return lines.join('\n');
}

PlanTable::PlanTable(QWidget* parent) : QTableWidget(0, ColumnCount, parent)
{
    setObjectName("planTable");
    setHorizontalHeaderLabels({tr("Strategy"), tr("Workers"), tr("Hosts"), tr("Step ms"), tr("Samples/s"),
                               tr("Speedup"), tr("Efficiency"), tr("Limited by")});
    setEditTriggers(NoEditTriggers);
    setSelectionBehavior(SelectRows);
    setSelectionMode(SingleSelection);
    setMouseTracking(true); // tooltips on any cell
    verticalHeader()->hide();
    horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    horizontalHeader()->setStretchLastSection(true);
    setAlternatingRowColors(true);
}

void PlanTable::setPlan(const ScalingPlan& plan)
{
    m_predictions = plan.predictions;
    m_recommendation = plan.recommendation;
    setRowCount(int(m_predictions.size()));
    for (int row = 0; row < rowCount(); ++row) {
        const Prediction& p = m_predictions[size_t(row)];
        const QStringList cells{strategyName(p.strategy),
                                QString::number(p.workers),
                                QString::number(p.hosts),
                                ms(p.stepSeconds),
                                rate(p.samplesPerSecond),
                                QStringLiteral("%1x").arg(p.speedup, 0, 'f', 2),
                                QStringLiteral("%1%").arg(p.efficiency * 100, 0, 'f', 0),
                                p.terms.limit};
        const QString tip = predictionToolTip(p);
        for (int column = 0; column < ColumnCount; ++column) {
            auto* item = new QTableWidgetItem(cells[column]);
            item->setToolTip(tip);
            if (column != StrategyColumn && column != LimitColumn)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            setItem(row, column, item);
        }
    }
    colourRows();
}

int PlanTable::rowOf(Strategy strategy, int workers) const
{
    for (size_t row = 0; row < m_predictions.size(); ++row)
        if (m_predictions[row].strategy == strategy && m_predictions[row].workers == workers)
            return int(row);
    return -1;
}

void PlanTable::colourRows()
{
    const int recommended = rowOf(m_recommendation.strategy, m_recommendation.workers);
    for (int row = 0; row < rowCount(); ++row) {
        const Prediction& p = m_predictions[size_t(row)];
        QBrush foreground; // the view's own
        if (p.workers > 1 && p.speedup > 0 && p.speedup < 1)
            foreground = theme::error(palette());
        else if (p.coresShared || p.extrapolated)
            foreground = theme::warning(palette());
        for (int column = 0; column < ColumnCount; ++column) {
            QTableWidgetItem* cell = item(row, column);
            cell->setForeground(foreground);
            QFont font = cell->font();
            font.setBold(row == recommended);
            cell->setFont(font);
        }
    }
}

void PlanTable::changeEvent(QEvent* event)
{
    QTableWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        colourRows();
}

} // namespace strata::ui
