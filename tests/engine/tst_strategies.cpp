// The core correctness test of every synchronous strategy: Mirrored and CentralStorage with
// R replicas and global batch B end with the same weights as OneDevice with batch B. Also:
// per-replica losses are the losses of each replica's slice, metrics add up, restored state
// reaches every replica, TPU falls back as declared, and devices must exist.

#include "dist_test_helpers.h"
#include "strata/training/strategy_factory.h"
#include "strata/core/rng.h"
#include "strata/distribute/strategy.h"
#include "strata/rundir/checkpoint.h"
#include "strata/rundir/model_state.h"
#include "strata/tensor/gpu.h"

#include <QtTest>

#include <cmath>

using namespace strata;
using testing::relativeError;
using Json = schema::Json;

namespace {

const char* kDense = R"({"input_shape": [12], "layers": [
    {"type": "Dense", "units": 16, "activation": "relu", "kernel_regularizer": {"l2": 0.001}},
    {"type": "Dense", "units": 16, "activation": "tanh"},
    {"type": "Dense", "units": 4, "activation": "softmax"}]})";

// Synchronized BatchNormalization: its batch statistics are the global batch's, so every
// synchronous strategy computes what OneDevice does, moving statistics included. (No bias
// before a BatchNormalization: its gradient is 0 up to rounding, which Adam would amplify.)
const char* kCnnBatchNorm = R"({"input_shape": [8, 8, 2], "layers": [
    {"type": "Conv2D", "filters": 6, "kernel_size": 3, "use_bias": false},
    {"type": "BatchNormalization", "synchronized": true, "momentum": 0.9},
    {"type": "Activation", "activation": "relu"},
    {"type": "Flatten"},
    {"type": "Dense", "units": 8, "use_bias": false},
    {"type": "BatchNormalization", "synchronized": true, "center": false},
    {"type": "Dense", "units": 4}]})";

const char* kCnn = R"({"input_shape": [10, 10, 2], "layers": [
    {"type": "Conv2D", "filters": 6, "kernel_size": 3, "activation": "relu"},
    {"type": "MaxPooling2D"},
    {"type": "Conv2D", "filters": 8, "kernel_size": 2, "padding": "same", "activation": "relu"},
    {"type": "Flatten"},
    {"type": "Dense", "units": 4}]})";

schema::Experiment experiment(const std::string& model, const Json& strategy, const std::string& optimizer,
                            int64_t perReplicaBatch, const std::string& metric = "accuracy")
{
    const Json doc{{"name", "equivalence"},
                   {"seed", 5},
                   {"strategy", strategy},
                   {"model", Json::parse(model == "cnn" ? kCnn : model == "cnn-bn" ? kCnnBatchNorm : kDense)},
                   {"data", {{"source", {{"type", "synthetic"}}}}},
                   {"training",
                    {{"batch_size", perReplicaBatch},
                     {"loss", {{"type", "sparse_categorical_crossentropy"}, {"from_logits", model != "dense"}}},
                     {"metrics", Json::array({metric})},
                     {"optimizer", Json::parse(optimizer)},
                     {"threads", 1}}}};
    return schema::parseExperiment(doc, ".");
}

Json strategyJson(const QString& type, int replicas, const QString& crossDeviceOps = "all_reduce")
{
    Json devices = Json::array();
    for (int r = 0; r < replicas; ++r)
        devices.push_back("cpu:" + std::to_string(r));
    if (type == "OneDevice")
        return {{"type", "OneDevice"}, {"device", "cpu:0"}, {"logical_cpu_devices", 4}};
    if (type == "CentralStorage")
        return {{"type", "CentralStorage"}, {"compute_devices", devices}, {"parameter_device", "cpu:0"},
                {"logical_cpu_devices", 4}};
    return {{"type", "Mirrored"}, {"devices", devices}, {"cross_device_ops", crossDeviceOps.toStdString()},
            {"logical_cpu_devices", 4}};
}

