// Losses: values against double-precision references of Keras' definitions, gradients
// against finite differences, gradScale, the sum-over-batch contract, errors, and the
// softmax/sigmoid fusion of Sequential::fuseOutputActivation.

#include "gradcheck.h"
#include "reference_ops.h"

#include "strata/core/error.h"
#include "strata/nn/loss.h"
#include "strata/nn/sequential.h"
#include "strata/schema/model_spec.h"

#include <QTest>

#include <cmath>
#include <limits>

Q_DECLARE_METATYPE(strata::Shape)

namespace {

using reference::Values;
using strata::Rng;
using strata::Shape;
using strata::Tensor;
using strata::nn::Loss;
using strata::schema::LossSpec;

constexpr double kValueTolerance = 1e-5;
constexpr double kGradientTolerance = 1e-4;
constexpr double kEps = 1e-5;

// Targets have the predictions' shape, except sparse labels: one per row of the last axis.
Shape targetShapeFor(const std::string& type, const Shape& pred)
{
    if (type != "sparse_categorical_crossentropy")
        return pred;
    std::vector<int64_t> d = pred.dims();
    d.pop_back();
    return Shape(d);
}

// The reference loss (sum over the batch of per-example losses).
double referenceLoss(const std::string& type, bool fromLogits, const Values& pred, const Values& target,
                     const Shape& predShape)
{
    const int64_t batch = predShape[0];
    const int64_t classes = predShape.back();
    if (type == "mse")
        return reference::mse(pred, target, batch);
    if (type == "sparse_categorical_crossentropy")
        return reference::sparseCategoricalCrossentropy(pred, std::vector<int64_t>(target.begin(), target.end()),
                                                        classes, fromLogits, batch);
    if (type == "categorical_crossentropy")
        return reference::categoricalCrossentropy(pred, target, classes, fromLogits, batch);
    if (type == "binary_crossentropy")
        return reference::binaryCrossentropy(pred, target, fromLogits, batch);
    throw std::invalid_argument(type);
}

// Predictions: logits in [-3, 3]; probabilities either normalized rows (a softmax) or, with
// `variant` "unnormalized", values in [0.05, 1] that Keras renormalizes; binary
// probabilities in [0.05, 0.95]; mse values in [-2, 2].
Values drawPredictions(const std::string& type, bool fromLogits, const QString& variant, const Shape& shape,
                       Rng& rng)
{
    const size_t n = static_cast<size_t>(shape.numel());
    if (type == "mse")
        return gradcheck::uniformValues(rng, n, -2, 2);
    if (fromLogits)
        return gradcheck::uniformValues(rng, n, -3, 3);
    if (type == "binary_crossentropy")
        return gradcheck::uniformValues(rng, n, 0.05, 0.95);
    if (variant == "unnormalized")
        return gradcheck::uniformValues(rng, n, 0.05, 1.0);
    Values p = gradcheck::uniformValues(rng, n, -2, 2);
    reference::activate("softmax", p, shape.back());
    for (double& v : p)
        v = static_cast<float>(v);
    return p;
}

// Targets: class indices; one-hot rows or (variant "soft") rows of positive weights summing to
// 1; binary 0/1 or (variant "soft") values in [0, 1]; mse values in [-1, 1].
Values drawTargets(const std::string& type, const QString& variant, const Shape& predShape, Rng& rng)
{
    const int64_t classes = predShape.back();
    const size_t rows = static_cast<size_t>(predShape.numel() / classes);
    Values t;
    if (type == "mse")
        return gradcheck::uniformValues(rng, static_cast<size_t>(predShape.numel()), -1, 1);
    if (type == "sparse_categorical_crossentropy") {
        for (size_t r = 0; r < rows; ++r)
            t.push_back(static_cast<double>(rng.below(static_cast<uint64_t>(classes))));
        return t;
    }
    if (type == "binary_crossentropy") {
        for (int64_t i = 0; i < predShape.numel(); ++i)
            t.push_back(variant == "soft" ? static_cast<float>(rng.uniform()) : static_cast<double>(rng.below(2)));
        return t;
    }
    for (size_t r = 0; r < rows; ++r) {
        Values row(static_cast<size_t>(classes), 0.0);
        if (variant == "soft") {
            Values raw = gradcheck::uniformValues(rng, row.size(), 0.1, 1.0);
            double s = 0;
            for (double v : raw)
                s += v;
            for (size_t j = 0; j < row.size(); ++j)
                row[j] = static_cast<float>(raw[j] / s);
        } else {
            row[rng.below(static_cast<uint64_t>(classes))] = 1.0;
        }
        t.insert(t.end(), row.begin(), row.end());
    }
    return t;
}

// Example `b` of a batched tensor, as a batch of one.
Tensor example(const Tensor& t, int64_t b)
{
    const int64_t per = t.numel() / t.dim(0);
    std::vector<int64_t> d = t.shape().dims();
    d[0] = 1;
    Tensor out{Shape(d)};
    std::copy(t.data() + b * per, t.data() + (b + 1) * per, out.data());
    return out;
}

std::unique_ptr<Loss> makeLoss(const QString& type, bool fromLogits)
{
    return strata::nn::createLoss(LossSpec{type.toStdString(), fromLogits}, fromLogits);
}

double relativeDifference(double a, double b) { return std::fabs(a - b) / std::max(std::fabs(b), 1e-300); }

strata::schema::ModelSpec parseModel(const char* json)
{
    strata::schema::Problems problems;
    auto model = strata::schema::parseModel(strata::schema::Json::parse(json), "", problems);
    problems.throwIfAny();
    return model;
}

} // namespace

