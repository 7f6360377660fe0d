// Optimizers against Keras' update rules written out in double, hand-computed values,
// Keras' defaults, slot names and resuming from saved slots.
//

#include "strata/core/error.h"
#include "strata/nn/optimizer.h"
#include "strata/schema/experiment.h"

#include <QTest>

#include <cmath>
#include <map>

Q_DECLARE_METATYPE(strata::schema::OptimizerSpec)

namespace {

using strata::Tensor;
using strata::nn::Parameter;
using strata::schema::OptimizerSpec;

using Values = std::vector<double>;

// Initial weights (|w| <= 0.5, so float rounding of w stays far below the updates) and three
// steps of gradients per parameter, with a zero and sign changes.
const Values kKernel0 = {0.5, -0.3, 0.1, -0.45};
const Values kBias0 = {0.0, 0.25};
const std::vector<Values> kKernelGrads = {{0.1, -0.2, 0.0, 1.5}, {0.12, 0.05, 0.3, 1.2}, {-0.08, -0.2, 0.0, 0.9}};
const std::vector<Values> kBiasGrads = {{0.3, 0.01}, {0.25, -0.02}, {0.2, 0.0}};

Tensor tensor(const Values& v)
{
    Tensor t({static_cast<int64_t>(v.size())});
    for (size_t i = 0; i < v.size(); ++i)
        t.data()[i] = static_cast<float>(v[i]);
    return t;
}

Values values(const Tensor& t) { return Values(t.values().begin(), t.values().end()); }

Parameter parameter(const std::string& name, const Values& v)
{
    return Parameter{name, tensor(v), Tensor::zeros({static_cast<int64_t>(v.size())}), "zeros", 0};
}

// One weight's state under Keras' rules, in double.
struct KerasState {
    double w = 0;
    std::map<std::string, double> slotValues; // by Keras' slot names
};

// Keras' update of one weight at step t (counting from 1), written out from the Keras
// optimizers (SGD, Adam, RMSprop).
void kerasStep(const OptimizerSpec& o, int64_t t, double g, KerasState& s)
{
    const double lr = o.learningRate;
    if (o.type == "sgd") {
        if (o.momentum == 0) {
            s.w -= lr * g;
            return;
        }
        double& m = s.slotValues["momentum"];
        m = o.momentum * m - lr * g;
        s.w += o.nesterov ? o.momentum * m - lr * g : m;
    } else if (o.type == "adam") {
        double& m = s.slotValues["m"];
        double& v = s.slotValues["v"];
        m = o.beta1 * m + (1 - o.beta1) * g;
        v = o.beta2 * v + (1 - o.beta2) * g * g;
        const double td = static_cast<double>(t);
        const double alpha = lr * std::sqrt(1 - std::pow(o.beta2, td)) / (1 - std::pow(o.beta1, td));
        s.w -= alpha * m / (std::sqrt(v) + o.epsilon);
    } else if (o.type == "rmsprop") {
        double& v = s.slotValues["velocity"];
        v = o.rho * v + (1 - o.rho) * g * g;
        double denominator = v + o.epsilon;
        if (o.centered) {
            double& mg = s.slotValues["average_gradient"];
            mg = o.rho * mg + (1 - o.rho) * g;
            denominator = v - mg * mg + o.epsilon;
        }
        const double increment = lr * g / std::sqrt(denominator);
        if (o.momentum > 0) {
            double& m = s.slotValues["momentum"];
            m = o.momentum * m + increment;
            s.w -= m;
        } else {
            s.w -= increment;
        }
    }
}

OptimizerSpec optimizerSpec(const std::string& type, double lr)
{
    OptimizerSpec o;
    o.type = type;
    o.learningRate = lr;
    return o;
}

// |actual - expected| relative to the largest move of the weights from where they started.
double moveError(const Values& actual, const Values& expected, const Values& start)
{
    double largest = 0, worst = 0;
    for (size_t i = 0; i < start.size(); ++i)
        largest = std::max(largest, std::fabs(expected[i] - start[i]));
    for (size_t i = 0; i < start.size(); ++i)
        worst = std::max(worst, std::fabs(actual[i] - expected[i]) / largest);
    return worst;
}

strata::schema::Experiment experimentWithOptimizer(const strata::schema::Json& optimizer)
{
    const strata::schema::Json document = {
        {"model", {{"input_shape", {2}}, {"layers", {{{"type", "Dense"}, {"units", 1}}}}}},
        {"data", {{"source", {{"type", "synthetic"}}}}},
        {"training", {{"optimizer", optimizer}, {"loss", "mse"}}}};
    return strata::schema::parseExperiment(document, ".");
}

} // namespace

