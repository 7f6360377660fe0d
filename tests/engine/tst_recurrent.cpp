// LSTM and GRU beyond the gradient checks of tst_layer_gradients: forwards worked out by hand
// for one unit over two steps, the initial values Keras gives (orthogonal recurrent kernels,
// the forget gate's bias at 1), and the CPU's split of the batch among threads giving what
// one thread gives.

#include "gradcheck.h"
#include "layer_text.h"

#include "strata/core/error.h"
#include "strata/nn/layer.h"
#include "strata/tensor/blas.h"

#include <QTest>

#include <cmath>
#include <memory>
#include <vector>

Q_DECLARE_METATYPE(strata::Shape)

namespace {

using strata::Rng;
using strata::Shape;
using strata::Tensor;
using strata::nn::ForwardContext;
using strata::nn::Layer;
using testing::layerSpec;

std::unique_ptr<Layer> makeLayer(const char* json, const Shape& in, uint64_t seed = 1)
{
    Rng rng(seed);
    return strata::nn::createLayer(layerSpec(json), in, rng);
}

void setValues(Layer& layer, size_t param, const std::vector<float>& values)
{
    Tensor& t = layer.parameters()[param].value;
    QCOMPARE(t.numel(), static_cast<int64_t>(values.size()));
    std::copy(values.begin(), values.end(), t.values().begin());
}

std::vector<float> valuesOf(const Tensor& t) { return {t.values().begin(), t.values().end()}; }

// One example, two steps of one feature: x = (1, 2).
Tensor twoSteps() { return gradcheck::toTensor({1, 2, 1}, {1.0, 2.0}); }

constexpr double kHandTolerance = 2e-6; // float arithmetic on values of order 1

// max |W W^T - I| (rows orthonormal) or |W^T W - I| (columns), for a (rows, cols) matrix.
double orthonormalityError(const Tensor& w)
{
    const int64_t cols = w.shape().back(), rows = w.numel() / cols;
    const bool byRows = rows <= cols;
    const int64_t n = byRows ? rows : cols, len = byRows ? cols : rows;
    const auto v = w.values();
    auto at = [&](int64_t vec, int64_t k) { return double(byRows ? v[vec * cols + k] : v[k * cols + vec]); };
    double worst = 0;
    for (int64_t a = 0; a < n; ++a)
        for (int64_t b = 0; b < n; ++b) {
            double dot = 0;
            for (int64_t k = 0; k < len; ++k)
                dot += at(a, k) * at(b, k);
            worst = std::max(worst, std::fabs(dot - (a == b ? 1.0 : 0.0)));
        }
    return worst;
}

} // namespace

