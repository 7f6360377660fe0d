// Sequential: shape inference through real models, seeding, initializer statistics, L2
// regularization, end-to-end gradients, and training that actually learns.

#include "gradcheck.h"

#include "strata/nn/loss.h"
#include "strata/nn/optimizer.h"
#include "strata/nn/sequential.h"
#include "strata/schema/model_spec.h"

#include <QTest>

#include <cmath>
#include <limits>

namespace {

using strata::Rng;
using strata::Shape;
using strata::Tensor;
using strata::nn::ForwardContext;
using strata::nn::Sequential;
using Values = std::vector<double>;

strata::schema::ModelSpec parseModel(const std::string& json)
{
    strata::schema::Problems problems;
    auto model = strata::schema::parseModel(strata::schema::Json::parse(json), "", problems);
    problems.throwIfAny();
    return model;
}

struct Moments {
    double mean = 0;
    double variance = 0;
    double maxAbs = 0;
};

Moments moments(const Tensor& t)
{
    Moments m;
    for (float v : t.values())
        m.mean += v;
    m.mean /= static_cast<double>(t.numel());
    for (float v : t.values()) {
        m.variance += (v - m.mean) * (v - m.mean);
        m.maxAbs = std::max(m.maxAbs, std::fabs(static_cast<double>(v)));
    }
    m.variance /= static_cast<double>(t.numel());
    return m;
}

// One training step as a trainer does it: mean loss over the batch (gradScale 1 / batch).
double trainStep(Sequential& model, const strata::nn::Loss& loss, strata::nn::Optimizer& optimizer, const Tensor& x,
                 const Tensor& y, int64_t step)
{
    const Tensor& pred = model.forward(x, ForwardContext{true, 1, step});
    Tensor grad(pred.shape());
    const float batch = static_cast<float>(x.dim(0));
    const double value = loss.compute(pred, y, &grad, 1.0f / batch) / batch + model.regularizationLoss();
    model.backward(grad);
    model.addRegularizationGradients();
    optimizer.apply(model.parameters());
    return value;
}

double meanLoss(Sequential& model, const strata::nn::Loss& loss, const Tensor& x, const Tensor& y)
{
    return loss.compute(model.forward(x, ForwardContext{}), y, nullptr, 1.0f) / static_cast<double>(x.dim(0));
}

strata::schema::OptimizerSpec sgd(double lr, double momentum = 0)
{
    strata::schema::OptimizerSpec o;
    o.type = "sgd";
    o.learningRate = lr;
    o.momentum = momentum;
    return o;
}

} // namespace

class TestSequential : public QObject {
    Q_OBJECT

private slots:
    void shapeInferenceCnn();
    void shapeInferenceText();
    void seeding();
    void initializerStatistics_data();
    void initializerStatistics();
    void convolutionFans();
    void embeddingInitializer();
    void l2Regularization();
    void backwardMatchesDirectionalDerivatives_data();
    void backwardMatchesDirectionalDerivatives();
    void trainLinearRegression();
    void trainXor();
};