class TestLossGradients : public QObject {
    Q_OBJECT

private slots:
    void valueAndGradient_data();
    void valueAndGradient();
    void clipping();
    void extremeLogits();
    void errors_data();
    void errors();
    void fusedOutputActivation_data();
    void fusedOutputActivation();
    void noFusionWithoutMatchingLoss();
};

void TestLossGradients::valueAndGradient_data()
{
    QTest::addColumn<QString>("type");
    QTest::addColumn<bool>("fromLogits");
    QTest::addColumn<Shape>("predShape");
    QTest::addColumn<QString>("variant");

    QTest::newRow("mse/(4,3)") << "mse" << false << Shape{4, 3} << "";
    QTest::newRow("mse/(2,3,2)") << "mse" << false << Shape{2, 3, 2} << "";
    QTest::newRow("mse/(5,1)") << "mse" << false << Shape{5, 1} << "";

    const QString sparse = "sparse_categorical_crossentropy";
    QTest::newRow("sparse/logits/(5,4)") << sparse << true << Shape{5, 4} << "";
    QTest::newRow("sparse/logits/(2,3,4)") << sparse << true << Shape{2, 3, 4} << "";
    QTest::newRow("sparse/probs/(5,4)") << sparse << false << Shape{5, 4} << "";
    QTest::newRow("sparse/probs/unnormalized/(5,4)") << sparse << false << Shape{5, 4} << "unnormalized";
    QTest::newRow("sparse/probs/(2,3,4)") << sparse << false << Shape{2, 3, 4} << "";

    const QString categorical = "categorical_crossentropy";
    QTest::newRow("categorical/logits/one-hot") << categorical << true << Shape{5, 4} << "";
    QTest::newRow("categorical/logits/soft") << categorical << true << Shape{5, 4} << "soft";
    QTest::newRow("categorical/logits/(2,3,4)") << categorical << true << Shape{2, 3, 4} << "";
    QTest::newRow("categorical/probs/one-hot") << categorical << false << Shape{5, 4} << "";
    QTest::newRow("categorical/probs/soft") << categorical << false << Shape{5, 4} << "soft";
    QTest::newRow("categorical/probs/unnormalized") << categorical << false << Shape{5, 4} << "unnormalized";
    QTest::newRow("categorical/probs/(2,3,4)") << categorical << false << Shape{2, 3, 4} << "";

    const QString binary = "binary_crossentropy";
    QTest::newRow("binary/logits/(4,3)") << binary << true << Shape{4, 3} << "";
    QTest::newRow("binary/logits/(6,1)") << binary << true << Shape{6, 1} << "";
    QTest::newRow("binary/logits/soft") << binary << true << Shape{4, 3} << "soft";
    QTest::newRow("binary/logits/(2,3,2)") << binary << true << Shape{2, 3, 2} << "";
    QTest::newRow("binary/probs/(4,3)") << binary << false << Shape{4, 3} << "";
    QTest::newRow("binary/probs/soft") << binary << false << Shape{4, 3} << "soft";
    QTest::newRow("binary/probs/(2,3,2)") << binary << false << Shape{2, 3, 2} << "";
}