class TestRecurrent : public QObject {
    Q_OBJECT

private slots:
    // units 1, kernel (1, 4) = [0.5, -0.5, 1, 0.25] (i, f, c, o), recurrent (1, 4) =
    // [1, 0, -1, 0.5], bias [0, 1, 0, 0] (unit_forget_bias), h0 = c0 = 0, s = sigmoid.
    // Step 1, x = 1: z = [0.5, -0.5 + 1, 1, 0.25]
    //   i = f = s(0.5) = 0.6224593312, c~ = tanh(1) = 0.7615941560, o = s(0.25) = 0.5621765009
    //   c1 = f * 0 + i * c~ = 0.4740613890; h1 = o * tanh(c1) = 0.5621765009 * 0.4414749937
    //      = 0.2481868672
    // Step 2, x = 2: z = [1 + h1, -1 + 0 + 1, 2 - h1, 0.5 + 0.5 h1]
    //      = [1.2481868672, 0, 1.7518131328, 0.6240934336]
    //   i = 0.7769858414, f = s(0) = 0.5, c~ = 0.9415815431, o = 0.6511489627
    //   c2 = 0.5 * 0.4740613890 + 0.7769858414 * 0.9415815431 = 0.9686262220
    //   h2 = 0.6511489627 * tanh(0.9686262220) = 0.6511489627 * 0.7480999702 = 0.4871245196
    void lstmByHand()
    {
        auto l = makeLayer(R"({"type": "LSTM", "units": 1, "return_sequences": true})", Shape{2, 1});
        QCOMPARE(valuesOf(l->parameters()[2].value), (std::vector<float>{0, 1, 0, 0})); // forget gate at 1
        setValues(*l, 0, {0.5f, -0.5f, 1.0f, 0.25f});
        setValues(*l, 1, {1.0f, 0.0f, -1.0f, 0.5f});
        const auto y = valuesOf(l->forward(twoSteps(), ForwardContext{}));
        QCOMPARE(y.size(), size_t(2));
        QVERIFY2(std::fabs(y[0] - 0.2481868672) < kHandTolerance, qPrintable(QString::number(y[0], 'g', 10)));
        QVERIFY2(std::fabs(y[1] - 0.4871245196) < kHandTolerance, qPrintable(QString::number(y[1], 'g', 10)));

        // return_sequences false: the last step's only.
        auto last = makeLayer(R"({"type": "LSTM", "units": 1})", Shape{2, 1});
        setValues(*last, 0, {0.5f, -0.5f, 1.0f, 0.25f});
        setValues(*last, 1, {1.0f, 0.0f, -1.0f, 0.5f});
        const Tensor& y2 = last->forward(twoSteps(), ForwardContext{});
        QCOMPARE(y2.shape(), (Shape{1, 1}));
        QVERIFY(std::fabs(y2.values()[0] - 0.4871245196) < kHandTolerance);
    }

    // units 1, kernel [0.5, -1, 1] (z, r, h), recurrent [1, 0.5, -0.5], h0 = 0.
    // reset_after (bias rows: input [0.1, 0.2, 0.3], recurrent [0, -0.1, 0.2]):
    // Step 1, x = 1: x-part [0.6, -0.8, 1.3]; recurrent part h0·R + b_r = [0, -0.1, 0.2]
    //   z = s(0.6) = 0.6456563062, r = s(-0.9) = 0.2890504974
    //   h~ = tanh(1.3 + r * 0.2) = tanh(1.3578100995) = 0.8758841766
    //   h1 = z * 0 + (1 - z) h~ = 0.3543436938 * 0.8758841766 = 0.3103640345
    // Step 2, x = 2: x-part [1.1, -1.8, 2.3]; recurrent [h1, 0.5 h1 - 0.1, -0.5 h1 + 0.2]
    //      = [0.3103640345, 0.0551820172, 0.0448179828]
    //   z = s(1.4103640345) = 0.8038233551, r = s(-1.7448179828) = 0.1487019946
    //   h~ = tanh(2.3 + 0.1487019946 * 0.0448179828) = 0.9803573438
    //   h2 = z h1 + (1 - z) h~ = 0.2494767... + 0.1923243... = 0.4418010740
    // reset_after false (bias [0.1, 0.2, 0.3]):
    // Step 1: z = s(0.6) = 0.6456563062, r = s(-0.8) = 0.3100255189,
    //   h~ = tanh(1.3 + (r * 0) * -0.5) = tanh(1.3) = 0.8617231593, h1 = (1 - z) h~ = 0.3053461673
    // Step 2: z = s(1.1 + h1) = s(1.4053461673) = 0.8030308742,
    //   r = s(-1.8 + 0.5 h1) = s(-1.6473269164) = 0.1614705518,
    //   h~ = tanh(2.3 - 0.5 r h1) = tanh(2.2753476...) = 0.9791009776
    //   h2 = z h1 + (1 - z) h~ = 0.4380550633
    void gruByHand_data()
    {
        QTest::addColumn<bool>("resetAfter");
        QTest::addColumn<double>("h1");
        QTest::addColumn<double>("h2");
        QTest::newRow("reset_after") << true << 0.3103640345 << 0.4418010740;
        QTest::newRow("reset before") << false << 0.3053461673 << 0.4380550633;
    }