void TestSequential::shapeInferenceCnn()
{
    Sequential model(parseModel(R"({"input_shape": [8, 8, 1], "layers": [
        {"type": "Conv2D", "filters": 4, "kernel_size": 3, "padding": "same", "activation": "relu"},
        {"type": "MaxPooling2D"},
        {"type": "Conv2D", "filters": 6, "kernel_size": 3},
        {"type": "Flatten"},
        {"type": "Dropout", "rate": 0.5},
        {"type": "Dense", "units": 10, "activation": "softmax"}]})"),
                     1);
    const std::vector<Shape> shapes{{8, 8, 4}, {4, 4, 4}, {2, 2, 6}, {24}, {24}, {10}};
    const std::vector<std::string> names{"conv2d", "max_pooling2d", "conv2d_1", "flatten", "dropout", "dense"};
    QCOMPARE(model.layerCount(), shapes.size());
    Shape in{8, 8, 1};
    for (size_t i = 0; i < shapes.size(); ++i) {
        QCOMPARE(model.layer(i).name(), names[i]);
        QCOMPARE(model.layer(i).inputShape(), in);
        QCOMPARE(model.layer(i).outputShape(), shapes[i]);
        QCOMPARE(model.shapes().layers[i].output, shapes[i]);
        in = shapes[i];
    }
    QCOMPARE(model.outputShape(), (Shape{10}));
    // (3*3*1*4 + 4) + (3*3*4*6 + 6) + (24*10 + 10)
    QCOMPARE(model.parameterCount(), int64_t(40 + 222 + 250));
    std::vector<std::string> paramNames;
    int64_t counted = 0;
    for (const auto* p : model.parameters()) {
        paramNames.push_back(p->name);
        counted += p->value.numel();
    }
    QCOMPARE(counted, model.parameterCount());
    QCOMPARE(paramNames, (std::vector<std::string>{"conv2d/kernel", "conv2d/bias", "conv2d_1/kernel", "conv2d_1/bias",
                                                   "dense/kernel", "dense/bias"}));
    QCOMPARE(model.parameters()[0]->value.shape(), (Shape{3, 3, 1, 4}));
    QCOMPARE(model.parameters()[4]->value.shape(), (Shape{24, 10}));

    Rng rng(2);
    const Tensor x = gradcheck::toTensor({3, 8, 8, 1}, gradcheck::uniformValues(rng, 192, 0, 1));
    const Tensor& y = model.forward(x, ForwardContext{});
    QCOMPARE(y.shape(), (Shape{3, 10}));
    for (int64_t r = 0; r < 3; ++r) {
        double sum = 0;
        for (int64_t j = 0; j < 10; ++j)
            sum += y.data()[r * 10 + j];
        QVERIFY(std::fabs(sum - 1) <= 1e-5);
    }
}

void TestSequential::shapeInferenceText()
{
    Sequential model(parseModel(R"({"input_shape": [5], "layers": [
        {"type": "Embedding", "input_dim": 20, "output_dim": 4},
        {"type": "GlobalAveragePooling1D"},
        {"type": "Dense", "units": 1, "activation": "sigmoid"}]})"),
                     1);
    QCOMPARE(model.layer(0).outputShape(), (Shape{5, 4}));
    QCOMPARE(model.layer(1).outputShape(), (Shape{4}));
    QCOMPARE(model.outputShape(), (Shape{1}));
    QCOMPARE(model.parameterCount(), int64_t(80 + 5));
    const Tensor ids = gradcheck::toTensor({2, 5}, {0, 1, 2, 3, 19, 5, 5, 5, 0, 7});
    QCOMPARE(model.forward(ids, ForwardContext{}).shape(), (Shape{2, 1}));
    // Backward stops at the Embedding (no input gradient) and still fills its table gradient.
    Tensor grad = Tensor::full({2, 1}, 1.0f);
    model.backward(grad);
    double norm = 0;
    for (float v : model.parameters()[0]->grad.values())
        norm += std::fabs(v);
    QVERIFY(norm > 0);
}

void TestSequential::seeding()
{
    const std::string layers = R"({"type": "Conv2D", "filters": 3, "kernel_size": 3},
        {"type": "Flatten"}, {"type": "Dense", "units": 5}, {"type": "Dense", "units": 2})";
    const auto spec = parseModel(R"({"input_shape": [6, 6, 2], "layers": [)" + layers + "]}");
    Sequential a(spec, 42), b(spec, 42), c(spec, 43);
    for (size_t i = 0; i < a.parameters().size(); ++i) {
        const auto& pa = a.parameters()[i]->value;
        QCOMPARE(gradcheck::toDouble(pa), gradcheck::toDouble(b.parameters()[i]->value));
        if (a.parameters()[i]->name.ends_with("/kernel")) {
            // A different seed gives different values everywhere (not a shifted copy).
            const Values va = gradcheck::toDouble(pa), vc = gradcheck::toDouble(c.parameters()[i]->value);
            size_t same = 0;
            for (size_t k = 0; k < va.size(); ++k)
                same += va[k] == vc[k];
            QVERIFY2(same == 0, a.parameters()[i]->name.c_str());
        }
    }
    // Layers draw from their own streams: appending a layer leaves the others' weights as they were.
    const auto longer = parseModel(R"({"input_shape": [6, 6, 2], "layers": [)" + layers +
                                   R"(, {"type": "Dense", "units": 3}]})");
    Sequential d(longer, 42);
    for (size_t i = 0; i < a.parameters().size(); ++i)
        QCOMPARE(gradcheck::toDouble(d.parameters()[i]->value), gradcheck::toDouble(a.parameters()[i]->value));
}