void TestLossGradients::valueAndGradient()
{
    QFETCH(QString, type);
    QFETCH(bool, fromLogits);
    QFETCH(Shape, predShape);
    QFETCH(QString, variant);
    const std::string t = type.toStdString();

    Rng rng(11);
    const Values p = drawPredictions(t, fromLogits, variant, predShape, rng);
    const Shape targetShape = targetShapeFor(t, predShape);
    const Values y = drawTargets(t, variant, predShape, rng);
    const Tensor pred = gradcheck::toTensor(predShape, p);
    const Tensor target = gradcheck::toTensor(targetShape, y);

    auto loss = makeLoss(type, fromLogits);
    QCOMPARE(loss->name(), t.c_str());
    QCOMPARE(loss->fromLogits(), fromLogits && t != "mse");

    // Value.
    Tensor grad(predShape);
    const double value = loss->compute(pred, target, &grad, 1.0f);
    const double expected = referenceLoss(t, fromLogits, p, y, predShape);
    QVERIFY2(relativeDifference(value, expected) <= kValueTolerance,
             qPrintable(QString("%1 vs reference %2").arg(value, 0, 'g', 10).arg(expected, 0, 'g', 10)));
    QCOMPARE(loss->compute(pred, target, nullptr, 1.0f), value);

    // Gradient against finite differences of the reference.
    const auto f = [&](const Values& pv) { return referenceLoss(t, fromLogits, pv, y, predShape); };
    const Values g = gradcheck::toDouble(grad);
    const auto c = gradcheck::compare(g, gradcheck::numericGradient(f, p, kEps));
    QVERIFY2(c.error <= kGradientTolerance, c.str().c_str());

    // gradScale scales the gradient only.
    for (float scale : {0.125f, 1.0f / 3.0f, 4.0f}) {
        Tensor scaled(predShape);
        QVERIFY(relativeDifference(loss->compute(pred, target, &scaled, scale), value) <= 1e-12);
        Values expectedScaled = g;
        for (double& v : expectedScaled)
            v *= scale;
        const auto cs = gradcheck::compare(gradcheck::toDouble(scaled), expectedScaled);
        QVERIFY2(cs.error <= 1e-5, ("scale " + std::to_string(scale) + ": " + cs.str()).c_str());
    }

    // The value is the sum over the batch of per-example losses, and each example's gradient
    // is the one it gets alone.
    double sum = 0;
    for (int64_t b = 0; b < predShape[0]; ++b) {
        const Tensor pb = example(pred, b);
        Tensor gb(pb.shape());
        sum += loss->compute(pb, example(target, b), &gb, 1.0f);
        const Values slice(g.begin() + b * pb.numel(), g.begin() + (b + 1) * pb.numel());
        const auto cb = gradcheck::compare(gradcheck::toDouble(gb), slice);
        QVERIFY2(cb.error <= 1e-6, ("example " + std::to_string(b) + ": " + cb.str()).c_str());
    }
    QVERIFY2(relativeDifference(sum, value) <= 1e-6,
             qPrintable(QString("sum of examples %1, batch %2").arg(sum, 0, 'g', 10).arg(value, 0, 'g', 10)));
}

