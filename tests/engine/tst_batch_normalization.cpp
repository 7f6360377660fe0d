// BatchNormalization: training-mode gradients through the batch statistics and inference-mode
// gradients against central finite differences of a double-precision reference; the moving
// statistics and both modes' outputs against hand-computed values; synchronized batch
// statistics across replica threads (one of them without examples) equal to one replica
// with the whole batch; Keras import of every format; parameter counts and the summary's
// non-trainable parameters; the moving statistics saved with the weights.

#include "gradcheck.h"
#include "layer_text.h"

#include "strata/nn/layer.h"
#include "strata/nn/sequential.h"
#include "strata/rundir/checkpoint.h"
#include "strata/rundir/model_state.h"
#include "strata/schema/model_spec.h"

#include <QtTest>

#include <barrier>
#include <cmath>
#include <thread>

using namespace strata;
using gradcheck::toDouble;
using gradcheck::toTensor;
using nn::ForwardContext;
using schema::Json;
using Values = std::vector<double>;

Q_DECLARE_METATYPE(strata::Shape)

namespace {

struct Reference {
    bool training;
    double epsilon;
    Values movingMean, movingVariance; // inference
};

// y = gamma (x - mean) / sqrt(var + eps) + beta per channel (the last axis), with the batch's
// biased variance when training, the moving statistics otherwise.
Values referenceForward(const Reference& r, const Values& x, int64_t channels, const Values& gamma, const Values& beta)
{
    const size_t c = static_cast<size_t>(channels);
    const size_t rows = x.size() / c;
    Values mean(c, 0.0), var(c, 0.0);
    if (r.training) {
        for (size_t i = 0; i < rows; ++i)
            for (size_t k = 0; k < c; ++k)
                mean[k] += x[i * c + k] / static_cast<double>(rows);
        for (size_t i = 0; i < rows; ++i)
            for (size_t k = 0; k < c; ++k)
                var[k] += std::pow(x[i * c + k] - mean[k], 2) / static_cast<double>(rows);
    } else {
        mean = r.movingMean;
        var = r.movingVariance;
    }
    Values y(x.size());
    for (size_t i = 0; i < rows; ++i)
        for (size_t k = 0; k < c; ++k)
            y[i * c + k] = (gamma.empty() ? 1.0 : gamma[k]) * (x[i * c + k] - mean[k]) / std::sqrt(var[k] + r.epsilon) +
                           (beta.empty() ? 0.0 : beta[k]);
    return y;
}

nn::Parameter* find(nn::Layer& layer, const std::string& suffix)
{
    for (auto* list : {&layer.parameters(), &layer.states()})
        for (auto& p : *list)
            if (p.name.ends_with(suffix))
                return &p;
    return nullptr;
}

Values valuesOf(nn::Layer& layer, const std::string& suffix)
{
    nn::Parameter* p = find(layer, suffix);
    return p ? toDouble(p->value) : Values{};
}

QString problemText(const schema::Problems& problems)
{
    QStringList lines;
    for (const auto& p : problems.list())
        lines << QString::fromStdString(p.str());
    return lines.join('\n');
}

// Keras' own to_json() of Conv2D -> BatchNormalization -> ... as each version writes it.
// Keras 2.2.4 (standalone): axis an integer, initializers {"class_name", "config"}.
const char* kKeras22 = R"({"class_name": "Sequential", "config": {"name": "sequential_1", "layers": [
  {"class_name": "Conv2D", "config": {"name": "conv2d_1", "trainable": true, "batch_input_shape": [null, 28, 28, 1],
    "dtype": "float32", "filters": 8, "kernel_size": [3, 3], "strides": [1, 1], "padding": "valid",
    "data_format": "channels_last", "dilation_rate": [1, 1], "activation": "linear", "use_bias": false,
    "kernel_initializer": {"class_name": "VarianceScaling", "config": {"scale": 1.0, "mode": "fan_avg", "distribution": "uniform", "seed": null}},
    "bias_initializer": {"class_name": "Zeros", "config": {}}, "kernel_regularizer": null, "bias_regularizer": null,
    "activity_regularizer": null, "kernel_constraint": null, "bias_constraint": null}},
  {"class_name": "BatchNormalization", "config": {"name": "batch_normalization_1", "trainable": true, "axis": -1,
    "momentum": 0.99, "epsilon": 0.001, "center": true, "scale": true,
    "beta_initializer": {"class_name": "Zeros", "config": {}}, "gamma_initializer": {"class_name": "Ones", "config": {}},
    "moving_mean_initializer": {"class_name": "Zeros", "config": {}},
    "moving_variance_initializer": {"class_name": "Ones", "config": {}},
    "beta_regularizer": null, "gamma_regularizer": null, "beta_constraint": null, "gamma_constraint": null}}]},
  "keras_version": "2.2.4", "backend": "tensorflow"})";

