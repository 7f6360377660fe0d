#include "datasets.h"
#include "data_test_files.h"

#include "strata/core/error.h"
#include "strata/data/loaders.h"

#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <memory>

using namespace strata;
using namespace strata::data;

namespace {


schema::Experiment experiment(const std::string& type, const std::string& baseDir = "/")
{
    schema::Experiment e;
    e.baseDir = baseDir;
    e.data.source.type = type;
    return e;
}

void expectDataError(const schema::Experiment& e, const std::string& path, const QStringList& parts)
{
    try {
        loadDatasets(e);
        QFAIL("no DataError");
    } catch (const DataError& error) {
        const QString message = QString::fromStdString(error.what());
        QVERIFY2(message.contains(QString::fromStdString(path)), qPrintable(message));
        for (const QString& part : parts)
            QVERIFY2(message.contains(part), qPrintable(message));
    }
}

// A tiny MNIST-style directory: `count` 4x4 images per split.
void writeMnistDirectory(const QString& dir, bool gzip, uint32_t count)
{
    const auto write = [&](const char* name, const QByteArray& bytes) {
        const std::string file = datatest::path(dir, name) + (gzip ? ".gz" : "");
        gzip ? datatest::writeGzip(file, bytes) : datatest::writeBytes(file, bytes);
    };
    std::vector<uint8_t> labels;
    for (uint32_t i = 0; i < count; ++i)
        labels.push_back(uint8_t(i % 3));
    write("train-images-idx3-ubyte", datatest::idx({count, 4, 4}, datatest::pixels(count, 4, 4)));
    write("train-labels-idx1-ubyte", datatest::idx({count}, labels));
    write("t10k-images-idx3-ubyte", datatest::idx({2, 4, 4}, datatest::pixels(2, 4, 4)));
    write("t10k-labels-idx1-ubyte", datatest::idx({2}, {1, 0}));
}

} // namespace

class TestLoadDatasets : public QObject {
    Q_OBJECT

private slots:
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
    }

    void realFashionMnist();
    void fashionMnistWrongDirectory();
    void mnistDirectory_data();
    void mnistDirectory();
    void mnistMissingFile();
    void idxFiles();
    void cifar10_data();
    void cifar10();
    void cifar10Missing();
    void text();
    void synthetic();

private:
    std::unique_ptr<QTemporaryDir> m_dir;
};

void TestLoadDatasets::realFashionMnist()
{
    if (!testing::haveFashionMnist())
        QSKIP("Fashion-MNIST is not installed (Debian package dataset-fashion-mnist)");
    schema::Experiment e = experiment("fashion_mnist");
    e.data.source.dir = testing::fashionMnistDir().toStdString();
    const DatasetSplits splits = loadDatasets(e);
    QVERIFY(splits.train && splits.test);
    QCOMPARE(splits.train->size(), 60000);
    QCOMPARE(splits.test->size(), 10000);
    QCOMPARE(splits.train->featureShape(), (Shape{28, 28}));
    QCOMPARE(splits.test->featureShape(), (Shape{28, 28}));
    QCOMPARE(splits.train->labelShape(), Shape{});
    QCOMPARE(splits.train->numClasses(), 10);
    QCOMPARE(splits.test->numClasses(), 10);
    // Pixels kept as bytes: 60000 * 784 + 4-byte labels, about 47 MB rather than 188 MB.
    QCOMPARE(splits.train->storedBytes(), size_t(60000 * 784 + 60000 * 4));

    // Fashion-MNIST is balanced: 6000 training images per class; pixels normalized to [0, 1].
    std::vector<int64_t> all(60000);
    for (size_t i = 0; i < all.size(); ++i)
        all[i] = int64_t(i);
    std::vector<float> x(all.size() * 784), y(all.size());
    splits.train->gather(all, x.data(), y.data());
    std::map<float, int> perClass;
    for (float label : y)
        ++perClass[label];
    QCOMPARE(perClass.size(), size_t(10));
    for (const auto& [label, count] : perClass)
        QCOMPARE(count, 6000);
    const auto [lo, hi] = std::minmax_element(x.begin(), x.end());
    QCOMPARE(*lo, 0.0f);
    QCOMPARE(*hi, 1.0f);

    // Limits keep the first examples.
    e.data.trainLimit = 1000;
    e.data.testLimit = 100;
    const DatasetSplits limited = loadDatasets(e);
    QCOMPARE(limited.train->size(), 1000);
    QCOMPARE(limited.test->size(), 100);
    QCOMPARE(limited.train->storedBytes(), size_t(1000 * 788));
}

void TestLoadDatasets::fashionMnistWrongDirectory()
{
    schema::Experiment e = experiment("fashion_mnist");
    e.data.source.dir = "/nonexistent/fashion-mnist";
    expectDataError(e, "/nonexistent/fashion-mnist", {"directory not found", "dataset-fashion-mnist"});

    // A directory without the files: names the missing file.
    e.data.source.dir = m_dir->path().toStdString();
    expectDataError(e, datatest::path(m_dir->path(), "train-images-idx3-ubyte.gz"),
                    {"not found", "dataset-fashion-mnist"});
}

void TestLoadDatasets::mnistDirectory_data()
{
    QTest::addColumn<bool>("gzip");
    QTest::newRow("gzip names") << true;
    QTest::newRow("names without .gz") << false;
}

