// Every layer's float forward against a double-precision reference, and its analytic
// backward (input gradient and every parameter gradient) against central finite
// differences of L = sum_i w_i y_i computed with that reference (fixed random w).

#include "gradcheck.h"
#include "layer_text.h"
#include "reference_ops.h"

#include "strata/core/error.h"
#include "strata/nn/layer.h"
#include "strata/nn/sequential.h"
#include "strata/schema/model_spec.h"
#include "strata/tensor/blas.h"
#include "strata/schema/layer_spec.h"

#include <QTest>

#include <cmath>
#include <limits>
#include <memory>

Q_DECLARE_METATYPE(strata::Shape)

namespace {

using reference::Values;
using strata::Rng;
using strata::Shape;
using strata::Tensor;
using strata::nn::ForwardContext;
using strata::nn::Layer;
using strata::schema::Json;
using strata::schema::LayerSpec;
using testing::layerSpec;

// Tolerances: float forward vs double reference (relative to the output's magnitude), and
// float analytic gradient vs double numeric gradient (see gradcheck::compare).
constexpr double kForwardTolerance = 1e-5;
constexpr double kGradientTolerance = 1e-4;
// Finite-difference step (double): small enough for ~1e-8 truncation error, far below the
// kink margins kept for relu and max pooling.
constexpr double kEps = 1e-4;
constexpr double kKinkMargin = 5e-3; // 50x the largest change eps can make to a pre-activation

reference::Window windowOf(const LayerSpec& spec, const char* kernelField, bool stridesDefaultToKernel)
{
    const auto k = spec.pair(kernelField);
    const auto s = stridesDefaultToKernel && spec.isNull("strides") ? k : spec.pair("strides");
    return {k[0], k[1], s[0], s[1], spec.text("padding") == "same"};
}

reference::Image imageOf(const Shape& batchShape)
{
    return {batchShape[0], batchShape[1], batchShape[2], batchShape[3]};
}

// The reference forward of the layer `spec` on x (shape `in`, batch included); `activation`
// overrides the layer's own (used to look at pre-activations). Sets `out` to the output shape.
Values referenceForward(const LayerSpec& spec, const Shape& in, const Values& x, const std::vector<Values>& params,
                        Shape& out, const std::string& activation = {})
{
    const std::string& type = spec.type;
    const auto act = [&] { return activation.empty() ? spec.text("activation") : activation; };
    const Values noBias;
    if (type == "Dense") {
        const int64_t units = spec.integer("units");
        out = in;
        out[out.rank() - 1] = units;
        return reference::dense(x, in.back(), params[0], params.size() > 1 ? params[1] : noBias, units, act());
    }
    if (type == "Conv2D") {
        reference::Image o;
        Values y = reference::conv2d(x, imageOf(in), params[0], params.size() > 1 ? params[1] : noBias,
                                     spec.integer("filters"), windowOf(spec, "kernel_size", false), act(), &o);
        out = Shape{o.batch, o.height, o.width, o.channels};
        return y;
    }
    if (type == "MaxPooling2D") {
        reference::Image o;
        Values y = reference::maxPool2d(x, imageOf(in), windowOf(spec, "pool_size", true), &o);
        out = Shape{o.batch, o.height, o.width, o.channels};
        return y;
    }
    if (type == "Flatten") {
        out = Shape{in[0], in.numel() / in[0]};
        return x;
    }
    if (type == "GlobalAveragePooling1D" || type == "GlobalAveragePooling2D") {
        out = Shape{in[0], in.back()};
        return reference::globalAveragePooling1d(x, in[0], in.numel() / in[0] / in.back(), in.back());
    }
    if (type == "GlobalMaxPooling1D" || type == "GlobalMaxPooling2D") {
        out = Shape{in[0], in.back()};
        return reference::globalMaxPooling(x, in[0], in.numel() / in[0] / in.back(), in.back());
    }
    if (type == "Conv1D") {
        int64_t steps = 0;
        Values y = reference::conv1d(x, in[0], in[1], in[2], params[0], params.size() > 1 ? params[1] : noBias,
                                     spec.integer("filters"), spec.integer("kernel_size"), spec.integer("strides"),
                                     spec.text("padding"), act(), &steps);
        out = Shape{in[0], steps, spec.integer("filters")};
        return y;
    }
    if (type == "AveragePooling2D") {
        reference::Image o;
        Values y = reference::averagePool2d(x, imageOf(in), windowOf(spec, "pool_size", true), &o);
        out = Shape{o.batch, o.height, o.width, o.channels};
        return y;
    }
    if (type == "LayerNormalization") {
        out = in;
        const bool scale = spec.flag("scale"), center = spec.flag("center");
        const Values none;
        return reference::layerNormalization(x, in.back(), spec.number("epsilon"), scale ? params[0] : none,
                                             center ? params[scale ? 1 : 0] : none);
    }
    if (type == "Reshape") { // the same values in the same order
        std::vector<int64_t> dims{in[0]};
        int64_t known = 1;
        for (int64_t d : spec.integers("target_shape"))
            known *= d == -1 ? 1 : d;
        for (int64_t d : spec.integers("target_shape"))
            dims.push_back(d == -1 ? in.numel() / in[0] / known : d);
        out = Shape(dims);
        return x;
    }
    if (type == "ZeroPadding2D") {
        const auto p = spec.integers("padding");
        reference::Image o;
        Values y = reference::zeroPadding2d(x, imageOf(in), p[0], p[1], p[2], p[3], &o);
        out = Shape{o.batch, o.height, o.width, o.channels};
        return y;
    }
    if (type == "Activation") {
        out = in;
        Values y = x;
        reference::activate(act(), y, in.back());
        return y;
    }
    if (type == "Dropout") { // inference: identity
        out = in;
        return x;
    }
    if (type == "LSTM" || type == "GRU") {
        const int64_t units = spec.integer("units");
        const bool sequences = spec.flag("return_sequences");
        out = sequences ? Shape{in[0], in[1], units} : Shape{in[0], units};
        const Values& bias = params.size() > 2 ? params[2] : noBias;
        if (type == "LSTM")
            return reference::lstm(x, in[0], in[1], in[2], params[0], params[1], bias, units, spec.text("activation"),
                                   spec.text("recurrent_activation"), sequences);
        return reference::gru(x, in[0], in[1], in[2], params[0], params[1], bias, units, spec.text("activation"),
                              spec.text("recurrent_activation"), spec.flag("reset_after"), sequences);
    }
    if (type == "Embedding") {
        const int64_t dim = spec.integer("output_dim");
        out = Shape{in[0], in[1], dim};
        std::vector<int64_t> ids(x.begin(), x.end());
        return reference::embedding(ids, params[0], dim);
    }
    throw std::invalid_argument("no reference for " + type);
}

// How far the draw is from the points where the layer is not differentiable (relu at 0, ties
// in a max-pooling window); infinite for smooth layers.
double kinkMargin(const LayerSpec& spec, const Shape& in, const Values& x, const std::vector<Values>& params)
{
    if (spec.type == "MaxPooling2D")
        return reference::maxPoolMargin(x, imageOf(in), windowOf(spec, "pool_size", true));
    if (spec.type == "GlobalMaxPooling1D" || spec.type == "GlobalMaxPooling2D") {
        // One window the size of the image (a sequence: a one-row image).
        const reference::Image im{in[0], in.rank() == 4 ? in[1] : 1, in.rank() == 4 ? in[2] : in[1], in.back()};
        return reference::maxPoolMargin(x, im, {im.height, im.width, im.height, im.width, false});
    }
    if (spec.config.contains("activation") && spec.text("activation") == "relu") {
        Shape out;
        const Values z = referenceForward(spec, in, x, params, out, "linear");
        double margin = std::numeric_limits<double>::infinity();
        for (double v : z)
            margin = std::min(margin, std::fabs(v));
        return margin;
    }
    return std::numeric_limits<double>::infinity();
}

// Input values suited to the layer: token ids for Embedding, distinct values for max pooling,
// values away from 0 for a relu Activation layer, uniform in [-1, 1] otherwise.
Values drawInput(const LayerSpec& spec, const Shape& in, Rng& rng)
{
    const size_t n = static_cast<size_t>(in.numel());
    if (spec.type == "Embedding") {
        Values ids(n);
        for (double& id : ids)
            id = static_cast<double>(rng.below(static_cast<uint64_t>(spec.integer("input_dim"))));
        return ids;
    }
    if (spec.type == "MaxPooling2D" || spec.type == "GlobalMaxPooling1D" || spec.type == "GlobalMaxPooling2D")
        return gradcheck::distinctValues(rng, n, 0.05);
    if (spec.type == "Activation" && spec.text("activation") == "relu")
        return gradcheck::signedValues(rng, n, 0.1, 1.0);
    return gradcheck::uniformValues(rng, n, -1.0, 1.0);
}

std::vector<Values> paramValues(const Layer& layer)
{
    std::vector<Values> values;
    for (const auto& p : layer.parameters())
        values.push_back(gradcheck::toDouble(p.value));
    return values;
}

} // namespace

