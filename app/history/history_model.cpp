#include "app/history/history_model.h"

#include "app/metrics/display_text.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>

namespace strata::app {

namespace {

QString dateTime(qint64 unixSeconds, QLocale::FormatType format)
{
    return QLocale().toString(QDateTime::fromSecsSinceEpoch(unixSeconds), format);
}

// Final metrics for a tooltip: "test: loss 0.3516, accuracy 0.8696" a line per split.
QString metricsText(const QString& metricsJson)
{
    QStringList lines;
    const QJsonObject splits = QJsonDocument::fromJson(metricsJson.toUtf8()).object();
    for (const char* split : {"train", "validation", "test"}) {
        QStringList values;
        const QJsonObject metrics = splits.value(split).toObject();
        for (auto it = metrics.begin(); it != metrics.end(); ++it)
            values << QStringLiteral("%1 %2").arg(it.key()).arg(it.value().toDouble(), 0, 'f', 4);
        if (!values.isEmpty())
            lines << QStringLiteral("%1: %2").arg(split, values.join(", "));
    }
    return lines.join('\n');
}

QVariant optionalValue(const std::optional<double>& v) { return v ? QVariant(*v) : QVariant(); }

bool isNumeric(int column)
{
    switch (column) {
    case HistoryModel::ReplicasColumn:
    case HistoryModel::StepsColumn:
    case HistoryModel::SamplesPerSecColumn:
    case HistoryModel::TestAccuracyColumn:
    case HistoryModel::TestLossColumn:
    case HistoryModel::WallTimeColumn: return true;
    default: return false;
    }
}

} // namespace

HistoryModel::HistoryModel(RunHistory* history, QObject* parent) : QAbstractTableModel(parent), m_history(history) {}

bool HistoryModel::setFilter(const RunFilter& filter)
{
    m_filter = filter;
    return refresh();
}

bool HistoryModel::refresh()
{
    std::vector<RunRecord> runs;
    if (!m_history->query(m_filter, &runs, &m_error)) {
        Q_EMIT errorOccurred(m_error);
        return false;
    }
    m_error.clear();
    std::vector<Row> rows;
    rows.reserve(runs.size());
    for (RunRecord& r : runs) {
        Row row{std::move(r), {}, {}};
        row.testAccuracy = finalMetric(row.run, "test", "accuracy");
        row.testLoss = finalMetric(row.run, "test", "loss");
        rows.push_back(std::move(row));
    }
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
    return true;
}

qint64 HistoryModel::runId(int row) const { return record(row).id; }

const RunRecord& HistoryModel::record(int row) const { return m_rows.at(size_t(row)).run; }

int HistoryModel::rowOf(qint64 runId) const
{
    for (size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].run.id == runId)
            return int(i);
    return -1;
}

int HistoryModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

int HistoryModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant HistoryModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& row = m_rows[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole: return display(row, index.column());
    case Qt::ToolTipRole: return toolTip(row, index.column());
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(Qt::Alignment((isNumeric(index.column()) ? Qt::AlignRight : Qt::AlignLeft) |
                                                 Qt::AlignVCenter));
    case SortRole: return sortValue(row, index.column());
    case RunIdRole: return row.run.id;
    default: return {};
    }
}

QVariant HistoryModel::display(const Row& row, int column) const
{
    const RunRecord& r = row.run;
    const auto number = [](const std::optional<double>& v) { return v ? QString::number(*v, 'f', 4) : QString(); };
    switch (column) {
    case StartedColumn: return startedText(r.startedAt);
    case NameColumn: return r.displayName();
    case StrategyColumn: return r.strategy;
    case ReplicasColumn: return r.replicas;
    // A batch job's account beside the status: what Slurm says of it while it waits or runs.
    case StatusColumn: return r.batchJob.isEmpty() ? statusName(r.status) : statusName(r.status) + " · " + r.batchJob;
    case StepsColumn: return QLocale().toString(r.steps);
    case SamplesPerSecColumn: return r.samplesPerSec > 0 ? QLocale().toString(r.samplesPerSec, 'f', 0) : QString();
    case TestAccuracyColumn: return number(row.testAccuracy);
    case TestLossColumn: return number(row.testLoss);
    case WallTimeColumn: return r.endedAt ? clockText(r.wallSeconds) : QString();
    case TagsColumn: return r.tags.join(", ");
    case PredictionColumn: return r.prediction ? predictionText(*r.prediction) : QString();
    default: return {};
    }
}