// Probabilities outside [eps, 1 - eps] are clipped (Keras): the loss stays finite and the
// clipped entries get no gradient.
void TestLossGradients::clipping()
{
    const double eps = 1e-7;
    {
        auto loss = makeLoss("sparse_categorical_crossentropy", false);
        const Tensor pred = gradcheck::toTensor({2, 3}, {1e-9, 0.5, 0.75, 0.0, 0.5, 0.25});
        const Tensor labels = gradcheck::toTensor({2}, {1, 0});
        Tensor grad({2, 3});
        const double v = loss->compute(pred, labels, &grad, 1.0f);
        const double s0 = eps + 0.5 + 0.75, s1 = eps + 0.5 + 0.25;
        const double expected = -std::log(0.5 / s0) - std::log(eps / s1);
        QVERIFY2(relativeDifference(v, expected) <= 1e-5, qPrintable(QString::number(v)));
        QCOMPARE(grad.data()[0], 0.0f); // clipped: no gradient
        QCOMPARE(grad.data()[3], 0.0f); // clipped label entry: no gradient
        QVERIFY(std::fabs(grad.data()[1] - (1 / s0 - 1 / 0.5)) <= 1e-6);
        QVERIFY(std::fabs(grad.data()[4] - 1 / s1) <= 1e-6);
    }
    {
        auto loss = makeLoss("binary_crossentropy", false);
        const Tensor pred = gradcheck::toTensor({2, 2}, {0.0, 1.0, 0.5, 1.0});
        const Tensor target = gradcheck::toTensor({2, 2}, {1, 0, 1, 1});
        Tensor grad({2, 2});
        const double v = loss->compute(pred, target, &grad, 1.0f);
        // Per example, mean over its 2 values. The bounds are float32 values, as in Keras: the
        // upper one, 1 - 1e-7 rounded to float, is 1 - 2^-23, so log(1 - q) there is log(2^-23).
        const double upper = static_cast<double>(1.0f - 1e-7f);
        const double expected = (-std::log(eps) - std::log(1 - upper)) / 2 + (-std::log(0.5) - std::log(upper)) / 2;
        QVERIFY2(relativeDifference(v, expected) <= 1e-5, qPrintable(QString::number(v)));
        QCOMPARE(grad.data()[0], 0.0f);
        QCOMPARE(grad.data()[1], 0.0f);
        QCOMPARE(grad.data()[3], 0.0f);
        QVERIFY(std::fabs(grad.data()[2] - (-1 / 0.5 / 2)) <= 1e-6);
    }
    {
        auto loss = makeLoss("categorical_crossentropy", false);
        const Tensor pred = gradcheck::toTensor({1, 3}, {0.0, 0.25, 0.75});
        const Tensor target = gradcheck::toTensor({1, 3}, {1, 0, 0});
        Tensor grad({1, 3});
        const double v = loss->compute(pred, target, &grad, 1.0f);
        QVERIFY2(relativeDifference(v, -std::log(eps)) <= 1e-5, qPrintable(QString::number(v)));
        for (int j = 0; j < 3; ++j)
            QVERIFY(std::isfinite(grad.data()[j]));
        QCOMPARE(grad.data()[0], 0.0f);
    }
}

// From logits, any magnitude works (no overflow in exp).
void TestLossGradients::extremeLogits()
{
    {
        auto loss = makeLoss("sparse_categorical_crossentropy", true);
        const Tensor logits = gradcheck::toTensor({1, 3}, {1000, -1000, 0});
        Tensor grad({1, 3});
        const double v = loss->compute(logits, gradcheck::toTensor({1}, {1}), &grad, 1.0f);
        QVERIFY(relativeDifference(v, 2000) <= 1e-6);
        QVERIFY(std::fabs(grad.data()[0] - 1) <= 1e-6);
        QVERIFY(std::fabs(grad.data()[1] + 1) <= 1e-6);
        QVERIFY(std::fabs(grad.data()[2]) <= 1e-6);
    }
    {
        auto loss = makeLoss("categorical_crossentropy", true);
        const Tensor logits = gradcheck::toTensor({1, 3}, {1000, 1001, 999});
        Tensor grad({1, 3});
        const double v = loss->compute(logits, gradcheck::toTensor({1, 3}, {0, 1, 0}), &grad, 1.0f);
        const double lse = 1001 + std::log(std::exp(-1.0) + 1 + std::exp(-2.0));
        QVERIFY(std::fabs(v - (lse - 1001)) <= 1e-5);
        for (int j = 0; j < 3; ++j)
            QVERIFY(std::isfinite(grad.data()[j]));
    }
    {
        auto loss = makeLoss("binary_crossentropy", true);
        const Tensor logits = gradcheck::toTensor({1, 2}, {100, -100});
        Tensor grad({1, 2});
        const double v = loss->compute(logits, gradcheck::toTensor({1, 2}, {0, 0}), &grad, 1.0f);
        QVERIFY(relativeDifference(v, 50) <= 1e-6); // (100 + ~0) / 2
        QVERIFY(std::fabs(grad.data()[0] - 0.5) <= 1e-6);
        QVERIFY(std::fabs(grad.data()[1]) <= 1e-6);
    }
}