// tf.keras 2.12: a built layer's axis is the list of positive axes; SyncBatchNormalization
// from tf.keras.layers.experimental.
const char* kTfKeras212 = R"({"class_name": "Sequential", "config": {"name": "sequential", "layers": [
  {"class_name": "InputLayer", "config": {"batch_input_shape": [null, 28, 28, 1], "dtype": "float32", "sparse": false, "ragged": false, "name": "conv2d_input"}},
  {"class_name": "Conv2D", "config": {"name": "conv2d", "trainable": true, "dtype": "float32", "filters": 8,
    "kernel_size": [3, 3], "strides": [1, 1], "padding": "valid", "data_format": "channels_last", "dilation_rate": [1, 1],
    "groups": 1, "activation": "linear", "use_bias": false,
    "kernel_initializer": {"class_name": "GlorotUniform", "config": {"seed": null}},
    "bias_initializer": {"class_name": "Zeros", "config": {}}, "kernel_regularizer": null, "bias_regularizer": null,
    "activity_regularizer": null, "kernel_constraint": null, "bias_constraint": null}},
  {"class_name": "BatchNormalization", "config": {"name": "batch_normalization", "trainable": true, "dtype": "float32",
    "axis": [3], "momentum": 0.9, "epsilon": 1e-05, "center": true, "scale": false,
    "beta_initializer": {"class_name": "Zeros", "config": {}}, "gamma_initializer": {"class_name": "Ones", "config": {}},
    "moving_mean_initializer": {"class_name": "Zeros", "config": {}},
    "moving_variance_initializer": {"class_name": "Ones", "config": {}},
    "beta_regularizer": null, "gamma_regularizer": null, "beta_constraint": null, "gamma_constraint": null}},
  {"class_name": "SyncBatchNormalization", "config": {"name": "sync_batch_normalization", "trainable": true, "dtype": "float32",
    "axis": [3], "momentum": 0.99, "epsilon": 0.001, "center": true, "scale": true,
    "beta_initializer": {"class_name": "Zeros", "config": {}}, "gamma_initializer": {"class_name": "Ones", "config": {}},
    "moving_mean_initializer": {"class_name": "Zeros", "config": {}},
    "moving_variance_initializer": {"class_name": "Ones", "config": {}},
    "beta_regularizer": null, "gamma_regularizer": null, "beta_constraint": null, "gamma_constraint": null}}]},
  "keras_version": "2.12.0", "backend": "tensorflow"})";

