#include "app/launch/backends/remote/task_mirror.h"

#include "app/rundir/task_places.h"

#include <QDir>

namespace strata::app {

namespace {

QStringList copyNames(const QString& task)
{
    const QString stem = taskFileStem(task);
    return {"events-" + stem + ".jsonl", "stderr-" + stem + ".log", "steps-" + stem + ".jsonl"};
}

void truncateToLastLine(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadWrite))
        return;
    const QByteArray all = f.readAll();
    const qsizetype end = all.lastIndexOf('\n') + 1;
    if (end < all.size())
        f.resize(end);
}

void append(QFile& file, const char* data, qsizetype size)
{
    if (!file.isOpen())
        return;
    file.write(data, size);
    file.flush();
}

} // namespace

TaskMirror::TaskMirror(const QString& runDir, const QString& task)
{
    const QStringList names = copyNames(task);
    m_events.setFileName(QDir(runDir).filePath(names[0]));
    m_stderr.setFileName(QDir(runDir).filePath(names[1]));
    m_steps.setFileName(QDir(runDir).filePath(names[2]));
}

QStringList TaskMirror::open()
{
    QStringList failures;
    for (QFile* f : {&m_events, &m_stderr, &m_steps})
        if (!f->open(QIODevice::WriteOnly | QIODevice::Append))
            failures << QObject::tr("Cannot write %1: %2 (this run will be incomplete when opened again)")
                            .arg(f->fileName(), f->errorString());
    return failures;
}

void TaskMirror::truncateTorn(const QString& runDir, const QString& task)
{
    for (const QString& name : copyNames(task))
        truncateToLastLine(QDir(runDir).filePath(name));
}

void TaskMirror::lineUp(const FollowLine& follow)
{
    m_eventsBase = follow.offset - m_events.size();
    m_stderrBase = follow.stderrOffset - m_stderr.size();
    if (follow.stepsOffset >= 0) {
        m_stepsOffset = follow.stepsOffset;
        m_stepsBase = follow.stepsOffset - m_steps.size();
    }
}

void TaskMirror::setBases(qint64 eventsBase, qint64 stderrBase, qint64 stepsBase)
{
    m_eventsBase = eventsBase;
    m_stderrBase = stderrBase;
    m_stepsBase = stepsBase;
    m_stepsOffset = m_steps.size() + stepsBase;
}

void TaskMirror::appendEvents(const QByteArray& lines) { append(m_events, lines.constData(), lines.size()); }

void TaskMirror::appendStderr(const QByteArray& data) { append(m_stderr, data.constData(), data.size()); }

void TaskMirror::appendSteps(const QByteArray& records)
{
    append(m_steps, records.constData(), records.size());
    if (m_stepsOffset >= 0)
        m_stepsOffset += records.size();
}

void TaskMirror::closeStreams()
{
    m_events.close();
    m_stderr.close();
}

} // namespace strata::app