class TestLayerGradients : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void gradients_data();
    void gradients();
    void checkerRejectsWrongGradients();
    void dropoutTraining();
    void dropoutSeedField();
    void dropoutNoiseShape_data();
    void dropoutNoiseShape();
    void dropoutNoiseShapeBatchEntry();
    void embeddingOutOfRange_data();
    void embeddingOutOfRange();
    void wrongInputShape_data();
    void wrongInputShape();
    void convolutionPaths_data();
    void convolutionPaths();
    void activationGradientHandedOn();
};

// Two compute threads whatever the machine has: a Dense kernel of 2^14 parameters or more is
// then split between the threads by rows (nn/affine.cpp), which the rows below check too.
void TestLayerGradients::initTestCase() { strata::blas::setThreads(2); }

void TestLayerGradients::gradients_data()
{
    QTest::addColumn<QByteArray>("layer");
    QTest::addColumn<Shape>("inputShape"); // one example
    QTest::addColumn<int>("batch");

    // Dense: every activation, with and without bias, on (batch, features) and on
    // (batch, steps, features) inputs (applied to the last axis).
    for (const char* act : {"linear", "relu", "sigmoid", "tanh", "softmax"}) {
        for (bool bias : {true, false}) {
            const QByteArray json = QByteArray(R"({"type": "Dense", "units": 4, "activation": ")") + act +
                                    R"(", "use_bias": )" + (bias ? "true" : "false") + "}";
            const QByteArray name = QByteArray("dense/") + act + (bias ? "/bias" : "/no_bias");
            QTest::newRow(name + "/rank2") << json << Shape{5} << 3;
            QTest::newRow(name + "/rank3") << json << Shape{3, 5} << 2;
        }
    }

    // Conv2D: 6x7 images (odd and even sizes make "same" padding asymmetric for some strides).
    QTest::newRow("conv2d/3x3/valid/s1") << QByteArray(R"({"type": "Conv2D", "filters": 3, "kernel_size": 3})")
                                         << Shape{6, 7, 2} << 2;
    QTest::newRow("conv2d/3x3/same/s1")
        << QByteArray(R"({"type": "Conv2D", "filters": 3, "kernel_size": 3, "padding": "same"})") << Shape{6, 7, 2}
        << 2;
    QTest::newRow("conv2d/3x3/valid/s2")
        << QByteArray(R"({"type": "Conv2D", "filters": 3, "kernel_size": 3, "strides": 2})") << Shape{6, 7, 2} << 2;
    QTest::newRow("conv2d/3x3/same/s2")
        << QByteArray(R"({"type": "Conv2D", "filters": 3, "kernel_size": 3, "strides": 2, "padding": "same"})")
        << Shape{6, 7, 2} << 2;
    QTest::newRow("conv2d/2x2/same/s1 (pad bottom-right only)")
        << QByteArray(R"({"type": "Conv2D", "filters": 2, "kernel_size": 2, "padding": "same"})") << Shape{5, 4, 3}
        << 2;
    QTest::newRow("conv2d/2x3/same/s(1,2)")
        << QByteArray(R"({"type": "Conv2D", "filters": 4, "kernel_size": [2, 3], "strides": [1, 2], "padding": "same"})")
        << Shape{5, 7, 2} << 2;
    QTest::newRow("conv2d/3x1/valid/s(2,1)")
        << QByteArray(R"({"type": "Conv2D", "filters": 2, "kernel_size": [3, 1], "strides": [2, 1]})")
        << Shape{7, 4, 3} << 2;
    QTest::newRow("conv2d/1x4/same/s(1,3)")
        << QByteArray(R"({"type": "Conv2D", "filters": 3, "kernel_size": [1, 4], "strides": [1, 3], "padding": "same"})")
        << Shape{3, 8, 2} << 2;
    QTest::newRow("conv2d/kernel = image (1x1 output)")
        << QByteArray(R"({"type": "Conv2D", "filters": 3, "kernel_size": [4, 3]})") << Shape{4, 3, 2} << 3;
    QTest::newRow("conv2d/1 channel in, 5 filters")
        << QByteArray(R"({"type": "Conv2D", "filters": 5, "kernel_size": 3, "padding": "same"})") << Shape{5, 5, 1}
        << 2;
    QTest::newRow("conv2d/1x1 pointwise")
        << QByteArray(R"({"type": "Conv2D", "filters": 4, "kernel_size": 1})") << Shape{3, 4, 5} << 2;
    QTest::newRow("conv2d/1x1 pointwise/same/no_bias")
        << QByteArray(R"({"type": "Conv2D", "filters": 2, "kernel_size": 1, "padding": "same", "use_bias": false})")
        << Shape{3, 3, 4} << 2;
    QTest::newRow("conv2d/1x1/s2 (strided, not pointwise)")
        << QByteArray(R"({"type": "Conv2D", "filters": 3, "kernel_size": 1, "strides": 2})") << Shape{5, 6, 3} << 2;
    QTest::newRow("conv2d/1x1/same/s2")
        << QByteArray(R"({"type": "Conv2D", "filters": 3, "kernel_size": 1, "strides": 2, "padding": "same"})")
        << Shape{5, 6, 3} << 2;
    QTest::newRow("conv2d/no_bias/same/s2")
        << QByteArray(R"({"type": "Conv2D", "filters": 3, "kernel_size": 3, "strides": 2, "padding": "same", "use_bias": false})")
        << Shape{7, 6, 2} << 2;
    for (const char* act : {"relu", "sigmoid", "tanh", "softmax"}) {
        const QByteArray json =
            QByteArray(R"({"type": "Conv2D", "filters": 3, "kernel_size": [3, 2], "padding": "same", "activation": ")") +
            act + R"("})";
        QTest::newRow(QByteArray("conv2d/") + act) << json << Shape{4, 5, 2} << 2;
    }

    // oneDNN's Winograd convolution (3x3, stride 1, channels in blocks of 16).
    QTest::newRow("conv2d/16 to 16 channels (Winograd)")
        << QByteArray(R"({"type": "Conv2D", "filters": 16, "kernel_size": 3})") << Shape{6, 7, 16} << 2;
    QTest::newRow("conv2d/16 to 32 channels/same/no_bias (Winograd)")
        << QByteArray(R"({"type": "Conv2D", "filters": 32, "kernel_size": 3, "padding": "same", "use_bias": false})")
        << Shape{5, 4, 16} << 2;
    // A Dense kernel the two threads own by rows: the sum split between them.
    QTest::newRow("dense/128 to 128 on owned rows")
        << QByteArray(R"({"type": "Dense", "units": 128, "activation": "relu"})") << Shape{128} << 3;

    // MaxPooling2D: default strides (= pool size), explicit strides, valid and same.
    QTest::newRow("maxpool/2x2/valid") << QByteArray(R"({"type": "MaxPooling2D"})") << Shape{6, 7, 2} << 2;
    QTest::newRow("maxpool/2x2/same") << QByteArray(R"({"type": "MaxPooling2D", "padding": "same"})")
                                      << Shape{5, 7, 3} << 2;
    QTest::newRow("maxpool/3x3/s1/valid (overlapping)")
        << QByteArray(R"({"type": "MaxPooling2D", "pool_size": 3, "strides": 1})") << Shape{5, 6, 2} << 2;
    QTest::newRow("maxpool/3x3/s1/same (overlapping)")
        << QByteArray(R"({"type": "MaxPooling2D", "pool_size": 3, "strides": 1, "padding": "same"})")
        << Shape{4, 5, 2} << 2;
    QTest::newRow("maxpool/3x3/s2/same")
        << QByteArray(R"({"type": "MaxPooling2D", "pool_size": 3, "strides": 2, "padding": "same"})")
        << Shape{6, 7, 2} << 2;
    QTest::newRow("maxpool/3x3/s2/valid")
        << QByteArray(R"({"type": "MaxPooling2D", "pool_size": 3, "strides": 2})") << Shape{7, 6, 1} << 2;
    QTest::newRow("maxpool/2x3/s(1,2)/valid")
        << QByteArray(R"({"type": "MaxPooling2D", "pool_size": [2, 3], "strides": [1, 2]})") << Shape{4, 7, 2}
        << 2;
    QTest::newRow("maxpool/3x2/same (default strides)")
        << QByteArray(R"({"type": "MaxPooling2D", "pool_size": [3, 2], "padding": "same"})") << Shape{7, 5, 2}
        << 2;
    QTest::newRow("maxpool/2x2/s3 (gaps between windows)")
        << QByteArray(R"({"type": "MaxPooling2D", "pool_size": 2, "strides": 3})") << Shape{8, 7, 2} << 2;

    QTest::newRow("flatten/rank3") << QByteArray(R"({"type": "Flatten"})") << Shape{3, 4, 2} << 3;
    QTest::newRow("flatten/rank1") << QByteArray(R"({"type": "Flatten"})") << Shape{5} << 2;
    QTest::newRow("global_average_pooling1d") << QByteArray(R"({"type": "GlobalAveragePooling1D"})")
                                              << Shape{4, 3} << 3;
    for (const char* act : {"linear", "relu", "sigmoid", "tanh", "softmax"}) {
        const QByteArray json = QByteArray(R"({"type": "Activation", "activation": ")") + act + R"("})";
        QTest::newRow(QByteArray("activation/") + act + "/rank2") << json << Shape{6} << 3;
        QTest::newRow(QByteArray("activation/") + act + "/rank3") << json << Shape{3, 4} << 2;
    }
    QTest::newRow("dropout/inference (identity)") << QByteArray(R"({"type": "Dropout", "rate": 0.5})")
                                                  << Shape{4, 3} << 2;
    QTest::newRow("dropout/noise_shape/inference (identity)")
        << QByteArray(R"({"type": "Dropout", "rate": 0.5, "noise_shape": [null, 1, 3]})") << Shape{4, 3} << 2;

    // Conv1D: valid, same (asymmetric for even kernels and strides), causal; odd lengths.
    for (const char* padding : {"valid", "same", "causal"}) {
        for (int stride : {1, 2, 3}) {
            for (int k : {1, 2, 3}) {
                const QByteArray json = QByteArray(R"({"type": "Conv1D", "filters": 3, "kernel_size": )") +
                                        QByteArray::number(k) + R"(, "strides": )" + QByteArray::number(stride) +
                                        R"(, "padding": ")" + padding + R"("})";
                QTest::newRow(QByteArray("conv1d/") + padding + "/k" + QByteArray::number(k) + "/s" +
                              QByteArray::number(stride))
                    << json << Shape{7, 2} << 2;
            }
        }
    }
    QTest::newRow("conv1d/k4/same/s2 (even length)")
        << QByteArray(R"({"type": "Conv1D", "filters": 2, "kernel_size": 4, "strides": 2, "padding": "same"})")
        << Shape{8, 3} << 2;
    QTest::newRow("conv1d/kernel = sequence (1 step out)")
        << QByteArray(R"({"type": "Conv1D", "filters": 4, "kernel_size": 5})") << Shape{5, 2} << 3;
    QTest::newRow("conv1d/causal/no_bias/relu")
        << QByteArray(R"({"type": "Conv1D", "filters": 3, "kernel_size": 3, "padding": "causal", "use_bias": false, "activation": "relu"})")
        << Shape{6, 2} << 2;
    for (const char* act : {"sigmoid", "tanh", "softmax"})
        QTest::newRow(QByteArray("conv1d/same/") + act)
            << QByteArray(R"({"type": "Conv1D", "filters": 3, "kernel_size": 2, "padding": "same", "activation": ")") +
                   act + R"("})"
            << Shape{5, 2} << 2;

    // AveragePooling2D: as MaxPooling2D's rows; "same" windows at the edges count only the
    // pixels inside the image.
    QTest::newRow("avgpool/2x2/valid") << QByteArray(R"({"type": "AveragePooling2D"})") << Shape{6, 7, 2} << 2;
    QTest::newRow("avgpool/2x2/same (bottom-right partial windows)")
        << QByteArray(R"({"type": "AveragePooling2D", "padding": "same"})") << Shape{5, 7, 3} << 2;
    QTest::newRow("avgpool/3x3/s1/same (symmetric)")
        << QByteArray(R"({"type": "AveragePooling2D", "pool_size": 3, "strides": 1, "padding": "same"})")
        << Shape{4, 5, 2} << 2;
    QTest::newRow("avgpool/3x3/s2/same")
        << QByteArray(R"({"type": "AveragePooling2D", "pool_size": 3, "strides": 2, "padding": "same"})")
        << Shape{6, 7, 2} << 2;
    QTest::newRow("avgpool/3x3/s2/valid")
        << QByteArray(R"({"type": "AveragePooling2D", "pool_size": 3, "strides": 2})") << Shape{7, 6, 1} << 2;
    QTest::newRow("avgpool/2x3/s(1,2)/valid")
        << QByteArray(R"({"type": "AveragePooling2D", "pool_size": [2, 3], "strides": [1, 2]})") << Shape{4, 7, 2}
        << 2;
    QTest::newRow("avgpool/3x2/same (default strides)")
        << QByteArray(R"({"type": "AveragePooling2D", "pool_size": [3, 2], "padding": "same"})") << Shape{7, 5, 2}
        << 2;
    QTest::newRow("avgpool/2x2/s3 (gaps between windows)")
        << QByteArray(R"({"type": "AveragePooling2D", "pool_size": 2, "strides": 3})") << Shape{8, 7, 2} << 2;
    QTest::newRow("avgpool/4x4/s1/same (pool larger than half the image)")
        << QByteArray(R"({"type": "AveragePooling2D", "pool_size": 4, "strides": 1, "padding": "same"})")
        << Shape{3, 5, 2} << 2;

    QTest::newRow("global_average_pooling2d") << QByteArray(R"({"type": "GlobalAveragePooling2D"})")
                                              << Shape{3, 4, 2} << 3;
    QTest::newRow("global_max_pooling1d") << QByteArray(R"({"type": "GlobalMaxPooling1D"})") << Shape{5, 3} << 3;
    QTest::newRow("global_max_pooling2d") << QByteArray(R"({"type": "GlobalMaxPooling2D"})") << Shape{3, 4, 2}
                                          << 3;
    QTest::newRow("global_max_pooling2d/1x1 image") << QByteArray(R"({"type": "GlobalMaxPooling2D"})")
                                                    << Shape{1, 1, 4} << 2;

    // LayerNormalization: over the last axis of rank-2 and rank-3 inputs; center/scale off.
    QTest::newRow("layer_norm/rank2") << QByteArray(R"({"type": "LayerNormalization"})") << Shape{6} << 3;
    QTest::newRow("layer_norm/rank3") << QByteArray(R"({"type": "LayerNormalization"})") << Shape{3, 5} << 2;
    QTest::newRow("layer_norm/rank4") << QByteArray(R"({"type": "LayerNormalization"})") << Shape{2, 3, 4} << 2;
    QTest::newRow("layer_norm/no center") << QByteArray(R"({"type": "LayerNormalization", "center": false})")
                                          << Shape{3, 5} << 2;
    QTest::newRow("layer_norm/no scale") << QByteArray(R"({"type": "LayerNormalization", "scale": false})")
                                         << Shape{3, 5} << 2;
    QTest::newRow("layer_norm/neither")
        << QByteArray(R"({"type": "LayerNormalization", "center": false, "scale": false})") << Shape{7} << 2;
    QTest::newRow("layer_norm/epsilon 0.5") << QByteArray(R"({"type": "LayerNormalization", "epsilon": 0.5})")
                                            << Shape{4} << 3;
    QTest::newRow("layer_norm/two features") << QByteArray(R"({"type": "LayerNormalization"})") << Shape{4, 2}
                                             << 2;
    QTest::newRow("layer_norm/one feature (output = beta)") << QByteArray(R"({"type": "LayerNormalization"})")
                                                            << Shape{3, 1} << 2;

    QTest::newRow("reshape/(3, 4) -> (6, 2)") << QByteArray(R"({"type": "Reshape", "target_shape": [6, 2]})")
                                              << Shape{3, 4} << 2;
    QTest::newRow("reshape/-1 first") << QByteArray(R"({"type": "Reshape", "target_shape": [-1, 3]})")
                                      << Shape{2, 3, 2} << 2;
    QTest::newRow("reshape/-1 in the middle") << QByteArray(R"({"type": "Reshape", "target_shape": [2, -1, 1]})")
                                              << Shape{12} << 2;
    QTest::newRow("reshape/-1 alone (flatten)") << QByteArray(R"({"type": "Reshape", "target_shape": [-1]})")
                                                << Shape{3, 4} << 3;

    QTest::newRow("zero_padding2d/default (1)") << QByteArray(R"({"type": "ZeroPadding2D"})") << Shape{3, 4, 2}
                                                << 2;
    QTest::newRow("zero_padding2d/(h, w)") << QByteArray(R"({"type": "ZeroPadding2D", "padding": [2, 0]})")
                                           << Shape{3, 4, 2} << 2;
    QTest::newRow("zero_padding2d/asymmetric")
        << QByteArray(R"({"type": "ZeroPadding2D", "padding": [[0, 2], [3, 1]]})") << Shape{2, 3, 3} << 2;
    QTest::newRow("zero_padding2d/mixed int and pair")
        << QByteArray(R"({"type": "ZeroPadding2D", "padding": [1, [0, 2]]})") << Shape{3, 2, 1} << 2;
    QTest::newRow("embedding (repeated ids)")
        << QByteArray(R"({"type": "Embedding", "input_dim": 7, "output_dim": 3})") << Shape{8} << 3;

    // LSTM and GRU over (steps, features): the last output and every step's, with and without
    // bias, GRU's two reset conventions, activations other than Keras' defaults (the generic
    // gate path), a single unit and a single step.
    for (const char* sequences : {"false", "true"}) {
        const QByteArray tail = QByteArray(R"(, "return_sequences": )") + sequences + "}";
        const QByteArray suffix = QByteArray("/sequences=") + sequences;
        QTest::newRow("lstm" + suffix) << QByteArray(R"({"type": "LSTM", "units": 3)") + tail << Shape{4, 2} << 3;
        QTest::newRow("lstm/no_bias" + suffix)
            << QByteArray(R"({"type": "LSTM", "units": 4, "use_bias": false)") + tail << Shape{3, 5} << 2;
        QTest::newRow("lstm/sigmoid,tanh" + suffix)
            << QByteArray(R"({"type": "LSTM", "units": 3, "activation": "sigmoid", "recurrent_activation": "tanh")") +
                   tail
            << Shape{3, 2} << 2;
        for (const char* after : {"true", "false"}) {
            const QByteArray gru = QByteArray(R"({"type": "GRU", "reset_after": )") + after;
            const QByteArray name = QByteArray("gru/reset_after=") + after;
            QTest::newRow(name + suffix) << gru + R"(, "units": 3)" + tail << Shape{4, 2} << 3;
            QTest::newRow(name + "/no_bias" + suffix)
                << gru + R"(, "units": 4, "use_bias": false)" + tail << Shape{3, 5} << 2;
            QTest::newRow(name + "/linear,tanh" + suffix)
                << gru + R"(, "units": 3, "activation": "linear", "recurrent_activation": "tanh")" + tail << Shape{3, 2}
                << 2;
        }
    }
    QTest::newRow("lstm/1 unit") << QByteArray(R"({"type": "LSTM", "units": 1})") << Shape{5, 1} << 2;
    QTest::newRow("lstm/1 step") << QByteArray(R"({"type": "LSTM", "units": 2, "return_sequences": true})")
                                 << Shape{1, 3} << 2;
    QTest::newRow("gru/1 unit") << QByteArray(R"({"type": "GRU", "units": 1})") << Shape{5, 1} << 2;
    QTest::newRow("gru/1 step/reset_after=false")
        << QByteArray(R"({"type": "GRU", "units": 2, "reset_after": false})") << Shape{1, 3} << 2;
}

