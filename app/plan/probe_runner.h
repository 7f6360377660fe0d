#pragma once
// Runs the engine's probe for an experiment (`strata-engine plan-probe EXP`) as a process and
// hands back its result. A QObject of the app layer (no widgets): the Plan view starts it and
// listens; `strata plan` waits on it. Lives on the thread that created it.

#include "app/plan/scaling_plan.h"

#include <QObject>
#include <QProcess>
#include <QStringList>

#include <memory>

namespace strata::app::plan {

struct ProbeOptions {
    QString enginePath;      // empty: defaultEnginePath()
    int ranks = 2;           // processes of the all-reduce sweep
    bool parameterServer = true; // also the ps round trip
    bool quick = false;      // fewer repetitions (tests)
};

class ProbeRunner : public QObject {
    Q_OBJECT
public:
    explicit ProbeRunner(QObject* parent = nullptr);
    ~ProbeRunner() override;

    // Starts the probe of the experiment file; finished() or failed() follows, once.
    void start(const QString& experimentFile, const ProbeOptions& options);
    bool running() const;
    void cancel();

    // Blocking: the probe's result, or std::runtime_error with the engine's message.
    static ProbeResult runBlocking(const QString& experimentFile, const ProbeOptions& options);

Q_SIGNALS:
    void progress(const QString& what); // "compute", "all-reduce sweep", "ps round trip"
    void finished(const strata::app::plan::ProbeResult& result);
    void failed(const QString& message);

private:
    std::unique_ptr<QProcess> m_process;
    QByteArray m_stdout;
    QStringList m_announced; // the probe's parts already reported by progress()
};

} // namespace strata::app::plan

Q_DECLARE_METATYPE(strata::app::plan::ProbeResult)