    void gruByHand()
    {
        QFETCH(bool, resetAfter);
        QFETCH(double, h1);
        QFETCH(double, h2);
        auto l = makeLayer(resetAfter ? R"({"type": "GRU", "units": 1, "return_sequences": true})"
                                      : R"({"type": "GRU", "units": 1, "return_sequences": true, "reset_after": false})",
                           Shape{2, 1});
        setValues(*l, 0, {0.5f, -1.0f, 1.0f});
        setValues(*l, 1, {1.0f, 0.5f, -0.5f});
        if (resetAfter)
            setValues(*l, 2, {0.1f, 0.2f, 0.3f, 0.0f, -0.1f, 0.2f});
        else
            setValues(*l, 2, {0.1f, 0.2f, 0.3f});
        const auto y = valuesOf(l->forward(twoSteps(), ForwardContext{}));
        QCOMPARE(y.size(), size_t(2));
        QVERIFY2(std::fabs(y[0] - h1) < kHandTolerance, qPrintable(QString::number(y[0], 'g', 10)));
        QVERIFY2(std::fabs(y[1] - h2) < kHandTolerance, qPrintable(QString::number(y[1], 'g', 10)));
    }

    // Keras' initial values: kernel glorot_uniform, recurrent_kernel orthogonal (orthonormal
    // rows of (units, g units)), bias zeros except LSTM's forget gate (unit_forget_bias).
    void initialValues()
    {
        auto lstm = makeLayer(R"({"type": "LSTM", "name": "lstm", "units": 5})", Shape{7, 3});
        const auto& p = lstm->parameters();
        QCOMPARE(p.size(), size_t(3));
        QCOMPARE(p[0].name, std::string("lstm/kernel"));
        QCOMPARE(p[1].name, std::string("lstm/recurrent_kernel"));
        QCOMPARE(p[2].name, std::string("lstm/bias"));
        QCOMPARE(p[1].value.shape(), (Shape{5, 20}));
        QVERIFY2(orthonormalityError(p[1].value) < 1e-6, qPrintable(QString::number(orthonormalityError(p[1].value))));
        const double limit = std::sqrt(6.0 / (3 + 20)); // glorot_uniform
        for (float v : p[0].value.values())
            QVERIFY(std::fabs(v) <= limit);
        const auto bias = valuesOf(p[2].value);
        for (int64_t i = 0; i < 20; ++i)
            QCOMPARE(bias[static_cast<size_t>(i)], i >= 5 && i < 10 ? 1.0f : 0.0f);
        auto plain = makeLayer(R"({"type": "LSTM", "units": 5, "unit_forget_bias": false})", Shape{7, 3});
        for (float v : plain->parameters()[2].value.values())
            QCOMPARE(v, 0.0f);

        auto gru = makeLayer(R"({"type": "GRU", "units": 4})", Shape{7, 3});
        QCOMPARE(gru->parameters()[2].value.shape(), (Shape{2, 12}));
        QVERIFY(orthonormalityError(gru->parameters()[1].value) < 1e-6);
        auto before = makeLayer(R"({"type": "GRU", "units": 4, "reset_after": false})", Shape{7, 3});
        QCOMPARE(before->parameters()[2].value.shape(), (Shape{12}));
    }

