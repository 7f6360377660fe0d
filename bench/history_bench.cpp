// strata-bench-history: the run history page's speed with many runs (bench/README.md "Run
// history"). Runs under any Qt platform (offscreen by default).
//
//   strata-bench-history [--runs N] [--repeat R] [--json FILE]
//
// Fills a temporary history with N realistic runs (the whole experiment document, tasks,
// final metrics, a tenth failed with an error, some tagged), then times, R times each:
// 1. opening the page: opening the database (a new connection: schema check, WAL), the
//    HistoryModel's first query of every row, and a QTableView showing it, painted once;
// 2. filter changes as the page makes them: strategy, status, text (a name), text (a tag),
//    and a header click sorting by test accuracy; each re-queries and repaints the view.
// Each figure is printed beside the target of the run-history issue (200 ms).

#include "app/experiment/experiment_document.h"
#include "app/history/history_model.h"
#include "app/history/run_history.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QHeaderView>
#include <QTableView>
#include <QTemporaryDir>

#include "bench_timing.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

using namespace strata::app;
using benchtiming::Timing;
using benchtiming::timeIt;
using benchtiming::verdict;

namespace {

constexpr double kTargetMs = 200;

// Run `i` of a history that grew over a year of use.
RunRecord realisticRun(int i)
{
    static const char* const names[] = {"fashion-mnist-mlp", "fashion-mnist-cnn", "cifar10-cnn", "regression-mlp",
                                        "text-embedding"};
    static const char* const strategies[] = {"OneDevice", "Mirrored", "CentralStorage", "Default"};
    nlohmann::ordered_json experiment = ExperimentDocument::defaultExperiment();
    const std::string name = std::string(names[i % 5]) + (i % 3 ? "" : "-tuned");
    experiment["name"] = name;
    experiment["strategy"] = {{"type", strategies[i % 4]}};
    experiment["training"]["epochs"] = 1 + i % 10;
    experiment["seed"] = i;

    RunRecord r;
    r.name = QString::fromStdString(name);
    r.experiment = QString::fromStdString(experiment.dump());
    r.strategy = strategies[i % 4];
    r.replicas = r.strategy == "Mirrored" || r.strategy == "CentralStorage" ? 2 : 1;
    r.tasks = R"([{"task":"worker:0","host":"workstation"}])";
    r.hosts = "workstation";
    r.source = i % 4 ? "app" : "headless";
    r.startedAt = 1735700000 + qint64(i) * 31536; // a year
    r.endedAt = r.startedAt + 60 + i % 600;
    r.status = i % 10 == 7 ? RunStatus::Failed : i % 10 == 8 ? RunStatus::Stopped : RunStatus::Completed;
    if (r.status == RunStatus::Failed)
        r.error = "worker:0: /data/train-images-idx3-ubyte.gz: truncated after 512 of 47040016 bytes";
    const double accuracy = 0.80 + 0.1 * double(i % 97) / 97.0;
    r.metrics = QStringLiteral(R"({"train":{"loss":%1,"accuracy":%2},"validation":{"loss":%3,"accuracy":%4},)"
                               R"("test":{"loss":%3,"accuracy":%4}})")
                    .arg(0.3 + 0.001 * (i % 50))
                    .arg(accuracy + 0.02)
                    .arg(0.35 + 0.001 * (i % 70))
                    .arg(accuracy);
    r.steps = 1875 * (1 + i % 10);
    r.samplesPerSec = 15000 + (i * 37) % 9000;
    r.wallSeconds = double(r.endedAt - r.startedAt);
    r.runDir = QStringLiteral("/home/user/.local/share/Strata/strata/runs/%1-%2").arg(r.name).arg(i);
    if (i % 9 == 0)
        r.tags = {"sweep-lr", QStringLiteral("lr-%1").arg(i % 4)};
    return r;
}

} // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription("The run history page's opening and filtering time with many runs.");
    parser.addHelpOption();
    parser.addOption({"runs", "Runs in the history.", "N", "1000"});
    parser.addOption({"repeat", "Times each measurement is taken (the median and the worst are reported).", "R", "20"});
    parser.addOption({"json", "Also write the results to this file.", "FILE"});
    parser.process(app);
    const int runs = parser.value("runs").toInt();
    const int repeat = std::max(1, parser.value("repeat").toInt());

    QTemporaryDir dir;
    const QString path = dir.filePath("history.sqlite");
    QString error;
    QElapsedTimer fillClock;
    fillClock.start();
    {
        RunHistory history;
        if (!history.open(path, &error)) {
            std::fprintf(stderr, "strata-bench-history: %s\n", qPrintable(error));
            return 1;
        }
        for (int i = 0; i < runs; ++i) {
            RunRecord r = realisticRun(i);
            if (!history.insertRun(r, &error)) {
                std::fprintf(stderr, "strata-bench-history: %s\n", qPrintable(error));
                return 1;
            }
        }
    }
    const double fillSeconds = double(fillClock.elapsed()) / 1000.0;
    std::printf("Run history of %d runs (%.1f MB; filled in %.2f s, one transaction a run: %.0f runs/s)\n", runs,
                double(QFileInfo(path).size() + QFileInfo(path + "-wal").size()) / 1e6, fillSeconds,
                runs / fillSeconds);

    std::vector<Timing> timings;
    // 1. The page opens: a connection of its own, every row read, the view painted.
    timings.push_back(timeIt("open + first query + paint", repeat, [&] {
        RunHistory history;
        if (!history.open(path, &error))
            qFatal("%s", qPrintable(error));
        HistoryModel model(&history);
        QTableView view;
        view.resize(1200, 700);
        view.setModel(&model);
        // The first query: sorting enabled sorts by the indicator, which re-queries.
        view.horizontalHeader()->setSortIndicator(HistoryModel::StartedColumn, Qt::DescendingOrder);
        view.setSortingEnabled(true);
        view.show();
        view.repaint();
        return model.rowCount();
    }));

    // 2. Filter changes on an open page.
    RunHistory history;
    if (!history.open(path, &error))
        qFatal("%s", qPrintable(error));
    HistoryModel model(&history);
    QTableView view;
    view.resize(1200, 700);
    view.setModel(&model);
    model.refresh();
    view.show();
    const auto filtered = [&](const RunFilter& filter) {
        return [&, filter] {
            if (!model.setFilter(filter))
                qFatal("%s", qPrintable(model.error()));
            view.repaint();
            return model.rowCount();
        };
    };
    RunFilter byStrategy;
    byStrategy.strategy = "Mirrored";
    RunFilter byStatus;
    byStatus.status = RunStatus::Failed;
    RunFilter byName;
    byName.text = "cnn-tuned";
    RunFilter byTag;
    byTag.text = "sweep-lr";
    timings.push_back(timeIt("filter: strategy Mirrored", repeat, filtered(byStrategy)));
    timings.push_back(timeIt("filter: status failed", repeat, filtered(byStatus)));
    timings.push_back(timeIt("filter: text \"cnn-tuned\" (names)", repeat, filtered(byName)));
    timings.push_back(timeIt("filter: text \"sweep-lr\" (tags)", repeat, filtered(byTag)));
    timings.push_back(timeIt("filter: none (all rows)", repeat, filtered(RunFilter{})));
    timings.push_back(timeIt("sort: test accuracy (header click)", repeat, [&] {
        model.sort(HistoryModel::TestAccuracyColumn, Qt::DescendingOrder);
        view.repaint();
        return model.rowCount();
    }));

    bool allMet = true;
    std::printf("  %-38s %6s %10s %10s  (target under %.0f ms)\n", "", "rows", "median", "worst", kTargetMs);
    for (const Timing& t : timings) {
        const bool met = t.maxMs < kTargetMs;
        allMet = allMet && met;
        std::printf("  %-38s %6d %7.2f ms %7.2f ms  %s\n", t.what.c_str(), t.rows, t.medianMs, t.maxMs, verdict(met));
    }

    if (parser.isSet("json")) {
        nlohmann::ordered_json j{{"runs", runs}, {"repeat", repeat}, {"fill_seconds", fillSeconds},
                                 {"target_ms", kTargetMs}, {"all_met", allMet}, {"timings", nlohmann::ordered_json::array()}};
        for (const Timing& t : timings)
            j["timings"].push_back({{"what", t.what}, {"rows", t.rows}, {"median_ms", t.medianMs}, {"max_ms", t.maxMs}});
        QFile f(parser.value("json"));
        if (f.open(QIODevice::WriteOnly))
            f.write(QByteArray::fromStdString(j.dump(2) + "\n"));
    }
    return 0;
}
