#include "app/tensorboard/export_command.h"

#include "app/compare/run_comparison.h"
#include "app/tensorboard/run_export.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>

#include <chrono>
#include <memory>
#include <thread>
#include <vector>

namespace strata::app::tensorboard {

namespace {

const char* const kUsage = "strata export tensorboard RUN... DIR [--follow]";

void printWarnings(RunExport& run, std::FILE* err)
{
    for (const QString& warning : run.takeWarnings())
        std::fprintf(err, "strata: warning: %s\n", qPrintable(warning));
}

void printWritten(const QString& runDir, const QString& outDir, const RunExport& run, std::FILE* out)
{
    std::fprintf(out, "%s -> %s: %s (%lld tags, %lld values, to step %lld)%s\n", qPrintable(runDir),
                 qPrintable(outDir), qPrintable(run.runs().join(QStringLiteral(", "))), static_cast<long long>(run.tags()),
                 static_cast<long long>(run.points()), static_cast<long long>(run.lastStep()),
                 run.ended() ? "" : "; the run has not ended: --follow writes on as it goes");
}

int failWith(std::FILE* err, const QString& why)
{
    std::fprintf(err, "strata: %s\n", qPrintable(why));
    return 1;
}

// Every run written as it is now, one after the other.
int exportSnapshot(const std::vector<std::unique_ptr<RunExport>>& runs, const QStringList& dirs,
                   const QStringList& outDirs, std::FILE* out, std::FILE* err)
{
    QString error;
    for (size_t i = 0; i < runs.size(); ++i) {
        RunExport& run = *runs[i];
        const bool ok = run.poll(&error) && run.finish(&error);
        printWarnings(run, err);
        if (!ok)
            return failWith(err, error);
        printWritten(dirs[qsizetype(i)], outDirs[qsizetype(i)], run, out);
    }
    return 0;
}

// The runs written as they go, every `pollMs`, until each has ended.
int exportFollowing(const std::vector<std::unique_ptr<RunExport>>& runs, const QStringList& dirs,
                    const QStringList& outDirs, const QString& outDir, std::FILE* out, std::FILE* err, int pollMs)
{
    QString error;
    for (size_t i = 0; i < runs.size(); ++i)
        std::fprintf(out, "Following %s into %s until it ends (tensorboard --logdir %s)\n", qPrintable(dirs[qsizetype(i)]),
                     qPrintable(outDirs[qsizetype(i)]), qPrintable(outDir));
    std::fflush(out);
    std::vector<bool> done(runs.size(), false);
    for (size_t left = runs.size(); left > 0;) {
        for (size_t i = 0; i < runs.size(); ++i) {
            if (done[i])
                continue;
            RunExport& run = *runs[i];
            // Whether it had ended before this read: then the read holds all there is.
            const bool ended = run.ended();
            const bool ok = run.poll(&error) && (!ended || run.finish(&error));
            printWarnings(run, err);
            if (!ok)
                return failWith(err, error);
            if (ended) {
                printWritten(dirs[qsizetype(i)], outDirs[qsizetype(i)], run, out);
                std::fflush(out);
                done[i] = true;
                --left;
            }
        }
        if (left > 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(pollMs));
    }
    return 0;
}

} // namespace

int exportCommand(const QStringList& args, std::FILE* out, std::FILE* err, int pollMs)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        "Writes runs as TensorBoard event files: DIR/<run name>/{train,validation,test,<task>}, the scalars\n"
        "tagged as Keras' TensorBoard callback tags them (epoch_loss, batch_loss, ...) plus Strata's own\n"
        "(loss per replica, step times, throughput, ...). Then: tensorboard --logdir DIR.\n"
        "RUN: a history id (see `strata runs`) or a run directory.");
    parser.addHelpOption();
    parser.addOption({"follow", "Write as the runs go, until every one has ended (a run not started yet is waited for)."});
    parser.addPositionalArgument("format", "tensorboard (the only format for now).", "export tensorboard");
    parser.addPositionalArgument("runs", "The runs: history ids or run directories.", "RUN...");
    parser.addPositionalArgument("dir", "The folder TensorBoard reads (--logdir), created if missing.", "DIR");
    if (!parser.parse(QStringList{QStringLiteral("strata export")} + args)) {
        std::fprintf(err, "strata: %s; expected `%s` (see strata export --help)\n", qPrintable(parser.errorText()), kUsage);
        return 2;
    }
    if (parser.isSet("help")) {
        std::fputs(qPrintable(parser.helpText()), out);
        return 0;
    }
    const QStringList positional = parser.positionalArguments();
    if (positional.value(0) != QLatin1String("tensorboard") || positional.size() < 3) {
        std::fprintf(err, "strata: expected `%s` (see strata export --help)\n", kUsage);
        return 2;
    }
    const QString outDir = positional.back();
    if (QFileInfo(outDir).exists() && !QFileInfo(outDir).isDir()) {
        std::fprintf(err, "strata: %s is not a folder\n", qPrintable(outDir));
        return 1;
    }
    QStringList dirs, labels;
    QString error;
    if (!resolveRunRefs(positional.mid(1, positional.size() - 2), &dirs, &labels, &error)) {
        std::fprintf(err, "strata: %s\n", qPrintable(error));
        return 1;
    }
    const RunExport::Mode mode = parser.isSet("follow") ? RunExport::Mode::Follow : RunExport::Mode::Snapshot;
    std::vector<std::unique_ptr<RunExport>> runs;
    QStringList names, outDirs;
    for (const QString& dir : dirs) {
        const QString base = QFileInfo(QDir::cleanPath(QDir(dir).absolutePath())).fileName();
        QString name = base;
        for (int n = 2; names.contains(name); ++n)
            name = QStringLiteral("%1-%2").arg(base).arg(n);
        names << name;
        outDirs << QDir(outDir).filePath(name);
        runs.push_back(std::make_unique<RunExport>(dir, outDirs.back(), mode));
    }
    // Every run checked before any is written.
    for (auto& run : runs)
        if (!run->start(&error)) {
            std::fprintf(err, "strata: %s\n", qPrintable(error));
            return 1;
        }
    if (mode == RunExport::Mode::Snapshot)
        return exportSnapshot(runs, dirs, outDirs, out, err);
    return exportFollowing(runs, dirs, outDirs, outDir, out, err, pollMs);
}

} // namespace strata::app::tensorboard