void TestSequential::initializerStatistics_data()
{
    // A (200, 300) kernel: fan_in 200, fan_out 300; 60000 values.
    QTest::addColumn<QString>("initializer");
    QTest::addColumn<double>("mean");
    QTest::addColumn<double>("variance");
    QTest::addColumn<double>("bound"); // largest |value| possible (inf: none)
    const double inf = std::numeric_limits<double>::infinity();
    const double truncation = 0.87962566103423978; // stddev of a standard normal truncated at +-2
    QTest::newRow("glorot_uniform") << "glorot_uniform" << 0.0 << 2.0 / 500 << std::sqrt(6.0 / 500);
    QTest::newRow("glorot_normal") << "glorot_normal" << 0.0 << 2.0 / 500 << 2 * std::sqrt(2.0 / 500) / truncation;
    QTest::newRow("he_uniform") << "he_uniform" << 0.0 << 2.0 / 200 << std::sqrt(6.0 / 200);
    QTest::newRow("he_normal") << "he_normal" << 0.0 << 2.0 / 200 << 2 * std::sqrt(2.0 / 200) / truncation;
    QTest::newRow("lecun_uniform") << "lecun_uniform" << 0.0 << 1.0 / 200 << std::sqrt(3.0 / 200);
    QTest::newRow("lecun_normal") << "lecun_normal" << 0.0 << 1.0 / 200 << 2 * std::sqrt(1.0 / 200) / truncation;
    QTest::newRow("uniform") << "uniform" << 0.0 << 0.05 * 0.05 / 3 << 0.05;
    QTest::newRow("normal") << "normal" << 0.0 << 0.05 * 0.05 << inf;
    QTest::newRow("zeros") << "zeros" << 0.0 << 0.0 << 0.0;
    QTest::newRow("ones") << "ones" << 1.0 << 0.0 << 1.0;
}

// Keras' VarianceScaling family: the sample variance of a large kernel is within 3% of the
// theoretical one (its standard error is under 0.6%), values stay within the bound and come
// close to it (a wrong fan or scale moves both); biases start at zero.
void TestSequential::initializerStatistics()
{
    QFETCH(QString, initializer);
    QFETCH(double, mean);
    QFETCH(double, variance);
    QFETCH(double, bound);
    Sequential model(parseModel(R"({"input_shape": [200], "layers": [{"type": "Dense", "units": 300,
        "kernel_initializer": ")" + initializer.toStdString() + R"("}]})"),
                     9);
    const Tensor& kernel = model.parameters()[0]->value;
    QCOMPARE(kernel.shape(), (Shape{200, 300}));
    const Moments m = moments(kernel);
    const double sd = std::sqrt(variance);
    QVERIFY2(std::fabs(m.mean - mean) <= std::max(0.01 * sd, 1e-9), qPrintable(QString::number(m.mean)));
    QVERIFY2(std::fabs(m.variance - variance) <= std::max(0.03 * variance, 1e-12),
             qPrintable(QString("variance %1, expected %2").arg(m.variance).arg(variance)));
    QVERIFY2(m.maxAbs <= bound * (1 + 1e-6), qPrintable(QString("max %1, bound %2").arg(m.maxAbs).arg(bound)));
    if (std::isfinite(bound) && variance > 0)
        QVERIFY2(m.maxAbs >= 0.99 * bound, qPrintable(QString("max %1, bound %2").arg(m.maxAbs).arg(bound)));
    for (float b : model.parameters()[1]->value.values())
        QCOMPARE(b, 0.0f);
}

