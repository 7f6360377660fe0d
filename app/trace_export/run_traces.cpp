#include "app/trace_export/run_traces.h"

#include "app/metrics/event_parse.h"
#include "app/metrics/natural_order.h"
#include "strata/schema/events.h"

#include <QDir>
#include <QFile>
#include <QObject>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

namespace strata::app {

namespace {

// Each line of `path` that is an event or record, with its 1-based number. False with the
// reason when the file cannot be read or a line other than an unfinished last one is not a
// JSON object (that one goes to `warnings`).
bool forEachLine(const QString& path, bool stepRecords, QStringList& warnings, QString* error,
                 const std::function<void(ParsedEvent&)>& take)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QObject::tr("cannot read %1: %2").arg(path, file.errorString());
        return false;
    }
    const QByteArray data = file.readAll();
    EventParser& parser = EventParser::forThisThread();
    qsizetype at = 0;
    for (int number = 1; at < data.size(); ++number) {
        qsizetype end = data.indexOf('\n', at);
        const bool finished = end >= 0;
        if (!finished)
            end = data.size();
        const std::string_view line(data.constData() + at, size_t(end - at));
        at = end + 1;
        std::optional<ParsedEvent> event = stepRecords ? parser.parseStepRecord(line) : parser.parseLine(line);
        if (!event)
            continue; // blank
        if (event->kind == ParsedEvent::Kind::NotAnEvent) {
            if (!finished) {
                warnings << QObject::tr("%1: its last line is unfinished (the task was stopped while writing it); "
                                        "skipped")
                                .arg(path);
                continue;
            }
            *error = QObject::tr("%1, line %2: not a JSON object: %3")
                         .arg(path)
                         .arg(number)
                         .arg(QString::fromUtf8(event->line.left(80)));
            return false;
        }
        take(*event);
    }
    return true;
}

// "steps-worker-0.jsonl" -> "worker-0".
QString fileTask(const QString& name, const QString& prefix)
{
    return name.mid(prefix.size(), name.size() - prefix.size() - int(sizeof(".jsonl") - 1));
}

} // namespace

bool readRunTraces(const QString& runDir, const QString& label, RunTraces* run, QString* error)
{
    *run = RunTraces{runDir, label, {}, {}};
    const QDir dir(runDir);
    if (!dir.exists()) {
        *error = QObject::tr("%1: no such run directory").arg(runDir);
        return false;
    }
    const QStringList stepFiles = dir.entryList({QStringLiteral("steps-*.jsonl")}, QDir::Files, QDir::Name);
    if (stepFiles.isEmpty()) {
        *error = QObject::tr("%1 holds no step records (steps-<task>.jsonl): is it a run directory?").arg(runDir);
        return false;
    }
    for (const QString& name : stepFiles) {
        const QString fileName = fileTask(name, QStringLiteral("steps-"));
        TaskTraces task;
        // The task's name and host from its events (the file name lost the ':').
        const QString eventsPath = dir.filePath(QStringLiteral("events-%1.jsonl").arg(fileName));
        if (QFile::exists(eventsPath)) {
            const bool ok = forEachLine(eventsPath, false, run->warnings, error, [&](ParsedEvent& e) {
                if (e.task && task.task.isEmpty())
                    task.task = *e.task;
                if (e.type() == schema::event::kHello) {
                    const auto host = e.json.find("host");
                    if (host != e.json.end() && host->is_string())
                        task.host = QString::fromStdString(host->get<std::string>());
                }
            });
            if (!ok)
                return false;
        }
        if (task.task.isEmpty()) {
            // "worker-0" -> "worker:0": the task's kind never holds a '-'.
            task.task = fileName;
            const qsizetype dash = task.task.lastIndexOf(QLatin1Char('-'));
            if (dash > 0)
                task.task[dash] = QLatin1Char(':');
        }
        const QString stepsPath = dir.filePath(name);
        const bool ok = forEachLine(stepsPath, true, run->warnings, error, [&](ParsedEvent& e) {
            StepEvent& s = e.step;
            if (!s.trace)
                return;
            task.steps.push_back({std::move(*s.trace), std::isnan(s.samples) ? 0.0 : s.samples,
                                  std::isnan(s.stepMs) ? 0.0 : s.stepMs});
        });
        if (!ok)
            return false;
        if (!task.steps.empty())
            run->tasks.push_back(std::move(task));
    }
    if (run->tasks.empty()) {
        *error = QObject::tr("%1: no step record carries a timeline (`trace`): the run was recorded without one "
                             "(before Strata recorded timelines, or with them turned off)")
                     .arg(runDir);
        return false;
    }
    std::sort(run->tasks.begin(), run->tasks.end(),
              [](const TaskTraces& a, const TaskTraces& b) { return naturalCompare(a.task, b.task) < 0; });
    return true;
}

} // namespace strata::app
