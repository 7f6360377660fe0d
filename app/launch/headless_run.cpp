#include "app/launch/headless_run.h"

#include "app/history/run_history.h"
#include "app/launch/engine_info.h"
#include "app/launch/node_check.h"
#include "app/launch/run_controller.h"
#include "app/metrics/display_text.h"
#include "app/metrics/run_outcome.h"
#include "app/ssh/keyring.h"
#include "app/ssh/terminal_prompter.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QSocketNotifier>
#include <QTimer>

#include <csignal>
#include <cstdio>
#include <memory>
#include <sys/socket.h>
#include <unistd.h>

namespace strata::app {

namespace {

int g_signalPipe[2] = {-1, -1};

void onSignal(int)
{
    const char c = 1;
    [[maybe_unused]] const auto n = ::write(g_signalPipe[1], &c, 1);
}

// While it lives, SIGINT and SIGTERM ask `run` to stop cleanly (the engines checkpoint and
// report `done`), through a socket pair: the handler only writes a byte. The previous
// handlers are back, and the sockets closed, when it goes.
class StopOnSignals {
public:
    explicit StopOnSignals(RunController& run)
    {
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, g_signalPipe) != 0)
            return;
        struct sigaction action = {};
        action.sa_handler = onSignal;
        sigemptyset(&action.sa_mask);
        action.sa_flags = SA_RESTART;
        ::sigaction(SIGINT, &action, &m_previousInt);
        ::sigaction(SIGTERM, &action, &m_previousTerm);
        m_notifier = std::make_unique<QSocketNotifier>(g_signalPipe[0], QSocketNotifier::Read);
        QObject::connect(m_notifier.get(), &QSocketNotifier::activated, &run, [&run] {
            char c;
            [[maybe_unused]] const auto n = ::read(g_signalPipe[0], &c, 1);
            std::fprintf(stderr, "\nstrata: stopping (the engine saves a checkpoint)...\n");
            run.stop();
        });
        m_installed = true;
    }
    ~StopOnSignals()
    {
        if (!m_installed)
            return;
        ::sigaction(SIGINT, &m_previousInt, nullptr);
        ::sigaction(SIGTERM, &m_previousTerm, nullptr);
        m_notifier.reset();
        ::close(g_signalPipe[0]);
        ::close(g_signalPipe[1]);
        g_signalPipe[0] = g_signalPipe[1] = -1;
    }
    StopOnSignals(const StopOnSignals&) = delete;
    StopOnSignals& operator=(const StopOnSignals&) = delete;

private:
    bool m_installed = false;
    struct sigaction m_previousInt = {}, m_previousTerm = {};
    std::unique_ptr<QSocketNotifier> m_notifier;
};

QString bar(double fraction)
{
    const int width = 30, filled = static_cast<int>(fraction * width);
    return QString(filled, '=') + (filled < width ? ">" + QString(width - filled - 1, '.') : QString());
}

// The progress line, "12/100 [===>....] 0:03 elapsed - ETA 0:20 - loss 0.4123"; empty until
// the run knows its steps.
QString progressLine(RunController& run)
{
    const Progress p = run.store().progress();
    if (p.totalSteps <= 0)
        return {};
    QString line = QStringLiteral("%1/%2 [%3] %4 elapsed")
                       .arg(p.step)
                       .arg(p.totalSteps)
                       .arg(bar(p.fraction))
                       .arg(clockText(p.elapsedSeconds));
    if (p.etaSeconds >= 0)
        line += QStringLiteral(" - ETA %1").arg(clockText(p.etaSeconds));
    run.store().read([&](const std::vector<TaskData>& tasks, const std::vector<LogEntry>&) {
        // The chief's (else worker:0's) loss, as the run's figures are: not an evaluator's.
        const TaskData* primary = primaryTask(tasks);
        if (primary && !primary->loss.empty())
            line += QStringLiteral(" - loss %1").arg(double(primary->loss.lastY()), 0, 'f', 4);
    });
    return line;
}