class TestOptimizers : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void kerasRules_data();
    void kerasRules();
    void handComputed_data();
    void handComputed();
    void defaults_data();
    void defaults();
    void slotNames_data();
    void slotNames();
    void learningRateChange();
    void unknownOptimizer();
};

void TestOptimizers::kerasRules_data()
{
    QTest::addColumn<OptimizerSpec>("optimizer");
    QTest::newRow("sgd (default lr)") << optimizerSpec("sgd", 0.01);
    OptimizerSpec o = optimizerSpec("sgd", 0.1);
    o.momentum = 0.9;
    QTest::newRow("sgd momentum") << o;
    o.nesterov = true;
    QTest::newRow("sgd nesterov") << o;
    o = optimizerSpec("sgd", 0.05);
    o.momentum = 0.3;
    o.nesterov = true;
    QTest::newRow("sgd nesterov 0.3") << o;

    QTest::newRow("adam (defaults)") << OptimizerSpec{};
    o = optimizerSpec("adam", 0.01);
    o.beta1 = 0.5;
    o.beta2 = 0.9;
    o.epsilon = 0.1; // large: the epsilon outside the square root shows
    QTest::newRow("adam beta 0.5/0.9 eps 0.1") << o;

    QTest::newRow("rmsprop (defaults)") << optimizerSpec("rmsprop", 0.001);
    o = optimizerSpec("rmsprop", 0.01);
    o.epsilon = 0.01; // large: the epsilon inside the square root shows
    QTest::newRow("rmsprop eps 0.01") << o;
    o = optimizerSpec("rmsprop", 0.001);
    o.momentum = 0.5;
    QTest::newRow("rmsprop momentum") << o;
    o = optimizerSpec("rmsprop", 0.001);
    o.centered = true;
    QTest::newRow("rmsprop centered") << o;
    o = optimizerSpec("rmsprop", 0.01);
    o.rho = 0.8;
    o.momentum = 0.7;
    o.centered = true;
    o.epsilon = 0.01;
    QTest::newRow("rmsprop centered momentum rho 0.8 eps 0.01") << o;
}

// Three steps against Keras' rules (every weight and every slot after every step), then the
// same third step from restored slots and iteration count.
void TestOptimizers::kerasRules()
{
    QFETCH(OptimizerSpec, optimizer);
    auto opt = strata::nn::createOptimizer(optimizer);
    QCOMPARE(opt->name(), optimizer.type.c_str());
    QCOMPARE(opt->learningRate(), optimizer.learningRate);

    Parameter kernel = parameter("dense/kernel", kKernel0);
    Parameter bias = parameter("dense/bias", kBias0);
    const std::vector<Parameter*> params{&kernel, &bias};
    std::vector<KerasState> kernelState(kKernel0.size()), biasState(kBias0.size());
    for (size_t i = 0; i < kKernel0.size(); ++i)
        kernelState[i].w = kKernel0[i];
    for (size_t i = 0; i < kBias0.size(); ++i)
        biasState[i].w = kBias0[i];

    Values kernelBefore3, biasBefore3;
    std::map<std::string, Values> slotsBefore3;
    for (int64_t t = 1; t <= 3; ++t) {
        if (t == 3) {
            kernelBefore3 = values(kernel.value);
            biasBefore3 = values(bias.value);
            for (auto& [name, slot] : opt->stateTensors())
                slotsBefore3[name] = values(*slot);
        }
        const Values kernelStart = values(kernel.value), biasStart = values(bias.value);
        kernel.grad = tensor(kKernelGrads[static_cast<size_t>(t - 1)]);
        bias.grad = tensor(kBiasGrads[static_cast<size_t>(t - 1)]);
        opt->apply(params);
        QCOMPARE(opt->iterations(), t);

        Values kernelExpected, biasExpected;
        for (size_t i = 0; i < kernelState.size(); ++i) {
            kerasStep(optimizer, t, kKernelGrads[static_cast<size_t>(t - 1)][i], kernelState[i]);
            kernelExpected.push_back(kernelState[i].w);
        }
        for (size_t i = 0; i < biasState.size(); ++i) {
            kerasStep(optimizer, t, kBiasGrads[static_cast<size_t>(t - 1)][i], biasState[i]);
            biasExpected.push_back(biasState[i].w);
        }
        // This step's move (not the accumulated one) must match.
        const double kernelError = moveError(values(kernel.value), kernelExpected, kernelStart);
        const double biasError = moveError(values(bias.value), biasExpected, biasStart);
        QVERIFY2(kernelError <= 1e-4, qPrintable(QString("step %1 kernel: %2").arg(t).arg(kernelError)));
        QVERIFY2(biasError <= 1e-4, qPrintable(QString("step %1 bias: %2").arg(t).arg(biasError)));

        // Slots hold Keras' state.
        for (auto& [name, slot] : opt->stateTensors()) {
            const bool isKernel = name.starts_with("dense/kernel/");
            const std::string slotName = name.substr(name.rfind('/') + 1);
            const auto& states = isKernel ? kernelState : biasState;
            QCOMPARE(slot->numel(), static_cast<int64_t>(states.size()));
            for (size_t i = 0; i < states.size(); ++i) {
                QVERIFY2(states[i].slotValues.count(slotName), name.c_str());
                const double expected = states[i].slotValues.at(slotName);
                QVERIFY2(std::fabs(slot->data()[i] - expected) <= 1e-6 * std::max(1.0, std::fabs(expected)),
                         qPrintable(QString("%1[%2] = %3, expected %4")
                                        .arg(name.c_str()).arg(i).arg(slot->data()[i]).arg(expected)));
            }
        }
    }

    // Resume: a new optimizer given the slots and iteration count after step 2 makes the same
    // third step.
    auto resumed = strata::nn::createOptimizer(optimizer);
    Parameter kernel2 = parameter("dense/kernel", kernelBefore3);
    Parameter bias2 = parameter("dense/bias", biasBefore3);
    const std::vector<Parameter*> params2{&kernel2, &bias2};
    resumed->prepare(params2);
    QCOMPARE(resumed->iterations(), int64_t(0));
    for (auto& [name, slot] : resumed->stateTensors()) {
        QVERIFY2(slotsBefore3.count(name), name.c_str());
        *slot = tensor(slotsBefore3[name]);
    }
    resumed->setIterations(2);
    kernel2.grad = tensor(kKernelGrads[2]);
    bias2.grad = tensor(kBiasGrads[2]);
    resumed->apply(params2);
    QCOMPARE(resumed->iterations(), int64_t(3));
    QCOMPARE(values(kernel2.value), values(kernel.value));
    QCOMPARE(values(bias2.value), values(bias.value));
}