// Keras 3 (keras/src/layers/normalization/batch_normalization.py get_config): module and
// registered_name, DTypePolicy, build_config, synchronized and the renorm settings.
const char* kKeras3 = R"({"module": "keras", "class_name": "Sequential", "config": {"name": "sequential", "trainable": true,
  "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": null},
  "layers": [
   {"module": "keras.layers", "class_name": "InputLayer", "config": {"batch_shape": [null, 16], "dtype": "float32", "sparse": false, "ragged": false, "name": "input_layer"}, "registered_name": null},
   {"module": "keras.layers", "class_name": "BatchNormalization", "config": {"name": "batch_normalization", "trainable": true,
      "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": null},
      "axis": -1, "momentum": 0.99, "epsilon": 0.001, "center": true, "scale": true,
      "beta_initializer": {"module": "keras.initializers", "class_name": "Zeros", "config": {}, "registered_name": null},
      "gamma_initializer": {"module": "keras.initializers", "class_name": "Ones", "config": {}, "registered_name": null},
      "moving_mean_initializer": {"module": "keras.initializers", "class_name": "Zeros", "config": {}, "registered_name": null},
      "moving_variance_initializer": {"module": "keras.initializers", "class_name": "Ones", "config": {}, "registered_name": null},
      "beta_regularizer": null, "gamma_regularizer": null, "beta_constraint": null, "gamma_constraint": null,
      "synchronized": true, "renorm": false, "renorm_clipping": null, "renorm_momentum": 0.99},
    "registered_name": null, "build_config": {"input_shape": [null, 16]}}]},
  "registered_name": null, "build_config": {"input_shape": [null, 16]}})";

} // namespace

class TestBatchNormalization : public QObject {
    Q_OBJECT

private slots:
    void gradients_data()
    {
        QTest::addColumn<QByteArray>("layer");
        QTest::addColumn<Shape>("inputShape");
        QTest::addColumn<int>("batch");
        QTest::addColumn<bool>("training");
        for (bool training : {true, false}) {
            const QByteArray mode = training ? "training/" : "inference/";
            QTest::newRow(mode + "rank 2") << QByteArray(R"({"type": "BatchNormalization"})") << Shape{3} << 5 << training;
            QTest::newRow(mode + "images (rank 4)") << QByteArray(R"({"type": "BatchNormalization"})") << Shape{3, 4, 2}
                                                     << 2 << training;
            QTest::newRow(mode + "sequences, no scale")
                << QByteArray(R"({"type": "BatchNormalization", "scale": false, "epsilon": 0.01})") << Shape{4, 3} << 2
                << training;
            QTest::newRow(mode + "no center, no scale")
                << QByteArray(R"({"type": "BatchNormalization", "center": false, "scale": false})") << Shape{2} << 6
                << training;
        }
    }

    // Training: the gradient goes through the batch mean and variance; inference: through the
    // moving statistics (set to random values), which are constants.
    void gradients()
    {
        QFETCH(QByteArray, layer);
        QFETCH(Shape, inputShape);
        QFETCH(int, batch);
        QFETCH(bool, training);
        const schema::LayerSpec spec = testing::layerSpec(layer);
        Rng rng(7);
        auto l = nn::createLayer(spec, inputShape, rng);
        const int64_t c = inputShape.back();
        const Shape in = inputShape.withBatch(batch);
        for (auto* list : {&l->parameters(), &l->states()})
            for (auto& p : *list) {
                const bool variance = p.name.ends_with("moving_variance");
                p.value = toTensor(p.value.shape(), gradcheck::uniformValues(rng, static_cast<size_t>(c),
                                                                              variance ? 0.5 : -0.8, variance ? 2.0 : 0.8));
            }
        const Values x = gradcheck::uniformValues(rng, static_cast<size_t>(in.numel()), -1.5, 2.0);
        Reference ref{training, spec.number("epsilon"), valuesOf(*l, "moving_mean"), valuesOf(*l, "moving_variance")};
        const Values gamma = valuesOf(*l, "gamma"), beta = valuesOf(*l, "beta");

        ForwardContext ctx;
        ctx.training = training;
        const Tensor& y = l->forward(toTensor(in, x), ctx);
        const auto fwd = gradcheck::compare(toDouble(y), referenceForward(ref, x, c, gamma, beta), 1.0);
        QVERIFY2(fwd.error < 1e-5, ("forward: " + fwd.str()).c_str());

        const Values w = gradcheck::uniformValues(rng, x.size(), -1, 1);
        Tensor dy = toTensor(in, w);
        const Values dx = toDouble(l->backward(dy, true));
        const auto loss = [&](const Values& xv, const Values& g, const Values& b) {
            return gradcheck::dot(w, referenceForward(ref, xv, c, g, b));
        };
        const auto cx = gradcheck::compare(
            dx, gradcheck::numericGradient([&](const Values& v) { return loss(v, gamma, beta); }, x));
        QVERIFY2(cx.error < 1e-4, ("input gradient: " + cx.str()).c_str());
        if (!gamma.empty()) {
            const auto cg = gradcheck::compare(
                toDouble(find(*l, "gamma")->grad),
                gradcheck::numericGradient([&](const Values& v) { return loss(x, v, beta); }, gamma));
            QVERIFY2(cg.error < 1e-4, ("gamma gradient: " + cg.str()).c_str());
        }
        if (!beta.empty()) {
            const auto cb = gradcheck::compare(
                toDouble(find(*l, "beta")->grad),
                gradcheck::numericGradient([&](const Values& v) { return loss(x, gamma, v); }, beta));
            QVERIFY2(cb.error < 1e-4, ("beta gradient: " + cb.str()).c_str());
        }
        QVERIFY(find(*l, "moving_mean")->grad.empty()); // not trained by the optimizer
    }