// Batches of random inputs and labels; the last is smaller than the others and does not
// divide evenly among the replicas.
std::vector<std::pair<Tensor, Tensor>> batches(const Shape& inputShape, int64_t globalBatch, int count)
{
    std::vector<std::pair<Tensor, Tensor>> out;
    Rng rng(99, 1);
    for (int b = 0; b < count; ++b) {
        const int64_t n = b + 1 == count ? globalBatch - 3 : globalBatch;
        Tensor x(inputShape.withBatch(n)), y(Shape{n});
        for (float& v : x.values())
            v = static_cast<float>(rng.uniform(-1, 1));
        for (float& v : y.values())
            v = static_cast<float>(rng.below(4));
        out.emplace_back(x, y);
    }
    return out;
}

// Every variable, the non-trainable ones (moving statistics) included.
std::vector<float> weights(nn::Sequential& model)
{
    std::vector<float> all;
    for (const auto* list : {&model.parameters(), &model.states()})
        for (const nn::Parameter* p : *list)
            all.insert(all.end(), p->value.data(), p->value.data() + p->value.numel());
    return all;
}


// Trains `steps` batches with `e`'s strategy; returns the final weights.
std::vector<float> train(const schema::Experiment& e, const std::vector<std::pair<Tensor, Tensor>>& data,
                         std::vector<std::unique_ptr<nn::Metric>>* metricsOut = nullptr)
{
    auto strategy = run::createStrategy(e, distribute::HostDevices::probe(e.strategy.logicalCpuDevices));
    std::vector<std::unique_ptr<nn::Metric>> metrics;
    metrics.push_back(nn::createMetric("accuracy", e.training.loss, strategy->loss().fromLogits()));
    int64_t step = 0;
    for (const auto& [x, y] : data)
        strategy->step(x, y, {true, e.seed, step++}, metrics);
    if (metricsOut)
        *metricsOut = std::move(metrics);
    return weights(strategy->model());
}

const char* kSgd = R"({"type": "sgd", "learning_rate": 0.05, "momentum": 0.9})";
const char* kAdam = R"({"type": "adam", "learning_rate": 0.001})";

} // namespace

