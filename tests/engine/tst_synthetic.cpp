#include "strata/core/error.h"
#include "strata/core/rng.h"
#include "strata/data/loaders.h"
#include "strata/schema/experiment.h"

#include <QTest>

#include <cmath>
#include <set>

using namespace strata;
using namespace strata::data;

namespace {

schema::DataSourceSpec source(const QString& task, int64_t samples = 200, int64_t testSamples = 50)
{
    schema::DataSourceSpec s;
    s.type = "synthetic";
    s.task = task.toStdString();
    s.samples = samples;
    s.testSamples = testSamples;
    s.features = 3;
    s.classes = 4;
    s.noise = 0.1;
    return s;
}

struct Arrays {
    std::vector<float> x, y;
};

Arrays all(const Dataset& d)
{
    std::vector<int64_t> indices(size_t(d.size()));
    for (size_t i = 0; i < indices.size(); ++i)
        indices[i] = int64_t(i);
    Arrays a;
    a.x.resize(indices.size() * size_t(d.featureShape().numel()));
    a.y.resize(indices.size() * size_t(d.labelShape().numel()));
    d.gather(indices, a.x.data(), a.y.data());
    return a;
}

} // namespace

class TestSynthetic : public QObject {
    Q_OBJECT

private slots:
    void shapes_data();
    void shapes();
    void deterministicInSeed_data();
    void deterministicInSeed();
    void testSplitIndependentOfTrainSize();
    void randomRegressionIsUniform();
    void regressionFollowsTarget();
    void classificationClusters();
    void noTestSplit();
    void unknownTask();
    void noiseDefaultsPerTask_data();
    void noiseDefaultsPerTask();
};

void TestSynthetic::shapes_data()
{
    QTest::addColumn<QString>("task");
    QTest::addColumn<Shape>("labelShape");
    QTest::addColumn<qint64>("numClasses");
    QTest::newRow("regression") << "regression" << Shape{1} << qint64(0);
    QTest::newRow("random_regression") << "random_regression" << Shape{1} << qint64(0);
    QTest::newRow("classification") << "classification" << Shape{} << qint64(4);
}

void TestSynthetic::shapes()
{
    QFETCH(QString, task);
    QFETCH(Shape, labelShape);
    QFETCH(qint64, numClasses);
    const DatasetSplits splits = makeSynthetic(source(task), 7);
    QVERIFY(splits.train && splits.test);
    QCOMPARE(splits.train->size(), 200);
    QCOMPARE(splits.test->size(), 50);
    for (const auto& d : {splits.train, splits.test}) {
        QCOMPARE(d->featureShape(), Shape{3});
        QCOMPARE(d->labelShape(), labelShape);
        QCOMPARE(d->numClasses(), numClasses);
        // float features and labels
        QCOMPARE(d->storedBytes(), size_t(d->size() * (3 + labelShape.numel()) * 4));
    }
}

void TestSynthetic::deterministicInSeed_data()
{
    shapes_data();
}

void TestSynthetic::deterministicInSeed()
{
    QFETCH(QString, task);
    const Arrays a = all(*makeSynthetic(source(task), 42).train);
    const Arrays b = all(*makeSynthetic(source(task), 42).train);
    const Arrays c = all(*makeSynthetic(source(task), 43).train);
    QCOMPARE(a.x, b.x);
    QCOMPARE(a.y, b.y);
    QVERIFY(a.x != c.x);
    // Train and test come from different streams.
    const Arrays test = all(*makeSynthetic(source(task), 42).test);
    QVERIFY(!std::equal(test.x.begin(), test.x.end(), a.x.begin()));
}

void TestSynthetic::testSplitIndependentOfTrainSize()
{
    const Arrays small = all(*makeSynthetic(source("regression", 10), 5).test);
    const Arrays large = all(*makeSynthetic(source("regression", 500), 5).test);
    QCOMPARE(small.x, large.x);
    QCOMPARE(small.y, large.y);
}

