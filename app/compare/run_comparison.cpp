#include "app/compare/run_comparison.h"

#include "app/rundir/run_replay.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <atomic>
#include <thread>

namespace strata::app {

bool readRunExperiment(const QString& runDir, Json& experiment, QString* error)
{
    for (const char* name : {"launch.strata.json", "experiment.strata.json"}) {
        const QString path = QDir(runDir).filePath(QLatin1String(name));
        QFile file(path);
        if (!file.exists())
            continue;
        if (!file.open(QIODevice::ReadOnly)) {
            *error = QObject::tr("Cannot read %1: %2").arg(path, file.errorString());
            return false;
        }
        experiment = Json::parse(file.readAll().toStdString(), nullptr, false);
        if (experiment.is_discarded() || !experiment.is_object()) {
            *error = QObject::tr("%1 is not an experiment document (not a JSON object).").arg(path);
            return false;
        }
        return true;
    }
    *error = QObject::tr("%1 holds no experiment document (launch.strata.json or experiment.strata.json).").arg(runDir);
    return false;
}

bool loadRuns(const QStringList& dirs, std::vector<LoadedRun>& runs, QString* error, const QStringList& labels)
{
    runs.clear();
    std::vector<LoadedRun> loaded(size_t(dirs.size()));
    std::vector<QString> errors(loaded.size());
    std::vector<char> ok(loaded.size(), 0);
    // The stores live on this thread (their notifications come here); the runs are independent
    // and rebuilt in parallel (a store takes events from any thread).
    for (size_t i = 0; i < loaded.size(); ++i) {
        loaded[i].dir = dirs[qsizetype(i)];
        loaded[i].store = std::make_unique<MetricsStore>();
    }
    std::atomic<size_t> next{0};
    const auto work = [&] {
        for (size_t i; (i = next.fetch_add(1)) < loaded.size();)
            ok[i] = loadRun(loaded[i].dir, *loaded[i].store, &errors[i])
                    && readRunExperiment(loaded[i].dir, loaded[i].experiment, &errors[i]);
    };
    std::vector<std::thread> threads;
    const unsigned helpers = std::min<unsigned>(std::max(1u, std::thread::hardware_concurrency()), unsigned(loaded.size())) - 1;
    for (unsigned t = 0; t < helpers; ++t)
        threads.emplace_back(work);
    work();
    for (std::thread& t : threads)
        t.join();
    QStringList used;
    for (size_t i = 0; i < loaded.size(); ++i) {
        LoadedRun& run = loaded[i];
        if (!ok[i]) {
            *error = errors[i];
            return false;
        }
        const QString name = qsizetype(i) < labels.size() ? labels[qsizetype(i)] : QFileInfo(QDir::cleanPath(run.dir)).fileName();
        run.label = name;
        for (int n = 2; used.contains(run.label); ++n)
            run.label = QStringLiteral("%1 (%2)").arg(name).arg(n);
        used << run.label;
    }
    runs = std::move(loaded);
    return true;
}

QString comparisonReport(const std::vector<LoadedRun>& runs, const CompareOptions& options, ReportFormat format)
{
    std::vector<ComparedRun> compared;
    std::vector<Json> experiments;
    QStringList labels;
    for (const LoadedRun& run : runs) {
        compared.push_back({run.store.get(), run.label});
        experiments.push_back(run.experiment);
        labels << run.label;
    }
    const ComparisonTable table = compareRuns(compared, options);
    const bool markdown = format == ReportFormat::Markdown;
    QString out;
    if (!table.runs.empty()) {
        const RunSummary& base = table.runs[size_t(table.baseline)];
        out += QStringLiteral("Scaling against %1 (%2, %3 replica(s)): speedup = samples/s over its samples/s; "
                              "efficiency = speedup / (replicas / its replicas). samples/s: steady state, the "
                              "windows that begin in the first %4% of the steps left out.\n\n")
                   .arg(markdown ? QStringLiteral("**%1**").arg(base.label) : base.label,
                        base.strategy.isEmpty() ? QStringLiteral("?") : base.strategy)
                   .arg(base.replicas)
                   .arg(options.warmupFraction * 100);
    }
    out += markdown ? tableMarkdown(table) : tableText(table);

    // Each straggler's stretches in full, in the runs of several workers.
    if (std::any_of(table.runs.begin(), table.runs.end(), [](const RunSummary& r) { return r.workers > 1; })) {
        out += markdown ? QStringLiteral("\n### Stragglers\n\n") : QStringLiteral("\nStragglers:\n");
        for (const RunSummary& r : table.runs) {
            if (r.workers < 2)
                continue;
            QStringList lines;
            for (const Straggler& s : r.stragglers)
                lines << stretchText(s);
            if (lines.isEmpty())
                lines << QStringLiteral("none");
            for (const QString& line : lines)
                out += markdown ? QStringLiteral("- %1: %2\n").arg(r.label, line) : QStringLiteral("  %1: %2\n").arg(r.label, line);
        }
    }

    const std::vector<ExperimentDifference> differences = experimentDifferences(experiments);
    const auto section = [&](bool setup, const QString& title, const QString& none) {
        out += markdown ? QStringLiteral("\n### %1\n\n").arg(title) : QStringLiteral("\n%1:\n").arg(title);
        bool any = false;
        for (const ExperimentDifference& d : differences)
            if (d.setup == setup) {
                out += markdown ? QStringLiteral("- `%1`: %2\n").arg(d.path, d.values.join(QStringLiteral(" | ")))
                                : QStringLiteral("  %1\n").arg(d.text());
                any = true;
            }
        if (!any)
            out += markdown ? none + '\n' : QStringLiteral("  %1\n").arg(none);
    };
    if (runs.size() > 1) {
        out += QStringLiteral("\nValues in the runs' order: %1.\n").arg(labels.join(QStringLiteral(" | ")));
        section(true, QStringLiteral("Setup compared (strategy, cluster)"), QStringLiteral("The same in every run."));
        section(false, QStringLiteral("Other differences in the experiments (the comparison may be unfair)"),
                QStringLiteral("None: model, data, training and seed are the same."));
    }
    return out;
}

bool compareRunDirs(const QStringList& dirs, const CompareOptions& options, ReportFormat format, QString* report,
                    QString* error, const QStringList& labels)
{
    std::vector<LoadedRun> runs;
    if (!loadRuns(dirs, runs, error, labels))
        return false;
    *report = comparisonReport(runs, options, format);
    return true;
}

bool resolveRunRefs(const QStringList& refs, QStringList* dirs, QStringList* labels, QString* error,
                    RunHistory* history)
{
    RunHistory own;
    for (const QString& ref : refs) {
        bool isId = false;
        const qint64 id = ref.toLongLong(&isId);
        // A directory named like a number is still a directory.
        if (!isId || id <= 0 || QFileInfo(ref).isDir()) {
            *dirs << ref;
            *labels << QFileInfo(QDir::cleanPath(ref)).fileName();
            continue;
        }
        if (!history) {
            if (!own.open(RunHistory::defaultPath(), error))
                return false;
            history = &own;
        }
        const std::optional<RunRecord> run = history->run(id, error);
        if (!run)
            return false;
        *dirs << run->runDir;
        *labels << QStringLiteral("#%1 %2").arg(id).arg(run->displayName());
    }
    return true;
}

} // namespace strata::app
