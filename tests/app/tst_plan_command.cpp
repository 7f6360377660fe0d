// The scaling planner end to end on a small experiment: the engine's probe (`strata-engine
// plan-probe --quick`, through ProbeRunner) read into a ProbeResult whose parts agree with the
// model and with each other, and `strata plan --json` as a user runs it: its structure, the
// consistency of its figures (not their values: they are this machine's timings) and the
// calibration the run history holds applied.

#include "app/history/run_history.h"
#include "app/plan/plan_calibration.h"
#include "app/plan/probe_runner.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <thread>

using namespace strata::app::plan;

namespace {

// Flatten -> Dense(8, relu) -> Dense(2) on 16 features: 16 x 8 + 8 + 8 x 2 + 2 = 154 parameters.
const char* kExperiment = R"({
  "strata": 1, "name": "plan-small", "seed": 7,
  "strategy": {"type": "MultiWorkerMirrored"},
  "cluster": {"nodes": [{"name": "local", "host": "127.0.0.1"}],
              "tasks": [{"type": "worker", "node": "local", "count": 2}]},
  "model": {"input_shape": [16], "layers": [{"type": "Dense", "units": 8, "activation": "relu"}, {"type": "Dense", "units": 2}]},
  "data": {"source": {"type": "synthetic", "task": "classification", "samples": 256, "features": 16, "classes": 2}},
  "training": {"epochs": 1, "batch_size": 16, "threads": 1,
               "loss": {"type": "sparse_categorical_crossentropy", "from_logits": true}, "optimizer": "adam"}
})";
constexpr int64_t kGradientBytes = 154 * 4;

QString writeExperiment(const QTemporaryDir& dir, const QByteArray& text)
{
    const QString path = dir.filePath(QStringLiteral("plan-small.strata.json"));
    QFile f(path);
    f.open(QIODevice::WriteOnly);
    f.write(text);
    return path;
}

} // namespace

