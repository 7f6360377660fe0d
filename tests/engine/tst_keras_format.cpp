// Keras 3's config.json and model.weights.h5 layout for a ModelSpec (schema/keras_format.h):
// what Keras writes, compared with documents written out by hand from Keras' source (not from
// the writer's output), and the round trip through our own importer for every layer type.

#include "strata/core/error.h"
#include "strata/schema/keras_format.h"

#include <QtTest>

#include <algorithm>
#include <set>

using strata::Shape;
using namespace strata::schema;

namespace {

ModelSpec model(const char* text)
{
    Problems problems;
    ModelSpec m = parseModel(Json::parse(text), "model", problems);
    if (!problems.empty())
        qFatal("bad test model: %s", problems.list().front().str().c_str());
    return m;
}

// The representational differences Keras 3 forces (docs/keras-export.md): MaxPooling2D's
// strides are written resolved (null means pool_size), Embedding has no input_length (the
// input shape says it).
ModelSpec asKerasSpellsIt(ModelSpec m)
{
    for (auto& l : m.layers) {
        if ((l.type == "MaxPooling2D" || l.type == "AveragePooling2D") && l.isNull("strides"))
            l.config["strides"] = l.config["pool_size"];
        if (l.type == "Embedding")
            l.config["input_length"] = nullptr;
    }
    return m;
}

QString text(const Json& j) { return QString::fromStdString(j.dump()); }

// A model with every layer type the registry has, and non-default values wherever Keras can
// carry them.
const char* kImageModel = R"({"name": "images", "input_shape": [12, 10, 3], "layers": [
  {"type": "Conv2D", "name": "conv", "filters": 4, "kernel_size": [3, 2], "strides": [2, 1], "padding": "same",
   "activation": "tanh", "use_bias": false, "kernel_initializer": "lecun_normal", "kernel_regularizer": {"l2": 0.003}},
  {"type": "BatchNormalization", "momentum": 0.9, "epsilon": 1e-5, "center": false, "gamma_initializer": "uniform",
   "moving_variance_initializer": "normal", "synchronized": true},
  {"type": "MaxPooling2D", "pool_size": [2, 2], "padding": "same"},
  {"type": "MaxPooling2D", "pool_size": 2, "strides": [1, 1]},
  {"type": "Conv2D", "filters": 2, "kernel_size": 1, "bias_initializer": "ones", "kernel_initializer": "he_uniform"},
  {"type": "Flatten"},
  {"type": "Dropout", "rate": 0.25, "seed": 7},
  {"type": "Dense", "units": 5, "activation": "sigmoid", "kernel_initializer": "glorot_normal",
   "bias_initializer": "lecun_uniform"},
  {"type": "BatchNormalization"},
  {"type": "Activation", "activation": "softmax"}]})";

const char* kTextModel = R"({"input_shape": [20], "layers": [
  {"type": "Embedding", "input_dim": 50, "output_dim": 6, "embeddings_initializer": "he_normal", "input_length": 20},
  {"type": "GlobalAveragePooling1D"},
  {"type": "Dense", "units": 4, "activation": "relu", "use_bias": true, "kernel_initializer": "zeros"},
  {"type": "Dense", "units": 1, "activation": "linear", "bias_initializer": "normal"}]})";

// The layers the image and text models lack: 1-D convolutions, pooling, normalization,
// reshaping, noise-shaped dropout and recurrent layers.
const char* kSequenceModel = R"({"name": "sequences", "input_shape": [12, 4], "layers": [
  {"type": "Conv1D", "filters": 6, "kernel_size": 3, "strides": 1, "padding": "causal", "activation": "relu"},
  {"type": "LayerNormalization", "epsilon": 0.01, "center": false},
  {"type": "Dropout", "rate": 0.1, "noise_shape": [null, 1, 6]},
  {"type": "LSTM", "units": 5, "return_sequences": true, "unit_forget_bias": false, "recurrent_regularizer": {"l2": 0.01}},
  {"type": "GRU", "units": 4, "return_sequences": true, "reset_after": false},
  {"type": "GlobalMaxPooling1D"},
  {"type": "Reshape", "target_shape": [2, 2, -1]},
  {"type": "ZeroPadding2D", "padding": [[1, 0], [2, 1]]},
  {"type": "AveragePooling2D", "pool_size": 2, "padding": "same"},
  {"type": "GlobalMaxPooling2D"},
  {"type": "Reshape", "target_shape": [1, 1, 1]},
  {"type": "GlobalAveragePooling2D"}]})";