// Convolution kernels count the receptive field in both fans (Keras' compute_fans).
void TestSequential::convolutionFans()
{
    Sequential model(parseModel(R"({"input_shape": [10, 10, 16], "layers": [
        {"type": "Conv2D", "filters": 32, "kernel_size": 3}]})"),
                     4);
    const Tensor& kernel = model.parameters()[0]->value;
    QCOMPARE(kernel.shape(), (Shape{3, 3, 16, 32}));
    const double limit = std::sqrt(6.0 / (9 * 16 + 9 * 32));
    const Moments m = moments(kernel);
    QVERIFY2(m.maxAbs <= limit && m.maxAbs >= 0.99 * limit, qPrintable(QString::number(m.maxAbs / limit)));
    // 4608 values: standard error of the variance about 1.3%.
    QVERIFY2(std::fabs(m.variance / (limit * limit / 3) - 1) <= 0.06, qPrintable(QString::number(m.variance)));
    for (float b : model.parameters()[1]->value.values())
        QCOMPARE(b, 0.0f);
}

// Embedding tables start uniform in [-0.05, 0.05] (Keras' default).
void TestSequential::embeddingInitializer()
{
    Sequential model(parseModel(R"({"input_shape": [4], "layers": [
        {"type": "Embedding", "input_dim": 1000, "output_dim": 64}]})"),
                     5);
    const Tensor& table = model.parameters()[0]->value;
    QCOMPARE(model.parameters()[0]->name, std::string("embedding/embeddings"));
    QCOMPARE(table.shape(), (Shape{1000, 64}));
    const Moments m = moments(table);
    QVERIFY(m.maxAbs <= 0.05 && m.maxAbs >= 0.0499);
    QVERIFY(std::fabs(m.mean) <= 0.001);
    QVERIFY2(std::fabs(m.variance / (0.05 * 0.05 / 3) - 1) <= 0.03, qPrintable(QString::number(m.variance)));
}

// Keras' L2: loss l2 * sum(w^2) over regularized kernels (not biases), gradient 2 * l2 * w.
void TestSequential::l2Regularization()
{
    Sequential model(parseModel(R"({"input_shape": [4, 4, 2], "layers": [
        {"type": "Conv2D", "filters": 3, "kernel_size": 3, "kernel_regularizer": {"l2": 0.02}},
        {"type": "Flatten"},
        {"type": "Dense", "units": 4, "activation": "tanh", "kernel_regularizer": {"l2": 0.01}},
        {"type": "Dense", "units": 2}]})"),
                     3);
    const auto& params = model.parameters();
    const std::vector<double> l2{0.02, 0, 0.01, 0, 0, 0};
    QCOMPARE(params.size(), l2.size());
    double expected = 0;
    for (size_t i = 0; i < params.size(); ++i) {
        QCOMPARE(params[i]->l2, l2[i]);
        for (float v : params[i]->value.values())
            expected += l2[i] * static_cast<double>(v) * v;
    }
    QVERIFY(expected > 0);
    QVERIFY2(std::fabs(model.regularizationLoss() - expected) <= 1e-12 * expected,
             qPrintable(QString("%1 vs %2").arg(model.regularizationLoss()).arg(expected)));

    Rng rng(1);
    model.forward(gradcheck::toTensor({2, 4, 4, 2}, gradcheck::uniformValues(rng, 64, -1, 1)), ForwardContext{true});
    Tensor grad = gradcheck::toTensor({2, 2}, {0.5, -0.25, 1, 0.75});
    model.backward(grad);
    std::vector<Values> before;
    for (const auto* p : params)
        before.push_back(gradcheck::toDouble(p->grad));
    model.addRegularizationGradients();
    for (size_t i = 0; i < params.size(); ++i) {
        const Values after = gradcheck::toDouble(params[i]->grad);
        const Values w = gradcheck::toDouble(params[i]->value);
        for (size_t k = 0; k < w.size(); ++k) {
            const double added = after[k] - before[i][k];
            const double want = 2 * l2[i] * w[k];
            QVERIFY2(std::fabs(added - want) <= 1e-6 * (std::fabs(before[i][k]) + std::fabs(want)) + 1e-9,
                     qPrintable(QString("%1[%2]: added %3, expected %4").arg(params[i]->name.c_str()).arg(k)
                                    .arg(added).arg(want)));
        }
    }
    // A regularizer without a factor takes Keras' default l2 = 0.01.
    Sequential defaulted(parseModel(R"({"input_shape": [3], "layers": [
        {"type": "Dense", "units": 2, "kernel_regularizer": {}}]})"),
                         1);
    QCOMPARE(defaulted.parameters()[0]->l2, 0.01);
}