class TestPlanCommand : public QObject {
    Q_OBJECT

private slots:
    void probeAgreesWithItself()
    {
        QTemporaryDir dir;
        const QString file = writeExperiment(dir, kExperiment);
        ProbeRunner runner;
        QSignalSpy done(&runner, &ProbeRunner::finished);
        QSignalSpy failed(&runner, &ProbeRunner::failed);
        QSignalSpy progress(&runner, &ProbeRunner::progress);
        runner.start(file, {QStringLiteral(STRATA_ENGINE_PATH), 2, true, true});
        QVERIFY(done.wait(120000) || !failed.isEmpty());
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
        QCOMPARE(progress.size(), 3); // compute, the sweep, the ps round trip, in order
        QCOMPARE(progress[0].first().toString(), QStringLiteral("probe_compute"));
        const ProbeResult p = done.first().first().value<ProbeResult>();

        const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
        QCOMPARE(p.cores, cores);
        QCOMPARE(p.gradientBytes, kGradientBytes);
        QCOMPARE(p.parameters, int64_t{154});
        // Compute: 1 thread alone, 1 thread on every core at once, every core (2 + cores copies' samples).
        QCOMPARE(p.compute.batch, int64_t{16});
        QCOMPARE(p.compute.points.size(), size_t(cores > 1 ? 3 : 1));
        QCOMPARE(p.compute.points[0].threads, 1);
        QCOMPARE(p.compute.points[0].copies, 1);
        for (const ComputePoint& c : p.compute.points) {
            QVERIFY(c.step.median > 0);
            QVERIFY(c.step.samples >= 8 * c.copies);
            QVERIFY(c.step.robustCv >= 0);
        }
        // The variables in model order with their bytes; each gradient final within the
        // backward pass (every step's is, so the medians are too).
        QCOMPARE(p.compute.variableBytes, (std::vector<int64_t>{16 * 8 * 4, 8 * 4, 8 * 2 * 4, 2 * 4}));
        QCOMPARE(p.compute.gradientReadySeconds.size(), size_t{4});
        for (double ready : p.compute.gradientReadySeconds)
            QVERIFY(ready >= 0 && ready <= p.compute.backwardSeconds);
        // The first layer's kernel is final no earlier than the last layer's.
        QVERIFY(p.compute.gradientReadySeconds[0] >= p.compute.gradientReadySeconds[3]);
        // The sweep: 2 ranks, sizes ascending with the gradient's own among them, the fit's
        // terms not negative and not both zero.
        QCOMPARE(p.collective.ranks, 2);
        QVERIFY(p.collective.points.size() >= 4);
        bool own = false;
        for (size_t i = 0; i < p.collective.points.size(); ++i) {
            QVERIFY(p.collective.points[i].seconds.median > 0);
            QVERIFY(p.collective.points[i].cpuSeconds >= 0);
            if (i > 0)
                QVERIFY(p.collective.points[i].bytes > p.collective.points[i - 1].bytes);
            own = own || p.collective.points[i].bytes == kGradientBytes;
        }
        QVERIFY(own);
        QVERIFY(p.collective.latencySeconds >= 0 && p.collective.bytesPerSecond >= 0);
        QVERIFY(p.collective.latencySeconds > 0 || p.collective.bytesPerSecond > 0);
        QCOMPARE(p.collective.halvingDoublingFromRanks, 4);
        // MultiWorkerMirrored's own steps on the sweep's ranks, every rank stopping at the same
        // step (else the probe would hang or fail): the quick probe's 5 rounds of them; none on
        // the crowded ranks.
        QCOMPARE(p.collective.rehearsal.samples, 5);
        QVERIFY(p.collective.rehearsal.median > 0 && p.collective.rehearsal.mean > 0);
        QCOMPARE(p.collective.rehearsalThreads, 1);
        if (p.crowdedCollective)
            QCOMPARE(p.crowdedCollective->rehearsal.samples, 0);
        // ParameterServer: the model's variables, one ps holding them all.
        QVERIFY(p.ps.has_value());
        QCOMPARE(p.ps->variableBytes, kGradientBytes);
        QCOMPARE(p.ps->smallBytes, int64_t{4 * 256 * 4}); // Dense(256) on 4 features, no bias
        QVERIFY(p.ps->roundTrip.samples >= 10);
        QVERIFY(p.ps->roundTrip.median > 0 && p.ps->serverCpuSeconds > 0);
        QCOMPARE(p.ps->busiestShareByPsTasks.size(), size_t{8});
        QCOMPARE(p.ps->busiestShareByPsTasks[0], 1.0);
    }