    // Two channels, rows (1, 2) and (3, 6): batch means (2, 4), biased variances (1, 4).
    void movingStatisticsAndBothModes()
    {
        const schema::LayerSpec spec = testing::layerSpec(R"({"type": "BatchNormalization", "momentum": 0.9})");
        Rng rng(1);
        auto l = nn::createLayer(spec, Shape{2}, rng);
        const Tensor x = toTensor({2, 2}, {1, 2, 3, 6});
        ForwardContext train;
        train.training = true;
        // Training normalizes with the batch: (1 - 2) / sqrt(1 + 0.001) = -0.99950037...
        Values y = toDouble(l->forward(x, train));
        const double a = 1 / std::sqrt(1.001), b = 1 / std::sqrt(4.001);
        const Values expected{-a, -2 * b, a, 2 * b};
        for (size_t i = 0; i < 4; ++i)
            QVERIFY2(std::abs(y[i] - expected[i]) < 1e-6, qPrintable(QString::number(y[i])));
        // moving = moving * 0.9 + batch * 0.1, from (0, 0) and (1, 1).
        auto near = [](const Values& got, const Values& want) {
            for (size_t i = 0; i < want.size(); ++i)
                if (std::abs(got[i] - want[i]) > 1e-6)
                    return false;
            return got.size() == want.size();
        };
        QVERIFY(near(valuesOf(*l, "moving_mean"), {0.2, 0.4}));
        QVERIFY(near(valuesOf(*l, "moving_variance"), {1.0, 1.3}));
        l->forward(x, train);
        QVERIFY(near(valuesOf(*l, "moving_mean"), {0.38, 0.76}));
        QVERIFY(near(valuesOf(*l, "moving_variance"), {1.0, 1.57}));
        // Inference normalizes with the moving statistics and leaves them alone.
        y = toDouble(l->forward(x, ForwardContext{}));
        const Values inference{(1 - 0.38) / std::sqrt(1.001), (2 - 0.76) / std::sqrt(1.571),
                               (3 - 0.38) / std::sqrt(1.001), (6 - 0.76) / std::sqrt(1.571)};
        QVERIFY(near(y, inference));
        QVERIFY(near(valuesOf(*l, "moving_mean"), {0.38, 0.76}));
    }