void TestLayerGradients::gradients()
{
    QFETCH(QByteArray, layer);
    QFETCH(Shape, inputShape);
    QFETCH(int, batch);

    const LayerSpec spec = layerSpec(layer);
    const Shape in = inputShape.withBatch(batch);

    // Draw weights and inputs; redraw (next seed) while relu or max pooling would sit within
    // kKinkMargin of a kink.
    std::unique_ptr<Layer> l;
    Values x;
    std::vector<Values> params;
    Rng rng(0);
    for (uint64_t seed = 1;; ++seed) {
        QVERIFY2(seed < 100, "no draw keeps the inputs away from the layer's kinks");
        rng = Rng(seed);
        l = strata::nn::createLayer(spec, inputShape, rng);
        for (auto& p : l->parameters()) {
            // Kernels keep their initializer's values; biases and betas (zeros) and gammas (ones)
            // get random ones, so that a gradient mixing them up shows.
            const size_t count = static_cast<size_t>(p.value.numel());
            if (p.name.ends_with("/bias") || p.name.ends_with("/beta"))
                p.value = gradcheck::toTensor(p.value.shape(), gradcheck::uniformValues(rng, count, -0.5, 0.5));
            else if (p.name.ends_with("/gamma"))
                p.value = gradcheck::toTensor(p.value.shape(), gradcheck::uniformValues(rng, count, 0.5, 1.5));
        }
        x = drawInput(spec, in, rng);
        params = paramValues(*l);
        if (kinkMargin(spec, in, x, params) >= kKinkMargin)
            break;
    }

    // Forward against the reference.
    Shape refShape;
    const Values yRef = referenceForward(spec, in, x, params, refShape);
    QCOMPARE(l->outputShape(), refShape.withoutBatch());
    const Tensor xt = gradcheck::toTensor(in, x);
    const Tensor& y = l->forward(xt, ForwardContext{});
    QCOMPARE(y.shape(), refShape);
    const auto fwd = gradcheck::compare(gradcheck::toDouble(y), yRef, 1.0);
    QVERIFY2(fwd.error <= kForwardTolerance, ("forward: " + fwd.str()).c_str());

    // Analytic gradients of L = sum w_i y_i.
    const Values w = gradcheck::uniformValues(rng, yRef.size(), -1.0, 1.0);
    Tensor dy = gradcheck::toTensor(refShape, w);
    const Tensor dxt = l->backward(dy, true);
    const bool floatInput = spec.type != "Embedding";
    const Values dx = floatInput ? gradcheck::toDouble(dxt) : Values{};
    std::vector<Values> paramGrads;
    for (const auto& p : l->parameters()) {
        QCOMPARE(p.grad.shape(), p.value.shape());
        paramGrads.push_back(gradcheck::toDouble(p.grad));
    }

    // Numeric gradients of the double reference.
    if (floatInput) {
        QCOMPARE(dxt.shape(), in);
        const auto loss = [&](const Values& xv) {
            Shape s;
            return gradcheck::dot(w, referenceForward(spec, in, xv, params, s));
        };
        const auto c = gradcheck::compare(dx, gradcheck::numericGradient(loss, x, kEps));
        QVERIFY2(c.error <= kGradientTolerance, ("input gradient: " + c.str()).c_str());
    } else {
        QVERIFY(dxt.empty()); // token ids have no gradient
    }
    for (size_t k = 0; k < params.size(); ++k) {
        const auto loss = [&](const Values& pv) {
            std::vector<Values> ps = params;
            ps[k] = pv;
            Shape s;
            return gradcheck::dot(w, referenceForward(spec, in, x, ps, s));
        };
        const auto c = gradcheck::compare(paramGrads[k], gradcheck::numericGradient(loss, params[k], kEps));
        QVERIFY2(c.error <= kGradientTolerance, (l->parameters()[k].name + " gradient: " + c.str()).c_str());
    }

    // A second step: backward writes the parameter gradients (does not add to the previous
    // ones), and returns nothing when the input gradient is not needed.
    l->forward(gradcheck::toTensor(in, x), ForwardContext{});
    Tensor dy2 = gradcheck::toTensor(refShape, w);
    QVERIFY(l->backward(dy2, false).empty());
    for (size_t k = 0; k < params.size(); ++k) {
        const auto c = gradcheck::compare(gradcheck::toDouble(l->parameters()[k].grad), paramGrads[k]);
        QVERIFY2(c.error <= 1e-6, (l->parameters()[k].name + " second backward: " + c.str()).c_str());
    }
}

