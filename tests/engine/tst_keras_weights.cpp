// Keras 3's model.weights.h5 through libhdf5 (rundir/keras_weights.h): a model's weights written
// and read back into a fresh model (identical predictions), the file's structure as h5py
// (which Keras itself uses) sees it against the layout Keras' saving_lib writes, and every
// kind of bad file answered by an error that names the file and the dataset.

#include "strata/core/error.h"
#include "strata/core/rng.h"
#include "strata/nn/sequential.h"
#include "strata/rundir/keras_weights.h"
#include "strata/rundir/model_state.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <span>
#include <fstream>
#include <map>

using namespace strata;

namespace {

using Json = nlohmann::json;

schema::ModelSpec parse(const std::string& json)
{
    schema::Problems problems;
    auto m = schema::parseModel(schema::Json::parse(json), "model", problems);
    problems.throwIfAny();
    return m;
}

// Conv2D, BatchNormalization (moving statistics: non-trainable), pooling, Dense, Dropout:
// trainable and non-trainable variables, and layers without any.
const char* kImageModel = R"({"name": "images", "input_shape": [8, 8, 1], "layers": [
    {"type": "Conv2D", "filters": 4, "kernel_size": 3, "activation": "relu"},
    {"type": "BatchNormalization"},
    {"type": "MaxPooling2D", "pool_size": 2},
    {"type": "Flatten"},
    {"type": "Dense", "name": "hidden", "units": 16, "activation": "relu"},
    {"type": "Dropout", "rate": 0.3},
    {"type": "Dense", "name": "out", "units": 3, "activation": "softmax"}]})";

const char* kTextModel = R"({"input_shape": [12], "layers": [
    {"type": "Embedding", "input_dim": 30, "output_dim": 5},
    {"type": "GlobalAveragePooling1D"},
    {"type": "Dense", "units": 4, "activation": "tanh"},
    {"type": "Activation", "activation": "sigmoid"}]})";

std::vector<Tensor*> variables(nn::Sequential& model)
{
    std::vector<Tensor*> out;
    for (auto* list : {&model.parameters(), &model.states()})
        for (nn::Parameter* p : *list)
            out.push_back(&p->value);
    return out;
}

// A model with every variable changed from its initial value: trainable ones set at random,
// BatchNormalization's moving statistics moved by training-mode passes.
void train(nn::Sequential& model, const Tensor& x, uint64_t seed)
{
    Rng rng(seed);
    for (nn::Parameter* p : model.parameters())
        for (float& v : std::span<float>(p->value.data(), static_cast<size_t>(p->value.numel())))
            v = static_cast<float>(rng.normal() * 0.3);
    for (int step = 0; step < 3; ++step)
        model.forward(x, nn::ForwardContext{true, seed, step});
}

Tensor input(const Shape& example, int64_t batch, uint64_t seed, float scale, bool integers = false)
{
    Tensor x(example.withBatch(batch));
    Rng rng(seed);
    for (int64_t i = 0; i < x.numel(); ++i)
        x.data()[i] = integers ? static_cast<float>(static_cast<int64_t>(rng.uniform() * scale))
                               : static_cast<float>(rng.uniform(-scale, scale));
    return x;
}

std::vector<float> predict(nn::Sequential& model, const Tensor& x)
{
    const Tensor& y = model.forward(x, nn::ForwardContext{});
    return std::vector<float>(y.data(), y.data() + y.numel());
}

