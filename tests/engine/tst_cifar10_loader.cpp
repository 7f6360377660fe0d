#include "data_test_files.h"

#include "strata/core/error.h"
#include "strata/data/loaders.h"

#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace strata;
using namespace strata::data;

class TestCifar10Loader : public QObject {
    Q_OBJECT

private slots:
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
    }

    void planesBecomeChannelsLast_data();
    void planesBecomeChannelsLast();
    void brokenFiles_data();
    void brokenFiles();

private:
    std::string file(const char* name) const { return datatest::path(m_dir->path(), name); }
    std::unique_ptr<QTemporaryDir> m_dir;
};

void TestCifar10Loader::planesBecomeChannelsLast_data()
{
    QTest::addColumn<bool>("normalize");
    QTest::newRow("raw") << false;
    QTest::newRow("normalized") << true;
}

void TestCifar10Loader::planesBecomeChannelsLast()
{
    QFETCH(bool, normalize);
    // Two batch files; records numbered across them so each image is distinct.
    datatest::writeBytes(file("data_batch_1.bin"), datatest::cifarBatch({3, 9}, 0));
    datatest::writeBytes(file("data_batch_2.bin"), datatest::cifarBatch({0}, 2));

    const Dataset d = loadCifar10({file("data_batch_1.bin"), file("data_batch_2.bin")}, normalize);
    QCOMPARE(d.size(), 3);
    QCOMPARE(d.featureShape(), (Shape{32, 32, 3}));
    QCOMPARE(d.labelShape(), Shape{});
    QCOMPARE(d.numClasses(), 10);
    QCOMPARE(d.storedBytes(), size_t(3 * 3072 + 3 * sizeof(float)));
    // Each batch file is a file for FILE sharding.
    QCOMPARE(d.fileCount(), 2);
    QCOMPARE(d.fileOf(1), 0);
    QCOMPARE(d.fileOf(2), 1);

    std::vector<float> x(3 * 3072), y(3);
    const std::vector<int64_t> all{0, 1, 2};
    d.gather(all, x.data(), y.data());
    QCOMPARE(y, (std::vector<float>{3, 9, 0}));
    const float scale = normalize ? 1.0f / 255.0f : 1.0f;
    for (int r = 0; r < 3; ++r)
        for (int row = 0; row < 32; ++row)
            for (int col = 0; col < 32; ++col)
                for (int c = 0; c < 3; ++c) {
                    const float got = x[size_t(r * 3072 + (row * 32 + col) * 3 + c)];
                    const float want = float(datatest::cifarValue(r, c, row * 32 + col)) * scale;
                    if (got != want)
                        QFAIL(qPrintable(QString("record %1 pixel (%2, %3) channel %4: %5, expected %6")
                                             .arg(r).arg(row).arg(col).arg(c).arg(got).arg(want)));
                }
}

void TestCifar10Loader::brokenFiles_data()
{
    QTest::addColumn<QByteArray>("bytes"); // null: the file is not written
    QTest::addColumn<QString>("problem");
    const QByteArray two = datatest::cifarBatch({1, 2});
    QTest::newRow("missing") << QByteArray() << "file not found";
    QTest::newRow("empty") << QByteArray("") << "size 0 bytes is not a positive multiple of 3073";
    QTest::newRow("truncated") << two.left(two.size() - 5) << "size 6141 bytes is not a positive multiple of 3073";
    QTest::newRow("label out of range") << datatest::cifarBatch({1, 10}) << "record 1 has label 10";
}

void TestCifar10Loader::brokenFiles()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, problem);
    datatest::writeBytes(file("data_batch_1.bin"), datatest::cifarBatch({4}));
    if (!bytes.isNull())
        datatest::writeBytes(file("data_batch_2.bin"), bytes);
    try {
        loadCifar10({file("data_batch_1.bin"), file("data_batch_2.bin")}, true);
        QFAIL("no DataError");
    } catch (const DataError& e) {
        QCOMPARE(e.file(), file("data_batch_2.bin"));
        const QString message = QString::fromStdString(e.what());
        QVERIFY2(message.contains(QString::fromStdString(file("data_batch_2.bin"))), qPrintable(message));
        QVERIFY2(message.contains(problem), qPrintable(message));
    }
}

QTEST_GUILESS_MAIN(TestCifar10Loader)
#include "tst_cifar10_loader.moc"