// What Keras 3.12 writes for Sequential([Input((784,)), Dense(128, "relu"), Dropout(0.2),
// Dense(10, "softmax")]), written out from keras/src: serialization_lib.serialize_keras_object
// (module, class_name, config, registered_name, build_config), Sequential.get_config (name,
// trainable, dtype, layers, build_input_shape), InputLayer.get_config, Layer.get_config,
// Dense.get_config, Dropout.get_config (built at init since 3.10: no build_config),
// initializers' get_config and DTypePolicy's.
const char* kKeras312Mlp = R"({"module": "keras", "class_name": "Sequential", "config": {
  "name": "sequential", "trainable": true,
  "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": null},
  "layers": [
    {"module": "keras.layers", "class_name": "InputLayer",
     "config": {"batch_shape": [null, 784], "dtype": "float32", "sparse": false, "ragged": false, "name": "input_layer"},
     "registered_name": null},
    {"module": "keras.layers", "class_name": "Dense",
     "config": {"name": "dense", "trainable": true,
                "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": null},
                "units": 128, "activation": "relu", "use_bias": true,
                "kernel_initializer": {"module": "keras.initializers", "class_name": "GlorotUniform", "config": {"seed": null}, "registered_name": null},
                "bias_initializer": {"module": "keras.initializers", "class_name": "Zeros", "config": {}, "registered_name": null},
                "kernel_regularizer": null, "bias_regularizer": null, "kernel_constraint": null, "bias_constraint": null},
     "registered_name": null, "build_config": {"input_shape": [null, 784]}},
    {"module": "keras.layers", "class_name": "Dropout",
     "config": {"name": "dropout", "trainable": true,
                "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": null},
                "rate": 0.2, "seed": null, "noise_shape": null},
     "registered_name": null},
    {"module": "keras.layers", "class_name": "Dense",
     "config": {"name": "dense_1", "trainable": true,
                "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": null},
                "units": 10, "activation": "softmax", "use_bias": true,
                "kernel_initializer": {"module": "keras.initializers", "class_name": "GlorotUniform", "config": {"seed": null}, "registered_name": null},
                "bias_initializer": {"module": "keras.initializers", "class_name": "Zeros", "config": {}, "registered_name": null},
                "kernel_regularizer": null, "bias_regularizer": null, "kernel_constraint": null, "bias_constraint": null},
     "registered_name": null, "build_config": {"input_shape": [null, 128]}}],
  "build_input_shape": [null, 784]},
  "registered_name": null, "build_config": {"input_shape": [null, 784]}})";

const char* kMlp = R"({"input_shape": [784], "layers": [
  {"type": "Dense", "units": 128, "activation": "relu"}, {"type": "Dropout", "rate": 0.2},
  {"type": "Dense", "units": 10, "activation": "softmax"}]})";

const Json* findLayer(const Json& config, const std::string& className)
{
    for (const auto& l : config["config"]["layers"])
        if (l["class_name"] == className)
            return &l;
    return nullptr;
}

std::vector<std::string> keys(const Json& object)
{
    std::vector<std::string> out;
    for (const auto& [k, v] : object.items())
        out.push_back(k);
    return out;
}

} // namespace

class TestKerasFormat : public QObject {
    Q_OBJECT

private slots:
    void snakeCaseAsKerasNamesClasses_data()
    {
        QTest::addColumn<QString>("className");
        QTest::addColumn<QString>("snake");
        // keras/src/utils/naming.py's own test cases and the layer classes we write.
        QTest::newRow("Dense") << "Dense" << "dense";
        QTest::newRow("Conv2D") << "Conv2D" << "conv2d";
        QTest::newRow("MaxPooling2D") << "MaxPooling2D" << "max_pooling2d";
        QTest::newRow("GlobalAveragePooling1D") << "GlobalAveragePooling1D" << "global_average_pooling1d";
        QTest::newRow("BatchNormalization") << "BatchNormalization" << "batch_normalization";
        QTest::newRow("LayerNormalization") << "LayerNormalization" << "layer_normalization";
        QTest::newRow("LSTM") << "LSTM" << "lstm";
        QTest::newRow("GRU") << "GRU" << "gru";
        QTest::newRow("InputLayer") << "InputLayer" << "input_layer";
        QTest::newRow("SomeCamelCase") << "SomeCamelCase" << "some_camel_case";
    }
    void snakeCaseAsKerasNamesClasses()
    {
        QFETCH(QString, className);
        QFETCH(QString, snake);
        QCOMPARE(QString::fromStdString(kerasSnakeCase(className.toStdString())), snake);
    }

