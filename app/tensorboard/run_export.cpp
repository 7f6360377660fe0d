#include "app/tensorboard/run_export.h"

#include "app/compare/run_comparison.h"
#include "app/rundir/task_ends.h"
#include "app/rundir/task_places.h"

#include "strata/schema/cluster_spec.h"
#include "strata/schema/events.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <cmath>

namespace strata::app::tensorboard {

namespace {

constexpr qint64 kChunk = qint64(4) << 20; // bytes of a file read at a time
constexpr int kWarningsPerFile = 3;        // lines named one by one; the others counted
const QString kOurFiles = QStringLiteral("events.out.tfevents.*.strata");
const QString kTemporary = QStringLiteral(".strata-export.tmp");

} // namespace

struct RunExport::TaskFile {
    QString name; // "events-worker-0.jsonl"
    QString path;
    qint64 offset = 0;
    QByteArray partial; // after the last newline read
    int64_t lines = 0;
    int64_t unread = 0; // lines that were not events, beyond those named
};

struct RunExport::Task {
    std::string stem; // "worker-0"
    TaskFile events, steps;
    bool ended = false; // its session's last event says so
};

RunExport::RunExport(QString runDir, QString outDir, Mode mode)
    : m_runDir(std::move(runDir)), m_outDir(std::move(outDir)), m_mode(mode)
{
}

RunExport::~RunExport() = default;

bool RunExport::start(QString* error)
{
    if (!QFileInfo(m_runDir).isDir()) {
        *error = QObject::tr("The run directory %1 does not exist.").arg(m_runDir);
        return false;
    }
    Json experiment;
    QString why;
    const bool known = readRunExperiment(m_runDir, experiment, &why);
    if (known) {
        schema::Problems problems;
        const auto cluster = experiment.find("cluster");
        for (const std::string& name :
             schema::taskNames(schema::readCluster(cluster == experiment.end() ? nullptr : &*cluster, "cluster", problems)))
            m_expected << taskFileStem(QString::fromStdString(name));
    }
    discoverFiles();
    if (m_tasks.empty() && (!known || m_mode == Mode::Snapshot)) {
        *error = known ? QObject::tr("%1 holds no events yet (no events-<task>.jsonl): nothing to export.").arg(m_runDir)
                       : QObject::tr("%1 is not a run directory: it holds no event files (events-<task>.jsonl) and no "
                                     "experiment (launch.strata.json or experiment.strata.json).")
                             .arg(m_runDir);
        return false;
    }
    if (!known) // the engine run without the app, its experiment lost: the tasks are its files'
        for (const auto& [stem, task] : m_tasks)
            m_expected << stem;
    // The job's figures: chief:0, else worker:0 (primaryTask's rule); ParameterServer's chief
    // is its coordinator.
    QString primary = m_expected.value(0);
    for (const QString& name : {QStringLiteral("worker-0"), QStringLiteral("chief-0")})
        if (m_expected.contains(name))
            primary = name;
    const bool coordinated = std::any_of(m_expected.begin(), m_expected.end(),
                                         [](const QString& t) { return t.startsWith(QLatin1String("ps-")); });
    ScalarSink& sink = *this;
    m_scalars = std::make_unique<RunScalars>(primary.toStdString(), coordinated, sink);
    m_primary = primary.toStdString();
    return true;
}

void RunExport::discoverFiles()
{
    const QStringList names = QDir(m_runDir).entryList({QStringLiteral("events-*.jsonl"), QStringLiteral("steps-*.jsonl")},
                                                       QDir::Files, QDir::Name);
    for (const QString& name : names) {
        const bool events = name.startsWith(QLatin1String("events-"));
        const qsizetype prefix = events ? 7 : 6;
        Task& t = task(name.mid(prefix, name.size() - prefix - 6));
        TaskFile& file = events ? t.events : t.steps;
        if (file.path.isEmpty()) {
            file.name = name;
            file.path = QDir(m_runDir).filePath(name);
        }
    }
}

RunExport::Task& RunExport::task(const QString& stem)
{
    Task& t = m_tasks[stem];
    t.stem = stem.toStdString();
    return t;
}

bool RunExport::poll(QString* error)
{
    if (!m_prepared) {
        if (!QDir().mkpath(m_outDir)) {
            *error = QObject::tr("Cannot create the folder %1.").arg(m_outDir);
            return false;
        }
        if (m_mode == Mode::Follow)
            removeEarlierExport();
        m_prepared = true;
    }
    discoverFiles();
    for (auto& [stem, t] : m_tasks) {
        // The events first: a step record without its time takes that of its live `step`.
        if ((!t.events.path.isEmpty() && !readFile(t.events, false, t, error))
            || (!t.steps.path.isEmpty() && !readFile(t.steps, true, t, error)))
            return false;
    }
    if (m_mode == Mode::Follow && m_writeError.isEmpty())
        for (auto& [run, w] : m_writers) {
            std::string why;
            if (!w.writer->flush(&why)) {
                m_writeError = QString::fromStdString(why);
                break;
            }
        }
    if (!m_writeError.isEmpty()) {
        *error = m_writeError;
        return false;
    }
    return true;
}

bool RunExport::readFile(TaskFile& file, bool records, Task& t, QString* error)
{
    QFile f(file.path);
    if (!f.open(QIODevice::ReadOnly) || !f.seek(file.offset)) {
        *error = QObject::tr("Cannot read %1: %2").arg(file.path, f.errorString());
        return false;
    }
    EventParser& parser = EventParser::forThisThread();
    namespace ev = schema::event;
    for (;;) {
        const QByteArray chunk = f.read(kChunk);
        if (chunk.isEmpty()) {
            if (f.error() != QFileDevice::NoError) {
                *error = QObject::tr("Cannot read %1: %2").arg(file.path, f.errorString());
                return false;
            }
            return true;
        }
        file.offset += chunk.size();
        file.partial += chunk;
        const qsizetype whole = file.partial.lastIndexOf('\n') + 1;
        const std::string_view lines(file.partial.constData(), size_t(whole));
        for (size_t from = 0; from < lines.size();) {
            const size_t to = lines.find('\n', from);
            const std::string_view line = lines.substr(from, to - from);
            from = to + 1;
            ++file.lines;
            const std::optional<ParsedEvent> e = records ? parser.parseStepRecord(line) : parser.parseLine(line);
            if (!e)
                continue;
            if (e->kind == ParsedEvent::Kind::NotAnEvent) {
                if (file.unread++ < kWarningsPerFile)
                    m_warnings << QObject::tr("%1, line %2: not a JSON object, skipped: %3")
                                      .arg(file.path)
                                      .arg(file.lines)
                                      .arg(QString::fromUtf8(e->line.left(80)));
                continue;
            }
            if (records) {
                if (t.stem == m_primary && e->step.step)
                    m_lastStep = std::max(m_lastStep, *e->step.step);
                m_scalars->addStepRecord(t.stem, *e);
                continue;
            }
            const std::string_view type = e->type();
            if (type == ev::kHello)
                t.ended = false; // a session begins (a resumed run)
            else if (type == ev::kDone || type == ev::kExit)
                t.ended = true;
            else if (type == ev::kError && e->json.value("fatal", false))
                t.ended = true;
            m_scalars->addEvent(t.stem, *e);
        }
        file.partial.remove(0, whole);
    }
}

bool RunExport::ended() const
{
    if (m_tasks.empty())
        return false;
    for (const auto& [stem, t] : m_tasks)
        if (!t.events.path.isEmpty() && !t.ended)
            return false;
    // A task with no events file yet may still start, unless the launcher listed it in
    // tasks.json (it never started: that is written once the run is over).
    std::vector<TaskEnd> ends;
    QString why;
    readTaskEnds(m_runDir, ends, &why);
    for (const QString& stem : m_expected) {
        const auto t = m_tasks.find(stem);
        if (t != m_tasks.end() && !t->second.events.path.isEmpty())
            continue;
        if (std::none_of(ends.begin(), ends.end(), [&](const TaskEnd& e) { return taskFileStem(e.task) == stem; }))
            return false;
    }
    return true;
}

void RunExport::scalar(const std::string& run, const std::string& tag, int64_t step, double wallTime, double value)
{
    auto it = m_writers.find(run);
    if (it == m_writers.end()) {
        Writer w;
        w.writer = std::make_unique<EventFileWriter>();
        const QString folder = QDir(m_outDir).filePath(QString::fromStdString(run));
        const QString name = QStringLiteral("events.out.tfevents.%1.strata").arg(qint64(std::floor(wallTime)), 10, 10, QLatin1Char('0'));
        w.finalPath = QDir(folder).filePath(name);
        const QString path = m_mode == Mode::Snapshot ? QDir(folder).filePath(kTemporary) : w.finalPath;
        std::string why;
        if (!QDir().mkpath(folder)) {
            if (m_writeError.isEmpty())
                m_writeError = QObject::tr("Cannot create the folder %1.").arg(folder);
        } else if (!w.writer->open(path.toStdString(), wallTime, &why) && m_writeError.isEmpty()) {
            m_writeError = QString::fromStdString(why);
        }
        it = m_writers.emplace(run, std::move(w)).first;
    }
    if (m_writeError.isEmpty())
        it->second.writer->addScalar(tag, step, wallTime, static_cast<float>(value));
}

void RunExport::removeEarlierExport() const
{
    const QDir out(m_outDir);
    for (const QString& folder : out.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QDir dir(out.filePath(folder));
        for (const QString& name : dir.entryList({kOurFiles}, QDir::Files))
            QFile::remove(dir.filePath(name));
    }
}

bool RunExport::finish(QString* error)
{
    QString first = m_writeError;
    for (auto& [run, w] : m_writers) {
        std::string why;
        if (!w.writer->close(&why) && first.isEmpty())
            first = QString::fromStdString(why);
    }
    for (auto& [stem, t] : m_tasks)
        for (TaskFile* file : {&t.events, &t.steps}) {
            if (file->unread > kWarningsPerFile)
                m_warnings << QObject::tr("%1: %2 more lines that are not JSON objects were skipped.")
                                  .arg(file->path)
                                  .arg(file->unread - kWarningsPerFile);
            if (!file->partial.isEmpty() && ended()) // else a line being written
                m_warnings << QObject::tr("%1 ends inside a line (its task killed while writing it?): the last %2 "
                                          "bytes were left out.")
                                  .arg(file->path)
                                  .arg(file->partial.size());
        }
    if (!first.isEmpty()) {
        *error = first;
        return false;
    }
    if (m_mode == Mode::Snapshot) {
        removeEarlierExport();
        for (auto& [run, w] : m_writers) {
            const QString temporary = QString::fromStdString(w.writer->path());
            if (!QFile::rename(temporary, w.finalPath)) {
                *error = QObject::tr("Cannot move %1 to %2.").arg(temporary, w.finalPath);
                return false;
            }
        }
    }
    return true;
}

QStringList RunExport::runs() const
{
    QStringList out;
    for (const auto& [run, w] : m_writers)
        out << QString::fromStdString(run);
    return out;
}

int64_t RunExport::tags() const
{
    int64_t n = 0;
    for (const auto& [run, w] : m_writers)
        n += int64_t(w.writer->tags());
    return n;
}

int64_t RunExport::points() const
{
    int64_t n = 0;
    for (const auto& [run, w] : m_writers)
        n += w.writer->points();
    return n;
}

QStringList RunExport::takeWarnings()
{
    QStringList out;
    out.swap(m_warnings);
    return out;
}

} // namespace strata::app::tensorboard
