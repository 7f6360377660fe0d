// What a checkpoint can be resumed by: the fingerprint names every field that changes the
// result (one row per class of difference), and leaves alone what only trains longer or
// reports differently. The data is identified by content, not by path.

#include "strata/core/error.h"
#include "strata/rundir/resume_fingerprint.h"

#include <QtTest>

#include <fstream>

using Json = nlohmann::ordered_json;
using strata::run::fingerprintDifferences;
using strata::run::resumeFingerprint;

namespace {

void writeBytes(const QString& path, const std::string& bytes)
{
    std::ofstream(path.toStdString(), std::ios::binary) << bytes;
}

// A Mirrored experiment on explicit IDX files (their content is what identifies the data;
// nothing here parses them).
Json baseDocument(const QString& dir)
{
    Json doc = Json::parse(R"({
      "strata": 1, "name": "base", "seed": 7,
      "strategy": {"type": "Mirrored", "devices": ["cpu:0", "cpu:1"], "logical_cpu_devices": 2},
      "model": {"input_shape": [28, 28], "layers": [
        {"type": "Flatten"},
        {"type": "Dense", "units": 128, "activation": "relu"},
        {"type": "Dropout", "rate": 0.2},
        {"type": "Dense", "units": 10}]},
      "data": {"source": {"type": "idx"}, "shuffle": true},
      "training": {"epochs": 2, "batch_size": 32, "metrics": ["accuracy"],
                   "loss": {"type": "sparse_categorical_crossentropy", "from_logits": true},
                   "optimizer": {"type": "adam", "learning_rate": 0.001},
                   "checkpoint": {"every_epochs": 1}, "threads": 1}
    })");
    doc["data"]["source"]["train_images"] = (dir + "/images.idx").toStdString();
    doc["data"]["source"]["train_labels"] = (dir + "/labels.idx").toStdString();
    return doc;
}

Json fingerprintOf(const Json& document, int64_t replicas = 2)
{
    return resumeFingerprint(strata::schema::parseExperiment(document, "/"), replicas);
}

QStringList fields(const std::vector<strata::ResumeError::Difference>& differences)
{
    QStringList out;
    for (const auto& d : differences)
        out << QString::fromStdString(d.field);
    return out;
}

} // namespace