    void everyRegistryTypeHasAKerasEntry()
    {
        const auto exportable = kerasExportableTypes();
        for (const auto& t : layerTypes())
            QVERIFY2(std::find(exportable.begin(), exportable.end(), t.type) != exportable.end(),
                     qPrintable("no Keras format for " + QString::fromStdString(t.type) +
                                ": add its entry to kerasLayerFormats() in engine/schema/keras_format.cpp"));
    }

    void writesWhatKeras312Writes()
    {
        const Json expected = Json::parse(kKeras312Mlp);
        const Json written = kerasModelConfig(model(kMlp), KerasVersion{3, 12});
        // ordered_json: keys in Keras' order too.
        QVERIFY2(written == expected, qPrintable("written:\n" + QString::fromStdString(written.dump(1))));
        QCOMPARE(kerasModelConfig(model(kMlp)), written); // 3.12 is the default
    }

    void keyFieldsOfEveryLayer()
    {
        const ModelSpec m = model(kImageModel);
        const Json c = kerasModelConfig(m);
        QCOMPARE(c["module"], Json("keras"));
        QCOMPARE(c["class_name"], Json("Sequential"));
        QVERIFY(c.contains("registered_name") && c["registered_name"].is_null());
        QCOMPARE(c["build_config"], Json::parse(R"({"input_shape": [null, 12, 10, 3]})"));
        QCOMPARE(c["config"]["name"], Json("images"));
        QCOMPARE(c["config"]["build_input_shape"], Json::parse("[null, 12, 10, 3]"));
        const Json policy = Json::parse(
            R"({"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": null})");
        QCOMPARE(c["config"]["dtype"], policy);
        const Json& layers = c["config"]["layers"];
        QCOMPARE(layers.size(), m.layers.size() + 1);
        QCOMPARE(layers[0]["class_name"], Json("InputLayer"));
        QCOMPARE(layers[0]["config"]["batch_shape"], Json::parse("[null, 12, 10, 3]"));
        QVERIFY(!layers[0].contains("build_config")); // InputLayer is built in __init__
        // Each layer: the public class, its config starting with name, trainable, dtype; built
        // with its input shape (batch null) unless Keras builds it in __init__.
        Shape input = m.inputShape;
        const ModelShapes shapes = inferShapes(m);
        for (size_t i = 0; i < m.layers.size(); ++i) {
            const Json& l = layers[i + 1];
            QCOMPARE(keys(l).front(), std::string("module"));
            QCOMPARE(l["module"], Json("keras.layers"));
            QCOMPARE(l["class_name"], Json(m.layers[i].type));
            QVERIFY(l["registered_name"].is_null());
            const auto k = keys(l["config"]);
            QCOMPARE(std::vector<std::string>(k.begin(), k.begin() + 3),
                     (std::vector<std::string>{"name", "trainable", "dtype"}));
            QCOMPARE(l["config"]["name"], Json(m.layers[i].name));
            QCOMPARE(l["config"]["dtype"], policy);
            Json batch = Json::array({nullptr});
            for (int64_t d : input.dims())
                batch.push_back(d);
            const bool builtAtInit = m.layers[i].type == "MaxPooling2D" || m.layers[i].type == "Dropout" ||
                                     m.layers[i].type == "Activation";
            QCOMPARE(l.contains("build_config"), !builtAtInit);
            if (!builtAtInit)
                QCOMPARE(l["build_config"], Json({{"input_shape", batch}}));
            input = shapes.layers[i].output;
        }
        // Conv2D: every key base_conv.get_config writes, in its order, Keras-only ones with
        // Keras' defaults.
        const Json& conv = *findLayer(c, "Conv2D");
        QCOMPARE(keys(conv["config"]),
                 (std::vector<std::string>{"name", "trainable", "dtype", "filters", "kernel_size", "strides", "padding",
                                           "data_format", "dilation_rate", "groups", "activation", "use_bias",
                                           "kernel_initializer", "bias_initializer", "kernel_regularizer",
                                           "bias_regularizer", "activity_regularizer", "kernel_constraint",
                                           "bias_constraint"}));
        QCOMPARE(conv["config"]["kernel_size"], Json::parse("[3, 2]"));
        QCOMPARE(conv["config"]["data_format"], Json("channels_last"));
        QCOMPARE(conv["config"]["dilation_rate"], Json::parse("[1, 1]"));
        QCOMPARE(conv["config"]["kernel_regularizer"],
                 Json::parse(R"({"module": "keras.regularizers", "class_name": "L2", "config": {"l2": 0.003}, "registered_name": null})"));
        QCOMPARE(conv["config"]["kernel_initializer"],
                 Json::parse(R"({"module": "keras.initializers", "class_name": "LecunNormal", "config": {"seed": null}, "registered_name": null})"));
        const Json& bn = *findLayer(c, "BatchNormalization");
        QCOMPARE(bn["config"]["axis"], Json(-1));
        QCOMPARE(bn["config"]["gamma_initializer"],
                 Json::parse(R"({"module": "keras.initializers", "class_name": "RandomUniform", "config": {"seed": null, "minval": -0.05, "maxval": 0.05}, "registered_name": null})"));
        QCOMPARE(bn["config"]["moving_variance_initializer"],
                 Json::parse(R"({"module": "keras.initializers", "class_name": "RandomNormal", "config": {"seed": null, "mean": 0.0, "stddev": 0.05}, "registered_name": null})"));
        QVERIFY(!bn["config"].contains("renorm")); // 3.14's
        // MaxPooling2D: strides=None is resolved to pool_size in BasePooling.__init__.
        QCOMPARE(findLayer(c, "MaxPooling2D")->at("config")["strides"], Json::parse("[2, 2]"));
        QCOMPARE(findLayer(c, "Flatten")->at("config")["data_format"], Json("channels_last"));
    }

