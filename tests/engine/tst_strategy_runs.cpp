// Strategies through strata-engine as users run them: the events say where everything runs
// (placement, per-replica steps, device usage), a Mirrored run ends where a OneDevice run
// with the same global batch does, TPU says plainly that there is none and falls back only
// when declared, devices that do not exist are refused, `devices` lists what exists.

#include "engine_process.h"

#include "strata/rundir/checkpoint.h"

#include <QtTest>

#include <cmath>

using namespace testing;

namespace {

Json strategyExperiment(const Json& strategy, int64_t perReplicaBatch)
{
    Json doc = smallExperiment();
    doc["strategy"] = strategy;
    doc["training"]["batch_size"] = perReplicaBatch;
    doc["model"]["layers"].erase(1); // no Dropout: runs must be comparable across strategies
    doc["training"]["optimizer"] = {{"type", "sgd"}, {"learning_rate", 0.05}, {"momentum", 0.9}};
    return doc;
}

std::vector<float> finalWeights(const QString& runDir)
{
    const auto c = strata::run::readCheckpoint((runDir + "/model.weights").toStdString());
    std::vector<float> all;
    for (const auto& [name, t] : c.tensors)
        all.insert(all.end(), t.data(), t.data() + t.numel());
    return all;
}

} // namespace

class TestStrategyRuns : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    int m_count = 0;

    EngineResult train(const Json& doc, const QString& runDir, const QStringList& extra = {})
    {
        const QString file = writeExperiment(m_dir, doc, "exp-" + QString::number(++m_count) + ".strata.json");
        return runEngine(QStringList{"train", file, "--events", "stdout", "--run-dir", runDir} + extra);
    }

