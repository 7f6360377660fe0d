#include "app/plan/probe_runner.h"

#include "app/launch/engine_info.h"
#include "app/plan/probe_result.h"

#include <stdexcept>

namespace strata::app::plan {

namespace {

QStringList argumentsFor(const QString& experimentFile, const ProbeOptions& options)
{
    QStringList args{QStringLiteral("plan-probe"), experimentFile, QStringLiteral("--ranks"), QString::number(options.ranks)};
    if (!options.parameterServer)
        args << QStringLiteral("--no-ps");
    if (options.quick)
        args << QStringLiteral("--quick");
    return args;
}

QString engineOf(const ProbeOptions& options)
{
    return options.enginePath.isEmpty() ? defaultEnginePath() : options.enginePath;
}

QStringList linesOf(const QByteArray& out) { return QString::fromUtf8(out).split(QLatin1Char('\n'), Qt::SkipEmptyParts); }

// The result, or what went wrong in the engine's own words (its error event, else stderr).
ProbeResult resultOf(const QByteArray& out, const QByteArray& err, int exitCode, const QString& engine)
{
    try {
        return probeFromEvents(linesOf(out));
    } catch (const std::runtime_error& e) {
        const QString stderrTail = QString::fromUtf8(err).trimmed().right(2000);
        throw std::runtime_error(QStringLiteral("%1 (%2 plan-probe exited with %3)%4")
                                     .arg(QString::fromStdString(e.what()), engine)
                                     .arg(exitCode)
                                     .arg(stderrTail.isEmpty() ? QString() : QStringLiteral(": ") + stderrTail)
                                     .toStdString());
    }
}

} // namespace

ProbeRunner::ProbeRunner(QObject* parent) : QObject(parent) {}

ProbeRunner::~ProbeRunner() { cancel(); }

bool ProbeRunner::running() const { return m_process && m_process->state() != QProcess::NotRunning; }

void ProbeRunner::cancel()
{
    if (!running())
        return;
    m_process->disconnect(this);
    m_process->kill();
    m_process->waitForFinished(5000);
}

void ProbeRunner::start(const QString& experimentFile, const ProbeOptions& options)
{
    cancel();
    m_stdout.clear();
    m_process = std::make_unique<QProcess>();
    const QString engine = engineOf(options);
    connect(m_process.get(), &QProcess::readyReadStandardOutput, this, [this] {
        m_stdout += m_process->readAllStandardOutput();
        for (const char* what : {"probe_compute", "probe_collective", "probe_ps"})
            if (m_stdout.contains(what) && !m_announced.contains(QString::fromLatin1(what))) {
                m_announced << QString::fromLatin1(what);
                Q_EMIT progress(QString::fromLatin1(what));
            }
    });
    connect(m_process.get(), &QProcess::finished, this, [this, engine](int exitCode) {
        m_stdout += m_process->readAllStandardOutput();
        try {
            const ProbeResult r = resultOf(m_stdout, m_process->readAllStandardError(), exitCode, engine);
            Q_EMIT finished(r);
        } catch (const std::runtime_error& e) {
            Q_EMIT failed(QString::fromStdString(e.what()));
        }
    });
    connect(m_process.get(), &QProcess::errorOccurred, this, [this, engine](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            Q_EMIT failed(QStringLiteral("cannot start %1: %2").arg(engine, m_process->errorString()));
    });
    m_announced.clear();
    m_process->start(engine, argumentsFor(experimentFile, options));
}

ProbeResult ProbeRunner::runBlocking(const QString& experimentFile, const ProbeOptions& options)
{
    const QString engine = engineOf(options);
    QProcess process;
    process.start(engine, argumentsFor(experimentFile, options));
    if (!process.waitForStarted(30000))
        throw std::runtime_error(QStringLiteral("cannot start %1: %2").arg(engine, process.errorString()).toStdString());
    process.closeWriteChannel();
    process.waitForFinished(-1);
    return resultOf(process.readAllStandardOutput(), process.readAllStandardError(), process.exitCode(), engine);
}

} // namespace strata::app::plan