bool bitwiseEqual(const std::vector<float>& a, const std::vector<float>& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

std::vector<std::vector<float>> snapshot(nn::Sequential& model)
{
    std::vector<std::vector<float>> out;
    for (Tensor* t : variables(model))
        out.emplace_back(t->data(), t->data() + t->numel());
    return out;
}

// The message of what `f` throws as E (fails the test when it throws nothing or another type).
template <typename E, typename F>
QString messageOf(F&& f)
{
    try {
        f();
    } catch (const E& e) {
        return QString::fromStdString(e.what());
    } catch (const std::exception& e) {
        return "WRONG TYPE: " + QString::fromStdString(e.what());
    }
    return "NOTHING THROWN";
}

const char* kH5Dump = R"(
import json, sys
import h5py
out = {"groups": {}, "datasets": {}}
def attrs(obj):
    d = {}
    for k in obj.attrs.keys():
        v = obj.attrs[k]
        info = h5py.check_string_dtype(obj.attrs.get_id(k).dtype)
        d[k] = {"value": v.decode() if isinstance(v, bytes) else str(v),
                "string": None if info is None else [info.encoding, info.length]}
    return d
with h5py.File(sys.argv[1], "r") as f:
    def visit(name, obj):
        if isinstance(obj, h5py.Dataset):
            out["datasets"][name] = {"shape": list(obj.shape), "dtype": obj.dtype.str,
                                     "values": obj[()].ravel().tolist(), "attrs": attrs(obj),
                                     "contiguous": obj.chunks is None and obj.compression is None}
        else:
            out["groups"][name] = attrs(obj)
    f.visititems(visit)
    out["root_attrs"] = attrs(f)
print(json.dumps(out))
)";

} // namespace

class TestKerasWeights : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    std::string path(const QString& name) const { return m_dir.filePath(name).toStdString(); }

    // Runs /usr/bin/python3 with h5py on `file`; null with `skip` set when h5py is missing.
    Json h5pyDump(const std::string& file, QString* skip)
    {
        const QString script = m_dir.filePath("dump.py");
        std::ofstream(script.toStdString()) << kH5Dump;
        QProcess p;
        p.start("/usr/bin/python3", {script, QString::fromStdString(file)});
        if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit) {
            *skip = "/usr/bin/python3 did not run: " + p.errorString();
            return nullptr;
        }
        const QByteArray err = p.readAllStandardError();
        if (p.exitCode() != 0 && err.contains("No module named 'h5py'")) {
            *skip = "python3-h5py is not installed (scripts/install-deps.sh installs it)";
            return nullptr;
        }
        if (p.exitCode() != 0)
            qFatal("h5py failed: %s", err.constData());
        return Json::parse(p.readAllStandardOutput().toStdString());
    }

