// Every op on the GPU against the CPU on the same inputs, forward and gradients, by normalized
// error as ggml's test-backend-ops does: NMSE = sum((gpu - cpu)^2) / sum(cpu^2), below a
// threshold per op, for several shapes including odd sizes. The arithmetic itself is shared
// (nn/math) and checked against double references by the CPU tests; these check the launch:
// indexing, layouts, cuDNN/cuBLAS calls. Without a GPU every test skips, saying so.

#include "layer_text.h"
#include "strata/core/error.h"
#include "strata/nn/layer.h"
#include "strata/nn/loss.h"
#include "strata/nn/metric.h"
#include "strata/nn/optimizer.h"
#include "strata/schema/layer_spec.h"
#include "strata/tensor/caching_allocator.h"
#include "strata/tensor/gpu.h"

#include <QTest>

#include <cmath>
#include <memory>
#include <vector>

Q_DECLARE_METATYPE(strata::Shape)

namespace {

using strata::Device;
using strata::Rng;
using strata::Shape;
using strata::Tensor;
using strata::nn::ForwardContext;
using strata::nn::Layer;

const Device kGpu = Device::gpu(0);

Tensor randomTensor(const Shape& shape, Rng& rng, double lo = -1, double hi = 1)
{
    Tensor t(shape);
    for (float& v : t.values())
        v = static_cast<float>(rng.uniform(lo, hi));
    return t;
}

std::vector<float> hostValues(const Tensor& t)
{
    const Tensor h = t.to(Device::cpu());
    return {h.values().begin(), h.values().end()};
}

// sum((got - want)^2) / sum(want^2); 0 when both are all zeros.
double nmse(const std::vector<float>& got, const std::vector<float>& want)
{
    double err = 0, norm = 0;
    for (size_t i = 0; i < want.size(); ++i) {
        err += (double(got[i]) - want[i]) * (double(got[i]) - want[i]);
        norm += double(want[i]) * want[i];
    }
    return norm > 0 ? err / norm : err;
}

void compareTensors(const Tensor& gpu, const Tensor& cpu, double threshold, const char* what)
{
    QVERIFY2(gpu.device() == kGpu, what);
    QCOMPARE(gpu.shape(), cpu.shape());
    const double e = nmse(hostValues(gpu), hostValues(cpu));
    QVERIFY2(e <= threshold, qPrintable(QString("%1: NMSE %2 > %3").arg(what).arg(e).arg(threshold)));
}

// Two copies of the layer from the same seed, the second's variables on the GPU.
std::pair<std::unique_ptr<Layer>, std::unique_ptr<Layer>> layerPair(const QByteArray& json, const Shape& in)
{
    const auto spec = testing::layerSpec(json);
    Rng a(7), b(7);
    auto cpu = strata::nn::createLayer(spec, in, a);
    auto gpu = strata::nn::createLayer(spec, in, b);
    for (auto& p : gpu->parameters()) {
        p.value = p.value.to(kGpu);
        p.grad = Tensor::zeros(p.grad.shape(), kGpu);
    }
    for (auto& s : gpu->states())
        s.value = s.value.to(kGpu);
    return {std::move(cpu), std::move(gpu)};
}

strata::schema::LossSpec lossSpec(const std::string& type)
{
    strata::schema::LossSpec s;
    s.type = type;
    return s;
}

} // namespace

