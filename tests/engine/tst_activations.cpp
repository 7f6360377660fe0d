// Activation functions: values against std:: math in double, numerical stability at large
// magnitudes, and backward against finite differences.

#include "gradcheck.h"
#include "reference_ops.h"

#include "strata/core/error.h"
#include "strata/nn/activation.h"

#include <QTest>

#include <cmath>

namespace {

using reference::Values;
using strata::nn::Activation;

std::vector<float> toFloat(const Values& v) { return std::vector<float>(v.begin(), v.end()); }
Values toDouble(const std::vector<float>& v) { return Values(v.begin(), v.end()); }

// The engine's forward of `a` on rows of `cols` values.
std::vector<float> forward(Activation a, const Values& x, int64_t cols)
{
    std::vector<float> y = toFloat(x);
    strata::nn::activationForward(a, y.data(), static_cast<int64_t>(y.size()) / cols, cols);
    return y;
}

// The same function from std:: math, element by element (softmax: by row, without shifting).
double expected(Activation a, double x)
{
    switch (a) {
    case Activation::Linear: return x;
    case Activation::Relu: return x > 0 ? x : 0;
    case Activation::Sigmoid: return 1 / (1 + std::exp(-x));
    case Activation::Tanh: return std::tanh(x);
    case Activation::Softmax: break;
    }
    return NAN;
}

// max_i |a_i - e_i| / |e_i|: a true relative error, also for tiny values.
double relativeError(const Values& actual, const Values& expectedValues)
{
    double worst = 0;
    for (size_t i = 0; i < actual.size(); ++i) {
        const double d = std::fabs(actual[i] - expectedValues[i]);
        const double e = expectedValues[i] == 0 ? d : d / std::fabs(expectedValues[i]);
        worst = std::max(worst, std::isnan(e) ? INFINITY : e);
    }
    return worst;
}

} // namespace

class TestActivations : public QObject {
    Q_OBJECT

private slots:
    void elementwise_data();
    void elementwise();
    void softmax();
    void softmaxLargeInputs();
    void saturation();
    void backward_data();
    void backward();
    void reluGradientAtZero();
    void names();
};

void TestActivations::elementwise_data()
{
    QTest::addColumn<int>("activation");
    QTest::newRow("linear") << int(Activation::Linear);
    QTest::newRow("relu") << int(Activation::Relu);
    QTest::newRow("sigmoid") << int(Activation::Sigmoid);
    QTest::newRow("tanh") << int(Activation::Tanh);
}

void TestActivations::elementwise()
{
    QFETCH(int, activation);
    const auto a = static_cast<Activation>(activation);
    const Values x = {-30, -10, -3, -1, -0.5, -1e-3, -1e-6, 0, 1e-6, 1e-3, 0.5, 1, 3, 10, 30};
    Values rounded;
    for (double v : x)
        rounded.push_back(static_cast<float>(v));
    const Values y = toDouble(forward(a, rounded, 5));
    Values e;
    for (double v : rounded)
        e.push_back(expected(a, v));
    const double err = relativeError(y, e);
    QVERIFY2(err <= 1e-6, qPrintable(QString::number(err)));
}

void TestActivations::softmax()
{
    strata::Rng rng(3);
    const int64_t cols = 7;
    const Values x = gradcheck::uniformValues(rng, 5 * cols, -5, 5);
    const Values y = toDouble(forward(Activation::Softmax, x, cols));
    for (int64_t r = 0; r < 5; ++r) {
        double sum = 0, expSum = 0;
        for (int64_t j = 0; j < cols; ++j)
            expSum += std::exp(x[static_cast<size_t>(r * cols + j)]);
        for (int64_t j = 0; j < cols; ++j) {
            const size_t i = static_cast<size_t>(r * cols + j);
            sum += y[i];
            const double e = std::exp(x[i]) / expSum;
            QVERIFY2(std::fabs(y[i] - e) <= 1e-6 * e, qPrintable(QString("%1 vs %2").arg(y[i]).arg(e)));
            QVERIFY(y[i] > 0);
        }
        QVERIFY2(std::fabs(sum - 1) <= 1e-6, qPrintable(QString::number(sum - 1)));
    }
    // A single column is 1; equal values are uniform.
    QCOMPARE(forward(Activation::Softmax, {3.5, -2.0}, 1), (std::vector<float>{1.0f, 1.0f}));
    for (float v : forward(Activation::Softmax, {2, 2, 2, 2}, 4))
        QCOMPARE(v, 0.25f);
}