void TestSynthetic::randomRegressionIsUniform()
{
    const Arrays a = all(*makeSynthetic(source("random_regression", 4000, 0), 1).train);
    for (const std::vector<float>* v : {&a.x, &a.y}) {
        double sum = 0;
        for (float value : *v) {
            QVERIFY(value >= 0.0f && value < 1.0f);
            sum += value;
        }
        QVERIFY(std::fabs(sum / double(v->size()) - 0.5) < 0.02);
    }
}

void TestSynthetic::regressionFollowsTarget()
{
    // Rebuild the documented target from stream 0: a then b, each N(0, 1) / sqrt(features).
    const uint64_t seed = 11;
    Rng parameters(seed, 0);
    std::vector<double> a(3), b(3);
    for (double& v : a)
        v = parameters.normal() / std::sqrt(3.0);
    for (double& v : b)
        v = parameters.normal() / std::sqrt(3.0);

    schema::DataSourceSpec exact = source("regression");
    exact.noise = 0;
    const Arrays clean = all(*makeSynthetic(exact, seed).train);
    const Arrays noisy = all(*makeSynthetic(source("regression"), seed).train);
    QCOMPARE(clean.x, noisy.x); // noise does not move the inputs
    double squaredNoise = 0;
    for (size_t i = 0; i < clean.y.size(); ++i) {
        double xa = 0, xb = 0;
        for (size_t j = 0; j < 3; ++j) {
            xa += clean.x[i * 3 + j] * a[j];
            xb += clean.x[i * 3 + j] * b[j];
        }
        QVERIFY(std::fabs(clean.y[i] - (std::sin(xa) + 0.5 * xb * xb)) < 1e-5);
        squaredNoise += std::pow(noisy.y[i] - clean.y[i], 2);
    }
    const double noiseStd = std::sqrt(squaredNoise / double(clean.y.size()));
    QVERIFY2(noiseStd > 0.08 && noiseStd < 0.12, qPrintable(QString::number(noiseStd)));
}

void TestSynthetic::classificationClusters()
{
    const uint64_t seed = 3;
    Rng parameters(seed, 0);
    std::vector<double> centers(4 * 3);
    for (double& v : centers)
        v = parameters.normal() * 2.0;

    schema::DataSourceSpec exact = source("classification", 400);
    exact.noise = 0;
    const Arrays a = all(*makeSynthetic(exact, seed).train);
    std::set<float> seen;
    for (size_t i = 0; i < a.y.size(); ++i) {
        const float label = a.y[i];
        QVERIFY(label == std::floor(label) && label >= 0 && label < 4);
        seen.insert(label);
        for (size_t j = 0; j < 3; ++j)
            QCOMPARE(a.x[i * 3 + j], float(centers[size_t(label) * 3 + j])); // noise 0: on the center
    }
    QCOMPARE(seen.size(), size_t(4)); // every class drawn
}

void TestSynthetic::noTestSplit()
{
    const DatasetSplits splits = makeSynthetic(source("classification", 20, 0), 1);
    QVERIFY(splits.train);
    QVERIFY(!splits.test);
}

void TestSynthetic::unknownTask()
{
    QVERIFY_THROWS_EXCEPTION(ConfigError, makeSynthetic(source("clustering"), 1));
}

void TestSynthetic::noiseDefaultsPerTask_data()
{
    QTest::addColumn<QString>("task");
    QTest::addColumn<double>("noise");
    QTest::newRow("classification") << "classification" << 1.0;
    QTest::newRow("regression") << "regression" << 0.1;
    QTest::newRow("random_regression") << "random_regression" << 0.1;
}

void TestSynthetic::noiseDefaultsPerTask()
{
    QFETCH(QString, task);
    QFETCH(double, noise);
    const schema::Json document = {
        {"model", {{"input_shape", {10}}, {"layers", {{{"type", "Dense"}, {"units", 1}}}}}},
        {"data", {{"source", {{"type", "synthetic"}, {"task", task.toStdString()}}}}},
        {"training", schema::Json::object()},
    };
    const schema::Experiment e = schema::parseExperiment(document, "/tmp");
    QCOMPARE(e.data.source.noise, noise);
}

QTEST_GUILESS_MAIN(TestSynthetic)
#include "tst_synthetic.moc"