void TestLoadDatasets::mnistDirectory()
{
    QFETCH(bool, gzip);
    writeMnistDirectory(m_dir->filePath("data/mnist"), gzip, 7);
    // A relative dir is resolved against the experiment's directory.
    schema::Experiment e = experiment("mnist", m_dir->path().toStdString());
    e.data.source.dir = "data/mnist";
    e.data.source.normalize = false;
    const DatasetSplits splits = loadDatasets(e);
    QCOMPARE(splits.train->size(), 7);
    QCOMPARE(splits.test->size(), 2);
    QCOMPARE(splits.train->featureShape(), (Shape{4, 4}));
    QCOMPARE(splits.train->numClasses(), 3);
    std::vector<float> x(16), y(1);
    const std::vector<int64_t> third{2};
    splits.train->gather(third, x.data(), y.data());
    QCOMPARE(x[5], float(datatest::pixels(7, 4, 4)[2 * 16 + 5])); // not normalized
    QCOMPARE(y[0], 2.0f);
}

void TestLoadDatasets::mnistMissingFile()
{
    writeMnistDirectory(m_dir->path(), true, 3);
    QVERIFY(QFile::remove(m_dir->filePath("t10k-labels-idx1-ubyte.gz")));
    schema::Experiment e = experiment("mnist");
    e.data.source.dir = m_dir->path().toStdString();
    expectDataError(e, datatest::path(m_dir->path(), "t10k-labels-idx1-ubyte.gz"), {"not found"});
}

void TestLoadDatasets::idxFiles()
{
    writeMnistDirectory(m_dir->path(), false, 5);
    schema::Experiment e = experiment("idx", m_dir->path().toStdString());
    e.data.source.trainImages = "train-images-idx3-ubyte";
    e.data.source.trainLabels = "train-labels-idx1-ubyte";
    e.data.trainLimit = 3;
    DatasetSplits splits = loadDatasets(e);
    QCOMPARE(splits.train->size(), 3);
    QVERIFY(!splits.test); // test files are optional

    e.data.source.testImages = "t10k-images-idx3-ubyte";
    e.data.source.testLabels = "t10k-labels-idx1-ubyte";
    splits = loadDatasets(e);
    QVERIFY(splits.test);
    QCOMPARE(splits.test->size(), 2);
}

void TestLoadDatasets::cifar10_data()
{
    QTest::addColumn<QString>("subdirectory");
    QTest::newRow("batches in dir") << "";
    QTest::newRow("batches in dir/cifar-10-batches-bin") << "cifar-10-batches-bin";
}

void TestLoadDatasets::cifar10()
{
    QFETCH(QString, subdirectory);
    const QString batches = m_dir->filePath("cifar/" + subdirectory);
    for (int i = 1; i <= 5; ++i)
        datatest::writeBytes(datatest::path(batches, QString("data_batch_%1.bin").arg(i)),
                             datatest::cifarBatch({uint8_t(i), uint8_t(i + 1)}));
    datatest::writeBytes(datatest::path(batches, "test_batch.bin"), datatest::cifarBatch({9}));
    schema::Experiment e = experiment("cifar10", m_dir->path().toStdString());
    e.data.source.dir = "cifar";
    const DatasetSplits splits = loadDatasets(e);
    QCOMPARE(splits.train->size(), 10);
    QCOMPARE(splits.test->size(), 1);
    QCOMPARE(splits.train->featureShape(), (Shape{32, 32, 3}));
    QCOMPARE(splits.train->numClasses(), 10);
    std::vector<float> x(3072), y(1);
    const std::vector<int64_t> last{9};
    splits.train->gather(last, x.data(), y.data());
    QCOMPARE(y[0], 6.0f); // data_batch_5's second record: files in order 1..5
}

void TestLoadDatasets::cifar10Missing()
{
    schema::Experiment e = experiment("cifar10");
    e.data.source.dir = m_dir->path().toStdString();
    for (int i = 1; i <= 4; ++i)
        datatest::writeBytes(datatest::path(m_dir->path(), QString("data_batch_%1.bin").arg(i)),
                             datatest::cifarBatch({1}));
    expectDataError(e, datatest::path(m_dir->path(), "data_batch_5.bin"),
                    {"not found", "https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz"});
    e.data.source.dir = "/nonexistent/cifar";
    expectDataError(e, "/nonexistent/cifar", {"https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz"});
}

void TestLoadDatasets::text()
{
    datatest::writeBytes(datatest::path(m_dir->path(), "train.tsv"), "a\tone two\nb\tthree\na\tfour\n");
    schema::Experiment e = experiment("text", m_dir->path().toStdString());
    e.data.source.train = "train.tsv";
    e.data.source.vocabSize = 50;
    e.data.source.maxLength = 6;
    e.data.trainLimit = 2;
    const DatasetSplits splits = loadDatasets(e);
    QCOMPARE(splits.train->size(), 2);
    QCOMPARE(splits.train->featureShape(), Shape{6});
    QCOMPARE(splits.train->numClasses(), 2);
    QVERIFY(!splits.test);
}

void TestLoadDatasets::synthetic()
{
    schema::Experiment e = experiment("synthetic");
    e.seed = 5;
    e.data.source.task = "classification";
    e.data.source.samples = 100;
    e.data.source.testSamples = 30;
    e.data.testLimit = 10;
    const DatasetSplits a = loadDatasets(e);
    QCOMPARE(a.train->size(), 100);
    QCOMPARE(a.test->size(), 10);
    QCOMPARE(a.train->numClasses(), 2);

    // The experiment's seed is the data's seed.
    std::vector<float> x1(10), y1(1), x2(10), y2(1);
    const std::vector<int64_t> first{0};
    a.train->gather(first, x1.data(), y1.data());
    e.seed = 6;
    loadDatasets(e).train->gather(first, x2.data(), y2.data());
    QVERIFY(x1 != x2);
}

QTEST_GUILESS_MAIN(TestLoadDatasets)
#include "tst_load_datasets.moc"