    void releasesDiffer()
    {
        const ModelSpec m = model(kImageModel);
        const ModelSpec t = model(kTextModel);
        // 3.0-3.3: Layer.get_config wrote the policy's name.
        QCOMPARE(kerasModelConfig(m, {3, 3})["config"]["layers"][1]["config"]["dtype"], Json("float32"));
        QCOMPARE(kerasModelConfig(m, {3, 3})["config"]["dtype"], Json("float32"));
        // 3.4: a FloatDTypePolicy object.
        QCOMPARE(kerasModelConfig(m, {3, 4})["config"]["dtype"]["class_name"], Json("FloatDTypePolicy"));
        QCOMPARE(kerasModelConfig(m, {3, 5})["config"]["dtype"]["class_name"], Json("DTypePolicy"));
        // InputLayer: ragged since 3.9, optional since 3.13.
        QVERIFY(!kerasModelConfig(m, {3, 8})["config"]["layers"][0]["config"].contains("ragged"));
        QCOMPARE(keys(kerasModelConfig(m, {3, 13})["config"]["layers"][0]["config"]),
                 (std::vector<std::string>{"batch_shape", "dtype", "sparse", "ragged", "name", "optional"}));
        // Built at init (no build_config) since 3.10.
        QVERIFY(findLayer(kerasModelConfig(m, {3, 9}), "Dropout")->contains("build_config"));
        QVERIFY(!findLayer(kerasModelConfig(m, {3, 10}), "Dropout")->contains("build_config"));
        QVERIFY(findLayer(kerasModelConfig(m, {3, 15}), "Flatten")->contains("build_config"));
        // quantization_config since 3.13 (Dense, Embedding); renorm since 3.14.
        QVERIFY(!findLayer(kerasModelConfig(t, {3, 12}), "Dense")->at("config").contains("quantization_config"));
        QVERIFY(findLayer(kerasModelConfig(t, {3, 13}), "Dense")->at("config")["quantization_config"].is_null());
        QVERIFY(findLayer(kerasModelConfig(t, {3, 13}), "Embedding")->at("config").contains("quantization_config"));
        const Json bn314 = findLayer(kerasModelConfig(m, {3, 14}), "BatchNormalization")->at("config");
        QCOMPARE(bn314["renorm"], Json(false));
        QCOMPARE(bn314["renorm_momentum"], Json(0.99));
        QVERIFY(bn314["renorm_clipping"].is_null());
        // metadata.json
        QCOMPARE(kerasMetadata({3, 12}, "2025-01-02@03:04:05"),
                 Json::parse(R"({"keras_version": "3.12.0", "date_saved": "2025-01-02@03:04:05"})"));
    }