// The warnings, the app's own messages and epoch lines that came since the last call (`epochsShown`, `logShown`
// count what was shown), so that a log file reads like Keras' verbose=2.
QStringList newLines(const std::vector<TaskData>& tasks, const std::vector<LogEntry>& log, size_t& epochsShown,
                     size_t& logShown)
{
    QStringList lines;
    // Warnings, errors, and what the app itself says of the run (a batch job's state).
    for (; logShown < log.size(); ++logShown)
        if (log[logShown].level != "info" || log[logShown].task == QLatin1String("strata"))
            lines << QStringLiteral("%1 %2: %3").arg(log[logShown].task, log[logShown].level, log[logShown].message);
    if (const TaskData* primary = primaryTask(tasks)) {
        const auto& epochs = primary->epochs;
        for (; epochsShown < epochs.size(); ++epochsShown) {
            const auto& e = epochs[epochsShown];
            QString text = QStringLiteral("Epoch %1").arg(e.epoch + 1);
            for (const auto& [k, v] : e.train.items())
                text += QStringLiteral(" - %1: %2").arg(QString::fromStdString(k)).arg(v.get<double>(), 0, 'f', 4);
            if (e.validation.is_object())
                for (const auto& [k, v] : e.validation.items())
                    text += QStringLiteral(" - val_%1: %2").arg(QString::fromStdString(k)).arg(v.get<double>(), 0, 'f', 4);
            lines << text;
        }
    }
    return lines;
}

// Shows `run` in the terminal until it ends: node checks, a progress line, each epoch, the
// warnings, the outcome and what `checkFinished` says of it. The exit status.
int followInTerminal(RunController& run, RunHistory* history, const FinishedRunCheck& checkFinished)
{
    // Ctrl-C and SIGTERM stop the run cleanly while it goes on.
    const StopOnSignals stopOnSignals(run);

    const bool terminal = ::isatty(STDERR_FILENO);
    int lastLength = 0;
    const auto drawProgress = [&] {
        const QString line = progressLine(run);
        if (line.isEmpty())
            return;
        if (terminal) {
            std::fprintf(stderr, "\r%s%s", qPrintable(line),
                         qPrintable(QString(std::max(0, lastLength - int(line.size())), ' ')));
            lastLength = int(line.size());
        }
    };
    QTimer progressTimer;
    QObject::connect(&progressTimer, &QTimer::timeout, drawProgress);
    progressTimer.start(terminal ? 200 : 1000);

    // Epoch lines and warnings as they come.
    size_t epochsShown = 0, logShown = 0;
    const auto printNew = [&] {
        run.store().read([&](const std::vector<TaskData>& tasks, const std::vector<LogEntry>& log) {
            for (const QString& l : newLines(tasks, log, epochsShown, logShown))
                std::fprintf(stderr, "%s%s\n", terminal && lastLength ? "\r\033[K" : "", qPrintable(l));
        });
    };
    QObject::connect(&run.store(), &MetricsStore::updated, &run, printNew);

    bool launchFailed = false;
    QObject::connect(&run, &RunController::launchFailed, &run, [&](const QString& error) {
        std::fprintf(stderr, "strata: the launch was refused:\n%s\n", qPrintable(error));
        launchFailed = true;
        QCoreApplication::quit();
    });
    QObject::connect(&run, &RunController::started, &run, [&] {
        for (const NodeReport& r : run.launcher().nodeReports())
            std::fprintf(stderr, "strata: node %s\n", qPrintable(r.summary()));
    });
    QObject::connect(&run, &RunController::finished, QCoreApplication::instance(), &QCoreApplication::quit,
                     Qt::QueuedConnection);
    if (run.isChecking())
        std::fprintf(stderr, "strata: checking the nodes...\n");
    QCoreApplication::exec();
    progressTimer.stop();
    if (launchFailed)
        return 1;
    // `updated` is coalesced: what arrived after the last one (the last epoch, the final
    // warnings) is still to be printed.
    printNew();
    drawProgress();
    if (terminal)
        std::fprintf(stderr, "\n");
    const RunOutcome outcome = run.outcome();
    std::fprintf(stderr, "%s\nRun directory: %s\n", qPrintable(run.summary()), qPrintable(run.runDir()));
    if (checkFinished && history && history->isOpen() && run.historyId() > 0 &&
        (outcome == RunOutcome::Completed || outcome == RunOutcome::Stopped))
        if (const QString line = checkFinished(*history, run.historyId(), run.store()); !line.isEmpty())
            std::fprintf(stderr, "%s\n", qPrintable(line));
    return outcome == RunOutcome::Failed ? 1 : 0;
}