void TestOptimizers::handComputed_data()
{
    QTest::addColumn<OptimizerSpec>("optimizer");
    QTest::addColumn<QList<double>>("expected"); // w after steps 1, 2, 3 from w = 0.5 with g = 0.1

    // w -= 0.01 * 0.1 each step.
    QTest::newRow("sgd") << optimizerSpec("sgd", 0.01) << QList<double>{0.499, 0.498, 0.497};
    OptimizerSpec o = optimizerSpec("sgd", 0.01);
    o.momentum = 0.9;
    // v = -0.001, -0.0019, -0.00271; w += v.
    QTest::newRow("sgd momentum 0.9") << o << QList<double>{0.499, 0.4971, 0.49439};
    o.nesterov = true;
    // w += 0.9 v - 0.001: -0.0019, -0.00271, -0.003439.
    QTest::newRow("sgd nesterov 0.9") << o << QList<double>{0.4981, 0.49539, 0.491951};
    // Bias-corrected moments are g and g^2: each step moves by lr * g / (|g| + eps / sqrt(1 - b2^t)),
    // about lr * sign(g) = 0.001.
    QTest::newRow("adam") << OptimizerSpec{} << QList<double>{0.49900003162, 0.49800005399, 0.49700007225};
    // v = 0.001, 0.0019, 0.00271; w -= 0.001 * 0.1 / sqrt(v + 1e-7).
    QTest::newRow("rmsprop") << optimizerSpec("rmsprop", 0.001) << QList<double>{0.49683788044, 0.49454378347, 0.49262287204};
}

void TestOptimizers::handComputed()
{
    QFETCH(OptimizerSpec, optimizer);
    QFETCH(QList<double>, expected);
    auto opt = strata::nn::createOptimizer(optimizer);
    Parameter p = parameter("w", {0.5, -0.5});
    p.grad = tensor({0.1, -0.1});
    for (size_t t = 0; t < 3; ++t) {
        opt->apply({&p});
        // float32 weights near 0.5: spacing 6e-8.
        QVERIFY2(std::fabs(p.value.data()[0] - expected[static_cast<qsizetype>(t)]) <= 1.5e-7,
                 qPrintable(QString("step %1: %2, expected %3").arg(t + 1).arg(p.value.data()[0], 0, 'g', 10)
                                .arg(expected[static_cast<qsizetype>(t)], 0, 'g', 10)));
        // A negative gradient moves the other way by the same amount.
        QVERIFY(std::fabs(p.value.data()[1] + expected[static_cast<qsizetype>(t)]) <= 1.5e-7);
    }
}

