// Training on GPUs: OneDevice on gpu:0 matches the CPU (weights after a few steps, and the
// test accuracy of the default MLP and the CNN within 0.005 with the same seed); Mirrored over
// 2 logical GPUs of one GPU, and CentralStorage with the variables on the CPU, equal OneDevice
// on that GPU (relative 1e-5); Mirrored over physical GPUs through NCCL where there are two. Without a GPU every test skips, saying so.

#include "dist_test_helpers.h"
#include "datasets.h"
#include "engine_process.h"
#include "strata/training/strategy_factory.h"
#include "strata/core/rng.h"
#include "strata/distribute/strategy.h"
#include "strata/tensor/gpu.h"

#include <QtTest>

using namespace strata;
using testing::relativeError;

namespace {

const char* kDense = R"({"input_shape": [12], "layers": [
    {"type": "Dense", "units": 16, "activation": "relu", "kernel_regularizer": {"l2": 0.001}},
    {"type": "Dropout", "rate": 0.2},
    {"type": "Dense", "units": 4, "activation": "softmax"}]})";

const char* kCnn = R"({"input_shape": [10, 10, 2], "layers": [
    {"type": "Conv2D", "filters": 6, "kernel_size": 3, "activation": "relu"},
    {"type": "MaxPooling2D", "padding": "same"},
    {"type": "Conv2D", "filters": 8, "kernel_size": 2, "padding": "same", "activation": "relu"},
    {"type": "Flatten"},
    {"type": "Dense", "units": 4}]})";

schema::Experiment experiment(const std::string& model, const schema::Json& strategy, int64_t perReplicaBatch,
                            const schema::Json& cluster = nullptr)
{
    schema::Json doc{
        {"name", "gpu"},
        {"seed", 5},
        {"strategy", strategy},
        {"model", schema::Json::parse(model == "cnn" ? kCnn : kDense)},
        {"data", {{"source", {{"type", "synthetic"}}}}},
        {"training",
         {{"batch_size", perReplicaBatch},
          {"loss", {{"type", "sparse_categorical_crossentropy"}, {"from_logits", model == "cnn"}}},
          {"metrics", schema::Json::array({"accuracy"})},
          {"optimizer", {{"type", "adam"}, {"learning_rate", 0.01}}},
          {"threads", 1}}}};
    if (!cluster.is_null())
        doc["cluster"] = cluster;
    return schema::parseExperiment(doc, ".");
}

// Trains 10 random batches of `global` examples; returns the final weights (through model(),
// the host mirror on GPUs) and the accuracy total.
std::vector<float> train(const schema::Experiment& e, int64_t global, double* accuracyTotal = nullptr,
                         const distribute::TaskContext& task = {})
{
    const auto host = distribute::HostDevices::probe(e.strategy.logicalCpuDevices, e.strategy.logicalGpuDevices);
    distribute::configureGpus(e, host); // as the session does, before any GPU work
    auto strategy = run::createStrategy(e, host, task);
    std::vector<std::unique_ptr<nn::Metric>> metrics;
    metrics.push_back(nn::createMetric("accuracy", e.training.loss, strategy->loss().fromLogits()));
    Rng rng(99, 1);
    for (int64_t step = 0; step < 10; ++step) {
        Tensor x(e.model.inputShape.withBatch(global)), y(Shape{global});
        for (float& v : x.values())
            v = static_cast<float>(rng.uniform(-1, 1));
        for (float& v : y.values())
            v = static_cast<float>(rng.below(4));
        strategy->step(x, y, {global, false}, {true, e.seed, step}, metrics);
    }
    if (accuracyTotal)
        *accuracyTotal = metrics[0]->total();
    std::vector<float> all;
    for (const nn::Parameter* p : strategy->model().parameters())
        all.insert(all.end(), p->value.values().begin(), p->value.values().end());
    return all;
}

schema::Json oneDevice(const std::string& device)
{
    return {{"type", "OneDevice"}, {"device", device}};
}

double testAccuracy(const char* experimentFile, const std::string& device)
{
    QTemporaryDir dir;
    testing::Json doc = testing::Json::parse(testing::readText(experimentFile));
    doc["training"]["epochs"] = 1;
    doc["strategy"] = {{"type", "OneDevice"}, {"device", device}};
    const testing::EngineResult r = testing::runEngine(
        {"train", testing::writeExperiment(dir, doc), "--events", "stdout", "--run-dir", dir.filePath("run")});
    if (r.exitCode != 0)
        throw std::runtime_error(device + ": " + r.errText().toStdString());
    const double accuracy = r.events.back()["test"]["accuracy"].get<double>();
    qInfo("%s on %s: test accuracy %.4f after one epoch", experimentFile, device.c_str(), accuracy);
    return accuracy;
}

} // namespace