    // Replicas with rows 0-3, 4-8 and none: synchronized, each normalizes with the statistics
    // of all 9 rows, so outputs, input gradients, summed parameter gradients and moving
    // statistics are those of one layer given the whole batch. Not synchronized, each uses its
    // own rows.
    void synchronizedReplicasComputeTheGlobalBatch_data()
    {
        QTest::addColumn<bool>("synchronized");
        QTest::newRow("synchronized") << true;
        QTest::newRow("per replica") << false;
    }

    void synchronizedReplicasComputeTheGlobalBatch()
    {
        QFETCH(bool, synchronized);
        const schema::LayerSpec spec = testing::layerSpec(synchronized ? R"({"type": "BatchNormalization", "synchronized": true})"
                                                                     : R"({"type": "BatchNormalization"})");
        const Shape example{2, 3};
        Rng data(3);
        const Values x = gradcheck::uniformValues(data, 9 * 6, -2, 3);
        const Values w = gradcheck::uniformValues(data, 9 * 6, -1, 1);
        const std::vector<std::pair<int64_t, int64_t>> slices{{0, 4}, {4, 9}, {9, 9}};
        auto makeLayer = [&] {
            Rng rng(11);
            auto l = nn::createLayer(spec, example, rng);
            Rng values(12);
            for (auto& p : l->parameters())
                p.value = toTensor(p.value.shape(), gradcheck::uniformValues(values, 3, 0.5, 1.5));
            return l;
        };
        auto run = [&](nn::Layer& l, int64_t begin, int64_t end, const ForwardContext& ctx, Values& y, Values& dx) {
            if (begin == end) {
                l.joinWithoutData(ctx, false, false);
                l.joinWithoutData(ctx, true, true);
                return;
            }
            const Shape s = example.withBatch(end - begin);
            y = toDouble(l.forward(toTensor(s, Values(x.begin() + begin * 6, x.begin() + end * 6)), ctx));
            Tensor dy = toTensor(s, Values(w.begin() + begin * 6, w.begin() + end * 6));
            dx = toDouble(l.backward(dy, true));
        };

        // The sum every replica reads: each publishes its values, then adds all of them.
        std::barrier sync(3);
        std::vector<Values> published(3);
        std::vector<nn::CrossReplicaSum> sums;
        for (int r = 0; r < 3; ++r)
            sums.push_back([&, r](std::span<double> v) {
                published[size_t(r)].assign(v.begin(), v.end());
                sync.arrive_and_wait();
                for (size_t i = 0; i < v.size(); ++i)
                    v[i] = published[0][i] + published[1][i] + published[2][i];
                sync.arrive_and_wait();
            });
        std::vector<std::unique_ptr<nn::Layer>> replicas;
        std::vector<Values> ys(3), dxs(3);
        std::vector<std::thread> threads;
        for (int r = 0; r < 3; ++r)
            replicas.push_back(makeLayer());
        for (int r = 0; r < 3; ++r)
            threads.emplace_back([&, r] {
                ForwardContext ctx;
                ctx.training = true;
                ctx.replica = r;
                ctx.crossReplicaSum = &sums[static_cast<size_t>(r)];
                run(*replicas[static_cast<size_t>(r)], slices[size_t(r)].first, slices[size_t(r)].second, ctx,
                    ys[size_t(r)], dxs[size_t(r)]);
            });
        for (auto& t : threads)
            t.join();

        ForwardContext alone;
        alone.training = true;
        for (int r = 0; r < 2; ++r) {
            // The reference: one layer given the whole batch, or this replica's rows alone.
            auto reference = makeLayer();
            const auto [begin, end] = synchronized ? std::pair<int64_t, int64_t>{0, 9} : slices[size_t(r)];
            Values y, dx;
            run(*reference, begin, end, alone, y, dx);
            const int64_t offset = (slices[size_t(r)].first - begin) * 6;
            const Values yMine(y.begin() + offset, y.begin() + offset + static_cast<int64_t>(ys[size_t(r)].size()));
            const Values dxMine(dx.begin() + offset, dx.begin() + offset + static_cast<int64_t>(dxs[size_t(r)].size()));
            QVERIFY2(gradcheck::compare(ys[size_t(r)], yMine).error < 1e-5, "outputs");
            QVERIFY2(gradcheck::compare(dxs[size_t(r)], dxMine).error < 1e-4, "input gradients");
            QVERIFY2(gradcheck::compare(valuesOf(*replicas[size_t(r)], "moving_variance"),
                                        valuesOf(*reference, "moving_variance")).error < 1e-5,
                     "moving statistics");
            if (synchronized) {
                // The replicas' parameter gradients add up to the whole batch's.
                Values summed(3, 0.0);
                for (auto& rep : replicas)
                    if (!find(*rep, "gamma")->grad.empty() && rep != replicas.back())
                        for (size_t k = 0; k < 3; ++k)
                            summed[k] += toDouble(find(*rep, "gamma")->grad)[k];
                QVERIFY(gradcheck::compare(summed, toDouble(find(*reference, "gamma")->grad)).error < 1e-4);
            }
        }
        // The replica without examples moved its statistics with the others' (synchronized) or
        // kept its initial ones.
        const Values idle = valuesOf(*replicas[2], "moving_mean");
        QCOMPARE(gradcheck::compare(idle, valuesOf(*replicas[0], "moving_mean")).error < 1e-6, synchronized);
    }