// The comparison must fail for the typical backward bugs: a factor 2, a sign error, one
// element wrong by 1% of the largest.
void TestLayerGradients::checkerRejectsWrongGradients()
{
    const LayerSpec spec = layerSpec(R"({"type": "Dense", "units": 3, "activation": "tanh"})");
    Rng rng(5);
    auto l = strata::nn::createLayer(spec, Shape{4}, rng);
    const Shape in{2, 4};
    const Values x = gradcheck::uniformValues(rng, 8, -1, 1);
    const std::vector<Values> params = paramValues(*l);
    l->forward(gradcheck::toTensor(in, x), ForwardContext{});
    const Values w = gradcheck::uniformValues(rng, 6, -1, 1);
    Tensor dy = gradcheck::toTensor({2, 3}, w);
    l->backward(dy, false);
    const Values analytic = gradcheck::toDouble(l->parameters()[0].grad);
    const auto loss = [&](const Values& k) {
        Shape s;
        return gradcheck::dot(w, referenceForward(spec, in, x, {k, params[1]}, s));
    };
    const Values numeric = gradcheck::numericGradient(loss, params[0], kEps);
    QVERIFY(gradcheck::compare(analytic, numeric).error <= kGradientTolerance);

    Values doubled = analytic, negated = analytic, oneOff = analytic;
    for (size_t i = 0; i < analytic.size(); ++i) {
        doubled[i] *= 2;
        negated[i] = -negated[i];
    }
    oneOff[3] += 0.01 * gradcheck::maxAbs(analytic);
    QVERIFY(gradcheck::compare(doubled, numeric).error > 100 * kGradientTolerance);
    QVERIFY(gradcheck::compare(negated, numeric).error > 100 * kGradientTolerance);
    QVERIFY(gradcheck::compare(oneOff, numeric).error > 10 * kGradientTolerance);
}