void TestLossGradients::errors_data()
{
    QTest::addColumn<QString>("type");
    QTest::addColumn<bool>("fromLogits");
    QTest::addColumn<Shape>("predShape");
    QTest::addColumn<Shape>("targetShape");
    QTest::addColumn<double>("badLabel"); // written into the first target when not 0

    const QString sparse = "sparse_categorical_crossentropy";
    for (bool logits : {false, true}) {
        const QByteArray tag = logits ? "/logits" : "/probs";
        QTest::newRow("sparse/label -1" + tag) << sparse << logits << Shape{4, 3} << Shape{4} << -1.0;
        QTest::newRow("sparse/label = classes" + tag) << sparse << logits << Shape{4, 3} << Shape{4} << 3.0;
        QTest::newRow("sparse/label 1.5" + tag) << sparse << logits << Shape{4, 3} << Shape{4} << 1.5;
        QTest::newRow("sparse/label NaN" + tag)
            << sparse << logits << Shape{4, 3} << Shape{4} << std::numeric_limits<double>::quiet_NaN();
        QTest::newRow("sparse/too many labels" + tag) << sparse << logits << Shape{4, 3} << Shape{5} << 0.0;
        QTest::newRow("sparse/one-hot targets" + tag) << sparse << logits << Shape{4, 3} << Shape{4, 3} << 0.0;
        QTest::newRow("categorical/(4,3) vs (4,4)" + tag)
            << "categorical_crossentropy" << logits << Shape{4, 3} << Shape{4, 4} << 0.0;
        QTest::newRow("categorical/(4,3) vs (3,4)" + tag)
            << "categorical_crossentropy" << logits << Shape{4, 3} << Shape{3, 4} << 0.0;
        QTest::newRow("categorical/sparse labels" + tag)
            << "categorical_crossentropy" << logits << Shape{4, 3} << Shape{4} << 0.0;
        QTest::newRow("binary/(4,2) vs (4,3)" + tag)
            << "binary_crossentropy" << logits << Shape{4, 2} << Shape{4, 3} << 0.0;
    }
    QTest::newRow("mse/(4,3) vs (4,2)") << "mse" << false << Shape{4, 3} << Shape{4, 2} << 0.0;
    QTest::newRow("mse/(4,3) vs (5,3)") << "mse" << false << Shape{4, 3} << Shape{5, 3} << 0.0;
}

void TestLossGradients::errors()
{
    QFETCH(QString, type);
    QFETCH(bool, fromLogits);
    QFETCH(Shape, predShape);
    QFETCH(Shape, targetShape);
    QFETCH(double, badLabel);
    auto loss = makeLoss(type, fromLogits);
    const Tensor pred = Tensor::full(predShape, 0.25f);
    Tensor target = Tensor::zeros(targetShape);
    target.data()[0] = static_cast<float>(badLabel);
    Tensor grad(predShape);
    QVERIFY_THROWS_EXCEPTION(strata::ShapeError, loss->compute(pred, target, &grad, 1.0f));
    QVERIFY_THROWS_EXCEPTION(strata::ShapeError, loss->compute(pred, target, nullptr, 1.0f));
}

void TestLossGradients::fusedOutputActivation_data()
{
    QTest::addColumn<QString>("type");
    QTest::addColumn<QString>("activation");
    QTest::newRow("sparse_categorical_crossentropy + softmax") << "sparse_categorical_crossentropy" << "softmax";
    QTest::newRow("categorical_crossentropy + softmax") << "categorical_crossentropy" << "softmax";
    QTest::newRow("binary_crossentropy + sigmoid") << "binary_crossentropy" << "sigmoid";
}