    void importsEveryKerasFormat()
    {
        schema::Problems problems;
        const auto k22 = schema::parseModel(Json::parse(kKeras22), "model", problems);
        QVERIFY2(problems.empty(), qPrintable(problemText(problems)));
        QCOMPARE(k22.layers[1].type, std::string("BatchNormalization"));
        QCOMPARE(k22.layers[1].number("momentum"), 0.99);
        // Keras: Conv2D 3*3*1*8 = 72 (no bias); BatchNormalization 4 * 8, half of it non-trainable.
        auto shapes = schema::inferShapes(k22);
        QCOMPARE(shapes.layers[1].paramCount, int64_t(32));
        QCOMPARE(shapes.nonTrainableParams, int64_t(16));
        QCOMPARE(shapes.totalParams, int64_t(72 + 32));

        const auto k212 = schema::parseModel(Json::parse(kTfKeras212), "model", problems);
        QVERIFY2(problems.empty(), qPrintable(problemText(problems)));
        QCOMPARE(k212.layers[1].integer("axis"), int64_t(3));
        QCOMPARE(k212.layers[1].number("epsilon"), 1e-5);
        QVERIFY(!k212.layers[1].flag("scale"));
        QVERIFY(!k212.layers[1].flag("synchronized"));
        QVERIFY(k212.layers[2].flag("synchronized")); // SyncBatchNormalization
        shapes = schema::inferShapes(k212);
        QVERIFY2(shapes.ok(), shapes.error.c_str());
        QCOMPARE(shapes.layers[1].paramCount, int64_t(3 * 8)); // beta, moving mean and variance
        QCOMPARE(shapes.nonTrainableParams, int64_t(2 * 8 + 2 * 8));

        const auto k3 = schema::parseModel(Json::parse(kKeras3), "model", problems);
        QVERIFY2(problems.empty(), qPrintable(problemText(problems)));
        QVERIFY(k3.layers[0].flag("synchronized"));
        QCOMPARE(schema::inferShapes(k3).totalParams, int64_t(64));
    }

