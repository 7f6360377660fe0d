#include "app/trace_export/export_trace_command.h"

#include "app/compare/run_comparison.h"
#include "app/trace_export/chrome_trace.h"

#include <QCommandLineParser>
#include <QSaveFile>

namespace strata::app {

namespace {

const char* const kUsage = "strata export trace RUN... OUT.json";

} // namespace

int exportTraceCommand(const QStringList& args, std::FILE* out, std::FILE* err)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        "Writes the step timelines of runs as one Chrome Trace Event file: a process per task, a thread per\n"
        "lane (step, reduce, ps), every phase of every step on the job's clock, and the throughput.\n"
        "Open it in https://ui.perfetto.dev or chrome://tracing.\n"
        "RUN: a history id (see `strata runs`) or a run directory.");
    parser.addHelpOption();
    parser.addPositionalArgument("format", "trace", "export trace");
    parser.addPositionalArgument("runs", "The runs: history ids or run directories.", "RUN...");
    parser.addPositionalArgument("out", "The JSON file to write.", "OUT.json");
    if (!parser.parse(QStringList{QStringLiteral("strata export")} + args)) {
        std::fprintf(err, "strata: %s; expected `%s` (see strata export trace --help)\n", qPrintable(parser.errorText()),
                     kUsage);
        return 2;
    }
    if (parser.isSet("help")) {
        std::fputs(qPrintable(parser.helpText()), out);
        return 0;
    }
    const QStringList positional = parser.positionalArguments();
    if (positional.value(0) != QLatin1String("trace") || positional.size() < 3) {
        std::fprintf(err, "strata: expected `%s` (see strata export trace --help)\n", kUsage);
        return 2;
    }
    const QString outPath = positional.back();
    QStringList dirs, labels;
    QString error;
    if (!resolveRunRefs(positional.mid(1, positional.size() - 2), &dirs, &labels, &error)) {
        std::fprintf(err, "strata: %s\n", qPrintable(error));
        return 1;
    }
    std::vector<RunTraces> runs(size_t(dirs.size()));
    for (qsizetype i = 0; i < dirs.size(); ++i) {
        const bool ok = readRunTraces(dirs[i], labels[i], &runs[size_t(i)], &error);
        for (const QString& warning : runs[size_t(i)].warnings)
            std::fprintf(err, "strata: warning: %s\n", qPrintable(warning));
        if (!ok) {
            std::fprintf(err, "strata: %s\n", qPrintable(error));
            return 1;
        }
    }
    QSaveFile file(outPath);
    const QByteArray json = chromeTraceJson(runs);
    if (!file.open(QIODevice::WriteOnly) || file.write(json) != json.size() || !file.commit()) {
        std::fprintf(err, "strata: cannot write %s: %s\n", qPrintable(outPath), qPrintable(file.errorString()));
        return 1;
    }
    for (const RunTraces& run : runs) {
        size_t steps = 0;
        for (const TaskTraces& task : run.tasks)
            steps += task.steps.size();
        std::fprintf(out, "%s -> %s: %zu tasks, %zu step timelines\n", qPrintable(run.runDir), qPrintable(outPath),
                     run.tasks.size(), steps);
    }
    return 0;
}

} // namespace strata::app
