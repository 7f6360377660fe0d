#pragma once
// Exporting a finished run as Keras 3 files (docs/keras-export.md): runs
// `strata-engine export-keras RUN_DIR --out DIR` in a process of its own and reports how it
// went. The history page asks where; this runs it (GUI thread; the process does the work).

#include <QObject>
#include <QString>

#include <memory>

class QProcess;

namespace strata::app {

struct KerasExportResult {
    bool ok = false;
    QString outDir;
    // For the user: the files written, or why nothing was (the engine's own message).
    QString message;
};

// Why `runDir` cannot be exported: its final weights (model.weights) or the experiment copy
// (experiment.strata.json) is missing, as for a run that did not finish; empty when it can.
QString kerasExportProblem(const QString& runDir);

class KerasExport : public QObject {
    Q_OBJECT

public:
    explicit KerasExport(QObject* parent = nullptr);
    ~KerasExport() override;

    // Starts exporting `runDir` into `outDir` (created if missing) with the engine at
    // `enginePath`. False, and no finished(), while an export is still running.
    bool start(const QString& enginePath, const QString& runDir, const QString& outDir);
    bool running() const;
    // Waits for the running export (tests, the console); true when it finished.
    bool waitForFinished(int msecs);

Q_SIGNALS:
    void finished(const strata::app::KerasExportResult& result);

private:
    void done(KerasExportResult result);

    std::unique_ptr<QProcess> m_process;
    QString m_outDir;
    bool m_reported = false;
};

} // namespace strata::app