    void unsupportedSettingsAreRefusedAtTheirPath_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("message");
        QTest::newRow("renorm") << "renorm" << "true" << "model.config.layers[1].config.renorm: batch renormalization";
        QTest::newRow("virtual batch") << "virtual_batch_size" << "8" << "virtual_batch_size: is not supported";
        QTest::newRow("gamma regularizer") << "gamma_regularizer"
                                           << R"({"class_name": "L2", "config": {"l2": 0.01}})"
                                           << "gamma_regularizer: is not supported";
        QTest::newRow("channels first") << "axis" << "1" << "axis 1 is not supported";
    }

    void unsupportedSettingsAreRefusedAtTheirPath()
    {
        QFETCH(QString, key);
        QFETCH(QString, value);
        QFETCH(QString, message);
        Json doc = Json::parse(kKeras3);
        doc["config"]["layers"][1]["config"][key.toStdString()] = Json::parse(value.toStdString());
        doc["config"]["layers"][0]["config"]["batch_shape"] = {nullptr, 4, 4, 16};
        schema::Problems problems;
        schema::ModelSpec model = schema::parseModel(doc, "model", problems);
        QString text = problemText(problems);
        if (problems.empty()) {
            const auto shapes = schema::inferShapes(model);
            text = QString::fromStdString(shapes.error);
        }
        QVERIFY2(text.contains(message), qPrintable(text));
    }

    void summaryCountsTheMovingStatisticsAsNonTrainable()
    {
        schema::Problems problems;
        const auto model = schema::parseModel(Json::parse(R"({"input_shape": [3], "layers": [
            {"type": "Dense", "units": 4}, {"type": "BatchNormalization"}, {"type": "Dense", "units": 2}]})"),
                                            "model", problems);
        QVERIFY(problems.empty());
        const auto shapes = schema::inferShapes(model);
        const QString text = QString::fromStdString(schema::summary(model, shapes));
        // Keras: Dense 3*4+4 = 16, BatchNormalization 4*4 = 16 (8 non-trainable), Dense 4*2+2 = 10.
        QVERIFY2(text.contains("Total params: 42\n"), qPrintable(text));
        QVERIFY2(text.contains("Trainable params: 34\n"), qPrintable(text));
        QVERIFY2(text.contains("Non-trainable params: 8\n"), qPrintable(text));
    }

    void movingStatisticsAreSavedWithTheWeights()
    {
        schema::Problems problems;
        const auto spec = schema::parseModel(Json::parse(R"({"input_shape": [3], "layers": [
            {"type": "BatchNormalization", "name": "bn"}, {"type": "Dense", "units": 2}]})"), "model", problems);
        nn::Sequential a(spec, 1), b(spec, 2);
        ForwardContext train;
        train.training = true;
        a.forward(toTensor({4, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 1, 1}), train);
        run::Checkpoint checkpoint;
        run::captureState(a, nullptr, checkpoint);
        QVERIFY(checkpoint.find("bn/moving_mean") && checkpoint.find("bn/moving_variance"));
        run::restoreState(checkpoint, b, nullptr, "test");
        QCOMPARE(toDouble(b.states()[0]->value), toDouble(a.states()[0]->value));
        QCOMPARE(toDouble(b.states()[1]->value), toDouble(a.states()[1]->value));
        QCOMPARE(run::weightsChecksum(b), run::weightsChecksum(a));
    }

    void parameterServerTrainingRefusesMovingStatistics()
    {
        const Json doc = Json::parse(R"({"strata": 1, "name": "ps", "strategy": {"type": "ParameterServer"},
          "cluster": {"nodes": [{"name": "local", "host": "127.0.0.1"}],
                      "tasks": [{"type": "chief", "node": "local", "port": 40001},
                                {"type": "worker", "node": "local", "port": 40002},
                                {"type": "ps", "node": "local", "port": 40003}]},
          "model": {"input_shape": [3], "layers": [{"type": "BatchNormalization"}, {"type": "Dense", "units": 2}]},
          "data": {"source": {"type": "synthetic"}}, "training": {"loss": "mse"}})");
        try {
            schema::parseExperiment(doc, ".");
            QFAIL("accepted");
        } catch (const ConfigError& e) {
            const QString text = QString::fromStdString(e.what());
            QVERIFY2(text.contains("model.layers[0]") && text.contains("ParameterServer"), qPrintable(text));
        }
    }
};

QTEST_GUILESS_MAIN(TestBatchNormalization)
#include "tst_batch_normalization.moc"