void TestSequential::backwardMatchesDirectionalDerivatives_data()
{
    QTest::addColumn<QByteArray>("model");
    QTest::addColumn<QString>("loss");
    QTest::addColumn<bool>("tokens"); // integer inputs for an Embedding
    QTest::newRow("cnn + fused softmax") << QByteArray(R"({"input_shape": [6, 6, 2], "layers": [
        {"type": "Conv2D", "filters": 3, "kernel_size": 3, "padding": "same", "activation": "tanh",
         "kernel_regularizer": {"l2": 0.01}},
        {"type": "Conv2D", "filters": 4, "kernel_size": [2, 3], "strides": 2, "activation": "sigmoid"},
        {"type": "Flatten"},
        {"type": "Dropout", "rate": 0.3},
        {"type": "Dense", "units": 5, "activation": "tanh", "kernel_regularizer": {"l2": 0.02}},
        {"type": "Dense", "units": 3, "activation": "softmax"}]})")
                                         << "sparse_categorical_crossentropy" << false;
    QTest::newRow("text + fused sigmoid") << QByteArray(R"({"input_shape": [6], "layers": [
        {"type": "Embedding", "input_dim": 9, "output_dim": 4},
        {"type": "GlobalAveragePooling1D"},
        {"type": "Dense", "units": 5, "activation": "tanh"},
        {"type": "Dense", "units": 2, "activation": "sigmoid"}]})")
                                          << "binary_crossentropy" << true;
    QTest::newRow("sequence + unfused softmax + mse") << QByteArray(R"({"input_shape": [3, 4], "layers": [
        {"type": "Dense", "units": 5, "activation": "tanh"},
        {"type": "Activation", "activation": "softmax"},
        {"type": "GlobalAveragePooling1D"},
        {"type": "Dense", "units": 2}]})")
                                                      << "mse" << false;
    QTest::newRow("sequence: causal conv1d + noise-shaped dropout + layer norm") << QByteArray(R"({"input_shape": [7, 3], "layers": [
        {"type": "Conv1D", "filters": 4, "kernel_size": 3, "padding": "causal", "activation": "tanh",
         "kernel_regularizer": {"l2": 0.01}},
        {"type": "Dropout", "rate": 0.3, "noise_shape": [null, 1, 4]},
        {"type": "LayerNormalization"},
        {"type": "GlobalAveragePooling1D"},
        {"type": "Dense", "units": 3, "activation": "softmax"}]})")
                                                                                 << "sparse_categorical_crossentropy" << false;
    QTest::newRow("images: zero padding + average pooling + reshape + conv1d") << QByteArray(R"({"input_shape": [5, 5, 2], "layers": [
        {"type": "ZeroPadding2D", "padding": [[1, 0], [0, 2]]},
        {"type": "Conv2D", "filters": 3, "kernel_size": 3, "padding": "same", "activation": "tanh"},
        {"type": "AveragePooling2D", "padding": "same"},
        {"type": "Reshape", "target_shape": [-1, 3]},
        {"type": "Conv1D", "filters": 5, "kernel_size": 2, "strides": 2, "padding": "same", "activation": "tanh"},
        {"type": "LayerNormalization", "center": false},
        {"type": "Reshape", "target_shape": [-1]},
        {"type": "Dense", "units": 2, "activation": "sigmoid"}]})")
                                                                               << "binary_crossentropy" << false;
    QTest::newRow("images: global average pooling 2d + layer norm") << QByteArray(R"({"input_shape": [4, 4, 2], "layers": [
        {"type": "Conv2D", "filters": 4, "kernel_size": 2, "activation": "tanh"},
        {"type": "GlobalAveragePooling2D"},
        {"type": "LayerNormalization", "scale": false},
        {"type": "Dense", "units": 3, "activation": "softmax"}]})")
                                                                     << "sparse_categorical_crossentropy" << false;
}

