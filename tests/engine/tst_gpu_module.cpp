// The CUDA backend as a module (engine/cuda, loaded by engine/tensor/gpu_module.cpp): a CUDA
// build's engine loads it when asked, raises the engine's own errors from inside it, and
// starts and trains on CPUs where the CUDA libraries are absent, saying why there is no GPU.

#include "datasets.h"
#include "engine_process.h"
#include "strata/core/error.h"
#include "strata/tensor/gpu.h"
#include "strata/tensor/tensor.h"

#include <QtTest>

#include <unistd.h>

using namespace testing;

namespace {

// `args` run in a mount namespace of their own, with an empty tmpfs over the CUDA toolkit.
EngineResult runWithoutCuda(const QStringList& args, const QString& cudaRoot)
{
    QProcess p;
    p.start("unshare", QStringList{"--mount", "--propagation", "private", "sh", "-c",
                                   "mount -t tmpfs strata-no-cuda \"$1\" && shift && exec \"$@\"", "sh", cudaRoot,
                                   STRATA_ENGINE_PATH} +
                           args);
    EngineResult r;
    p.waitForFinished(600000);
    r.exitCode = p.exitCode();
    r.crashed = p.exitStatus() == QProcess::CrashExit;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    r.events = parseLines(r.out);
    return r;
}

} // namespace

class TestGpuModule : public QObject {
    Q_OBJECT

private slots:
    // The engine names where it looked when the module is not where it is said to be.
    void aMissingModuleIsNamed()
    {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("STRATA_CUDA_MODULE", "/nonexistent/libstrata-cuda.so");
        p.setProcessEnvironment(env);
        p.start(STRATA_ENGINE_PATH, {"devices"});
        QVERIFY(p.waitForFinished(60000));
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        QCOMPARE(p.exitCode(), 0);
        QVERIFY2(out.contains("GPU backend: none (the CUDA module is not installed (looked for "
                              "/nonexistent/libstrata-cuda.so))"),
                 qPrintable(out));
    }

    void theModuleLoadsWithItsLibraries()
    {
        if (!strata::gpu::backendBuilt()) {
            QCOMPARE(strata::gpu::whyNoGpus(), std::string("this engine is built without the CUDA backend"));
            QSKIP("this engine is built without the CUDA backend: there is no module to load");
        }
        const EngineResult r = runEngine({"devices"}, 60000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.errText()));
        QVERIFY2(r.out.contains("GPU backend: CUDA ") && r.out.contains("cuDNN ") && r.out.contains("NCCL "),
                 r.out.constData());
        if (strata::gpu::devices().empty())
            QVERIFY2(r.out.contains("No GPU: " + QByteArray::fromStdString(strata::gpu::whyNoGpus())),
                     r.out.constData());
    }

    // A GpuError raised inside the module (the CUDA runtime finding no usable GPU) reaches the
    // engine's handlers as the engine's GpuError, naming the device.
    void errorsFromTheModuleAreTheEngines()
    {
        if (!strata::gpu::backendBuilt())
            QSKIP("this engine is built without the CUDA backend: there is no module to raise errors");
        if (!strata::gpu::devices().empty())
            QSKIP("this machine has a GPU: allocating on it succeeds");
        try {
            strata::Tensor t({4}, strata::Device::gpu(0));
            QFAIL("a tensor was allocated on gpu:0 of a machine without a GPU");
        } catch (const strata::GpuError& e) {
            QVERIFY2(QString(e.what()).startsWith("gpu:0: "), e.what());
            QCOMPARE(std::string(e.kind()), std::string("gpu"));
        }
    }

    // With the CUDA libraries hidden, the module cannot load: the engine says so and trains the
    // default experiment (shortened to one epoch) on the CPU as well as ever.
    void trainsWithTheCudaLibrariesHidden()
    {
        if (!strata::gpu::backendBuilt())
            QSKIP("this engine is built without the CUDA backend: it never needs the CUDA libraries");
        if (::geteuid() != 0)
            QSKIP("hiding the CUDA toolkit takes a mount namespace, which needs root");
        const EngineResult devices = runWithoutCuda({"devices"}, STRATA_CUDA_ROOT);
        if (devices.errText().contains("unshare failed") || devices.errText().contains("mount:"))
            QSKIP(qPrintable("cannot make a mount namespace here: " + devices.errText()));
        QVERIFY2(devices.exitCode == 0, qPrintable(devices.errText()));
        QVERIFY2(devices.out.contains("GPU backend: none (the CUDA module ") &&
                     devices.out.contains(" could not be loaded: ") &&
                     devices.out.contains("cannot open shared object file"),
                 devices.out.constData());
        QVERIFY2(devices.out.contains("cpu:0"), devices.out.constData());

        if (!testing::haveFashionMnist())
            QSKIP("Fashion-MNIST is not installed (Debian package dataset-fashion-mnist; scripts/install-deps.sh installs it)");
        QTemporaryDir dir;
        Json doc = Json::parse(readText(STRATA_DEFAULT_EXPERIMENT));
        doc["training"]["epochs"] = 1;
        const EngineResult r = runWithoutCuda(
            {"train", writeExperiment(dir, doc), "--events", "stdout", "--run-dir", dir.filePath("run")}, STRATA_CUDA_ROOT);
        QVERIFY2(r.exitCode == 0, qPrintable(r.errText()));
        const Json& done = r.events.back();
        QCOMPARE(done["status"].get<std::string>(), std::string("completed"));
        QCOMPARE(done["steps"].get<int>(), 1875);
        QVERIFY2(done["test"]["accuracy"].get<double>() > 0.82, done.dump().c_str());
    }
};

QTEST_GUILESS_MAIN(TestGpuModule)
#include "tst_gpu_module.moc"
