#pragma once
// Multi-worker jobs simulated step by step, fed to a MetricsStore as the launcher feeds one: each
// task's `hello` and `start`, then its step windows with the step records they cover, the tasks
// interleaved in time, then `done` and the end. Under MultiWorkerMirrored every step lasts as
// long as the slowest worker's work, the others waiting in the all-reduce; under
// ParameterServer the coordinator hands the next global step to whichever worker is free. For
// the tests of stragglers (tests/app/tst_stragglers.cpp) and of the task table that marks them.

#include "app/metrics/metrics_store.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <algorithm>
#include <functional>
#include <map>
#include <queue>
#include <utility>
#include <vector>

namespace apptest {

using strata::app::EventParser;
using strata::app::MetricsStore;
using strata::app::ParsedEvent;

constexpr double kStart = 1763800000.0; // the jobs' first event (unix seconds)

// One step of one task as its record says it.
struct Row {
    QString task;
    int64_t step = 0;       // the task's own
    int64_t globalStep = 0; // ParameterServer: the global step it ran; 0: none
    double t = 0;           // when it ended
    double stepMs = 0, commMs = 0;
};

// ms of `worker`'s own work (compute and input) at its step `step`.
using Work = std::function<double(int worker, int64_t step)>;

inline QString workerName(int w) { return QStringLiteral("worker:%1").arg(w); }

// MultiWorkerMirrored: each step lasts as long as the slowest worker's work plus the all-reduce
// (1 ms); the others wait in it (their comm).
inline std::vector<Row> mirroredJob(int workers, int64_t steps, const Work& work)
{
    std::vector<Row> rows;
    double t = kStart + 1;
    for (int64_t s = 1; s <= steps; ++s) {
        double slowest = 0;
        for (int w = 0; w < workers; ++w)
            slowest = std::max(slowest, work(w, s));
        const double stepMs = slowest + 1.0;
        t += stepMs / 1000;
        for (int w = 0; w < workers; ++w)
            rows.push_back({workerName(w), s, 0, t, stepMs, stepMs - work(w, s)});
    }
    return rows;
}

// ParameterServer: the coordinator hands each global step to the worker free first; a worker's
// step is its work plus its pull and push (0.5 ms).
inline std::vector<Row> parameterServerJob(int workers, int64_t globalSteps, const Work& work)
{
    std::vector<Row> rows;
    using Free = std::pair<double, int>; // when a worker is free, which
    std::priority_queue<Free, std::vector<Free>, std::greater<>> free;
    std::vector<int64_t> own(size_t(workers), 0);
    for (int w = 0; w < workers; ++w)
        free.push({kStart + 1, w});
    for (int64_t g = 1; g <= globalSteps; ++g) {
        const auto [at, w] = free.top();
        free.pop();
        const int64_t step = ++own[size_t(w)];
        const double stepMs = work(w, step) + 0.5;
        const double end = at + stepMs / 1000;
        rows.push_back({workerName(w), step, g, end, stepMs, 0.5});
        free.push({end, w});
    }
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.t < b.t; });
    return rows;
}

inline std::vector<ParsedEvent> parsed(const QByteArray& lines)
{
    std::vector<ParsedEvent> out;
    EventParser::forThisThread().parseLines(lines.constData(), size_t(lines.size()), out);
    return out;
}

inline QByteArray line(const QString& text) { return text.toUtf8() + '\n'; }

inline QString number(double v) { return QString::number(v, 'f', 6); }

// The record of a step, as the engine writes it in steps-<task>.jsonl.
inline ParsedEvent record(const Row& r)
{
    const QString text =
        QStringLiteral(R"({"t":%1,"step":%2,%3"epoch":0,"loss":0.5,"replica_loss":[0.5],"samples":32,"lr":0.001,)"
                       R"("step_ms":%4,"compute_ms":%5,"comm_ms":%6,"input_ms":0.1})")
            .arg(number(r.t))
            .arg(r.step)
            .arg(r.globalStep > 0 ? QStringLiteral(R"("global_step":%1,)").arg(r.globalStep) : QString())
            .arg(number(r.stepMs), number(r.stepMs - r.commMs - 0.1), number(r.commMs));
    return *EventParser::forThisThread().parseStepRecord(text.toStdString());
}

