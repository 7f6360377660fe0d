// Dynamic loss scaling (mixed_bfloat16): unscaling divides exactly and catches every overflow,
// and the factor follows Keras' LossScaleOptimizer (halve on overflow, double after N clean
// steps, never below 1). The GPU kernel's part runs in tst_gpu_ops' strategies.

#include "strata/nn/loss_scale.h"

#include <QTest>

#include <cmath>
#include <limits>

using strata::Shape;
using strata::Tensor;
using strata::nn::LossScale;

class TestLossScale : public QObject {
    Q_OBJECT

private slots:
    void unscalingDividesByTheFactor()
    {
        const LossScale scale(1024.0f);
        Tensor g({3});
        g.values()[0] = 2048.0f;
        g.values()[1] = -512.0f;
        g.values()[2] = 0.0f;
        QVERIFY(scale.unscale(g));
        QCOMPARE(g.values()[0], 2.0f);
        QCOMPARE(g.values()[1], -0.5f);
        QCOMPARE(g.values()[2], 0.0f);
    }

    void overflowsAreCaught_data()
    {
        QTest::addColumn<float>("bad");
        QTest::newRow("+inf") << std::numeric_limits<float>::infinity();
        QTest::newRow("-inf") << -std::numeric_limits<float>::infinity();
        QTest::newRow("nan") << std::numeric_limits<float>::quiet_NaN();
    }

    void overflowsAreCaught()
    {
        QFETCH(float, bad);
        const LossScale scale(8.0f);
        Tensor g = Tensor::full({1000}, 1.0f);
        g.values()[999] = bad; // the last one: no early exit may miss it
        QVERIFY(!scale.unscale(g));
    }

    void factorHalvesOnOverflowAndGrowsAfterCleanSteps()
    {
        LossScale scale(32768.0f, 3);
        scale.update(false);
        QCOMPARE(scale.factor(), 16384.0f);
        scale.update(true);
        scale.update(true);
        QCOMPARE(scale.factor(), 16384.0f);
        scale.update(true); // the third clean step in a row
        QCOMPARE(scale.factor(), 32768.0f);
        scale.update(true);
        scale.update(false); // an overflow resets the count
        scale.update(true);
        scale.update(true);
        QCOMPARE(scale.factor(), 16384.0f);
        LossScale small(1.0f);
        small.update(false);
        QCOMPARE(small.factor(), 1.0f);
    }

    // What a checkpoint keeps: a restored scale goes on as the original would have.
    void restoredStateContinuesTheSchedule()
    {
        LossScale original(32768.0f, 3), restored(32768.0f, 3);
        original.update(false);
        original.update(true);
        original.update(true);
        restored.restore(original.factor(), original.cleanSteps());
        for (LossScale* s : {&original, &restored})
            s->update(true);
        QCOMPARE(restored.factor(), original.factor());
        QCOMPARE(restored.factor(), 32768.0f);
        QCOMPARE(restored.cleanSteps(), int64_t{0});
    }
};

QTEST_GUILESS_MAIN(TestLossScale)
#include "tst_loss_scale.moc"
