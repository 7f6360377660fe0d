#include "data_test_files.h"

#include "strata/core/error.h"
#include "strata/data/loaders.h"

#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace strata;
using namespace strata::data;

Q_DECLARE_METATYPE(std::vector<uint32_t>)

class TestIdxLoader : public QObject {
    Q_OBJECT

private slots:
    // A fresh directory per test row: no file left over from the row before.
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
    }

    void loadsImagesAndLabels_data();
    void loadsImagesAndLabels();
    void anyRankOfImages_data();
    void anyRankOfImages();
    void brokenFiles_data();
    void brokenFiles();
    void brokenGzip_data();
    void brokenGzip();
    void countMismatchNamesBothFiles();

private:
    void expectDataError(const std::string& badFile, const QString& problem)
    {
        try {
            loadIdx(file("images"), file("labels"), true);
            QFAIL("no DataError");
        } catch (const DataError& e) {
            QCOMPARE(e.file(), badFile);
            const QString message = QString::fromStdString(e.what());
            QVERIFY2(message.contains(QString::fromStdString(badFile)), qPrintable(message));
            QVERIFY2(message.contains(problem), qPrintable(message));
        }
    }

    std::string file(const char* name) const { return datatest::path(m_dir->path(), name); }
    void write(const std::string& name, const QByteArray& bytes, bool gzip) const
    {
        gzip ? datatest::writeGzip(name, bytes) : datatest::writeBytes(name, bytes);
    }

    std::unique_ptr<QTemporaryDir> m_dir;
};

void TestIdxLoader::loadsImagesAndLabels_data()
{
    QTest::addColumn<bool>("gzip");
    QTest::addColumn<bool>("normalize");
    QTest::newRow("plain, raw") << false << false;
    QTest::newRow("plain, normalized") << false << true;
    QTest::newRow("gzip, raw") << true << false;
    QTest::newRow("gzip, normalized") << true << true;
}

void TestIdxLoader::loadsImagesAndLabels()
{
    QFETCH(bool, gzip);
    QFETCH(bool, normalize);
    const std::vector<uint8_t> pixels = datatest::pixels(3, 2, 3);
    const std::vector<uint8_t> labels{0, 4, 2};
    write(file("images"), datatest::idx({3, 2, 3}, pixels), gzip);
    write(file("labels"), datatest::idx({3}, labels), gzip);

    const Dataset d = loadIdx(file("images"), file("labels"), normalize);
    QCOMPARE(d.size(), 3);
    QCOMPARE(d.featureShape(), (Shape{2, 3}));
    QCOMPARE(d.labelShape(), Shape{});
    QCOMPARE(d.numClasses(), 5); // max label + 1
    QCOMPARE(d.storedBytes(), size_t(3 * 6 * 1 + 3 * sizeof(float))); // pixels stay bytes
    QCOMPARE(d.fileCount(), 1); // images and labels are one file for FILE sharding

    // Gather out of order: example 2 then 0.
    const std::vector<int64_t> indices{2, 0};
    std::vector<float> x(12), y(2);
    d.gather(indices, x.data(), y.data());
    const float scale = normalize ? 1.0f / 255.0f : 1.0f;
    for (size_t k = 0; k < indices.size(); ++k)
        for (int i = 0; i < 6; ++i)
            QCOMPARE(x[k * 6 + size_t(i)], float(pixels[size_t(indices[k] * 6 + i)]) * scale);
    QCOMPARE(y, (std::vector<float>{2, 0}));
}

void TestIdxLoader::anyRankOfImages_data()
{
    QTest::addColumn<std::vector<uint32_t>>("dims");
    QTest::newRow("rank 2: vectors") << std::vector<uint32_t>{4, 5};
    QTest::newRow("rank 4: images with channels") << std::vector<uint32_t>{2, 3, 2, 3};
}

void TestIdxLoader::anyRankOfImages()
{
    QFETCH(std::vector<uint32_t>, dims);
    int64_t numel = 1;
    for (size_t i = 1; i < dims.size(); ++i)
        numel *= dims[i];
    datatest::writeBytes(file("images"), datatest::idx(dims, std::vector<uint8_t>(size_t(dims[0] * numel), 7)));
    datatest::writeBytes(file("labels"), datatest::idx({dims[0]}, std::vector<uint8_t>(dims[0], 1)));
    const Dataset d = loadIdx(file("images"), file("labels"), false);
    QCOMPARE(d.size(), int64_t(dims[0]));
    QCOMPARE(d.featureShape(), Shape(std::vector<int64_t>(dims.begin() + 1, dims.end())));
    QCOMPARE(d.numClasses(), 2);
}