// A softmax (sigmoid) output with the matching cross-entropy on probabilities gives the same
// loss and parameter gradients whether the model fuses the activation into the loss (logits)
// or goes through the activation.
void TestLossGradients::fusedOutputActivation()
{
    QFETCH(QString, type);
    QFETCH(QString, activation);
    const std::string json = R"({"input_shape": [6], "layers": [
        {"type": "Dense", "units": 8, "activation": "tanh"},
        {"type": "Dense", "units": 4, "activation": ")" + activation.toStdString() + R"("}]})";
    const auto spec = parseModel(json.c_str());
    strata::nn::Sequential unfused(spec, 7);
    strata::nn::Sequential fused(spec, 7);
    const LossSpec lossSpec{type.toStdString(), false};
    QVERIFY(fused.fuseOutputActivation(lossSpec));

    const int64_t batch = 5;
    Rng rng(21);
    const Tensor x = gradcheck::toTensor({batch, 6}, gradcheck::uniformValues(rng, batch * 6, -1.5, 1.5));
    const Values y = drawTargets(type.toStdString(), "", Shape{batch, 4}, rng);
    const Tensor target = gradcheck::toTensor(targetShapeFor(type.toStdString(), {batch, 4}), y);
    const strata::nn::ForwardContext ctx{true, 1, 0};
    const float scale = 1.0f / static_cast<float>(batch);

    auto probsLoss = strata::nn::createLoss(lossSpec, false);
    const Tensor& probs = unfused.forward(x, ctx);
    Tensor probsGrad(probs.shape());
    const double probsValue = probsLoss->compute(probs, target, &probsGrad, scale);
    unfused.backward(probsGrad);

    auto logitsLoss = strata::nn::createLoss(lossSpec, true);
    QVERIFY(logitsLoss->fromLogits());
    const Tensor& logits = fused.forward(x, ctx);
    Tensor logitsGrad(logits.shape());
    const double logitsValue = logitsLoss->compute(logits, target, &logitsGrad, scale);
    fused.backward(logitsGrad);

    QVERIFY2(relativeDifference(probsValue, logitsValue) <= 1e-5,
             qPrintable(QString("%1 vs %2").arg(probsValue, 0, 'g', 10).arg(logitsValue, 0, 'g', 10)));
    // finishPredictions turns the fused model's logits into the same probabilities.
    Tensor predictions = logits.clone();
    fused.finishPredictions(predictions);
    const auto cp = gradcheck::compare(gradcheck::toDouble(predictions), gradcheck::toDouble(probs), 1.0);
    QVERIFY2(cp.error <= 1e-6, cp.str().c_str());
    QCOMPARE(fused.parameters().size(), unfused.parameters().size());
    for (size_t i = 0; i < fused.parameters().size(); ++i) {
        const auto c = gradcheck::compare(gradcheck::toDouble(fused.parameters()[i]->grad),
                                          gradcheck::toDouble(unfused.parameters()[i]->grad));
        QVERIFY2(c.error <= 1e-5, (fused.parameters()[i]->name + ": " + c.str()).c_str());
    }
}

// Nothing to fuse when the loss does not match the output activation.
void TestLossGradients::noFusionWithoutMatchingLoss()
{
    const auto spec = parseModel(R"({"input_shape": [3], "layers": [{"type": "Dense", "units": 4, "activation": "softmax"}]})");
    for (const char* type : {"mse", "binary_crossentropy"}) {
        strata::nn::Sequential model(spec, 1);
        QVERIFY(!model.fuseOutputActivation(LossSpec{type, false}));
        const Tensor& out = model.forward(Tensor::full({2, 3}, 0.5f), {});
        QVERIFY(std::fabs(out.data()[0] + out.data()[1] + out.data()[2] + out.data()[3] - 1.0f) <= 1e-6f);
    }
    const auto sigmoid = parseModel(R"({"input_shape": [3], "layers": [{"type": "Dense", "units": 2, "activation": "sigmoid"}]})");
    strata::nn::Sequential model(sigmoid, 1);
    QVERIFY(!model.fuseOutputActivation(LossSpec{"sparse_categorical_crossentropy", false}));
    const Tensor& out = model.forward(Tensor::full({1, 3}, 100.0f), {});
    QVERIFY(out.data()[0] >= 0.0f && out.data()[0] <= 1.0f);
}

QTEST_GUILESS_MAIN(TestLossGradients)
#include "tst_loss_gradients.moc"