// What SSH asks is asked on the terminal; secrets are remembered in the OS keyring when the
// user asks (and where one runs).
RemoteAccess terminalAccess(ssh::TerminalPrompter& prompter, ssh::Keyring& keyring)
{
    ssh::SessionOptions options;
    options.keyring = &keyring;
    return {options, &prompter};
}

// The run history, or a warning saying why runs are not recorded.
bool openHistory(RunHistory& history)
{
    QString error;
    if (history.open(RunHistory::defaultPath(), &error))
        return true;
    std::fprintf(stderr, "strata: warning: this run is not recorded in the run history: %s\n", qPrintable(error));
    return false;
}

void warnHistory(const QString& message)
{
    std::fprintf(stderr, "strata: warning: this run is not recorded in the run history: %s\n", qPrintable(message));
}

} // namespace

int runHeadless(const HeadlessOptions& options)
{
    ExperimentDocument document;
    QString error;
    if (!document.load(options.experiment, &error)) {
        std::fprintf(stderr, "strata: %s\n", qPrintable(error));
        return 2;
    }
    const QString enginePath = options.enginePath.isEmpty() ? defaultEnginePath() : options.enginePath;
    const EngineInfo engine = probeEngine(enginePath);
    if (!engine.usable()) {
        std::fprintf(stderr, "strata: %s\n", qPrintable(engine.error));
        return 1;
    }
    document.setHost(engine.host);
    for (const auto& note : document.validation().notes)
        std::fprintf(stderr, "strata: note: %s\n", qPrintable(note.text()));

    // Recorded in the run history like the window's runs; without it, the run still goes.
    RunHistory history;
    RunController run;
    ssh::TerminalPrompter prompter;
    ssh::Keyring keyring;
    run.launcher().setRemoteAccess(terminalAccess(prompter, keyring));
    if (openHistory(history))
        run.setHistory(&history, "headless");
    QObject::connect(&run, &RunController::historyError, warnHistory);
    if (!run.launch(document, enginePath, options.runDir, &error, options.resume)) {
        // An invalid experiment: its problems, under the file's name (as `strata-engine
        // validate` reports them).
        const bool invalid = !document.validation().ok();
        const QString where = invalid ? options.experiment + ": " : QString();
        std::fprintf(stderr, "strata: %s%s\n", qPrintable(where), qPrintable(error));
        return invalid ? 2 : 1;
    }
    return followInTerminal(run, &history, options.checkFinished);
}

int attachHeadless(const QString& ref, const QString& enginePathOption, const FinishedRunCheck& checkFinished)
{
    const QString enginePath = enginePathOption.isEmpty() ? defaultEnginePath() : enginePathOption;
    RunHistory history;
    RunController run;
    ssh::TerminalPrompter prompter;
    ssh::Keyring keyring;
    run.launcher().setRemoteAccess(terminalAccess(prompter, keyring));
    const bool recorded = openHistory(history);
    if (recorded)
        run.setHistory(&history, "headless");
    QObject::connect(&run, &RunController::historyError, warnHistory);
    QString error;
    bool isId = false;
    const qint64 id = ref.toLongLong(&isId);
    std::optional<RunRecord> record;
    if (isId) {
        record = recorded ? history.run(id, &error) : std::nullopt;
        if (!record) {
            std::fprintf(stderr, "strata: no run #%lld in the run history%s\n", static_cast<long long>(id),
                         error.isEmpty() ? "" : qPrintable(": " + error));
            return 1;
        }
    } else if (recorded) {
        // The record of that directory, when there is one, gets the outcome.
        std::vector<RunRecord> runs;
        RunFilter filter;
        if (history.query(filter, &runs, &error))
            for (const RunRecord& r : runs)
                if (QFileInfo(r.runDir).absoluteFilePath() == QFileInfo(ref).absoluteFilePath())
                    record = r;
    }
    const bool attached = record ? run.reattach(*record, enginePath, &error) : run.reattach(ref, enginePath, &error);
    if (!attached) {
        std::fprintf(stderr, "strata: %s\n", qPrintable(error));
        return 1;
    }
    std::fprintf(stderr, "strata: following %s again\n", qPrintable(run.runDir()));
    return followInTerminal(run, &history, checkFinished);
}

} // namespace strata::app