void TestIdxLoader::brokenFiles_data()
{
    const QByteArray images = datatest::idx({3, 2, 3}, datatest::pixels(3, 2, 3));
    const QByteArray labels = datatest::idx({3}, {0, 1, 2});

    QTest::addColumn<QByteArray>("imagesBytes"); // null: the file is not written
    QTest::addColumn<QByteArray>("labelsBytes");
    QTest::addColumn<QString>("badFile"); // "images" or "labels"
    QTest::addColumn<QString>("problem");

    QTest::newRow("missing images") << QByteArray() << labels << "images" << "file not found";
    QTest::newRow("empty images") << QByteArray("") << labels << "images" << "is empty";
    QTest::newRow("bad magic") << QByteArray("\x01\x02\x08\x03", 4) + images.mid(4) << labels << "images"
                               << "bad magic number";
    QTest::newRow("float elements") << datatest::idx({3, 2, 3}, datatest::pixels(3, 2, 3), 0x0D) << labels << "images"
                                    << "unsupported IDX element type 0x0d";
    QTest::newRow("header cut inside dims") << images.left(9) << labels << "images" << "ends inside the IDX header";
    QTest::newRow("data truncated") << images.left(images.size() - 8) << labels << "images"
                                    << "truncated: the header promises 18 bytes of data, the file has 10";
    QTest::newRow("trailing garbage") << images + "xyz" << labels << "images" << "trailing data after the 18 bytes";
    QTest::newRow("labels of rank 2") << images << datatest::idx({3, 1}, {0, 1, 2}) << "labels"
                                      << "expected labels of rank 1";
    QTest::newRow("images of rank 1") << datatest::idx({3}, {1, 2, 3}) << labels << "images"
                                      << "expected images of rank >= 2";
    QTest::newRow("no images") << datatest::idx({0, 2, 3}, {}) << datatest::idx({0}, {}) << "images"
                               << "holds no images";
    QTest::newRow("labels truncated") << images << labels.left(labels.size() - 1) << "labels"
                                      << "promises 3 bytes of data, the file has 2";
}

void TestIdxLoader::brokenFiles()
{
    QFETCH(QByteArray, imagesBytes);
    QFETCH(QByteArray, labelsBytes);
    QFETCH(QString, badFile);
    QFETCH(QString, problem);

    if (!imagesBytes.isNull())
        datatest::writeBytes(file("images"), imagesBytes);
    datatest::writeBytes(file("labels"), labelsBytes);
    expectDataError(file(badFile.toUtf8().constData()), problem);
}

void TestIdxLoader::brokenGzip_data()
{
    QTest::addColumn<QString>("damage");
    QTest::addColumn<QString>("problem");
    QTest::newRow("cut in half") << "cut" << "truncated: the gzip stream ends early";
    QTest::newRow("wrong checksum") << "crc" << "corrupt gzip data: incorrect data check";
    QTest::newRow("invalid deflate block") << "block" << "corrupt gzip data: invalid block type";
}

void TestIdxLoader::brokenGzip()
{
    QFETCH(QString, damage);
    QFETCH(QString, problem);
    // Large enough that half the compressed file ends inside the deflate data.
    datatest::writeGzip(file("images"), datatest::idx({4, 20, 30}, datatest::pixels(4, 20, 30)));
    datatest::writeBytes(file("labels"), datatest::idx({4}, {0, 1, 2, 3}));
    QByteArray gz = datatest::readBytes(file("images"));
    QVERIFY(gz.size() > 40);
    if (damage == "cut")
        gz = gz.left(gz.size() / 2);
    else if (damage == "crc")
        gz[gz.size() - 8] = char(gz[gz.size() - 8] ^ 0xff); // CRC-32 comes before the 4-byte length
    else
        gz[10] = char(gz[10] | 0x06); // first deflate block after the 10-byte header: type 11 is reserved
    datatest::writeBytes(file("images"), gz);
    expectDataError(file("images"), problem);
}

void TestIdxLoader::countMismatchNamesBothFiles()
{
    datatest::writeGzip(file("images.gz"), datatest::idx({3, 2, 3}, datatest::pixels(3, 2, 3)));
    datatest::writeGzip(file("labels.gz"), datatest::idx({2}, {0, 1}));
    try {
        loadIdx(file("images.gz"), file("labels.gz"), true);
        QFAIL("no DataError");
    } catch (const DataError& e) {
        const QString message = QString::fromStdString(e.what());
        QVERIFY2(message.contains(QString::fromStdString(file("images.gz"))), qPrintable(message));
        QVERIFY2(message.contains(QString::fromStdString(file("labels.gz"))), qPrintable(message));
        QVERIFY2(message.contains("3 images") && message.contains("2 labels"), qPrintable(message));
    }
}

QTEST_GUILESS_MAIN(TestIdxLoader)
#include "tst_idx_loader.moc"