class TestGpuOps : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        if (!strata::gpu::backendBuilt())
            QSKIP("this engine is built without the CUDA backend: GPU ops are not tested");
        if (strata::gpu::devices().empty())
            QSKIP("no GPU on this machine (the CUDA runtime sees none): GPU ops are not tested");
    }

    void copiesBetweenHostAndDevice()
    {
        Rng rng(1);
        const Tensor host = randomTensor({3, 1001}, rng);
        const Tensor device = host.to(kGpu);
        QCOMPARE(device.device(), kGpu);
        const Tensor copy = device.clone();
        QCOMPARE(hostValues(copy), hostValues(host));
        Tensor filled({17}, kGpu);
        filled.fill(2.5f);
        QCOMPARE(hostValues(filled), std::vector<float>(17, 2.5f));
        QVERIFY_THROWS_EXCEPTION(strata::InternalError, (void)device.values());
    }

    void outOfMemoryNamesTheDevice()
    {
        try {
            Tensor huge({int64_t{1} << 40}, kGpu); // 4 TiB
            QFAIL("a 4 TiB tensor was allocated");
        } catch (const strata::GpuError& e) {
            QVERIFY2(QString(e.what()).contains("gpu:0") && QString(e.what()).contains("out of memory"), e.what());
        }
    }

    void layers_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<Shape>("in"); // with the batch
        QTest::addColumn<double>("threshold");
        for (const char* act : {"linear", "relu", "sigmoid", "tanh", "softmax"}) {
            QTest::newRow(QByteArray("dense/") + act)
                << QByteArray(R"({"type": "Dense", "units": 7, "activation": ")") + act + "\"}" << Shape{13, 5}
                << 1e-10;
        }
        QTest::newRow("dense/no_bias/rank3") << QByteArray(R"({"type": "Dense", "units": 3, "use_bias": false})")
                                             << Shape{4, 3, 9} << 1e-10;
        QTest::newRow("dense/wide odd") << QByteArray(R"({"type": "Dense", "units": 129, "activation": "relu"})")
                                        << Shape{33, 257} << 1e-10;
        QTest::newRow("conv2d/3x3/valid") << QByteArray(R"({"type": "Conv2D", "filters": 5, "kernel_size": 3})")
                                          << Shape{3, 9, 11, 2} << 1e-10;
        QTest::newRow("conv2d/3x3/same (symmetric)")
            << QByteArray(R"({"type": "Conv2D", "filters": 4, "kernel_size": 3, "padding": "same", "activation": "relu"})")
            << Shape{2, 7, 6, 3} << 1e-10;
        QTest::newRow("conv2d/3x3/same/s2 (asymmetric)")
            << QByteArray(R"({"type": "Conv2D", "filters": 3, "kernel_size": 3, "strides": 2, "padding": "same"})")
            << Shape{2, 8, 8, 3} << 1e-10;
        QTest::newRow("conv2d/2x2/same (bottom-right only)")
            << QByteArray(R"({"type": "Conv2D", "filters": 2, "kernel_size": 2, "padding": "same"})")
            << Shape{2, 7, 5, 4} << 1e-10;
        QTest::newRow("conv2d/1x1") << QByteArray(R"({"type": "Conv2D", "filters": 6, "kernel_size": 1})")
                                    << Shape{2, 5, 5, 3} << 1e-10;
        QTest::newRow("conv2d/2x3/s(1,2)")
            << QByteArray(R"({"type": "Conv2D", "filters": 3, "kernel_size": [2, 3], "strides": [1, 2]})")
            << Shape{2, 6, 7, 2} << 1e-10;
        QTest::newRow("maxpool/2x2/valid/odd") << QByteArray(R"({"type": "MaxPooling2D"})") << Shape{3, 8, 9, 4}
                                               << 1e-12;
        QTest::newRow("maxpool/3x3/s2/same")
            << QByteArray(R"({"type": "MaxPooling2D", "pool_size": 3, "strides": 2, "padding": "same"})")
            << Shape{2, 9, 8, 3} << 1e-12;
        QTest::newRow("maxpool/2x2/same (bottom-right)")
            << QByteArray(R"({"type": "MaxPooling2D", "padding": "same"})") << Shape{2, 7, 5, 2} << 1e-12;
        QTest::newRow("flatten") << QByteArray(R"({"type": "Flatten"})") << Shape{3, 4, 5, 2} << 0.0;
        QTest::newRow("global_average_pooling1d") << QByteArray(R"({"type": "GlobalAveragePooling1D"})")
                                                  << Shape{4, 7, 5} << 1e-12;
        QTest::newRow("batch_normalization/inference/images")
            << QByteArray(R"({"type": "BatchNormalization"})") << Shape{3, 5, 6, 7} << 1e-12;
        QTest::newRow("conv1d/valid") << QByteArray(R"({"type": "Conv1D", "filters": 5, "kernel_size": 3})")
                                      << Shape{3, 17, 4} << 1e-10;
        QTest::newRow("conv1d/same/s2 (asymmetric)")
            << QByteArray(R"({"type": "Conv1D", "filters": 4, "kernel_size": 4, "strides": 2, "padding": "same", "activation": "relu"})")
            << Shape{2, 15, 3} << 1e-10;
        QTest::newRow("conv1d/causal") << QByteArray(R"({"type": "Conv1D", "filters": 3, "kernel_size": 3, "padding": "causal"})")
                                       << Shape{2, 11, 2} << 1e-10;
        QTest::newRow("conv1d/causal/s3/no_bias")
            << QByteArray(R"({"type": "Conv1D", "filters": 3, "kernel_size": 2, "strides": 3, "padding": "causal", "use_bias": false})")
            << Shape{2, 10, 5} << 1e-10;
        QTest::newRow("avgpool/2x2/valid/odd (cuDNN)") << QByteArray(R"({"type": "AveragePooling2D"})")
                                                       << Shape{3, 8, 9, 4} << 1e-12;
        QTest::newRow("avgpool/3x3/s1/same (cuDNN, symmetric)")
            << QByteArray(R"({"type": "AveragePooling2D", "pool_size": 3, "strides": 1, "padding": "same"})")
            << Shape{2, 7, 6, 3} << 1e-12;
        QTest::newRow("avgpool/2x2/same (kernel, bottom-right)")
            << QByteArray(R"({"type": "AveragePooling2D", "padding": "same"})") << Shape{2, 7, 5, 2} << 1e-12;
        QTest::newRow("avgpool/3x3/s2/same (kernel)")
            << QByteArray(R"({"type": "AveragePooling2D", "pool_size": 3, "strides": 2, "padding": "same"})")
            << Shape{2, 8, 9, 3} << 1e-12;
        QTest::newRow("global_average_pooling2d") << QByteArray(R"({"type": "GlobalAveragePooling2D"})")
                                                  << Shape{4, 5, 7, 3} << 1e-12;
        QTest::newRow("global_max_pooling1d") << QByteArray(R"({"type": "GlobalMaxPooling1D"})")
                                              << Shape{4, 9, 5} << 0.0;
        QTest::newRow("global_max_pooling2d") << QByteArray(R"({"type": "GlobalMaxPooling2D"})")
                                              << Shape{3, 6, 5, 4} << 0.0;
        QTest::newRow("layer_norm/rank2") << QByteArray(R"({"type": "LayerNormalization"})") << Shape{13, 37}
                                          << 1e-10;
        QTest::newRow("layer_norm/rank3/no center")
            << QByteArray(R"({"type": "LayerNormalization", "center": false})") << Shape{3, 7, 10} << 1e-10;
        QTest::newRow("layer_norm/no scale") << QByteArray(R"({"type": "LayerNormalization", "scale": false})")
                                             << Shape{5, 9} << 1e-10;
        QTest::newRow("layer_norm/neither")
            << QByteArray(R"({"type": "LayerNormalization", "center": false, "scale": false})") << Shape{5, 9}
            << 1e-10;
        QTest::newRow("reshape") << QByteArray(R"({"type": "Reshape", "target_shape": [-1, 4]})") << Shape{3, 6, 2}
                                 << 0.0;
        QTest::newRow("zero_padding2d/asymmetric")
            << QByteArray(R"({"type": "ZeroPadding2D", "padding": [[0, 2], [3, 1]]})") << Shape{2, 5, 4, 3} << 0.0;
        for (const char* act : {"relu", "sigmoid", "tanh", "softmax"})
            QTest::newRow(QByteArray("activation/") + act)
                << QByteArray(R"({"type": "Activation", "activation": ")") + act + "\"}" << Shape{6, 11} << 1e-12;
        // Recurrent layers: the same gate arithmetic (nn/math) on both devices; cuBLAS sums the
        // GEMMs in its own order and nvcc fuses multiply-adds, and backpropagation through the
        // steps carries those roundings along.
        for (const char* sequences : {"false", "true"}) {
            const QByteArray tail = QByteArray(R"(, "return_sequences": )") + sequences + "}";
            const QByteArray suffix = QByteArray("/sequences=") + sequences;
            QTest::newRow("lstm" + suffix) << QByteArray(R"({"type": "LSTM", "units": 37)") + tail << Shape{5, 9, 13}
                                           << 1e-9;
            QTest::newRow("gru/reset_after" + suffix)
                << QByteArray(R"({"type": "GRU", "units": 37)") + tail << Shape{5, 9, 13} << 1e-9;
            QTest::newRow("gru/reset before" + suffix)
                << QByteArray(R"({"type": "GRU", "units": 37, "reset_after": false)") + tail << Shape{5, 9, 13} << 1e-9;
        }
        QTest::newRow("lstm/no_bias/relu,tanh")
            << QByteArray(R"({"type": "LSTM", "units": 8, "use_bias": false, "activation": "relu", "recurrent_activation": "tanh"})")
            << Shape{3, 6, 4} << 1e-9;
        QTest::newRow("gru/no_bias/linear,sigmoid")
            << QByteArray(R"({"type": "GRU", "units": 8, "use_bias": false, "activation": "linear"})") << Shape{3, 6, 4}
            << 1e-9;
        QTest::newRow("gru/reset before/no_bias")
            << QByteArray(R"({"type": "GRU", "units": 8, "use_bias": false, "reset_after": false})") << Shape{3, 6, 4}
            << 1e-9;
        QTest::newRow("lstm/batch 64, 50 steps (the benchmark's)")
            << QByteArray(R"({"type": "LSTM", "units": 64})") << Shape{64, 50, 32} << 1e-8;
    }

    // Forward, then backward of L = sum(w * y) for a fixed random w: output, input gradient and
    // every variable gradient agree.
    void layers()
    {
        QFETCH(QByteArray, json);
        QFETCH(Shape, in);
        QFETCH(double, threshold);
        auto [cpu, gpu] = layerPair(json, in.withoutBatch());
        Rng rng(11);
        const Tensor x = randomTensor(in, rng);
        const Tensor xg = x.to(kGpu);
        const Tensor& ycpu = cpu->forward(x, ForwardContext{});
        const Tensor& ygpu = gpu->forward(xg, ForwardContext{});
        compareTensors(ygpu, ycpu, threshold, "output");
        Tensor dy = randomTensor(ycpu.shape(), rng);
        Tensor dyg = dy.to(kGpu);
        const Tensor dxcpu = cpu->backward(dy, true);
        const Tensor dxgpu = gpu->backward(dyg, true);
        compareTensors(dxgpu, dxcpu, threshold, "input gradient");
        for (size_t i = 0; i < cpu->parameters().size(); ++i)
            compareTensors(gpu->parameters()[i].grad, cpu->parameters()[i].grad, threshold,
                           cpu->parameters()[i].name.c_str());
    }

    // Training mode: batch statistics (per-channel sums over 600 rows, 40 channels: more
    // channels than one block holds), the gradient through them, the moving statistics.
    void batchNormalizationTraining()
    {
        for (const char* json : {R"({"type": "BatchNormalization", "momentum": 0.5})",
                                 R"({"type": "BatchNormalization", "center": false, "scale": false})"}) {
            auto [cpu, gpu] = layerPair(json, Shape{10, 6, 40});
            Rng rng(5);
            const Tensor x = randomTensor({10, 10, 6, 40}, rng, -2, 3);
            ForwardContext train;
            train.training = true;
            compareTensors(gpu->forward(x.to(kGpu), train), cpu->forward(x, train), 1e-12, "output");
            Tensor dy = randomTensor(x.shape(), rng);
            Tensor dyg = dy.to(kGpu);
            const Tensor dxcpu = cpu->backward(dy, true);
            compareTensors(gpu->backward(dyg, true), dxcpu, 1e-10, "input gradient");
            for (size_t i = 0; i < cpu->parameters().size(); ++i)
                compareTensors(gpu->parameters()[i].grad, cpu->parameters()[i].grad, 1e-10,
                               cpu->parameters()[i].name.c_str());
            for (size_t i = 0; i < cpu->states().size(); ++i)
                compareTensors(gpu->states()[i].value, cpu->states()[i].value, 1e-12, cpu->states()[i].name.c_str());
        }
    }

    void embedding()
    {
        auto [cpu, gpu] = layerPair(R"({"type": "Embedding", "input_dim": 11, "output_dim": 6})", Shape{5});
        Tensor ids({4, 5});
        Rng rng(3);
        for (float& v : ids.values())
            v = static_cast<float>(rng.below(11));
        compareTensors(gpu->forward(ids.to(kGpu), {}), cpu->forward(ids, {}), 0.0, "output");
        Tensor dy = randomTensor({4, 5, 6}, rng);
        Tensor dyg = dy.to(kGpu);
        cpu->backward(dy, false);
        gpu->backward(dyg, false);
        compareTensors(gpu->parameters()[0].grad, cpu->parameters()[0].grad, 1e-12, "table gradient");

        ids.values()[7] = 11; // outside the vocabulary
        try {
            gpu->forward(ids.to(kGpu), {});
            QFAIL("an id outside the vocabulary was accepted");
        } catch (const strata::ShapeError& e) {
            QVERIFY2(QString(e.what()).contains("token id 11"), e.what());
        }
    }

    // The host draws the masks: the GPU drops exactly what the CPU drops.
    void dropoutTraining()
    {
        auto [cpu, gpu] = layerPair(R"({"type": "Dropout", "rate": 0.3})", Shape{40, 9});
        Rng rng(5);
        const Tensor x = randomTensor({3, 40, 9}, rng);
        const ForwardContext ctx{true, 1234, 17, 1};
        compareTensors(gpu->forward(x.to(kGpu), ctx), cpu->forward(x, ctx), 0.0, "output");
        Tensor dy = randomTensor(x.shape(), rng);
        Tensor dyg = dy.to(kGpu);
        compareTensors(gpu->backward(dyg, true), cpu->backward(dy, true), 0.0, "input gradient");
    }

    // noise_shape: the host draws the mask at the noise shape and broadcasts it; the GPU drops
    // exactly what the CPU drops.
    void dropoutNoiseShape()
    {
        auto [cpu, gpu] = layerPair(R"({"type": "Dropout", "rate": 0.3, "noise_shape": [null, 1, 9]})", Shape{40, 9});
        Rng rng(6);
        const Tensor x = randomTensor({3, 40, 9}, rng);
        const ForwardContext ctx{true, 1234, 17, 1};
        compareTensors(gpu->forward(x.to(kGpu), ctx), cpu->forward(x, ctx), 0.0, "output");
        Tensor dy = randomTensor(x.shape(), rng);
        Tensor dyg = dy.to(kGpu);
        compareTensors(gpu->backward(dyg, true), cpu->backward(dy, true), 0.0, "input gradient");
    }

    void losses_data()
    {
        QTest::addColumn<QString>("type");
        QTest::addColumn<bool>("logits");
        QTest::addColumn<Shape>("pred");
        for (bool logits : {true, false}) {
            const QString l = logits ? "/logits" : "/probabilities";
            QTest::newRow(qPrintable("sparse" + l)) << "sparse_categorical_crossentropy" << logits << Shape{37, 10};
            QTest::newRow(qPrintable("sparse/sequence" + l))
                << "sparse_categorical_crossentropy" << logits << Shape{5, 3, 7};
            QTest::newRow(qPrintable("categorical" + l)) << "categorical_crossentropy" << logits << Shape{19, 6};
            QTest::newRow(qPrintable("binary" + l)) << "binary_crossentropy" << logits << Shape{23, 3};
        }
        QTest::newRow("mse") << "mse" << false << Shape{29, 4};
    }

    void losses()
    {
        QFETCH(QString, type);
        QFETCH(bool, logits);
        QFETCH(Shape, pred);
        const auto loss = strata::nn::createLoss(lossSpec(type.toStdString()), logits);
        Rng rng(9);
        const bool probabilities = !logits && type != "mse";
        Tensor p = randomTensor(pred, rng, probabilities ? 0.01 : -3, probabilities ? 1.0 : 3);
        const int64_t classes = pred.back();
        const int64_t rows = pred.numel() / classes;
        Tensor t = type == "sparse_categorical_crossentropy" ? Tensor({rows}) : Tensor(pred);
        if (type == "sparse_categorical_crossentropy") {
            for (float& v : t.values())
                v = static_cast<float>(rng.below(static_cast<uint64_t>(classes)));
        } else if (type == "categorical_crossentropy") {
            t.setZero();
            for (int64_t r = 0; r < rows; ++r)
                t.values()[static_cast<size_t>(r * classes + static_cast<int64_t>(rng.below(classes)))] = 1;
        } else {
            for (float& v : t.values())
                v = type == "mse" ? static_cast<float>(rng.uniform(-1, 1)) : static_cast<float>(rng.below(2));
        }
        Tensor gcpu(pred), ggpu(pred, kGpu);
        const double lcpu = loss->compute(p, t, &gcpu, 0.03f);
        const double lgpu = loss->compute(p.to(kGpu), t.to(kGpu), &ggpu, 0.03f);
        QVERIFY2(std::fabs(lgpu - lcpu) <= 1e-6 * std::fabs(lcpu), qPrintable(QString("%1 vs %2").arg(lgpu).arg(lcpu)));
        compareTensors(ggpu, gcpu, 1e-12, "gradient");
    }

    void badLabelIsNamed()
    {
        const auto loss = strata::nn::createLoss(lossSpec("sparse_categorical_crossentropy"), true);
        Tensor p = Tensor::zeros({3, 10}, kGpu);
        Tensor t({3});
        t.values()[0] = 1;
        t.values()[1] = 12;
        t.values()[2] = 2;
        try {
            loss->compute(p, t.to(kGpu), nullptr, 1.0f);
            QFAIL("label 12 of 10 classes was accepted");
        } catch (const strata::ShapeError& e) {
            QVERIFY2(QString(e.what()).contains("label 12"), e.what());
        }
    }

    void metrics_data()
    {
        QTest::addColumn<QString>("metric");
        QTest::addColumn<QString>("loss");
        QTest::newRow("sparse accuracy") << "accuracy" << "sparse_categorical_crossentropy";
        QTest::newRow("categorical accuracy") << "accuracy" << "categorical_crossentropy";
        QTest::newRow("binary accuracy") << "accuracy" << "binary_crossentropy";
        QTest::newRow("mae") << "mae" << "mse";
        QTest::newRow("mse") << "mse" << "mse";
    }

    void metrics()
    {
        QFETCH(QString, metric);
        QFETCH(QString, loss);
        const auto spec = lossSpec(loss.toStdString());
        auto cpu = strata::nn::createMetric(metric.toStdString(), spec, false);
        auto gpu = strata::nn::createMetric(metric.toStdString(), spec, false);
        Rng rng(4);
        const Tensor p = randomTensor({41, 7}, rng, 0, 1);
        Tensor t = loss == "sparse_categorical_crossentropy" ? Tensor({41}) : Tensor({41, 7});
        for (size_t i = 0; i < t.values().size(); ++i)
            t.values()[i] = loss == "sparse_categorical_crossentropy" ? static_cast<float>(rng.below(7))
                            : loss == "categorical_crossentropy" ? (i % 7 == (i / 7) % 7 ? 1.0f : 0.0f)
                                                                 : static_cast<float>(rng.below(2));
        cpu->update(p, t);
        gpu->update(p.to(kGpu), t.to(kGpu));
        QCOMPARE(gpu->count(), cpu->count());
        QVERIFY2(std::fabs(gpu->total() - cpu->total()) <= 1e-9 * std::max(1.0, std::fabs(cpu->total())),
                 qPrintable(QString("%1 vs %2").arg(gpu->total()).arg(cpu->total())));
    }

    void optimizers_data()
    {
        QTest::addColumn<QString>("type");
        QTest::addColumn<double>("momentum");
        QTest::addColumn<bool>("flag"); // nesterov (sgd) or centered (rmsprop)
        QTest::newRow("sgd") << "sgd" << 0.0 << false;
        QTest::newRow("sgd/momentum") << "sgd" << 0.9 << false;
        QTest::newRow("sgd/nesterov") << "sgd" << 0.9 << true;
        QTest::newRow("adam") << "adam" << 0.0 << false;
        QTest::newRow("rmsprop") << "rmsprop" << 0.0 << false;
        QTest::newRow("rmsprop/centered/momentum") << "rmsprop" << 0.5 << true;
    }

    // Three updates of a parameter of odd size; values and slots agree.
    void optimizers()
    {
        QFETCH(QString, type);
        QFETCH(double, momentum);
        QFETCH(bool, flag);
        strata::schema::OptimizerSpec spec;
        spec.type = type.toStdString();
        spec.learningRate = 0.01;
        spec.momentum = momentum;
        spec.nesterov = spec.type == "sgd" && flag;
        spec.centered = spec.type == "rmsprop" && flag;
        auto cpu = strata::nn::createOptimizer(spec);
        auto gpu = strata::nn::createOptimizer(spec);
        Rng rng(8);
        strata::nn::Parameter pc{"w", randomTensor({1237}, rng), Tensor({1237}), "zeros", 0};
        strata::nn::Parameter pg{"w", pc.value.to(kGpu), Tensor({1237}, kGpu), "zeros", 0};
        for (int step = 0; step < 3; ++step) {
            pc.grad = randomTensor({1237}, rng);
            pg.grad = pc.grad.to(kGpu);
            cpu->apply({&pc});
            gpu->apply({&pg});
        }
        compareTensors(pg.value, pc.value, 1e-12, "weights");
        const auto slotsCpu = cpu->stateTensors();
        const auto slotsGpu = gpu->stateTensors();
        QCOMPARE(slotsGpu.size(), slotsCpu.size());
        for (size_t i = 0; i < slotsCpu.size(); ++i)
            compareTensors(*slotsGpu[i].second, *slotsCpu[i].second, 1e-12, slotsCpu[i].first.c_str());
    }
};

QTEST_GUILESS_MAIN(TestGpuOps)
#include "tst_gpu_ops.moc"
