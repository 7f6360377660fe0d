#include "app/metrics/epoch_lines.h"

#include "app/metrics/job_roles.h"
#include "app/metrics/task_roles.h"

namespace strata::app {

namespace {

// The first task whose epochs carry validation metrics; null when none yet.
const TaskData* validatingTask(const std::vector<TaskData>& tasks)
{
    for (const TaskData& t : tasks)
        if (!isEvaluatorTask(t.task))
            for (const EpochRecord& e : t.epochs)
                if (e.validation.is_object() && !e.validation.empty())
                    return &t;
    return nullptr;
}

} // namespace

void ValidationLine::setMetric(const QString& metric, const QString& name)
{
    m_metric = metric;
    m_name = name;
}

void ValidationLine::append(const std::vector<TaskData>& tasks, uint64_t generation, std::vector<SeriesLines::Line>& out)
{
    if (generation != m_generation) {
        m_series.clear();
        m_generation = generation;
    }
    const TaskData* task = validatingTask(tasks);
    if (!task)
        return;
    EpochSeries& series = m_series[task->task + '/' + m_metric];
    series.extend(task->epochs, "validation", m_metric.toStdString());
    if (series.series().empty())
        return;
    SeriesLines::Line line = taskLine(*task, m_name, series.series());
    line.smoothed = false; // an epoch's value, as Keras reported it
    out.push_back(line);
}

void EpochSeries::extend(const std::vector<EpochRecord>& epochs, const char* part, const std::string& metric)
{
    for (; m_read < epochs.size(); ++m_read) {
        const EpochRecord& e = epochs[m_read];
        const Json& values = std::string_view(part) == "train" ? e.train : e.validation;
        if (!values.is_object())
            continue;
        const auto found = values.find(metric);
        if (found != values.end() && found->is_number())
            m_series.append(double(e.step), found->get<float>());
    }
}

QString accuracyMetric(const TaskData& task)
{
    QString found;
    for (const auto& [name, series] : task.metrics) {
        if (name == QLatin1String("accuracy"))
            return name;
        if (found.isEmpty() && name.contains(QLatin1String("acc")))
            found = name;
    }
    return found;
}

void AccuracyLines::collect(const std::vector<TaskData>& tasks, std::vector<Line>& out) const
{
    QString metric;
    std::vector<const TaskData*> reporting;
    for (const TaskData& t : tasks) {
        if (isEvaluatorTask(t.task) || isParameterServerTask(t.task))
            continue;
        const QString name = accuracyMetric(t);
        if (name.isEmpty())
            continue;
        metric = metric.isEmpty() ? name : metric;
        if (name == metric)
            reporting.push_back(&t);
    }
    std::vector<Member> workers;
    for (const TaskData* t : reporting) {
        const Series& series = t->metrics.at(metric);
        workers.push_back(member(*t, reporting.size() > 1 ? t->task + ' ' + metric : metric, series, -recentMean(series)));
    }
    appendMany(metric + QStringLiteral(": "), QStringLiteral("workers"), workers, true, QStringLiteral("lowest"), out);
    if (metric.isEmpty())
        metric = QStringLiteral("accuracy"); // epochs may report it where steps did not
    m_validation.setMetric(metric, QStringLiteral("validation ") + metric);
    m_validation.append(tasks, generation(), out);
}

} // namespace strata::app