// exp(1000) overflows (float and double): softmax must shift by the row maximum.
void TestActivations::softmaxLargeInputs()
{
    const Values shifted = toDouble(forward(Activation::Softmax, {1, 2, 0}, 3));
    const Values large = toDouble(forward(Activation::Softmax, {1000, 1001, 999}, 3));
    const Values negative = toDouble(forward(Activation::Softmax, {-999, -998, -1000}, 3));
    const double e = std::exp(1.0) / (1 + std::exp(1.0) + std::exp(-1.0)); // softmax(0, 1, -1)[1]
    for (const Values* v : {&shifted, &large, &negative}) {
        for (double p : *v)
            QVERIFY(std::isfinite(p));
        QVERIFY(std::fabs((*v)[1] - e) <= 1e-6);
        QVERIFY(std::fabs((*v)[0] + (*v)[1] + (*v)[2] - 1) <= 1e-6);
    }
    const Values extreme = toDouble(forward(Activation::Softmax, {1000, -1000, 0}, 3));
    QCOMPARE(extreme, (Values{1, 0, 0}));
    // Backward stays finite too.
    std::vector<float> y = toFloat(large);
    std::vector<float> g = {1, -1, 0.5};
    strata::nn::activationBackward(Activation::Softmax, y.data(), g.data(), 1, 3);
    for (float v : g)
        QVERIFY(std::isfinite(v));
}

// Sigmoid and tanh saturate cleanly: no overflow, no NaN, values within [0, 1] / [-1, 1].
void TestActivations::saturation()
{
    const Values x = {-1000, -100, -88, 88, 100, 1000};
    const Values s = toDouble(forward(Activation::Sigmoid, x, 6));
    for (size_t i = 0; i < x.size(); ++i) {
        QVERIFY2(std::isfinite(s[i]) && s[i] >= 0 && s[i] <= 1, qPrintable(QString::number(s[i])));
        if (x[i] < 0)
            QVERIFY(s[i] <= 1e-38);
        else
            QCOMPARE(s[i], 1.0);
    }
    const Values t = toDouble(forward(Activation::Tanh, x, 6));
    QCOMPARE(t, (Values{-1, -1, -1, 1, 1, 1}));
}

void TestActivations::backward_data()
{
    QTest::addColumn<int>("activation");
    QTest::addColumn<int>("cols");
    QTest::newRow("linear") << int(Activation::Linear) << 4;
    QTest::newRow("relu") << int(Activation::Relu) << 4;
    QTest::newRow("sigmoid") << int(Activation::Sigmoid) << 4;
    QTest::newRow("tanh") << int(Activation::Tanh) << 4;
    QTest::newRow("softmax") << int(Activation::Softmax) << 4;
    QTest::newRow("softmax/1 column") << int(Activation::Softmax) << 1;
    QTest::newRow("softmax/10 columns") << int(Activation::Softmax) << 10;
}

// activationBackward(y, dL/dy) gives dL/dx: against finite differences of L = sum w_i f(x)_i.
void TestActivations::backward()
{
    QFETCH(int, activation);
    QFETCH(int, cols);
    const auto a = static_cast<Activation>(activation);
    const std::string name = strata::nn::activationName(a);
    strata::Rng rng(8);
    const size_t n = static_cast<size_t>(6 * cols);
    const Values x = a == Activation::Relu ? gradcheck::signedValues(rng, n, 0.1, 3) : gradcheck::uniformValues(rng, n, -3, 3);
    const Values w = gradcheck::uniformValues(rng, n, -1, 1);
    const std::vector<float> y = forward(a, x, cols);
    std::vector<float> g = toFloat(w);
    strata::nn::activationBackward(a, y.data(), g.data(), 6, cols);

    const auto loss = [&](const Values& xv) {
        Values yv = xv;
        reference::activate(name, yv, cols);
        return gradcheck::dot(w, yv);
    };
    const auto c = gradcheck::compare(toDouble(g), gradcheck::numericGradient(loss, x, 1e-4));
    QVERIFY2(c.error <= 1e-4, c.str().c_str());
}

// Keras (TensorFlow) takes relu'(0) = 0.
void TestActivations::reluGradientAtZero()
{
    const std::vector<float> y = forward(Activation::Relu, {0, -1, 2}, 3);
    std::vector<float> g = {5, 5, 5};
    strata::nn::activationBackward(Activation::Relu, y.data(), g.data(), 1, 3);
    QCOMPARE(g, (std::vector<float>{0, 0, 5}));
}

void TestActivations::names()
{
    for (const char* name : {"linear", "relu", "sigmoid", "tanh", "softmax"})
        QCOMPARE(strata::nn::activationName(strata::nn::parseActivation(name)), name);
    QVERIFY_THROWS_EXCEPTION(strata::ConfigError, strata::nn::parseActivation("gelu"));
}

QTEST_GUILESS_MAIN(TestActivations)
#include "tst_activations.moc"