class TestStrategies : public QObject {
    Q_OBJECT

private slots:
    void sameWeightsAsOneDevice_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<QString>("crossDeviceOps");
        QTest::addColumn<int>("replicas");
        QTest::addColumn<QString>("optimizer");
        for (const char* model : {"dense", "cnn", "cnn-bn"})
            for (const char* optimizer : {"sgd", "adam"})
                for (int replicas : {1, 2, 4}) {
                    QTest::addRow("%s %s Mirrored x%d", model, optimizer, replicas)
                        << model << "Mirrored" << "all_reduce" << replicas << optimizer;
                    QTest::addRow("%s %s Mirrored reduce_to_one_device x%d", model, optimizer, replicas)
                        << model << "Mirrored" << "reduce_to_one_device" << replicas << optimizer;
                    QTest::addRow("%s %s CentralStorage x%d", model, optimizer, replicas)
                        << model << "CentralStorage" << "" << replicas << optimizer;
                }
    }

    void sameWeightsAsOneDevice()
    {
        QFETCH(QString, model);
        QFETCH(QString, strategy);
        QFETCH(QString, crossDeviceOps);
        QFETCH(int, replicas);
        QFETCH(QString, optimizer);
        const char* opt = optimizer == "sgd" ? kSgd : kAdam;
        const int64_t global = 24; // divides among 1, 2 and 4 replicas; the last batch (21) does not
        const auto reference = experiment(model.toStdString(), strategyJson("OneDevice", 1), opt, global);
        const auto data = batches(reference.model.inputShape, global, 15);
        const auto expected = train(reference, data);

        const auto distributed = experiment(model.toStdString(), strategyJson(strategy, replicas, crossDeviceOps), opt,
                                            global / replicas);
        const auto got = train(distributed, data);
        const double error = relativeError(got, expected);
        QVERIFY2(error < 1e-5, qPrintable(QString("relative error %1").arg(error)));
        // And training did change the weights (the comparison is not between two initial states).
        auto untouched = run::createStrategy(reference, distribute::HostDevices::probe(4));
        QVERIFY(relativeError(weights(untouched->model()), expected) > 1e-3);
    }

    void metricsAddUpAcrossReplicas()
    {
        const auto reference = experiment("dense", strategyJson("OneDevice", 1), kSgd, 24);
        const auto data = batches(reference.model.inputShape, 24, 1);
        std::vector<std::unique_ptr<nn::Metric>> one, four;
        train(reference, data, &one);
        train(experiment("dense", strategyJson("Mirrored", 4), kSgd, 6), data, &four);
        QCOMPARE(four[0]->count(), 21.0);
        QCOMPARE(four[0]->total(), one[0]->total());
    }

    void perReplicaLossesAreTheirSlices_data()
    {
        QTest::addColumn<QString>("strategy");
        QTest::newRow("Mirrored") << "Mirrored";
        QTest::newRow("CentralStorage") << "CentralStorage";
    }

    void perReplicaLossesAreTheirSlices()
    {
        QFETCH(QString, strategy);
        const auto e = experiment("dense", strategyJson(strategy, 3), kSgd, 8);
        auto s = run::createStrategy(e, distribute::HostDevices::probe(4));
        QCOMPARE(s->replicaCount(), 3);
        // A direct computation with the same initial weights.
        nn::Sequential direct(e.model, e.seed);
        const bool logits = direct.fuseOutputActivation(e.training.loss);
        const auto loss = nn::createLoss(e.training.loss, logits);
        const double regularization = direct.regularizationLoss();

        const auto data = batches(e.model.inputShape, 23, 2); // 23 rows: slices of 7, 8, 8
        const auto& [x, y] = data[0];
        std::vector<std::unique_ptr<nn::Metric>> metrics;
        const distribute::StepOutcome out = s->step(x, y, {true, e.seed, 0}, metrics);
        QCOMPARE(out.replicas.size(), size_t(3));
        QCOMPARE(out.samples, int64_t(23));
        int64_t begin = 0;
        double sum = 0;
        for (int r = 0; r < 3; ++r) {
            const auto& rep = out.replicas[static_cast<size_t>(r)];
            QCOMPARE(rep.device, "cpu:" + std::to_string(r));
            const int64_t n = 23 * (r + 1) / 3 - 23 * r / 3;
            QCOMPARE(rep.samples, n);
            const Tensor& outputs = direct.forward(x.rows(begin, begin + n), {false, 0, 0});
            const double expected = loss->compute(outputs, y.rows(begin, begin + n), nullptr, 1.0f) / double(n) + regularization;
            QVERIFY2(std::abs(rep.loss - expected) < 1e-5 * std::abs(expected),
                     qPrintable(QString("replica %1: %2 vs %3").arg(r).arg(rep.loss).arg(expected)));
            sum += (rep.loss - regularization) * double(n);
            begin += n;
        }
        QVERIFY(std::abs(out.loss() - (sum / 23 + regularization)) < 1e-6);
        QVERIFY(out.computeMs > 0);
        QVERIFY(out.commMs >= 0);
    }

    void restoredStateReachesEveryReplica()
    {
        // Train a while, checkpoint, continue; a second strategy restored from the checkpoint
        // and synchronized must continue identically (every replica got the state).
        const auto e = experiment("dense", strategyJson("Mirrored", 3), kAdam, 8);
        const auto data = batches(e.model.inputShape, 24, 12);
        auto a = run::createStrategy(e, distribute::HostDevices::probe(4));
        std::vector<std::unique_ptr<nn::Metric>> metrics;
        for (int i = 0; i < 6; ++i)
            a->step(data[size_t(i)].first, data[size_t(i)].second, {true, e.seed, i}, metrics);
        run::Checkpoint c;
        run::captureState(a->model(), &a->optimizer(), c);

        auto b = run::createStrategy(e, distribute::HostDevices::probe(4));
        run::restoreState(c, b->model(), &b->optimizer(), "test");
        b->synchronize();
        for (int i = 6; i < 12; ++i) {
            a->step(data[size_t(i)].first, data[size_t(i)].second, {true, e.seed, i}, metrics);
            b->step(data[size_t(i)].first, data[size_t(i)].second, {true, e.seed, i}, metrics);
        }
        QCOMPARE(weights(b->model()), weights(a->model()));
    }

    void placementDescribesTheStrategy()
    {
        auto mirrored = run::createStrategy(experiment("dense", strategyJson("Mirrored", 2), kSgd, 16),
                                             distribute::HostDevices::probe(4));
        const Json m = schema::toJson(mirrored->placement());
        QCOMPARE(m["strategy"].get<std::string>(), std::string("Mirrored"));
        QCOMPARE(m["replicas"].size(), size_t(2));
        QCOMPARE(m["replicas"][1]["device"].get<std::string>(), std::string("cpu:1"));
        QCOMPARE(m["global_batch_size"].get<int>(), 32);
        QCOMPARE(m["variables"][0]["devices"].size(), size_t(2)); // a copy per replica
        QCOMPARE(m["variables"][0]["bytes"].get<int>(), 12 * 16 * 4);
        QVERIFY(QString::fromStdString(m["reduction"]["algorithm"].get<std::string>()).contains("reduce-scatter"));

        auto central = run::createStrategy(experiment("dense", strategyJson("CentralStorage", 2), kSgd, 16),
                                            distribute::HostDevices::probe(4));
        const Json c = schema::toJson(central->placement());
        QCOMPARE(c["variables"][0]["devices"], Json::array({"cpu:0"})); // held once
        QCOMPARE(c["parameter_device"].get<std::string>(), std::string("cpu:0"));
    }

    // training.threads 0: a job of tasks shares each host's cores among the tasks computing
    // there (an evaluator taking a share beside them); one process takes them all.
    void tasksShareTheHostsCores()
    {
        Json doc = experimentDocument();
        doc["training"]["threads"] = 0;
        doc["strategy"] = {{"type", "MultiWorkerMirrored"}};
        doc["cluster"] = Json::parse(R"({"nodes": [{"name": "a", "host": "localhost"}, {"name": "b", "host": "b.example"},
            {"name": "a2", "host": "127.0.0.1"}], "tasks": [{"type": "chief", "node": "a"},
            {"type": "worker", "node": "a2", "count": 2}, {"type": "worker", "node": "b"}, {"type": "evaluator", "node": "a"}]})");
        distribute::HostDevices host = distribute::HostDevices::probe(1);
        host.cores = 12;
        const auto threads = [&](const std::string& task) {
            return run::taskThreads(schema::parseExperiment(doc, "."), host, {task, "token"});
        };
        QCOMPARE(threads("chief:0"), 4);  // chief:0, worker:0 and worker:1 on localhost
        QCOMPARE(threads("worker:1"), 4);
        QCOMPARE(threads("worker:2"), 12); // alone on b.example
        QCOMPARE(threads("evaluator:0"), 3);
        doc["strategy"] = {{"type", "ParameterServer"}};
        doc["cluster"]["tasks"].push_back({{"type", "ps"}, {"node", "a"}});
        QCOMPARE(threads("worker:0"), 4);
        doc["training"]["threads"] = 5;
        QCOMPARE(threads("worker:0"), 5);
        doc["training"]["threads"] = 0;
        doc["strategy"] = {{"type", "Mirrored"}};
        doc.erase("cluster");
        QCOMPARE(threads("worker:0"), 12); // one process
    }

    void linearLearningRateScaling()
    {
        Json doc = experimentDocument();
        doc["training"]["lr_scaling"] = "linear";
        auto s = run::createStrategy(schema::parseExperiment(doc, "."), distribute::HostDevices::probe(4));
        QCOMPARE(s->optimizer().learningRate(), 0.05 * 4);
        const Json p = schema::toJson(s->placement());
        QCOMPARE(p["learning_rate"]["base"].get<double>(), 0.05);
        QCOMPARE(p["learning_rate"]["scaled"].get<double>(), 0.2);
        QCOMPARE(p["learning_rate"]["rule"].get<std::string>(), std::string("linear"));
    }

    void tpuFallsBackToMirroredAsDeclared()
    {
        Json tpu = strategyJson("Mirrored", 2);
        tpu["type"] = "TPU";
        tpu["fallback"] = "Mirrored";
        const auto e = experiment("dense", tpu, kSgd, 8);
        QCOMPARE(e.notes.size(), size_t(1));
        QVERIFY(QString::fromStdString(e.notes[0].message).contains("no TPU on this machine"));
        auto s = run::createStrategy(e, distribute::HostDevices::probe(4));
        QCOMPARE(s->name(), std::string("Mirrored"));
        QCOMPARE(schema::toJson(s->placement())["requested_strategy"].get<std::string>(), std::string("TPU"));
    }

    void centralStorageOnOneDeviceIsNoted()
    {
        const auto e = experiment("dense", strategyJson("CentralStorage", 1), kSgd, 8);
        QCOMPARE(e.notes.size(), size_t(1));
        QVERIFY(QString::fromStdString(e.notes[0].message).contains("degenerates to OneDevice"));
    }

    void devicesMustExistOnThisHost()
    {
        Json missing = strategyJson("Mirrored", 2);
        missing["devices"] = {"cpu:0", "cpu:7"};
        missing.erase("logical_cpu_devices");
        const auto e = experiment("dense", missing, kSgd, 8);
        try {
            run::createStrategy(e, distribute::HostDevices::probe(4));
            QFAIL("no ConfigError");
        } catch (const ConfigError& error) {
            QCOMPARE(error.problems()[0].path, std::string("strategy.devices[1]"));
            QVERIFY2(QString(error.what()).contains("cpu:7 does not exist on this host: it offers 4 logical CPU devices"),
                     error.what());
        }
        Json gpu{{"type", "OneDevice"}, {"device", "gpu:63"}};
        try {
            run::createStrategy(experiment("dense", gpu, kSgd, 8), distribute::HostDevices::probe(4));
            QFAIL("no ConfigError");
        } catch (const ConfigError& error) {
            const auto gpus = gpu::devices().size();
            if (gpus == 0)
                QVERIFY2(!gpu::whyNoGpus().empty(), "no GPU, and no reason given");
            const QString reason = gpus == 0 ? QString("no GPU was found (%1)").arg(QString::fromStdString(gpu::whyNoGpus()))
                                             : QString("it has %1 GPU").arg(gpus);
            QVERIFY2(QString(error.what()).contains("gpu:63 does not exist on this host: " + reason), error.what());
        }
    }

    // TF32 and mixed bfloat16 are GPU settings: asked for on CPUs, they are refused, naming
    // the field.
    void reducedPrecisionIsRefusedOnCpus_data()
    {
        QTest::addColumn<QString>("precision");
        QTest::newRow("tf32") << "tf32";
        QTest::newRow("mixed_bfloat16") << "mixed_bfloat16";
    }

    void reducedPrecisionIsRefusedOnCpus()
    {
        QFETCH(QString, precision);
        auto e = experiment("dense", strategyJson("OneDevice", 1), kSgd, 8);
        e.training.precision = precision.toStdString();
        try {
            run::createStrategy(e, distribute::HostDevices::probe(4));
            QFAIL("no ConfigError");
        } catch (const ConfigError& error) {
            QCOMPARE(error.problems()[0].path, std::string("training.precision"));
            QVERIFY2(QString(error.what()).contains(precision + " runs on GPUs"), error.what());
        }
    }

    void placementNamesThePrecision()
    {
        auto s = run::createStrategy(experiment("dense", strategyJson("Mirrored", 2), kSgd, 8),
                                      distribute::HostDevices::probe(4));
        const Json p = schema::toJson(s->placement());
        QCOMPARE(p["precision"]["compute"].get<std::string>(), std::string("float32"));
        QCOMPARE(p["precision"]["variables"].get<std::string>(), std::string("float32"));
    }

    void failingReplicaDoesNotHangTheOthers()
    {
        // Labels outside the model's classes make every replica's loss throw; the step must
        // fail with that cause, not wait forever in the all-reduce.
        const auto e = experiment("dense", strategyJson("Mirrored", 2), kSgd, 4);
        auto s = run::createStrategy(e, distribute::HostDevices::probe(4));
        Tensor x = Tensor::zeros({8, 12});
        Tensor y = Tensor::full({8}, 9.0f);
        std::vector<std::unique_ptr<nn::Metric>> metrics;
        try {
            s->step(x, y, {true, 0, 0}, metrics);
            QFAIL("no error");
        } catch (const ShapeError& error) {
            QVERIFY2(QString(error.what()).contains("label 9"), error.what());
        }
    }

private:
    static Json experimentDocument()
    {
        return Json{{"seed", 1},
                    {"strategy", strategyJson("Mirrored", 4)},
                    {"model", Json::parse(kDense)},
                    {"data", {{"source", {{"type", "synthetic"}}}}},
                    {"training", {{"batch_size", 8}, {"optimizer", Json::parse(kSgd)}}}};
    }
};

QTEST_GUILESS_MAIN(TestStrategies)
#include "tst_strategies.moc"