// The whole chain, with fused or unfused output activations and L2: the analytic gradient
// of every parameter tensor against central differences of the float loss along the
// gradient's own direction and along a random one (a directional difference averages float
// noise over the whole tensor: worst observed error 4e-4 against the 2e-3 tolerance, where a
// factor 2 gives 0.5). Only smooth layers: a float difference would cross relu kinks and
// max-pooling ties, whose gradients tst_layer_gradients checks with a double reference
// instead. Dropout runs in training mode with a fixed (seed, step): every evaluation uses
// the same mask.
void TestSequential::backwardMatchesDirectionalDerivatives()
{
    QFETCH(QByteArray, model);
    QFETCH(QString, loss);
    QFETCH(bool, tokens);
    Sequential m(parseModel(model.toStdString()), 11);
    const strata::schema::LossSpec lossSpec{loss.toStdString(), false};
    const bool fused = m.fuseOutputActivation(lossSpec);
    QCOMPARE(fused, loss != "mse");
    auto lossFn = strata::nn::createLoss(lossSpec, fused);

    const int64_t batch = 4;
    Rng rng(6);
    const Shape in = m.inputShape().withBatch(batch);
    Values xv = tokens ? Values{} : gradcheck::uniformValues(rng, static_cast<size_t>(in.numel()), -1, 1);
    if (tokens)
        for (int64_t i = 0; i < in.numel(); ++i)
            xv.push_back(static_cast<double>(rng.below(9)));
    const Tensor x = gradcheck::toTensor(in, xv);
    const Shape out = m.outputShape().withBatch(batch);
    Tensor y;
    if (loss == "sparse_categorical_crossentropy") {
        y = gradcheck::toTensor({batch}, {0, 2, 1, 2});
    } else if (loss == "binary_crossentropy") {
        y = gradcheck::toTensor(out, {0, 1, 1, 1, 0, 0, 1, 0});
    } else {
        y = gradcheck::toTensor(out, gradcheck::uniformValues(rng, static_cast<size_t>(out.numel()), -1, 1));
    }
    for (auto* p : m.parameters()) // non-zero biases
        if (p->name.ends_with("/bias"))
            p->value = gradcheck::toTensor(p->value.shape(),
                                           gradcheck::uniformValues(rng, static_cast<size_t>(p->value.numel()), -0.3, 0.3));

    const ForwardContext ctx{true, 5, 9}; // fixed Dropout masks
    const float scale = 1.0f / static_cast<float>(batch);
    const auto objective = [&] {
        return lossFn->compute(m.forward(x, ctx), y, nullptr, 1.0f) / batch + m.regularizationLoss();
    };
    const Tensor& pred = m.forward(x, ctx);
    Tensor grad(pred.shape());
    lossFn->compute(pred, y, &grad, scale);
    m.backward(grad);
    m.addRegularizationGradients();

    for (auto* p : m.parameters()) {
        const Values g = gradcheck::toDouble(p->grad);
        const Values w0 = gradcheck::toDouble(p->value);
        const double h = 3e-3; // float noise grows below, truncation error above
        const auto derivative = [&](const Values& d) {
            const auto at = [&](double s) {
                Values w = w0;
                for (size_t i = 0; i < w.size(); ++i)
                    w[i] += s * d[i];
                p->value = gradcheck::toTensor(p->value.shape(), w);
                return objective();
            };
            const double numeric = (at(h) - at(-h)) / (2 * h);
            p->value = gradcheck::toTensor(p->value.shape(), w0);
            return numeric;
        };
        // Along the analytic gradient itself (a large derivative: a wrong factor, sign or
        // misplaced element shows), and along a random direction (error relative to |g| |d|).
        Values steepest = g;
        for (double& v : steepest)
            v /= gradcheck::maxAbs(g);
        const double alongGradient = derivative(steepest);
        QVERIFY2(std::fabs(gradcheck::dot(g, steepest) - alongGradient) <= 2e-3 * std::fabs(alongGradient),
                 qPrintable(QString("%1 along the gradient: analytic %2, numeric %3").arg(p->name.c_str())
                                .arg(gradcheck::dot(g, steepest), 0, 'g', 8).arg(alongGradient, 0, 'g', 8)));
        const Values random = gradcheck::uniformValues(rng, w0.size(), -1, 1);
        const double alongRandom = derivative(random);
        const double scaleOf = std::sqrt(gradcheck::dot(g, g) * gradcheck::dot(random, random));
        QVERIFY2(std::fabs(gradcheck::dot(g, random) - alongRandom) <= 2e-3 * scaleOf,
                 qPrintable(QString("%1 along a random direction: analytic %2, numeric %3").arg(p->name.c_str())
                                .arg(gradcheck::dot(g, random), 0, 'g', 8).arg(alongRandom, 0, 'g', 8)));
    }
}