private slots:
    void mirroredRunReportsWhereEverythingRuns()
    {
        const QString runDir = m_dir.filePath("mirrored");
        const EngineResult r = train(strategyExperiment({{"type", "Mirrored"}, {"devices", {"cpu:0", "cpu:1"}}}, 8), runDir,
                                     {"--device-interval-ms", "20", "--event-interval-ms", "10"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.errText()));

        const Json* start = r.first("start");
        QVERIFY(start);
        QCOMPARE((*start)["strategy"].get<std::string>(), std::string("Mirrored"));
        QCOMPARE((*start)["replicas"].get<int>(), 2);
        QCOMPARE((*start)["batch_size"].get<int>(), 16);
        QCOMPARE((*start)["steps_per_epoch"].get<int>(), 38); // 600 / 16, rounded up

        const Json* placement = r.first("placement");
        QVERIFY(placement);
        QCOMPARE((*placement)["replicas"].size(), size_t(2));
        QCOMPARE((*placement)["replicas"][1]["device"].get<std::string>(), std::string("cpu:1"));
        QCOMPARE((*placement)["per_replica_batch_size"].get<int>(), 8);
        for (const auto& v : (*placement)["variables"]) {
            QCOMPARE(v["devices"], Json::array({"cpu:0", "cpu:1"}));
            QVERIFY(v["bytes"].get<int>() > 0);
        }
        QVERIFY((*placement)["reduction"]["bytes_per_step"].get<int>() == (8 * 16 + 16 + 16 * 3 + 3) * 4);

        int steps = 0, samples = 0;
        for (const auto& e : r.events) {
            if (e["type"] != "step")
                continue;
            QCOMPARE(e["replicas"].size(), size_t(2));
            QCOMPARE(e["replicas"][0]["device"].get<std::string>(), std::string("cpu:0"));
            QCOMPARE(e["replicas"][1]["device"].get<std::string>(), std::string("cpu:1"));
            for (const auto& rep : e["replicas"]) {
                QVERIFY(std::isfinite(rep["loss"].get<double>()));
                samples += rep["samples"].get<int>();
            }
            QVERIFY(e["time_ms"]["comm"].get<double>() >= 0);
            QVERIFY(e["time_ms"]["compute"].get<double>() > 0);
            steps += e["steps"].get<int>();
        }
        QCOMPARE(steps, 3 * 38);
        QCOMPARE(samples, 3 * 600); // every example, every epoch, counted once

        const Json* device = r.first("device");
        QVERIFY2(device, "no device event");
        QCOMPARE((*device)["devices"].size(), size_t(2));
        for (const auto& d : (*device)["devices"]) {
            QVERIFY(d["utilization"].get<double>() >= 0 && d["utilization"].get<double>() <= 1);
            QVERIFY(d["variable_bytes"].get<int>() > 0);
        }
        QVERIFY((*device)["process"]["rss_bytes"].get<int64_t>() > 0);
    }

    void sameWeightsAsOneDeviceWithTheGlobalBatch_data()
    {
        QTest::addColumn<QString>("strategy");
        QTest::newRow("Mirrored") << R"({"type": "Mirrored", "devices": ["cpu:0", "cpu:1"]})";
        QTest::newRow("Mirrored reduce_to_one_device")
            << R"({"type": "Mirrored", "devices": ["cpu:0", "cpu:1"], "cross_device_ops": "reduce_to_one_device"})";
        QTest::newRow("CentralStorage") << R"({"type": "CentralStorage", "compute_devices": ["cpu:0", "cpu:1"]})";
    }

    void sameWeightsAsOneDeviceWithTheGlobalBatch()
    {
        QFETCH(QString, strategy);
        const QString reference = m_dir.filePath("one-" + QString::number(++m_count));
        QCOMPARE(train(strategyExperiment({{"type", "OneDevice"}}, 16), reference).exitCode, 0);
        const QString distributed = m_dir.filePath("two-" + QString::number(++m_count));
        const EngineResult r = train(strategyExperiment(Json::parse(strategy.toStdString()), 8), distributed);
        QVERIFY2(r.exitCode == 0, qPrintable(r.errText()));
        const auto a = finalWeights(reference), b = finalWeights(distributed);
        double diff = 0, norm = 0;
        for (size_t i = 0; i < a.size(); ++i) {
            diff += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
            norm += double(a[i]) * a[i];
        }
        QVERIFY2(std::sqrt(diff / norm) < 1e-5, qPrintable(QString::number(std::sqrt(diff / norm))));
    }

    void tpuFallsBackOnlyWhenDeclared()
    {
        const EngineResult refused = train(strategyExperiment({{"type", "TPU"}}, 8), m_dir.filePath("tpu-refused"));
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.errText().contains("strategy.type: there is no TPU on this machine"), qPrintable(refused.errText()));
        QVERIFY(refused.errText().contains("\"fallback\": \"Mirrored\""));

        const EngineResult r = train(strategyExperiment({{"type", "TPU"}, {"fallback", "Mirrored"}, {"devices", {"cpu:0", "cpu:1"}}}, 8),
                                     m_dir.filePath("tpu-fallback"));
        QVERIFY2(r.exitCode == 0, qPrintable(r.errText()));
        bool told = false;
        for (const auto& e : r.events)
            told = told || (e["type"] == "log" && QString::fromStdString(e["message"].get<std::string>()).contains("no TPU"));
        QVERIFY(told);
        const Json* placement = r.first("placement");
        QCOMPARE((*placement)["strategy"].get<std::string>(), std::string("Mirrored"));
        QCOMPARE((*placement)["requested_strategy"].get<std::string>(), std::string("TPU"));
        QCOMPARE((*r.first("start"))["strategy"].get<std::string>(), std::string("Mirrored"));
    }

    void devicesThatDoNotExistAreRefused()
    {
        const EngineResult r = train(strategyExperiment({{"type", "Mirrored"}, {"devices", {"cpu:0", "cpu:99"}}}, 8),
                                     m_dir.filePath("no-device"));
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.errText().contains("strategy.devices[1]: cpu:99 does not exist on this host"), qPrintable(r.errText()));
        // gpu:63: missing on this machine and on a GPU machine alike (the reason differs).
        const EngineResult gpu = train(strategyExperiment({{"type", "OneDevice"}, {"device", "gpu:63"}}, 8), m_dir.filePath("gpu"));
        QCOMPARE(gpu.exitCode, 2);
        QVERIFY2(gpu.errText().contains("gpu:63 does not exist on this host: "), qPrintable(gpu.errText()));
        // More logical CPU devices than cores is allowed when declared (like tf.config).
        const EngineResult many = train(strategyExperiment({{"type", "Mirrored"}, {"devices", {"cpu:0", "cpu:1", "cpu:2", "cpu:3"}},
                                                            {"logical_cpu_devices", 4}},
                                                           4),
                                        m_dir.filePath("four"));
        QVERIFY2(many.exitCode == 0, qPrintable(many.errText()));
        QCOMPARE((*many.first("placement"))["replicas"].size(), size_t(4));
    }

    void centralStorageOnOneDeviceSaysItDegenerates()
    {
        const EngineResult r = train(strategyExperiment({{"type", "CentralStorage"}, {"compute_devices", {"cpu:0"}}}, 8),
                                     m_dir.filePath("central-one"));
        QCOMPARE(r.exitCode, 0);
        bool told = false;
        for (const auto& e : r.events)
            told = told || (e["type"] == "log" &&
                            QString::fromStdString(e["message"].get<std::string>()).contains("degenerates to OneDevice"));
        QVERIFY(told);
        const QString file = writeExperiment(m_dir, strategyExperiment({{"type", "CentralStorage"}, {"compute_devices", {"cpu:0"}}}, 8),
                                             "central-one.strata.json");
        const EngineResult v = runEngine({"validate", file});
        QCOMPARE(v.exitCode, 0);
        QVERIFY(v.errText().contains("note: strategy.compute_devices: CentralStorage with one compute device degenerates"));
    }

    void devicesCommandListsWhatExists()
    {
        const EngineResult r = runEngine({"devices", "--json"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(!r.events.empty());
        QCOMPARE(r.events[0]["name"].get<std::string>(), std::string("cpu:0"));
        QCOMPARE(int(r.events.size()), r.events[0]["cores"].get<int>());
        const EngineResult four = runEngine({"devices", "--json", "--logical-cpu-devices", "4"});
        QCOMPARE(four.events.size(), size_t(4));
        QCOMPARE(four.events[3]["name"].get<std::string>(), std::string("cpu:3"));
        const EngineResult table = runEngine({"devices"});
        QVERIFY(table.out.contains("cpu:0"));
        QVERIFY(table.out.contains("No GPU"));
        QCOMPARE(runEngine({"devices", "--logical-cpu-devices", "0"}).exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestStrategyRuns)
#include "tst_strategy_runs.moc"