// Training mode: a fixed (seed, step) fixes the mask; kept values are scaled by 1 / (1 - rate);
// the gradient goes through the same mask.
void TestLayerGradients::dropoutTraining()
{
    const double rate = 0.25;
    const LayerSpec spec = layerSpec(R"({"type": "Dropout", "rate": 0.25})");
    Rng rng(3);
    auto l = strata::nn::createLayer(spec, Shape{40, 50}, rng);
    const Shape in{2, 40, 50};
    const Values x = gradcheck::signedValues(rng, static_cast<size_t>(in.numel()), 0.1, 1.0);
    const Tensor xt = gradcheck::toTensor(in, x);
    const ForwardContext ctx{true, 1234, 17};

    const Values y = gradcheck::toDouble(l->forward(xt, ctx));
    QCOMPARE(y.size(), x.size());
    Values mask(x.size());
    size_t dropped = 0;
    const double keep = 1.0 / (1.0 - rate);
    for (size_t i = 0; i < x.size(); ++i) {
        mask[i] = y[i] == 0.0 ? 0.0 : keep;
        if (y[i] == 0.0)
            ++dropped;
        else
            QVERIFY2(std::fabs(y[i] - x[i] * keep) <= 1e-6 * std::fabs(x[i]), qPrintable(QString::number(i)));
    }
    const double fraction = static_cast<double>(dropped) / static_cast<double>(x.size());
    QVERIFY2(std::fabs(fraction - rate) < 0.03, qPrintable(QString::number(fraction))); // 4000 draws: sd 0.007

    // Same (seed, step): same mask. Another step or seed: another mask.
    QCOMPARE(gradcheck::toDouble(l->forward(xt, ctx)), y);
    const auto differences = [&](const ForwardContext& other) {
        const Values y2 = gradcheck::toDouble(l->forward(xt, other));
        size_t n = 0;
        for (size_t i = 0; i < y.size(); ++i)
            n += (y2[i] == 0.0) != (y[i] == 0.0);
        return n;
    };
    QVERIFY(differences({true, 1234, 18}) > x.size() / 10);
    QVERIFY(differences({true, 1235, 17}) > x.size() / 10);

    // Backward through the fixed mask, against finite differences of x -> x * mask.
    l->forward(xt, ctx);
    const Values w = gradcheck::uniformValues(rng, x.size(), -1, 1);
    Tensor dy = gradcheck::toTensor(in, w);
    const Values dx = gradcheck::toDouble(l->backward(dy, true));
    const auto loss = [&](const Values& xv) {
        double s = 0;
        for (size_t i = 0; i < xv.size(); ++i)
            s += w[i] * xv[i] * mask[i];
        return s;
    };
    const auto c = gradcheck::compare(dx, gradcheck::numericGradient(loss, x, kEps));
    QVERIFY2(c.error <= kGradientTolerance, c.str().c_str());

    // Inference: identity both ways.
    QCOMPARE(gradcheck::toDouble(l->forward(xt, ForwardContext{false, 1234, 17})), x);
    Tensor dyInference = gradcheck::toTensor(in, w);
    QCOMPARE(gradcheck::toDouble(l->backward(dyInference, true)), w);
    // Rate 0 in training: identity.
    auto none = strata::nn::createLayer(layerSpec(R"({"type": "Dropout", "rate": 0})"), Shape{40, 50}, rng);
    QCOMPARE(gradcheck::toDouble(none->forward(xt, ctx)), x);
}