// y = 2 x0 - 3 x1 + 0.5 x2 + 1 from 64 examples: 300 full-batch SGD steps recover the weights.
void TestSequential::trainLinearRegression()
{
    Sequential model(parseModel(R"({"input_shape": [3], "layers": [{"type": "Dense", "units": 1}]})"), 1);
    Rng rng(7);
    const int64_t n = 64;
    const Values xv = gradcheck::uniformValues(rng, n * 3, -1, 1);
    Values yv;
    for (int64_t i = 0; i < n; ++i) {
        const double* r = xv.data() + i * 3;
        yv.push_back(2 * r[0] - 3 * r[1] + 0.5 * r[2] + 1);
    }
    const Tensor x = gradcheck::toTensor({n, 3}, xv);
    const Tensor y = gradcheck::toTensor({n, 1}, yv);
    auto loss = strata::nn::createLoss({"mse", false}, false);
    auto optimizer = strata::nn::createOptimizer(sgd(0.1));
    const double initial = meanLoss(model, *loss, x, y);
    for (int64_t step = 0; step < 300; ++step)
        trainStep(model, *loss, *optimizer, x, y, step);
    const double final = meanLoss(model, *loss, x, y);
    QVERIFY2(initial > 1.0, qPrintable(QString::number(initial)));
    QVERIFY2(final < 1e-6, qPrintable(QString("loss %1 -> %2").arg(initial).arg(final)));
    const Values kernel = gradcheck::toDouble(model.parameters()[0]->value);
    const Values bias = gradcheck::toDouble(model.parameters()[1]->value);
    QVERIFY(std::fabs(kernel[0] - 2) < 1e-3 && std::fabs(kernel[1] + 3) < 1e-3 && std::fabs(kernel[2] - 0.5) < 1e-3);
    QVERIFY(std::fabs(bias[0] - 1) < 1e-3);
}

// XOR of the signs (not linearly separable): a tanh hidden layer and a softmax output trained
// with SGD + momentum on sparse cross-entropy classify every point.
void TestSequential::trainXor()
{
    Sequential model(parseModel(R"({"input_shape": [2], "layers": [
        {"type": "Dense", "units": 16, "activation": "tanh"},
        {"type": "Dense", "units": 2, "activation": "softmax"}]})"),
                     3);
    const strata::schema::LossSpec lossSpec{"sparse_categorical_crossentropy", false};
    QVERIFY(model.fuseOutputActivation(lossSpec));
    // Asking again (every strategy replica and the loss ask) gives the same answer.
    QVERIFY(model.fuseOutputActivation(lossSpec));
    auto loss = strata::nn::createLoss(lossSpec, true);
    Rng rng(12);
    const int64_t n = 64;
    const Values xv = gradcheck::signedValues(rng, n * 2, 0.1, 1.0);
    Values yv;
    for (int64_t i = 0; i < n; ++i)
        yv.push_back((xv[static_cast<size_t>(2 * i)] > 0) != (xv[static_cast<size_t>(2 * i + 1)] > 0) ? 1 : 0);
    const Tensor x = gradcheck::toTensor({n, 2}, xv);
    const Tensor y = gradcheck::toTensor({n}, yv);
    auto optimizer = strata::nn::createOptimizer(sgd(0.2, 0.9));
    const double initial = meanLoss(model, *loss, x, y);
    for (int64_t step = 0; step < 400; ++step)
        trainStep(model, *loss, *optimizer, x, y, step);
    const double final = meanLoss(model, *loss, x, y);
    QVERIFY2(final < 0.1 && final < initial / 5, qPrintable(QString("loss %1 -> %2").arg(initial).arg(final)));
    Tensor probs = model.forward(x, ForwardContext{}).clone();
    model.finishPredictions(probs);
    int correct = 0;
    for (int64_t i = 0; i < n; ++i)
        correct += (probs.data()[2 * i + 1] > probs.data()[2 * i]) == (yv[static_cast<size_t>(i)] == 1);
    QCOMPARE(correct, int(n));
}

QTEST_GUILESS_MAIN(TestSequential)
#include "tst_sequential.moc"