class TestGpuTraining : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        if (!gpu::backendBuilt())
            QSKIP("this engine is built without the CUDA backend: GPU training is not tested");
        if (gpu::devices().empty())
            QSKIP("no GPU on this machine (the CUDA runtime sees none): GPU training is not tested");
    }

    void oneDeviceOnTheGpuMatchesTheCpu_data()
    {
        QTest::addColumn<QString>("model");
        QTest::newRow("dense (l2, dropout, softmax)") << "dense";
        QTest::newRow("cnn (asymmetric same padding)") << "cnn";
    }

    void oneDeviceOnTheGpuMatchesTheCpu()
    {
        QFETCH(QString, model);
        double cpuAccuracy = 0, gpuAccuracy = 0;
        const auto cpu = train(experiment(model.toStdString(), oneDevice("cpu:0"), 24), 24, &cpuAccuracy);
        const auto gpu = train(experiment(model.toStdString(), oneDevice("gpu:0"), 24), 24, &gpuAccuracy);
        const double error = relativeError(gpu, cpu);
        // Different summation orders (cuBLAS/cuDNN against oneDNN) over 10 Adam steps.
        QVERIFY2(error < 1e-4, qPrintable(QString("relative error %1").arg(error)));
        // An argmax may flip where two outputs are within rounding of each other: one example.
        QVERIFY2(std::fabs(gpuAccuracy - cpuAccuracy) <= 1.0,
                 qPrintable(QString("correct: gpu %1, cpu %2").arg(gpuAccuracy).arg(cpuAccuracy)));
    }

    // TF32 and bfloat16 products change the rounding, not the training: the weights stay
    // close to float32's, and the placement says what ran.
    void reducedPrecisionTrainsClosely_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("precision");
        for (const char* model : {"dense", "cnn"})
            for (const char* precision : {"tf32", "mixed_bfloat16"})
                QTest::addRow("%s %s", model, precision) << model << precision;
    }

    void reducedPrecisionTrainsClosely()
    {
        QFETCH(QString, model);
        QFETCH(QString, precision);
        const auto reference = train(experiment(model.toStdString(), oneDevice("gpu:0"), 24), 24);
        auto e = experiment(model.toStdString(), oneDevice("gpu:0"), 24);
        e.training.precision = precision.toStdString();
        const auto got = train(e, 24);
        const double error = relativeError(got, reference);
        QVERIFY2(error < 5e-2, qPrintable(QString("relative error %1").arg(error)));
        auto s = run::createStrategy(e, distribute::HostDevices::probe());
        QCOMPARE(schema::toJson(s->placement())["precision"]["compute"].get<std::string>(), precision.toStdString());
        QCOMPARE(s->lossScale() != nullptr, precision == "mixed_bfloat16");
        gpu::setPrecision(gpu::Precision::Float32);
    }

    void mirroredOverTwoLogicalGpusEqualsOneDevice()
    {
        const auto reference = train(experiment("cnn", oneDevice("gpu:0"), 24), 24);
        const schema::Json mirrored{{"type", "Mirrored"},
                                  {"devices", {"gpu:0", "gpu:1"}},
                                  {"logical_gpu_devices", 2}};
        const auto got = train(experiment("cnn", mirrored, 12), 24);
        const double error = relativeError(got, reference);
        QVERIFY2(error < 1e-5, qPrintable(QString("relative error %1").arg(error)));
    }

    void centralStorageWithVariablesOnTheCpuEqualsOneDevice()
    {
        const auto reference = train(experiment("cnn", oneDevice("gpu:0"), 24), 24);
        const schema::Json central{{"type", "CentralStorage"},
                                 {"compute_devices", {"gpu:0", "gpu:1"}},
                                 {"parameter_device", "cpu:0"},
                                 {"logical_gpu_devices", 2}};
        const auto got = train(experiment("cnn", central, 12), 24);
        const double error = relativeError(got, reference);
        QVERIFY2(error < 1e-5, qPrintable(QString("relative error %1").arg(error)));
    }

    // One task per GPU; with the one GPU here, a job of one task: its NCCL communicator is
    // built from the unique id the rendezvous hands out, and its steps equal OneDevice's.
    void multiWorkerMirroredThroughNccl()
    {
        const auto reference = train(experiment("cnn", oneDevice("gpu:0"), 24), 24);
        const schema::Json cluster{
            {"nodes", {{{"name", "local"}, {"host", "127.0.0.1"}}}},
            {"tasks", {{{"type", "worker"}, {"node", "local"}, {"port", testing::freePort()}}}}};
        const auto e = experiment("cnn", {{"type", "MultiWorkerMirrored"}, {"devices", {"gpu:0"}}, {"timeout_seconds", 20}},
                                  24, cluster);
        const auto got = train(e, 24, nullptr, {"worker:0", "a-job-token"});
        const double error = relativeError(got, reference);
        QVERIFY2(error < 1e-5, qPrintable(QString("relative error %1").arg(error)));
    }

    void mirroredOverPhysicalGpusUsesNccl()
    {
        if (gpu::devices().size() < 2)
            QSKIP("one GPU here: NCCL refuses two ranks on one GPU, so Mirrored through NCCL needs two");
        const auto reference = train(experiment("cnn", oneDevice("gpu:0"), 24), 24);
        const schema::Json mirrored{{"type", "Mirrored"}, {"devices", {"gpu:0", "gpu:1"}}};
        const auto got = train(experiment("cnn", mirrored, 12), 24);
        const double error = relativeError(got, reference);
        QVERIFY2(error < 1e-5, qPrintable(QString("relative error %1").arg(error)));
    }

    void defaultMlpAndCnnReachTheCpuAccuracy_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("mlp") << STRATA_EXPERIMENTS_DIR "/fashion-mnist-mlp.strata.json";
        QTest::newRow("cnn") << STRATA_EXPERIMENTS_DIR "/fashion-mnist-cnn.strata.json";
    }

    void defaultMlpAndCnnReachTheCpuAccuracy()
    {
        if (!testing::haveFashionMnist())
            QSKIP("Fashion-MNIST is not installed (Debian package dataset-fashion-mnist)");
        QFETCH(QString, file);
        const QByteArray path = file.toUtf8();
        const double cpu = testAccuracy(path.constData(), "cpu:0");
        const double gpu = testAccuracy(path.constData(), "gpu:0");
        QVERIFY2(std::fabs(gpu - cpu) <= 0.005, qPrintable(QString("gpu %1, cpu %2").arg(gpu).arg(cpu)));
    }
};

QTEST_GUILESS_MAIN(TestGpuTraining)
#include "tst_gpu_training.moc"