// Without a "seed" field, two Dropout layers draw different masks (each its own stream);
// with the same "seed", the same masks.
void TestLayerGradients::dropoutSeedField()
{
    Rng rngA(1, 1), rngB(1, 2);
    const Shape in{1, 200};
    const Tensor ones = Tensor::full(in, 1.0f);
    const ForwardContext ctx{true, 99, 3};
    auto a = strata::nn::createLayer(layerSpec(R"({"type": "Dropout", "rate": 0.5})"), Shape{200}, rngA);
    auto b = strata::nn::createLayer(layerSpec(R"({"type": "Dropout", "rate": 0.5})"), Shape{200}, rngB);
    QVERIFY(gradcheck::toDouble(a->forward(ones, ctx)) != gradcheck::toDouble(b->forward(ones, ctx)));
    auto c = strata::nn::createLayer(layerSpec(R"({"type": "Dropout", "rate": 0.5, "seed": 5})"), Shape{200}, rngA);
    auto d = strata::nn::createLayer(layerSpec(R"({"type": "Dropout", "rate": 0.5, "seed": 5})"), Shape{200}, rngB);
    QCOMPARE(gradcheck::toDouble(c->forward(ones, ctx)), gradcheck::toDouble(d->forward(ones, ctx)));
}

// Dropout's noise_shape in training: the mask is drawn at the noise shape and broadcast along
// its axes of size 1; kept values are scaled by 1 / (1 - rate); the gradient goes through the
// same mask; the same (seed, step) gives the same mask.
void TestLayerGradients::dropoutNoiseShape_data()
{
    QTest::addColumn<QByteArray>("noiseShape");
    QTest::addColumn<Shape>("inputShape"); // one example
    QTest::addColumn<int>("batch");
    QTest::addColumn<Shape>("broadcast"); // 1 where the mask is shared along the axis (batch first)
    QTest::newRow("[null, 1, features] (same features at every step)") << QByteArray("[null, 1, 30]")
                                                                      << Shape{20, 30} << 4 << Shape{0, 1, 0};
    QTest::newRow("[null, steps, 1] (whole steps)") << QByteArray("[null, null, 1]") << Shape{20, 30} << 4
                                                    << Shape{0, 0, 1};
    QTest::newRow("[1, null, null] (one mask for the batch)") << QByteArray("[1, 20, null]") << Shape{20, 30} << 4
                                                              << Shape{1, 0, 0};
    QTest::newRow("[batch, 1, 1, channels] (spatial 2-D)") << QByteArray("[3, 1, 1, 40]") << Shape{5, 6, 40} << 3
                                                           << Shape{0, 1, 1, 0};
    QTest::newRow("all null (as none)") << QByteArray("[null, null, null]") << Shape{20, 30} << 4
                                        << Shape{0, 0, 0};
}