    void planAsJson()
    {
        QTemporaryDir dir;
        const QString file = writeExperiment(dir, kExperiment);
        // The window's finished runs taught the planner that MultiWorkerMirrored on 127.0.0.1
        // runs at half its prediction: the history (STRATA_HISTORY) holds that calibration.
        const QString historyPath = dir.filePath(QStringLiteral("history.sqlite"));
        {
            strata::app::RunHistory history;
            QString error;
            QVERIFY2(history.open(historyPath, &error), qPrintable(error));
            strata::app::RunRecord run;
            run.name = QStringLiteral("plan-small");
            run.strategy = QStringLiteral("MultiWorkerMirrored");
            QVERIFY2(history.insertRun(run, &error), qPrintable(error));
            Calibration taught;
            taught.entries.push_back({Strategy::MultiWorkerMirrored, QStringLiteral("127.0.0.1"), 0.5, 2});
            QVERIFY2(history.recordPrediction(run.id, {0, 200, 100, 1.0},
                                              QString::fromStdString(calibrationToJson(taught).dump()), &error),
                     qPrintable(error));
        }
        QProcess strata;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("STRATA_HISTORY"), historyPath);
        strata.setProcessEnvironment(env);
        strata.start(QStringLiteral(STRATA_UI_PATH), {QStringLiteral("plan"), file, QStringLiteral("--json"),
                                                      QStringLiteral("--quick"), QStringLiteral("--workers"),
                                                      QStringLiteral("1,3"), QStringLiteral("--engine"),
                                                      QStringLiteral(STRATA_ENGINE_PATH)});
        QVERIFY(strata.waitForFinished(180000));
        QVERIFY2(strata.exitCode() == 0, strata.readAllStandardError().constData());
        const auto plan = nlohmann::json::parse(strata.readAllStandardOutput().toStdString());
        QCOMPARE(plan["experiment"].get<std::string>(), std::string("plan-small"));
        QCOMPARE(plan["current_strategy"].get<std::string>(), std::string("MultiWorkerMirrored"));
        QCOMPARE(plan["workers_at_hand"].get<int>(), 2);
        const auto& ps = plan["predictions"];
        QVERIFY(ps.is_array() && !ps.empty());
        QCOMPARE(ps[0]["strategy"].get<std::string>(), std::string("OneDevice"));
        const double one = ps[0]["samples_per_s"].get<double>();
        std::vector<int> mwm;
        for (const auto& p : ps) {
            const std::string s = p["strategy"].get<std::string>();
            const int n = p["workers"].get<int>();
            const double rate = p["samples_per_s"].get<double>(), step = p["step_s"].get<double>();
            QVERIFY(rate > 0 && step > 0);
            // Throughput from the step: a global batch per step; ParameterServer: every
            // worker's batch per its own step; times the calibration, which the history taught
            // MultiWorkerMirrored alone.
            const double examples = s == "ParameterServer" ? n * 16.0 : p["global_batch"].get<double>();
            const double calibration = p["calibration"].get<double>();
            QCOMPARE(calibration, s == "MultiWorkerMirrored" ? 0.5 : 1.0);
            QVERIFY2(qAbs(rate - calibration * examples / step) < 1e-6 * rate, s.c_str());
            QVERIFY(qAbs(p["speedup"].get<double>() - rate / one) < 1e-9 * rate);
            QVERIFY(p["efficiency"].get<double>() > 0);
            const auto& t = p["terms"];
            QVERIFY(t["exposed_s"].get<double>() <= t["communication_s"].get<double>() + 1e-12);
            QVERIFY(qAbs(t["overlapped_s"].get<double>() + t["exposed_s"].get<double>() - t["communication_s"].get<double>()) < 1e-9 ||
                    s != "MultiWorkerMirrored");
            QVERIFY(!t["formula"].get<std::string>().empty());
            QVERIFY(step + 1e-12 >= t["compute_s"].get<double>());
            if (s == "MultiWorkerMirrored")
                mwm.push_back(n);
        }
        QCOMPARE(mwm, (std::vector<int>{1, 3}));
        const auto& rec = plan["recommendation"];
        QVERIFY(!rec["reasons"].empty());
        QVERIFY(rec["workers"].get<int>() >= 1);
        for (const auto& w : plan["warnings"])
            QVERIFY(!w["text"].get<std::string>().empty());
        QCOMPARE(plan["noise"]["threshold"].get<double>(), 0.15);
        const auto& noise = plan["noise"];
        // Each input's spread weighed by its share of the step it feeds.
        QCOMPARE(noise["too_noisy"].get<bool>(),
                 noise["worst_cv"].get<double>() * noise["worst_share"].get<double>() > 0.15 ||
                     noise["other_busy_cores"].get<double>() > 0.25 * plan["probe"]["cores"].get<double>());
    }

    void planTextAndErrors()
    {
        QTemporaryDir dir;
        // A file that is not there: named, exit 1, before any probe.
        QProcess missing;
        missing.start(QStringLiteral(STRATA_UI_PATH), {QStringLiteral("plan"), dir.filePath(QStringLiteral("none.json"))});
        QVERIFY(missing.waitForFinished(30000));
        QCOMPARE(missing.exitCode(), 1);
        QVERIFY(missing.readAllStandardError().contains("none.json"));
        // An experiment the engine refuses: its message, exit 1.
        QByteArray bad = kExperiment;
        bad.replace("\"units\": 8", "\"units\": -8");
        const QString file = writeExperiment(dir, bad);
        QProcess refused;
        refused.start(QStringLiteral(STRATA_UI_PATH), {QStringLiteral("plan"), file, QStringLiteral("--quick"),
                                                       QStringLiteral("--engine"), QStringLiteral(STRATA_ENGINE_PATH)});
        QVERIFY(refused.waitForFinished(60000));
        QCOMPARE(refused.exitCode(), 1);
        QVERIFY2(refused.readAllStandardError().contains("units"), "the engine's message names the field");
    }
};

QTEST_GUILESS_MAIN(TestPlanCommand)
#include "tst_plan_command.moc"