// A live `step` window ending at `last`, the means of `window`.
inline QByteArray windowLine(const std::vector<Row>& window)
{
    const Row& last = window.back();
    double stepMs = 0, commMs = 0;
    for (const Row& r : window) {
        stepMs += r.stepMs / double(window.size());
        commMs += r.commMs / double(window.size());
    }
    const QString global = last.globalStep > 0 ? QStringLiteral(R"("global_step":%1,)").arg(last.globalStep) : QString();
    return line(QStringLiteral(R"({"v":1,"type":"step","t":%1,"task":"%2","step":%3,%4"epoch":0,"steps":%5,"loss":0.5,)"
                               R"("replicas":[{"replica":0,"device":"cpu:0","loss":0.5,"samples":%6}],"lr":0.001,)"
                               R"("time_ms":{"step":%7,"compute":%8,"comm":%9,"input":0.1},"samples_per_sec":1000})")
                    .arg(number(last.t), last.task)
                    .arg(last.step)
                    .arg(global)
                    .arg(window.size())
                    .arg(32 * window.size())
                    .arg(number(stepMs), number(stepMs - commMs - 0.1), number(commMs)));
}

// The job in `store` as the launcher feeds it: the tasks placed (worker w on node n<w+1>), their
// `hello` and `start` (the coordinator's alone under ParameterServer), the rows in time order
// each task's `batch` steps at a time (a window with its records), then each task's `done` and
// its end.
inline void feed(MetricsStore& store, bool parameterServer, int workers, const std::vector<Row>& rows, int batch)
{
    QStringList tasks;
    for (int w = 0; w < workers; ++w)
        tasks << workerName(w);
    if (parameterServer)
        tasks << QStringLiteral("chief:0") << QStringLiteral("ps:0");
    for (int i = 0; i < tasks.size(); ++i)
        store.setTaskPlace(tasks[i], QStringLiteral("n%1").arg(i + 1), QStringLiteral("198.18.0.%1").arg(i + 1));
    const QString strategy = parameterServer ? QStringLiteral("ParameterServer") : QStringLiteral("MultiWorkerMirrored");
    for (const QString& task : tasks) {
        QByteArray lines = line(QStringLiteral(R"({"v":1,"type":"hello","t":%1,"task":"%2","version":"0.1.0","schema":1,"host":"box","pid":1})")
                                    .arg(number(kStart), task));
        // Under ParameterServer only the coordinator says how the job trains.
        if (!parameterServer || task == QLatin1String("chief:0"))
            lines += line(QStringLiteral(R"({"v":1,"type":"start","t":%1,"task":"%2","experiment":"e","strategy":"%3","replicas":%4,"workers":%4,"epochs":1,"steps_per_epoch":1000,"total_steps":1000,"batch_size":32})")
                              .arg(number(kStart + 0.5), task, strategy)
                              .arg(workers));
        store.ingest(task, parsed(lines));
    }
    std::map<QString, std::vector<Row>> pending;
    const auto flush = [&](const QString& task) {
        std::vector<Row>& window = pending[task];
        if (window.empty())
            return;
        std::vector<ParsedEvent> records;
        for (const Row& r : window)
            records.push_back(record(r));
        store.ingest(task, parsed(windowLine(window)), std::move(records));
        window.clear();
    };
    for (const Row& r : rows) {
        pending[r.task].push_back(r);
        if (int(pending[r.task].size()) >= batch)
            flush(r.task);
    }
    const double end = rows.back().t + 0.1;
    for (const QString& task : tasks) {
        flush(task);
        store.ingest(task, parsed(line(QStringLiteral(R"({"v":1,"type":"done","t":%1,"task":"%2","status":"completed"})")
                                           .arg(number(end), task))));
        store.taskEnded(task, 0, false, QString(), end);
    }
}

} // namespace apptest