void TestLayerGradients::dropoutNoiseShape()
{
    QFETCH(QByteArray, noiseShape);
    QFETCH(Shape, inputShape);
    QFETCH(int, batch);
    QFETCH(Shape, broadcast);
    const double rate = 0.4;
    const LayerSpec spec = layerSpec(R"({"type": "Dropout", "rate": 0.4, "noise_shape": )" + noiseShape + "}");
    Rng rng(3);
    auto l = strata::nn::createLayer(spec, inputShape, rng);
    const Shape in = inputShape.withBatch(batch);
    const Values x = gradcheck::signedValues(rng, static_cast<size_t>(in.numel()), 0.1, 1.0);
    const Tensor xt = gradcheck::toTensor(in, x);
    const ForwardContext ctx{true, 1234, 17};
    const Values y = gradcheck::toDouble(l->forward(xt, ctx));
    QCOMPARE(y.size(), x.size());

    // The mask, read off the output: 0 or 1 / (1 - rate) exactly where x was kept.
    const double keep = 1.0 / (1.0 - rate);
    Values mask(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
        mask[i] = y[i] == 0.0 ? 0.0 : keep;
        if (y[i] != 0.0)
            QVERIFY2(std::fabs(y[i] - x[i] * keep) <= 1e-6 * std::fabs(x[i]), qPrintable(QString::number(i)));
    }
    // Broadcast: every element equals the one at index 0 along each shared axis; the distinct
    // draws (one per noise-shape element) drop about `rate` of them.
    size_t dropped = 0, draws = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        int64_t rest = static_cast<int64_t>(i), source = 0, stride = 1;
        bool isDraw = true;
        for (int axis = in.rank() - 1; axis >= 0; --axis) {
            const int64_t index = rest % in[axis];
            rest /= in[axis];
            const bool shared = broadcast[axis] == 1;
            source += (shared ? 0 : index) * stride;
            stride *= in[axis];
            isDraw = isDraw && (!shared || index == 0);
        }
        QVERIFY2(mask[i] == mask[static_cast<size_t>(source)],
                 qPrintable(QString("element %1 differs from %2 along a shared axis").arg(i).arg(source)));
        if (isDraw) {
            ++draws;
            dropped += mask[i] == 0.0;
        }
    }
    const double fraction = static_cast<double>(dropped) / static_cast<double>(draws);
    QVERIFY2(std::fabs(fraction - rate) < 5 * std::sqrt(rate * (1 - rate) / static_cast<double>(draws)),
             qPrintable(QString("%1 of %2 draws dropped").arg(dropped).arg(draws)));

    // Same (seed, step): the same mask; another step: another.
    QCOMPARE(gradcheck::toDouble(l->forward(xt, ctx)), y);
    QVERIFY(gradcheck::toDouble(l->forward(xt, ForwardContext{true, 1234, 18})) != y);

    // Backward through the fixed mask, against finite differences of x -> x * mask.
    l->forward(xt, ctx);
    const Values w = gradcheck::uniformValues(rng, x.size(), -1, 1);
    Tensor dy = gradcheck::toTensor(in, w);
    const Values dx = gradcheck::toDouble(l->backward(dy, true));
    const auto loss = [&](const Values& xv) {
        double s = 0;
        for (size_t i = 0; i < xv.size(); ++i)
            s += w[i] * xv[i] * mask[i];
        return s;
    };
    const auto c = gradcheck::compare(dx, gradcheck::numericGradient(loss, x, kEps));
    QVERIFY2(c.error <= kGradientTolerance, c.str().c_str());

    // Without a noise shape the layer draws the same sequence over the whole input: with all
    // entries null, the masks are those of a Dropout without noise_shape.
    if (noiseShape == "[null, null, null]") {
        Rng again(3);
        auto plain = strata::nn::createLayer(layerSpec(R"({"type": "Dropout", "rate": 0.4})"), inputShape, again);
        QCOMPARE(gradcheck::toDouble(plain->forward(xt, ctx)), y);
    }
}

// A fixed batch entry other than 1 must be the batch's size: another batch is refused by name.
void TestLayerGradients::dropoutNoiseShapeBatchEntry()
{
    Rng rng(1);
    auto l = strata::nn::createLayer(layerSpec(R"({"type": "Dropout", "rate": 0.5, "noise_shape": [4, 1, 3]})"),
                                     Shape{5, 3}, rng);
    const ForwardContext ctx{true, 9, 1};
    QCOMPARE(l->forward(Tensor::full({4, 5, 3}, 1.0f), ctx).shape(), (Shape{4, 5, 3}));
    try {
        l->forward(Tensor::full({2, 5, 3}, 1.0f), ctx);
        QFAIL("a batch of 2 was accepted with noise_shape [4, 1, 3]");
    } catch (const strata::ShapeError& e) {
        QVERIFY2(QString(e.what()).contains("noise_shape's batch entry is 4 but the batch has 2"), e.what());
    }
    // Inference ignores the noise shape.
    QCOMPARE(l->forward(Tensor::full({2, 5, 3}, 1.0f), ForwardContext{}).shape(), (Shape{2, 5, 3}));
}

void TestLayerGradients::embeddingOutOfRange_data()
{
    QTest::addColumn<double>("id");
    QTest::newRow("negative") << -1.0;
    QTest::newRow("= vocabulary size") << 7.0;
    QTest::newRow("far beyond") << 1e9;
    QTest::newRow("fractional") << 2.5;
    QTest::newRow("NaN") << std::numeric_limits<double>::quiet_NaN();
}

void TestLayerGradients::embeddingOutOfRange()
{
    QFETCH(double, id);
    Rng rng(1);
    auto l = strata::nn::createLayer(layerSpec(R"({"type": "Embedding", "input_dim": 7, "output_dim": 3})"),
                                     Shape{4}, rng);
    Tensor ids = gradcheck::toTensor({2, 4}, {0, 1, 2, 6, 3, id, 4, 5});
    QVERIFY_THROWS_EXCEPTION(strata::ShapeError, l->forward(ids, ForwardContext{}));
    // The last valid id works.
    Tensor valid = gradcheck::toTensor({2, 4}, {0, 1, 2, 6, 3, 6, 4, 5});
    QCOMPARE(l->forward(valid, ForwardContext{}).shape(), (Shape{2, 4, 3}));
}

void TestLayerGradients::wrongInputShape_data()
{
    QTest::addColumn<QByteArray>("layer");
    QTest::addColumn<Shape>("inputShape");
    QTest::addColumn<Shape>("given"); // with batch
    QTest::newRow("dense") << QByteArray(R"({"type": "Dense", "units": 2})") << Shape{5} << Shape{3, 4};
    QTest::newRow("dense rank") << QByteArray(R"({"type": "Dense", "units": 2})") << Shape{5} << Shape{3, 2, 5};
    QTest::newRow("conv2d channels") << QByteArray(R"({"type": "Conv2D", "filters": 2, "kernel_size": 3})")
                                     << Shape{6, 6, 3} << Shape{1, 6, 6, 1};
    QTest::newRow("maxpool") << QByteArray(R"({"type": "MaxPooling2D"})") << Shape{4, 4, 1} << Shape{2, 4, 5, 1};
    QTest::newRow("flatten") << QByteArray(R"({"type": "Flatten"})") << Shape{2, 3} << Shape{2, 3, 2};
    QTest::newRow("gap1d") << QByteArray(R"({"type": "GlobalAveragePooling1D"})") << Shape{4, 3}
                           << Shape{2, 3, 4};
    QTest::newRow("embedding") << QByteArray(R"({"type": "Embedding", "input_dim": 5, "output_dim": 2})")
                               << Shape{4} << Shape{2, 5};
    QTest::newRow("conv1d channels") << QByteArray(R"({"type": "Conv1D", "filters": 2, "kernel_size": 3})")
                                     << Shape{6, 3} << Shape{1, 6, 2};
    QTest::newRow("avgpool") << QByteArray(R"({"type": "AveragePooling2D"})") << Shape{4, 4, 1}
                             << Shape{2, 4, 5, 1};
    QTest::newRow("gap2d") << QByteArray(R"({"type": "GlobalAveragePooling2D"})") << Shape{4, 3, 2}
                           << Shape{2, 3, 4, 2};
    QTest::newRow("gmp1d") << QByteArray(R"({"type": "GlobalMaxPooling1D"})") << Shape{4, 3} << Shape{2, 4, 2};
    QTest::newRow("layer_norm") << QByteArray(R"({"type": "LayerNormalization"})") << Shape{4, 3}
                                << Shape{2, 4, 4};
    QTest::newRow("reshape") << QByteArray(R"({"type": "Reshape", "target_shape": [-1]})") << Shape{4, 3}
                             << Shape{2, 3, 4};
    QTest::newRow("zero_padding2d") << QByteArray(R"({"type": "ZeroPadding2D"})") << Shape{4, 4, 1}
                                    << Shape{2, 4, 4, 2};
    QTest::newRow("lstm features") << QByteArray(R"({"type": "LSTM", "units": 2})") << Shape{4, 3} << Shape{2, 4, 2};
    QTest::newRow("gru steps") << QByteArray(R"({"type": "GRU", "units": 2})") << Shape{4, 3} << Shape{2, 5, 3};
}

