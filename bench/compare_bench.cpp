// strata-bench-compare: how long the window takes to show a comparison of many runs
// (bench/README.md "Comparison"). Runs under any Qt platform (offscreen by default).
//
//   strata-bench-compare [--runs N] [--steps S] [--repeat R] [--json FILE]
//
// Writes N run directories as the engine and the launcher leave them (events file with
// hello, start, placement, S/10 step windows of two replicas, device reports, epochs and
// done; launch.strata.json; tasks.json), the strategies alternating and one run's batch size
// different (an unfair difference to list). Then times, R times each, what the window does
// when the user compares them: every run rebuilt from its directory, the table and the
// differences computed, and the Compare page (four plots, table, differences) shown and
// painted; and a change of the target loss (the table again). Target: under 1 s for 10 runs.

#include "app/compare/comparison_session.h"
#include "app/experiment/experiment_document.h"
#include "app/rundir/task_ends.h"
#include "ui/compare/compare_page.h"
#include "ui/shell/dialogs.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_timing.h"
#include "synthetic_events.h"

using namespace strata;
using benchtiming::Timing;
using benchtiming::timeIt;
using benchtiming::verdict;

namespace {

constexpr double kTargetMs = 1000;

void writeFile(const QString& path, const std::string& text)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text.data(), qint64(text.size())) != qint64(text.size()))
        qFatal("cannot write %s", qPrintable(path));
}

// Run `i`: OneDevice, Mirrored x2 or CentralStorage x2, `steps` steps.
QString writeRun(const QString& root, int i, int64_t steps)
{
    static const char* const strategies[] = {"OneDevice", "Mirrored", "CentralStorage"};
    const std::string strategy = strategies[i % 3];
    const int replicas = strategy == "OneDevice" ? 1 : 2;
    const QString dir = QDir(root).filePath(QStringLiteral("run-%1").arg(i));
    QDir().mkpath(dir);

    nlohmann::ordered_json experiment = app::ExperimentDocument::defaultExperiment();
    experiment["name"] = "run-" + std::to_string(i);
    experiment["strategy"] = {{"type", strategy}};
    if (i == 4)
        experiment["training"]["batch_size"] = 64; // an unfair difference to report
    writeFile(dir + "/launch.strata.json", experiment.dump(2));

    const int64_t windows = steps / 10;
    std::string events =
        R"({"v":1,"type":"hello","t":1763800000,"task":"worker:0","version":"0.1.0","host":"bench","pid":1,"devices":[{"name":"cpu:0","kind":"cpu"},{"name":"cpu:1","kind":"cpu"}]})"
        "\n"
        R"({"v":1,"type":"start","t":1763800000,"task":"worker:0","experiment":"run","strategy":")" +
        strategy + R"(","replicas":)" + std::to_string(replicas) + R"(,"epochs":10,"steps_per_epoch":)" +
        std::to_string(steps / 10) + R"(,"total_steps":)" + std::to_string(steps) +
        R"(,"batch_size":)" + std::to_string(32 * replicas) + "}\n";
    for (int64_t w = 1; w <= windows; ++w) {
        events += benchevents::stepLine(w * 10, replicas, "worker:0", 0.01 * i, 15000.0 * replicas);
        if (w % 100 == 0)
            events += R"({"v":1,"type":"device","t":1763800000,"task":"worker:0","step":)" + std::to_string(w * 10) +
                      R"(,"devices":[{"device":"cpu:0","replica":0,"utilization":0.9,"variable_bytes":407080}],"process":{"rss_bytes":90000000}})"
                      "\n";
        if (w % (windows / 10) == 0)
            events += R"({"v":1,"type":"epoch","t":1763800000,"task":"worker:0","epoch":)" +
                      std::to_string(w / (windows / 10) - 1) + R"(,"epochs":10,"step":)" + std::to_string(w * 10) +
                      R"(,"train":{"loss":0.4,"accuracy":0.86},"validation":{"loss":0.45,"accuracy":0.84},"seconds":3.0})"
                      "\n";
    }
    events += R"({"v":1,"type":"done","t":1763803000,"task":"worker:0","status":"completed","steps":)" +
              std::to_string(steps) +
              R"(,"epochs":10,"test":{"loss":0.36,"accuracy":0.87},"wall_seconds":3000})"
              "\n";
    writeFile(dir + "/events-worker-0.jsonl", events);
    QString error;
    if (!app::writeTaskEnds(dir, {app::TaskEnd{"worker:0", 0, false, {}, {}, 1763803000.5}}, &error))
        qFatal("%s", qPrintable(error));
    return dir;
}

} // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription("The time the window takes to compare many finished runs.");
    parser.addHelpOption();
    parser.addOption({"runs", "Runs compared.", "N", "10"});
    parser.addOption({"steps", "Steps of each run (one step event per 10 steps).", "S", "200000"});
    parser.addOption({"repeat", "Times each measurement is taken (the median and the worst are reported).", "R", "5"});
    parser.addOption({"json", "Also write the results to this file.", "FILE"});
    parser.process(app);
    const int runs = parser.value("runs").toInt();
    const int64_t steps = parser.value("steps").toLongLong();
    const int repeat = std::max(1, parser.value("repeat").toInt());

    QTemporaryDir root;
    QStringList dirs;
    qint64 bytes = 0;
    for (int i = 0; i < runs; ++i) {
        dirs << writeRun(root.path(), i, steps);
        bytes += QFileInfo(dirs.back() + "/events-worker-0.jsonl").size();
    }
    std::printf("%d runs of %lld steps (%lld step events each, %.1f MB of event files in all)\n", runs,
                (long long)steps, (long long)(steps / 10), double(bytes) / 1e6);

    app::ComparisonSession session;
    ui::Dialogs dialogs;
    ui::ComparePage page(&session, &dialogs);
    page.resize(1400, 900);
    page.show();
    QCoreApplication::processEvents();
    std::vector<Timing> timings;
    QString error;
    timings.push_back(timeIt("load runs + table + page painted", repeat, [&] {
        session.clear();
        if (!session.load(dirs, {}, &error))
            qFatal("%s", qPrintable(error));
        page.repaint();
    }));
    double target = 0.5;
    timings.push_back(timeIt("target loss changed (table again)", repeat, [&] {
        session.setTargetLoss(target += 0.01);
        page.repaint();
    }));
    std::printf("The Compare page with %d runs (%d experiment differences listed):\n", session.runCount(),
                int(session.differences().size()));
    bool ok = true;
    for (const Timing& t : timings) {
        std::printf("  %-36s median %7.1f ms, worst %7.1f ms (target under %.0f ms: %.2fx)  %s\n", t.what.c_str(),
                    t.medianMs, t.maxMs, kTargetMs, kTargetMs / t.maxMs, verdict(t.maxMs < kTargetMs));
        ok = ok && t.maxMs < kTargetMs;
    }
    if (parser.isSet("json")) {
        nlohmann::ordered_json j{{"runs", runs}, {"steps", steps}, {"event_bytes", bytes}, {"timings", nlohmann::ordered_json::array()}};
        for (const Timing& t : timings)
            j["timings"].push_back({{"what", t.what}, {"median_ms", t.medianMs}, {"max_ms", t.maxMs}});
        QFile f(parser.value("json"));
        if (f.open(QIODevice::WriteOnly))
            f.write(QByteArray::fromStdString(j.dump(2) + "\n"));
    }
    return 0;
}
