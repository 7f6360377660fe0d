#include "app/launch/keras_export.h"

#include "app/launch/engine_info.h"

#include <nlohmann/json.hpp>

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QProcess>

namespace strata::app {

namespace {
QString tr(const char* text) { return QCoreApplication::translate("strata", text); }

// The engine's message: its last "strata-engine: error: ..." line on stderr, else all of it.
QString engineError(const QByteArray& err)
{
    const QString text = QString::fromUtf8(err).trimmed();
    const QString prefix = QStringLiteral("strata-engine: error: ");
    const qsizetype at = text.lastIndexOf(prefix);
    return at >= 0 ? text.mid(at + prefix.size()).section('\n', 0, 0) : text;
}
} // namespace

QString kerasExportProblem(const QString& runDir)
{
    const QDir dir(runDir);
    if (runDir.isEmpty() || !dir.exists())
        return tr("The run directory %1 does not exist (here).").arg(runDir);
    if (!QFileInfo(dir.filePath("model.weights")).isFile())
        return tr("The run in %1 has no final weights (model.weights): only a run that finished can be exported.")
            .arg(runDir);
    if (!QFileInfo(dir.filePath("experiment.strata.json")).isFile())
        return tr("The run in %1 has no experiment.strata.json.").arg(runDir);
    return {};
}

KerasExport::KerasExport(QObject* parent) : QObject(parent) {}

KerasExport::~KerasExport()
{
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->kill();
        m_process->waitForFinished(5000);
    }
}

bool KerasExport::running() const { return m_process && m_process->state() != QProcess::NotRunning; }

bool KerasExport::start(const QString& enginePath, const QString& runDir, const QString& outDir)
{
    if (running())
        return false;
    m_outDir = outDir;
    m_reported = false;
    if (const QString problem = engineProblem(enginePath); !problem.isEmpty()) {
        done({false, outDir, problem});
        return true;
    }
    m_process = std::make_unique<QProcess>();
    QProcess* p = m_process.get();
    connect(p, &QProcess::finished, this, [this, p](int code, QProcess::ExitStatus status) {
        if (status == QProcess::CrashExit) {
            done({false, m_outDir, tr("The engine crashed while exporting: %1").arg(engineError(p->readAllStandardError()))});
            return;
        }
        if (code != 0) {
            done({false, m_outDir, tr("Export to Keras failed: %1").arg(engineError(p->readAllStandardError()))});
            return;
        }
        // The engine's line: {"config", "weights", "metadata", "keras_version", ...}.
        const auto written = nlohmann::json::parse(p->readAllStandardOutput().toStdString(), nullptr, false);
        const QString version = written.is_object() ? QString::fromStdString(written.value("keras_version", "")) : "";
        done({true, m_outDir,
              tr("Exported to %1: config.json, model.weights.h5 and metadata.json (Keras %2 files).")
                  .arg(QDir::toNativeSeparators(m_outDir), version)});
    });
    connect(p, &QProcess::errorOccurred, this, [this, p](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            done({false, m_outDir, tr("The engine could not be started: %1").arg(p->errorString())});
    });
    p->start(enginePath, {"export-keras", runDir, "--out", outDir});
    return true;
}

bool KerasExport::waitForFinished(int msecs)
{
    if (!m_process)
        return m_reported;
    m_process->waitForFinished(msecs);
    return m_reported;
}

void KerasExport::done(KerasExportResult result)
{
    if (m_reported)
        return;
    m_reported = true;
    Q_EMIT finished(result);
}

} // namespace strata::app