class TestResumeFingerprint : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    void initTestCase()
    {
        writeBytes(m_dir.filePath("images.idx"), std::string("\0\0\x08\x03", 4) + std::string(64, 'a'));
        writeBytes(m_dir.filePath("labels.idx"), std::string("\0\0\x08\x01", 4) + std::string(8, 'b'));
    }

    void differencesAreNamed_data()
    {
        QTest::addColumn<QString>("patch"); // a JSON merge patch of the experiment
        QTest::addColumn<int>("replicas");
        QTest::addColumn<QStringList>("expected");
        const auto row = [](const char* name, const char* patch, int replicas, QStringList expected) {
            QTest::newRow(name) << QString(patch) << replicas << expected;
        };
        // What changes the result: refused.
        row("model: units", R"({"model": {"layers": [{"type": "Flatten"}, {"type": "Dense", "units": 256,
            "activation": "relu"}, {"type": "Dropout", "rate": 0.2}, {"type": "Dense", "units": 10}]}})", 2,
            {"model.layers[1].units"});
        row("model: activation and dropout", R"({"model": {"layers": [{"type": "Flatten"}, {"type": "Dense",
            "units": 128, "activation": "tanh"}, {"type": "Dropout", "rate": 0.5}, {"type": "Dense", "units": 10}]}})",
            2, {"model.layers[1].activation", "model.layers[2].rate"});
        row("model: a layer added", R"({"model": {"layers": [{"type": "Flatten"}, {"type": "Dense", "units": 128,
            "activation": "relu"}, {"type": "Dropout", "rate": 0.2}, {"type": "Dense", "units": 10},
            {"type": "Dense", "units": 10}]}})", 2, {"model.layers[4]"});
        row("model: input shape", R"({"model": {"input_shape": [784]}})", 2, {"model.input_shape"});
        row("optimizer: learning rate", R"({"training": {"optimizer": {"learning_rate": 0.01}}})", 2,
            {"training.optimizer.learning_rate"});
        row("optimizer: another one", R"({"training": {"optimizer": {"type": "sgd"}}})", 2,
            {"training.optimizer.type"});
        row("loss", R"({"training": {"loss": {"from_logits": false}}})", 2, {"training.loss.from_logits"});
        row("batch size", R"({"training": {"batch_size": 64}})", 2, {"training.batch_size"});
        row("steps per epoch", R"({"training": {"steps_per_epoch": 10}})", 2, {"training.steps_per_epoch"});
        row("precision", R"({"training": {"precision": "mixed_bfloat16"}})", 2, {"training.precision"});
        row("learning-rate scaling", R"({"training": {"lr_scaling": "linear"}})", 2, {"training.lr_scaling"});
        row("strategy: type", R"({"strategy": {"type": "OneDevice", "devices": null}})", 1,
            {"strategy.type", "strategy.replicas"});
        row("strategy: replicas", R"({"strategy": {"devices": ["cpu:0", "cpu:1", "cpu:2"],
            "logical_cpu_devices": 3}})", 3, {"strategy.replicas"});
        row("data: shuffle", R"({"data": {"shuffle": false}})", 2, {"data.shuffle"});
        row("data: train limit", R"({"data": {"train_limit": 100}})", 2, {"data.train_limit"});
        row("data: validation split", R"({"data": {"validation": "split", "validation_split": 0.1}})", 2,
            {"data.validation_split"});
        row("data: normalization", R"({"data": {"source": {"normalize": false}}})", 2, {"data.source.normalize"});
        row("seed", R"({"seed": 8})", 2, {"seed"});
        // What only trains longer or reports differently: a normal resume.
        row("more epochs", R"({"training": {"epochs": 5}})", 2, {});
        row("metrics", R"({"training": {"metrics": []}})", 2, {});
        row("checkpoint frequency", R"({"training": {"checkpoint": {"every_steps": 50}}})", 2, {});
        row("threads", R"({"training": {"threads": 2}})", 2, {});
        row("name and description", R"({"name": "other", "description": "more"})", 2, {});
        row("validation on the test split", R"({"data": {"validation": "test"}})", 2, {});
        row("gradient combining", R"({"strategy": {"cross_device_ops": "reduce_to_one_device"}})", 2, {});
    }

    void differencesAreNamed()
    {
        QFETCH(QString, patch);
        QFETCH(int, replicas);
        QFETCH(QStringList, expected);
        const Json base = baseDocument(m_dir.path());
        Json changed = base;
        changed.merge_patch(Json::parse(patch.toStdString()));
        const auto differences = fingerprintDifferences(fingerprintOf(base), fingerprintOf(changed, replicas));
        QCOMPARE(fields(differences), expected);
        // Both values are named, as the checkpoint and the experiment have them.
        for (const auto& d : differences)
            QVERIFY2(d.checkpoint != d.experiment, d.str().c_str());
    }

    void refusalLineNamesBothValues()
    {
        Json changed = baseDocument(m_dir.path());
        changed["model"]["layers"][1]["units"] = 256;
        const auto differences = fingerprintDifferences(fingerprintOf(baseDocument(m_dir.path())), fingerprintOf(changed));
        QCOMPARE(differences.size(), size_t(1));
        QCOMPARE(QString::fromStdString(differences[0].str()),
                 QString("model.layers[1].units: 128 (checkpoint) vs 256 (experiment)"));
    }

    void parameterServerLayout()
    {
        const auto cluster = [](int workers, int ps) {
            return Json{{"nodes", {{{"name", "local"}, {"host", "127.0.0.1"}}}},
                        {"tasks", {{{"type", "chief"}, {"node", "local"}},
                                   {{"type", "worker"}, {"node", "local"}, {"count", workers}},
                                   {{"type", "ps"}, {"node", "local"}, {"count", ps}}}}};
        };
        Json ps = baseDocument(m_dir.path());
        ps["strategy"] = Json::parse(R"({"type": "ParameterServer", "partitioner": {"type": "FixedShards",
                                         "num_shards": 2}})");
        ps["cluster"] = cluster(2, 1);
        Json other = ps;
        other["strategy"]["partitioner"]["num_shards"] = 3;
        other["strategy"]["max_staleness"] = 1;
        other["cluster"] = cluster(2, 2);
        QCOMPARE(fields(fingerprintDifferences(fingerprintOf(ps, 2), fingerprintOf(other, 2))),
                 QStringList({"strategy.partitioner.num_shards", "strategy.max_staleness", "strategy.ps_tasks"}));
        Json moreWorkers = ps;
        moreWorkers["cluster"] = cluster(3, 1);
        QCOMPARE(fields(fingerprintDifferences(fingerprintOf(ps, 2), fingerprintOf(moreWorkers, 3))),
                 QStringList({"strategy.replicas", "strategy.workers"}));
        // One worker reads everything whatever the shard policy: it counts from two on.
        Json oneWorker = ps;
        oneWorker["cluster"] = cluster(1, 1);
        QCOMPARE(fields(fingerprintDifferences(fingerprintOf(ps, 2), fingerprintOf(oneWorker, 1))),
                 QStringList({"strategy.replicas", "strategy.workers", "data.shard_policy"}));
    }

    void dataIsIdentifiedByContent()
    {
        const Json base = baseDocument(m_dir.path());
        const Json before = fingerprintOf(base);

        // The same files elsewhere: the same data.
        QTemporaryDir copy;
        for (const char* name : {"images.idx", "labels.idx"})
            QVERIFY(QFile::copy(m_dir.filePath(name), copy.filePath(name)));
        QCOMPARE(fields(fingerprintDifferences(before, fingerprintOf(baseDocument(copy.path())))), QStringList());

        // One byte changed, same size: another dataset, named with both identities.
        QFile images(copy.filePath("images.idx"));
        QVERIFY(images.open(QIODevice::ReadWrite));
        images.seek(20);
        images.write("z", 1);
        images.close();
        const auto differences = fingerprintDifferences(before, fingerprintOf(baseDocument(copy.path())));
        QCOMPARE(fields(differences), QStringList({"data.files[0]"}));
        QVERIFY2(differences[0].checkpoint.find("images.idx: 68 bytes, crc32 ") != std::string::npos,
                 differences[0].str().c_str());
    }

    void directoryIdentity()
    {
        QTemporaryDir text;
        QVERIFY(QDir(text.path()).mkpath("train/pos"));
        QVERIFY(QDir(text.path()).mkpath("train/neg"));
        writeBytes(text.filePath("train/pos/a.txt"), "good film");
        writeBytes(text.filePath("train/neg/b.txt"), "bad film");
        const std::string before = strata::run::fileIdentity(text.filePath("train").toStdString());
        QCOMPARE(QString::fromStdString(before).section(',', 0, 1), QString("train/: 2 files, 17 bytes"));
        // A file moved to the other class is other data, though every byte is the same.
        QVERIFY(QFile::rename(text.filePath("train/neg/b.txt"), text.filePath("train/pos/b.txt")));
        QVERIFY(strata::run::fileIdentity(text.filePath("train").toStdString()) != before);
    }
};

QTEST_GUILESS_MAIN(TestResumeFingerprint)
#include "tst_resume_fingerprint.moc"