void TestOptimizers::defaults_data()
{
    QTest::addColumn<QByteArray>("optimizer"); // JSON
    QTest::addColumn<OptimizerSpec>("expected");
    OptimizerSpec sgd = optimizerSpec("sgd", 0.01);
    QTest::newRow("sgd") << QByteArray(R"("sgd")") << sgd;
    QTest::newRow("adam") << QByteArray(R"({"type": "adam"})") << OptimizerSpec{};
    QTest::newRow("rmsprop") << QByteArray(R"("rmsprop")") << optimizerSpec("rmsprop", 0.001);
}

// Keras' defaults: SGD lr 0.01 (no momentum); Adam lr 0.001, beta_1 0.9, beta_2 0.999,
// epsilon 1e-7; RMSprop lr 0.001, rho 0.9, epsilon 1e-7, no momentum, not centered.
void TestOptimizers::defaults()
{
    QFETCH(QByteArray, optimizer);
    QFETCH(OptimizerSpec, expected);
    const auto e = experimentWithOptimizer(strata::schema::Json::parse(optimizer.toStdString()));
    const OptimizerSpec& o = e.training.optimizer;
    QCOMPARE(o.type, expected.type);
    QCOMPARE(o.learningRate, expected.learningRate);
    QCOMPARE(o.momentum, 0.0);
    QCOMPARE(o.nesterov, false);
    QCOMPARE(o.beta1, 0.9);
    QCOMPARE(o.beta2, 0.999);
    QCOMPARE(o.epsilon, 1e-7);
    QCOMPARE(o.rho, 0.9);
    QCOMPARE(o.centered, false);
    QCOMPARE(strata::nn::createOptimizer(o)->learningRate(), expected.learningRate);
    // The default spec is Keras' Adam.
    const OptimizerSpec fallback;
    QCOMPARE(fallback.type, std::string("adam"));
    QCOMPARE(fallback.learningRate, 0.001);
}

void TestOptimizers::slotNames_data()
{
    QTest::addColumn<OptimizerSpec>("optimizer");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("sgd") << optimizerSpec("sgd", 0.01) << QStringList{};
    OptimizerSpec o = optimizerSpec("sgd", 0.01);
    o.momentum = 0.9;
    QTest::newRow("sgd momentum") << o << QStringList{"dense/kernel/momentum", "dense/bias/momentum"};
    QTest::newRow("adam") << OptimizerSpec{}
                          << QStringList{"dense/kernel/m", "dense/kernel/v", "dense/bias/m", "dense/bias/v"};
    QTest::newRow("rmsprop") << optimizerSpec("rmsprop", 0.001) << QStringList{"dense/kernel/velocity", "dense/bias/velocity"};
    o = optimizerSpec("rmsprop", 0.001);
    o.momentum = 0.9;
    o.centered = true;
    QTest::newRow("rmsprop momentum centered")
        << o
        << QStringList{"dense/kernel/velocity", "dense/kernel/momentum", "dense/kernel/average_gradient",
                       "dense/bias/velocity", "dense/bias/momentum", "dense/bias/average_gradient"};
}

void TestOptimizers::slotNames()
{
    QFETCH(OptimizerSpec, optimizer);
    QFETCH(QStringList, expected);
    auto opt = strata::nn::createOptimizer(optimizer);
    Parameter kernel = parameter("dense/kernel", kKernel0);
    Parameter bias = parameter("dense/bias", kBias0);
    QVERIFY(opt->stateTensors().empty());
    opt->prepare({&kernel, &bias});
    QCOMPARE(opt->iterations(), int64_t(0)); // prepare makes no step
    QStringList names;
    for (auto& [name, slot] : opt->stateTensors()) {
        names << QString::fromStdString(name);
        // Slots start at zero, shaped like their variable.
        QCOMPARE(slot->shape(), name.starts_with("dense/kernel/") ? kernel.value.shape() : bias.value.shape());
        for (float v : slot->values())
            QCOMPARE(v, 0.0f);
    }
    QCOMPARE(names, expected);
}

void TestOptimizers::learningRateChange()
{
    auto opt = strata::nn::createOptimizer(optimizerSpec("sgd", 0.01));
    Parameter p = parameter("w", {0.5});
    p.grad = tensor({0.1});
    opt->apply({&p});
    opt->setLearningRate(0.1);
    QCOMPARE(opt->learningRate(), 0.1);
    opt->apply({&p});
    QVERIFY(std::fabs(p.value.data()[0] - (0.5 - 0.001 - 0.01)) <= 1e-7);
}

void TestOptimizers::unknownOptimizer()
{
    QVERIFY_THROWS_EXCEPTION(strata::ConfigError, strata::nn::createOptimizer(optimizerSpec("adagrad", 0.01)));
}

QTEST_GUILESS_MAIN(TestOptimizers)
#include "tst_optimizers.moc"