private slots:
    void freshModelPredictsIdenticallyAfterImport_data()
    {
        QTest::addColumn<QString>("source");
        QTest::newRow("Conv2D, BatchNormalization, pooling, Dense, Dropout") << QString(kImageModel);
        QTest::newRow("Embedding, GlobalAveragePooling1D, Dense, Activation") << QString(kTextModel);
    }
    void freshModelPredictsIdenticallyAfterImport()
    {
        QFETCH(QString, source);
        const auto spec = parse(source.toStdString());
        const bool text = spec.layers.front().type == "Embedding";
        const Tensor x = input(spec.inputShape, 6, 11, text ? 30 : 1, text);
        nn::Sequential trained(spec, 1);
        train(trained, x, 5);
        const auto weights = snapshot(trained);
        const std::string file = path("roundtrip.weights.h5");
        run::writeKerasWeights(trained, file);

        nn::Sequential fresh(spec, 2); // other initial values
        QVERIFY(snapshot(fresh) != weights);
        QVERIFY(!bitwiseEqual(predict(fresh, x), predict(trained, x)));
        run::readKerasWeights(file, fresh);
        // Every variable, trainable or not, bit for bit; and so the predictions.
        const auto loaded = snapshot(fresh);
        QCOMPARE(loaded.size(), weights.size());
        for (size_t i = 0; i < loaded.size(); ++i)
            QVERIFY2(bitwiseEqual(loaded[i], weights[i]), qPrintable("variable " + QString::number(i)));
        QVERIFY(bitwiseEqual(predict(fresh, x), predict(trained, x)));
        QCOMPARE(run::weightsChecksum(fresh), run::weightsChecksum(trained));
        if (!text) {
            // The moving statistics took part: they are no longer their initial zeros and ones.
            const Tensor& movingMean = fresh.states().front()->value;
            QVERIFY(std::any_of(movingMean.data(), movingMean.data() + movingMean.numel(), [](float v) { return v != 0; }));
        }
    }

    void h5pySeesKerasLayout()
    {
        const auto spec = parse(kImageModel);
        nn::Sequential model(spec, 3);
        train(model, input(spec.inputShape, 4, 12, 1), 7);
        const std::string file = path("layout.weights.h5");
        run::writeKerasWeights(model, file, {3, 12});
        QString skip;
        const Json dump = h5pyDump(file, &skip);
        if (dump.is_null())
            QSKIP(qPrintable(skip));

        // Written out from keras/src/saving/saving_lib.py: _save_state gives the model, then each
        // saveable it reaches, a `vars` group (H5IOStore.make / _create_h5_group) with
        // {"name": saveable.name} as attributes (3.6+); the Sequential's layers come first, as the
        // container "layers" whose entries are named by _get_unique_name(to_snake_case(class)).
        // Layer.save_own_variables: "0", "1"... = _trainable_variables + _non_trainable_variables.
        const std::map<std::string, std::string> expectedGroups = {
            {"layers", ""},
            {"layers/conv2d", ""},
            {"layers/conv2d/vars", "conv2d"},
            {"layers/batch_normalization", ""},
            {"layers/batch_normalization/vars", "batch_normalization"},
            {"layers/max_pooling2d", ""},
            {"layers/max_pooling2d/vars", "max_pooling2d"},
            {"layers/flatten", ""},
            {"layers/flatten/vars", "flatten"},
            {"layers/dense", ""},
            {"layers/dense/vars", "hidden"},
            {"layers/dropout", ""},
            {"layers/dropout/vars", "dropout"},
            {"layers/dense_1", ""},
            {"layers/dense_1/vars", "out"},
            {"vars", "images"},
        };
        std::map<std::string, std::string> groups;
        for (const auto& [name, attrs] : dump["groups"].items()) {
            groups[name] = attrs.contains("name") ? attrs["name"]["value"].get<std::string>() : "";
            if (attrs.contains("name")) // a Python str attribute: variable-length UTF-8
                QCOMPARE(attrs["name"]["string"], Json::parse(R"(["utf-8", null])"));
            QCOMPARE(attrs.size(), size_t(attrs.contains("name") ? 1 : 0));
        }
        QCOMPARE(groups, expectedGroups);
        QVERIFY(dump["root_attrs"].empty());

        // conv: 3x3 over 1 channel, 4 filters; its output 6x6x4, pooled to 3x3x4 = 36 features.
        const std::map<std::string, std::vector<int64_t>> expectedDatasets = {
            {"layers/conv2d/vars/0", {3, 3, 1, 4}},  {"layers/conv2d/vars/1", {4}},
            {"layers/batch_normalization/vars/0", {4}}, // gamma
            {"layers/batch_normalization/vars/1", {4}}, // beta
            {"layers/batch_normalization/vars/2", {4}}, // moving_mean
            {"layers/batch_normalization/vars/3", {4}}, // moving_variance
            {"layers/dense/vars/0", {36, 16}},         {"layers/dense/vars/1", {16}},
            {"layers/dense_1/vars/0", {16, 3}},        {"layers/dense_1/vars/1", {3}},
        };
        std::map<std::string, std::vector<int64_t>> datasets;
        for (const auto& [name, d] : dump["datasets"].items()) {
            datasets[name] = d["shape"].get<std::vector<int64_t>>();
            QCOMPARE(d["dtype"].get<std::string>(), std::string("<f4")); // float32, little-endian
            QVERIFY(d["attrs"].empty());
            QVERIFY(d["contiguous"].get<bool>());
        }
        QCOMPARE(datasets, expectedDatasets);

        // The values h5py reads are the model's, in Keras' order (kernel (in, out) row-major).
        auto values = [&](const std::string& name) { return dump["datasets"][name]["values"].get<std::vector<double>>(); };
        auto same = [](const std::vector<double>& read, const Tensor& t) {
            if (read.size() != static_cast<size_t>(t.numel()))
                return false;
            for (size_t i = 0; i < read.size(); ++i)
                if (static_cast<float>(read[i]) != t.data()[i])
                    return false;
            return true;
        };
        auto& conv = model.layer(0);
        auto& bn = model.layer(1);
        QVERIFY(same(values("layers/conv2d/vars/0"), conv.parameters()[0].value));
        QVERIFY(same(values("layers/conv2d/vars/1"), conv.parameters()[1].value));
        QVERIFY(same(values("layers/batch_normalization/vars/0"), bn.parameters()[0].value));
        QVERIFY(same(values("layers/batch_normalization/vars/1"), bn.parameters()[1].value));
        QVERIFY(same(values("layers/batch_normalization/vars/2"), bn.states()[0].value));
        QVERIFY(same(values("layers/batch_normalization/vars/3"), bn.states()[1].value));
        QCOMPARE(bn.states()[0].name, std::string("batch_normalization/moving_mean"));
        QVERIFY(same(values("layers/dense/vars/0"), model.layer(4).parameters()[0].value));
        QVERIFY(same(values("layers/dense_1/vars/1"), model.layer(6).parameters()[1].value));

        // Before 3.6 the vars groups had no attributes.
        run::writeKerasWeights(model, file, {3, 5});
        const Json old = h5pyDump(file, &skip);
        for (const auto& [name, attrs] : old["groups"].items())
            QVERIFY2(attrs.empty(), name.c_str());
        QCOMPARE(old["datasets"].size(), expectedDatasets.size());
    }

    void missingFile()
    {
        nn::Sequential model(parse(kImageModel), 1);
        const QString m = messageOf<IoError>([&] { run::readKerasWeights(path("nope.weights.h5"), model); });
        QVERIFY2(m.contains("nope.weights.h5") && m.contains("no such file"), qPrintable(m));
        const QString i = messageOf<IoError>([&] { run::loadInitialWeights(path("nope.weights.h5"), model); });
        QVERIFY2(i.contains("nope.weights.h5") && i.contains("no such file"), qPrintable(i));
    }

    void notHdf5()
    {
        nn::Sequential model(parse(kImageModel), 1);
        const auto before = snapshot(model);
        const std::string file = path("text.weights.h5");
        std::ofstream(file) << "{\"not\": \"hdf5\"}\n";
        const QString m = messageOf<DataError>([&] { run::readKerasWeights(file, model); });
        QVERIFY2(m.contains("text.weights.h5") && m.contains("is not an HDF5 file"), qPrintable(m));
        // As initial weights: neither format.
        const QString i = messageOf<DataError>([&] { run::loadInitialWeights(file, model); });
        QVERIFY2(i.contains("neither an HDF5 file") && i.contains("model.weights"), qPrintable(i));
        QVERIFY(snapshot(model) == before);
    }

    void truncatedFile()
    {
        nn::Sequential model(parse(kImageModel), 1);
        const std::string file = path("cut.weights.h5");
        run::writeKerasWeights(model, file);
        std::filesystem::resize_file(file, std::filesystem::file_size(file) / 2);
        const QString m = messageOf<DataError>([&] { run::readKerasWeights(file, model); });
        QVERIFY2(m.contains("cut.weights.h5"), qPrintable(m));
    }

    void mismatchesNameTheDatasetAndWhatWasExpected_data()
    {
        QTest::addColumn<QString>("written");
        QTest::addColumn<QString>("read");
        QTest::addColumn<QStringList>("needles");
        QTest::newRow("wrong shape")
            << R"({"input_shape": [8], "layers": [{"type": "Dense", "units": 5}]})"
            << R"({"input_shape": [8], "layers": [{"type": "Dense", "units": 6}]})"
            << QStringList{"dataset layers/dense/vars/0 has shape (8, 5)", "layer 0 \"dense\" (Dense) needs (8, 6)",
                           "kernel"};
        QTest::newRow("missing dataset")
            << R"({"input_shape": [8], "layers": [{"type": "Dense", "units": 5, "use_bias": false}]})"
            << R"({"input_shape": [8], "layers": [{"type": "Dense", "units": 5}]})"
            << QStringList{"layers/dense/vars holds 1 datasets (0)", "has 2 variables (kernel, bias)"};
        QTest::newRow("missing layer")
            << R"({"input_shape": [8], "layers": [{"type": "Dense", "units": 5}, {"type": "Dense", "units": 2}]})"
            << R"({"input_shape": [8], "layers": [{"type": "Dense", "units": 5}, {"type": "Dense", "units": 2},
                                                  {"type": "Dense", "units": 2}]})"
            << QStringList{"has no group layers/dense_2/vars", "layer 2 \"dense_2\" (Dense)", "kernel (2, 2)",
                           "the file's: dense, dense_1"};
        QTest::newRow("other layer type")
            << R"({"input_shape": [4, 4, 1], "layers": [{"type": "Conv2D", "filters": 2, "kernel_size": 3},
                                                        {"type": "Flatten"}]})"
            << R"({"input_shape": [4, 4, 1], "layers": [{"type": "Flatten"}, {"type": "Dense", "units": 8}]})"
            << QStringList{"has no group layers/dense/vars", "(Dense)", "conv2d, flatten"};
        QTest::newRow("weights of a layer the model lacks")
            << R"({"input_shape": [8], "layers": [{"type": "Dense", "units": 5}, {"type": "Dense", "units": 2}]})"
            << R"({"input_shape": [8], "layers": [{"type": "Dense", "units": 5}]})"
            << QStringList{"holds weights in layers/dense_1", "no layer of the model matches", "another model"};
        QTest::newRow("moving statistics missing")
            << R"({"input_shape": [3], "layers": [{"type": "Dense", "units": 4}, {"type": "Dense", "units": 4}]})"
            << R"({"input_shape": [3], "layers": [{"type": "Dense", "units": 4}, {"type": "BatchNormalization"}]})"
            << QStringList{"has no group layers/batch_normalization/vars", "moving_mean (4,)", "moving_variance (4,)"};
    }
    void mismatchesNameTheDatasetAndWhatWasExpected()
    {
        QFETCH(QString, written);
        QFETCH(QString, read);
        QFETCH(QStringList, needles);
        const std::string file = path("mismatch.weights.h5");
        run::writeKerasWeights(nn::Sequential(parse(written.toStdString()), 1), file);
        nn::Sequential model(parse(read.toStdString()), 2);
        const auto before = snapshot(model);
        const QString m = messageOf<DataError>([&] { run::readKerasWeights(file, model); });
        QVERIFY2(m.startsWith(QString::fromStdString(file) + ": "), qPrintable(m));
        for (const QString& needle : needles)
            QVERIFY2(m.contains(needle), qPrintable("\"" + needle + "\" not in: " + m));
        // Nothing was loaded.
        QVERIFY(snapshot(model) == before);
    }

    void initialWeightsInStrataFormat()
    {
        const auto spec = parse(kImageModel);
        nn::Sequential trained(spec, 1);
        train(trained, input(spec.inputShape, 3, 1, 1), 9);
        const std::string file = path("model.weights");
        run::writeWeights(trained, 10, file);
        nn::Sequential fresh(spec, 4);
        run::loadInitialWeights(file, fresh);
        QCOMPARE(run::weightsChecksum(fresh), run::weightsChecksum(trained));
        // And the Keras file the same way.
        nn::Sequential other(spec, 5);
        run::writeKerasWeights(trained, path("init.weights.h5"));
        run::loadInitialWeights(path("init.weights.h5"), other);
        QCOMPARE(run::weightsChecksum(other), run::weightsChecksum(trained));
        QVERIFY(run::isHdf5File(path("init.weights.h5")));
        QVERIFY(!run::isHdf5File(file));
    }

    void writingFailsCleanly()
    {
        nn::Sequential model(parse(kTextModel), 1);
        const QString m = messageOf<IoError>([&] { run::writeKerasWeights(model, path("no/such/dir/model.weights.h5")); });
        QVERIFY2(m.contains("no/such/dir/model.weights.h5"), qPrintable(m));
        QVERIFY(!QFile::exists(m_dir.filePath("no")));
    }
};

QTEST_GUILESS_MAIN(TestKerasWeights)
#include "tst_keras_weights.moc"