void TestLayerGradients::wrongInputShape()
{
    QFETCH(QByteArray, layer);
    QFETCH(Shape, inputShape);
    QFETCH(Shape, given);
    Rng rng(1);
    auto l = strata::nn::createLayer(layerSpec(layer), inputShape, rng);
    const Tensor x = Tensor::zeros(given);
    QVERIFY_THROWS_EXCEPTION(strata::ShapeError, l->forward(x, ForwardContext{}));
}

void TestLayerGradients::convolutionPaths_data()
{
    QTest::addColumn<QByteArray>("layer");
    QTest::addColumn<Shape>("inputShape");
    QTest::addColumn<QByteArray>("path");
    // Winograd needs AVX-512 in oneDNN 2.6: elsewhere the same layer runs the direct path.
    const QByteArray winograd = __builtin_cpu_supports("avx512f") ? "oneDNN Winograd" : "oneDNN direct";
    QTest::newRow("3x3, 32 to 64") << QByteArray(R"({"type": "Conv2D", "filters": 64, "kernel_size": 3})")
                                   << Shape{9, 9, 32} << winograd;
    QTest::newRow("3x3, 3 to 32 (too few channels for Winograd)")
        << QByteArray(R"({"type": "Conv2D", "filters": 32, "kernel_size": 3})") << Shape{9, 9, 3}
        << QByteArray("oneDNN direct");
    QTest::newRow("3x3, stride 2") << QByteArray(R"({"type": "Conv2D", "filters": 32, "kernel_size": 3, "strides": 2})")
                                   << Shape{9, 9, 32} << QByteArray("oneDNN direct");
    QTest::newRow("Conv1D") << QByteArray(R"({"type": "Conv1D", "filters": 16, "kernel_size": 3})") << Shape{12, 16}
                            << QByteArray("oneDNN direct");
}

// The path each convolution takes (docs/decisions.md, "Which convolution path"), after a step.
void TestLayerGradients::convolutionPaths()
{
    QFETCH(QByteArray, layer);
    QFETCH(Shape, inputShape);
    QFETCH(QByteArray, path);
    Rng rng(1);
    auto l = strata::nn::createLayer(layerSpec(layer), inputShape, rng);
    const Tensor x = gradcheck::toTensor(inputShape.withBatch(2), gradcheck::uniformValues(rng, 2 * inputShape.numel(), -1, 1));
    Tensor dy = Tensor::zeros(l->forward(x, ForwardContext{}).shape());
    l->backward(dy, true);
    QVERIFY(l->cpuPath());
    QCOMPARE(QByteArray(l->cpuPath()), path);
}

// In a model, a ReLU's derivative is applied by the MaxPooling2D after it (Sequential hands it
// on; the layer with the ReLU leaves it out), and an Activation layer's ReLU by the
// BatchNormalization before it: the model's outputs and gradients are the ones its layers give
// one by one, each doing its own work, which the rows above check.
void TestLayerGradients::activationGradientHandedOn()
{
    strata::schema::Problems problems;
    const auto spec = strata::schema::parseModel(Json::parse(R"({"input_shape": [10, 10, 16], "layers": [
        {"type": "Conv2D", "filters": 16, "kernel_size": 3, "activation": "relu"},
        {"type": "MaxPooling2D"},
        {"type": "Conv2D", "filters": 8, "kernel_size": 2, "use_bias": false},
        {"type": "BatchNormalization"},
        {"type": "Activation", "activation": "relu"},
        {"type": "MaxPooling2D", "pool_size": 2, "strides": 1},
        {"type": "BatchNormalization"},
        {"type": "Activation", "activation": "relu"},
        {"type": "Flatten"}, {"type": "Dense", "units": 3}]})"), "model", problems);
    QVERIFY(problems.empty());
    const uint64_t seed = 5;
    strata::nn::Sequential model(spec, seed);
    std::vector<std::unique_ptr<Layer>> layers;
    Shape shape = spec.inputShape;
    for (size_t i = 0; i < spec.layers.size(); ++i) {
        Rng rng(seed, i + 1); // Sequential's stream for layer i: the same weights
        layers.push_back(strata::nn::createLayer(spec.layers[i], shape, rng));
        shape = layers.back()->outputShape();
    }
    Rng rng(9);
    const Shape in = spec.inputShape.withBatch(3);
    const Tensor x = gradcheck::toTensor(in, gradcheck::uniformValues(rng, in.numel(), -1, 1));
    ForwardContext ctx;
    ctx.training = true;
    const Tensor& y = model.forward(x, ctx);
    Tensor current = x;
    for (auto& l : layers)
        current = l->forward(current, ctx);
    QCOMPARE(gradcheck::compare(gradcheck::toDouble(current), gradcheck::toDouble(y)).error, 0.0);

    const Values w = gradcheck::uniformValues(rng, y.numel(), -1, 1);
    Tensor dy = gradcheck::toTensor(y.shape(), w);
    model.backward(dy);
    Tensor grad = gradcheck::toTensor(y.shape(), w);
    for (size_t i = layers.size(); i-- > 0;)
        grad = layers[i]->backward(grad, i > 0);
    size_t k = 0;
    for (const auto& l : layers)
        for (const auto& p : l->parameters()) {
            const auto c = gradcheck::compare(gradcheck::toDouble(model.parameters()[k++]->grad), gradcheck::toDouble(p.grad));
            QVERIFY2(c.error == 0.0, (p.name + ": " + c.str()).c_str());
        }
    QCOMPARE(k, model.parameters().size());
}

QTEST_GUILESS_MAIN(TestLayerGradients)
#include "tst_layer_gradients.moc"