    void importerReadsTheExportBack_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<int>("minor");
        for (int minor : {0, 3, 4, 9, 10, 12, 13, 14, 15}) {
            QTest::addRow("images, Keras 3.%d", minor) << QString(kImageModel) << minor;
            QTest::addRow("text, Keras 3.%d", minor) << QString(kTextModel) << minor;
            QTest::addRow("mlp, Keras 3.%d", minor) << QString(kMlp) << minor;
            QTest::addRow("sequences, Keras 3.%d", minor) << QString(kSequenceModel) << minor;
        }
    }
    void importerReadsTheExportBack()
    {
        QFETCH(QString, source);
        QFETCH(int, minor);
        const ModelSpec original = model(source.toUtf8().constData());
        const Json exported = kerasModelConfig(original, {3, minor});
        Problems problems;
        // Through text, as config.json is read.
        const ModelSpec back = importKerasModel(Json::parse(exported.dump()), "config", problems);
        QVERIFY2(problems.empty(), qPrintable(problems.empty() ? QString() : QString::fromStdString(problems.list().front().str())));
        QCOMPARE(back.name, original.name);
        QCOMPARE(back.inputShape, original.inputShape);
        QCOMPARE(back.layers.size(), original.layers.size());
        const ModelSpec expected = asKerasSpellsIt(original);
        for (size_t i = 0; i < back.layers.size(); ++i) {
            QCOMPARE(back.layers[i].name, expected.layers[i].name);
            QCOMPARE(back.layers[i].type, expected.layers[i].type);
            // Every field, defaults included.
            QVERIFY2(back.layers[i].config == expected.layers[i].config,
                     qPrintable(text(back.layers[i].config) + "\n  != " + text(expected.layers[i].config)));
        }
        QCOMPARE(text(modelToJson(back)), text(modelToJson(expected)));
    }

    void everyLayerTypeIsCoveredByTheRoundTrip()
    {
        std::set<std::string> covered;
        for (const char* m : {kImageModel, kTextModel, kMlp, kSequenceModel})
            for (const auto& l : model(m).layers)
                covered.insert(l.type);
        for (const auto& t : layerTypes())
            QVERIFY2(covered.count(t.type), qPrintable("add a " + QString::fromStdString(t.type) +
                                                       " layer to one of the models above"));
    }

    void weightsLayoutFollowsKeras()
    {
        // Keras' H5IOStore paths: layers/<snake_case(class)>[_n]/vars/<i>, by class and
        // position whatever the layers' names; trainable variables first.
        const ModelSpec m = model(R"({"input_shape": [6, 6, 1], "layers": [
            {"type": "Conv2D", "name": "features", "filters": 2, "kernel_size": 3},
            {"type": "BatchNormalization", "center": false},
            {"type": "Flatten"},
            {"type": "Dense", "name": "hidden", "units": 4, "use_bias": false},
            {"type": "Dropout", "rate": 0.5},
            {"type": "BatchNormalization"},
            {"type": "Dense", "name": "out", "units": 3}]})");
        const auto layout = kerasWeightsLayout(m);
        QCOMPARE(layout.size(), size_t(7));
        std::vector<std::string> groups, datasets, names;
        for (const auto& l : layout) {
            groups.push_back(l.varsGroup);
            names.push_back(l.ownerName);
            for (const auto& v : l.variables)
                datasets.push_back(v.dataset + " " + v.name + " " + v.shape.str());
        }
        QCOMPARE(groups, (std::vector<std::string>{"layers/conv2d/vars", "layers/batch_normalization/vars",
                                                   "layers/flatten/vars", "layers/dense/vars", "layers/dropout/vars",
                                                   "layers/batch_normalization_1/vars", "layers/dense_1/vars"}));
        QCOMPARE(names[0], std::string("features"));
        QCOMPARE(names[3], std::string("hidden"));
        QCOMPARE(datasets, (std::vector<std::string>{
                               "layers/conv2d/vars/0 kernel (3, 3, 1, 2)",
                               "layers/conv2d/vars/1 bias (2,)",
                               "layers/batch_normalization/vars/0 gamma (2,)",
                               "layers/batch_normalization/vars/1 moving_mean (2,)",
                               "layers/batch_normalization/vars/2 moving_variance (2,)",
                               "layers/dense/vars/0 kernel (32, 4)",
                               "layers/batch_normalization_1/vars/0 gamma (4,)",
                               "layers/batch_normalization_1/vars/1 beta (4,)",
                               "layers/batch_normalization_1/vars/2 moving_mean (4,)",
                               "layers/batch_normalization_1/vars/3 moving_variance (4,)",
                               "layers/dense_1/vars/0 kernel (4, 3)",
                               "layers/dense_1/vars/1 bias (3,)",
                           }));
    }

    void versionsAreParsedAndChecked()
    {
        QCOMPARE(parseKerasVersion("3.12").minor, 12);
        QCOMPARE(parseKerasVersion("3.4.1").minor, 4);
        QCOMPARE(parseKerasVersion("3.0").minor, 0);
        for (const char* bad : {"2.15", "3.16", "4.0", "three", "3", ""}) {
            try {
                parseKerasVersion(bad, "--keras-version");
                QFAIL(bad);
            } catch (const strata::ConfigError& e) {
                QVERIFY2(QString(e.what()).contains("--keras-version"), e.what());
                QVERIFY2(QString(e.what()).contains("3.0 to 3.15"), e.what());
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestKerasFormat)
#include "tst_keras_format.moc"