QVariant HistoryModel::sortValue(const Row& row, int column) const
{
    const RunRecord& r = row.run;
    switch (column) {
    case StartedColumn: return r.startedAt;
    case NameColumn: return r.displayName();
    case StrategyColumn: return r.strategy;
    case ReplicasColumn: return r.replicas;
    case StatusColumn: return statusName(r.status);
    case StepsColumn: return r.steps;
    case SamplesPerSecColumn: return r.samplesPerSec;
    case TestAccuracyColumn: return optionalValue(row.testAccuracy);
    case TestLossColumn: return optionalValue(row.testLoss);
    case WallTimeColumn: return r.wallSeconds;
    case TagsColumn: return r.tags.join(", ");
    case PredictionColumn: return r.prediction ? QVariant(r.prediction->error) : QVariant();
    default: return {};
    }
}

QVariant HistoryModel::toolTip(const Row& row, int column) const
{
    const RunRecord& r = row.run;
    switch (column) {
    case StartedColumn:
        return r.endedAt ? tr("Started %1, ended %2").arg(dateTime(r.startedAt, QLocale::LongFormat),
                                                           dateTime(r.endedAt, QLocale::LongFormat))
                         : tr("Started %1").arg(dateTime(r.startedAt, QLocale::LongFormat));
    case NameColumn:
        return (r.label.isEmpty() ? r.name : tr("%1 (experiment %2)").arg(r.label, r.name)) + "\n" + r.runDir;
    case StatusColumn:
        if (!r.error.isEmpty())
            return r.batchJob.isEmpty() ? r.error : r.batchJob + "\n" + r.error;
        if (!r.batchJob.isEmpty())
            return r.batchJob;
        return r.status == RunStatus::Interrupted ? tr("Strata ended while this run was going on: its outcome was "
                                                       "not recorded (the run directory has what it wrote).")
                                                  : QVariant();
    case TestAccuracyColumn:
    case TestLossColumn: return metricsText(r.metrics);
    case PredictionColumn:
        return r.prediction ? tr("The scaling planner's plan #%1 predicted %2 samples/s for this run's strategy and "
                                 "workers; the run measured %3 samples/s in its steady state (the Compare page's "
                                 "figure). The planner calibrates itself by the difference.")
                                  .arg(r.prediction->planId)
                                  .arg(r.prediction->predictedSamplesPerSec, 0, 'f', 1)
                                  .arg(r.prediction->measuredSamplesPerSec, 0, 'f', 1)
                            : QVariant();
    default: return {};
    }
}

QVariant HistoryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case StartedColumn: return tr("Started");
    case NameColumn: return tr("Name");
    case StrategyColumn: return tr("Strategy");
    case ReplicasColumn: return tr("Replicas");
    case StatusColumn: return tr("Status");
    case StepsColumn: return tr("Steps");
    case SamplesPerSecColumn: return tr("Samples/s");
    case TestAccuracyColumn: return tr("Test accuracy");
    case TestLossColumn: return tr("Test loss");
    case WallTimeColumn: return tr("Wall time");
    case TagsColumn: return tr("Tags");
    case PredictionColumn: return tr("Against the plan");
    default: return {};
    }
}

void HistoryModel::sort(int column, Qt::SortOrder order)
{
    if (column < 0 || column >= ColumnCount)
        return;
    m_filter.sort = RunFilter::Sort(column);
    m_filter.order = order;
    refresh();
}

} // namespace strata::app