    // The orthogonal initializer on tall, wide and square matrices, and on a conv kernel (the
    // leading axes flattened into rows); another seed, another matrix.
    void orthogonalInitializer_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<Shape>("in");
        QTest::newRow("tall (12, 4)") << QByteArray(R"({"type": "Dense", "units": 4, "kernel_initializer": "orthogonal"})")
                                      << Shape{12};
        QTest::newRow("wide (3, 10)") << QByteArray(R"({"type": "Dense", "units": 10, "kernel_initializer": "orthogonal"})")
                                      << Shape{3};
        QTest::newRow("square (6, 6)") << QByteArray(R"({"type": "Dense", "units": 6, "kernel_initializer": "orthogonal"})")
                                       << Shape{6};
        QTest::newRow("conv (2, 2, 3, 5)")
            << QByteArray(R"({"type": "Conv2D", "filters": 5, "kernel_size": 2, "kernel_initializer": "orthogonal"})")
            << Shape{4, 4, 3};
    }

    void orthogonalInitializer()
    {
        QFETCH(QByteArray, json);
        QFETCH(Shape, in);
        auto a = makeLayer(json.constData(), in, 1);
        auto b = makeLayer(json.constData(), in, 2);
        const Tensor& w = a->parameters()[0].value;
        QVERIFY2(orthonormalityError(w) < 1e-6, qPrintable(QString::number(orthonormalityError(w))));
        QVERIFY(valuesOf(w) != valuesOf(b->parameters()[0].value));
    }

    // A batch large enough for the CPU to split among 2 threads (each running the time loop
    // for its examples) gives what one thread gives: output, input and parameter gradients.
    void threadsSplitTheBatch_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::newRow("lstm") << QByteArray(R"({"type": "LSTM", "units": 32, "return_sequences": true})");
        QTest::newRow("lstm/last") << QByteArray(R"({"type": "LSTM", "units": 32})");
        QTest::newRow("gru") << QByteArray(R"({"type": "GRU", "units": 32, "return_sequences": true})");
        QTest::newRow("gru/reset before")
            << QByteArray(R"({"type": "GRU", "units": 32, "reset_after": false})");
    }

    void threadsSplitTheBatch()
    {
        QFETCH(QByteArray, json);
        const Shape in{20, 16};
        const int64_t batch = 17; // odd: blocks of 8 and 9
        Rng rng(3);
        const Tensor x = gradcheck::toTensor(in.withBatch(batch),
                                             gradcheck::uniformValues(rng, static_cast<size_t>(batch * in.numel()), -1, 1));
        struct Result {
            std::vector<float> y, dx;
            std::vector<std::vector<float>> grads;
        };
        auto run = [&](int threads) {
            strata::blas::setThreads(threads);
            auto l = makeLayer(json.constData(), in, 9);
            Result r;
            const Tensor& y = l->forward(x, ForwardContext{});
            r.y = valuesOf(y);
            Rng wr(4);
            Tensor dy = gradcheck::toTensor(y.shape(), gradcheck::uniformValues(wr, r.y.size(), -1, 1));
            r.dx = valuesOf(l->backward(dy, true));
            for (const auto& p : l->parameters())
                r.grads.push_back(valuesOf(p.grad));
            return r;
        };
        const Result one = run(1);
        const Result two = run(2);
        strata::blas::setThreads(0);
        // Float rounding only: the blocks' GEMMs may sum in another order, and backpropagation
        // through 20 steps carries that along; an indexing error would be of order 1.
        auto same = [](const std::vector<float>& a, const std::vector<float>& b, const char* what) {
            std::vector<double> da(a.begin(), a.end()), db(b.begin(), b.end());
            const auto c = gradcheck::compare(da, db);
            QVERIFY2(c.error < 1e-4, (std::string(what) + ": " + c.str()).c_str());
        };
        same(two.y, one.y, "output");
        same(two.dx, one.dx, "input gradient");
        for (size_t i = 0; i < one.grads.size(); ++i)
            same(two.grads[i], one.grads[i], "parameter gradient");
    }

    // An orthogonal bias (rank 1) is refused with the reason.
    void orthogonalNeedsAMatrix()
    {
        try {
            makeLayer(R"({"type": "Dense", "units": 3, "bias_initializer": "orthogonal"})", Shape{4});
            QFAIL("an orthogonal bias was accepted");
        } catch (const strata::Error& e) {
            QVERIFY2(QString(e.what()).contains("at least two dimensions"), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestRecurrent)
#include "tst_recurrent.moc"
