#include "data_test_files.h"

#include "strata/core/error.h"
#include "strata/data/loaders.h"

#include <QTemporaryDir>
#include <QTest>

#include <functional>
#include <memory>

using namespace strata;
using namespace strata::data;

using Ids = std::vector<float>;
Q_DECLARE_METATYPE(Ids)

namespace {

// The features of every example, as floats, one row per example.
std::vector<Ids> sequences(const Dataset& d)
{
    std::vector<int64_t> all(size_t(d.size()));
    for (size_t i = 0; i < all.size(); ++i)
        all[i] = int64_t(i);
    const auto length = size_t(d.featureShape().numel());
    std::vector<float> x(all.size() * length), y(all.size());
    d.gather(all, x.data(), y.data());
    std::vector<Ids> out;
    for (size_t i = 0; i < all.size(); ++i)
        out.emplace_back(x.begin() + long(i * length), x.begin() + long((i + 1) * length));
    return out;
}

std::vector<float> labels(const Dataset& d)
{
    std::vector<int64_t> all(size_t(d.size()));
    for (size_t i = 0; i < all.size(); ++i)
        all[i] = int64_t(i);
    std::vector<float> x(all.size() * size_t(d.featureShape().numel())), y(all.size());
    d.gather(all, x.data(), y.data());
    return y;
}

// Counts: bad 3, good 2, movie 2, great 1, it's 1, really 1 -> ids 2..7 in that order
// (count descending, then alphabetical).
const char* kTrain = "pos\tGood movie<br />It's GREAT, 'really' good!\n"
                     "\n"
                     "neg\tBad movie. bad BAD\r\n";

} // namespace

class TestTextLoader : public QObject {
    Q_OBJECT

private slots:
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
    }

    void vocabularyAndSequences_data();
    void vocabularyAndSequences();
    void integerLabelsAreClassIndices();
    void namedLabelsAreSorted();
    void directoryForm();
    void testSplitUsesTrainingVocabulary();
    void brokenInput_data();
    void brokenInput();
    void brokenDirectories();

private:
    std::string file(const char* name) const { return datatest::path(m_dir->path(), name); }
    void write(const char* name, const QByteArray& text) const { datatest::writeBytes(file(name), text); }
    std::unique_ptr<QTemporaryDir> m_dir;
};

void TestTextLoader::vocabularyAndSequences_data()
{
    QTest::addColumn<qint64>("vocabSize");
    QTest::addColumn<qint64>("maxLength");
    QTest::addColumn<Ids>("first");
    QTest::addColumn<Ids>("second");
    // First line: good movie it's great really good ("<br />" is not a word).
    QTest::newRow("whole vocabulary, padded") << qint64(100) << qint64(8) << Ids{3, 4, 6, 5, 7, 3, 0, 0}
                                              << Ids{2, 4, 2, 2, 0, 0, 0, 0};
    QTest::newRow("small vocabulary: out-of-vocabulary id 1") << qint64(4) << qint64(8)
                                                              << Ids{3, 1, 1, 1, 1, 3, 0, 0}
                                                              << Ids{2, 1, 2, 2, 0, 0, 0, 0};
    QTest::newRow("cut to the first words") << qint64(100) << qint64(3) << Ids{3, 4, 6} << Ids{2, 4, 2};
}

void TestTextLoader::vocabularyAndSequences()
{
    QFETCH(qint64, vocabSize);
    QFETCH(qint64, maxLength);
    QFETCH(Ids, first);
    QFETCH(Ids, second);
    write("train.tsv", kTrain);
    const DatasetSplits splits = loadText(file("train.tsv"), "", vocabSize, maxLength);
    QVERIFY(splits.train);
    QVERIFY(!splits.test); // no test path, no test split
    const Dataset& d = *splits.train;
    QCOMPARE(d.size(), 2);
    QCOMPARE(d.featureShape(), Shape{maxLength});
    QCOMPARE(d.labelShape(), Shape{});
    QCOMPARE(d.numClasses(), 2);
    QCOMPARE(d.storedBytes(), size_t(2 * maxLength * 4 + 2 * 4)); // int32 ids, float labels
    const std::vector<Ids> x = sequences(d);
    QCOMPARE(x[0], first);
    QCOMPARE(x[1], second);
    QCOMPARE(labels(d), (std::vector<float>{1, 0})); // neg < pos
    QCOMPARE(d.fileCount(), 1); // one file of lines
}

void TestTextLoader::integerLabelsAreClassIndices()
{
    write("train.tsv", "2\ta\n0\tb\n2\tc\n");
    const auto train = loadText(file("train.tsv"), "", 10, 4).train;
    const Dataset& d = *train;
    QCOMPARE(d.numClasses(), 3); // max + 1, class 1 simply has no example
    QCOMPARE(labels(d), (std::vector<float>{2, 0, 2}));
}

void TestTextLoader::namedLabelsAreSorted()
{
    // One non-integer label makes every label a name.
    write("train.tsv", "spam\ta\n1\tb\nham\tc\nspam\td\n");
    const auto train = loadText(file("train.tsv"), "", 10, 4).train;
    const Dataset& d = *train;
    QCOMPARE(d.numClasses(), 3);
    QCOMPARE(labels(d), (std::vector<float>{2, 0, 1, 2})); // "1" < "ham" < "spam"
}

void TestTextLoader::directoryForm()
{
    // Files are read in name order whatever order the directory lists them in.
    write("train/pos/b.txt", "great great film");
    write("train/pos/a.txt", "great fun");
    write("train/neg/z.txt", "dull film");
    write("train/empty_class/.keep", "");
    QDir(m_dir->path()).mkpath("train/neg/nested_dir_is_ignored");
    const auto train = loadText(file("train"), "", 100, 3).train;
    const Dataset& d = *train;
    // Sub-directories in name order: empty_class 0, neg 1, pos 2; the .keep file is an example.
    QCOMPARE(d.numClasses(), 3);
    QCOMPARE(labels(d), (std::vector<float>{0, 1, 2, 2}));
    // great 3, film 2, then dull/fun 1 each: great 2, film 3, dull 4, fun 5.
    const std::vector<Ids> x = sequences(d);
    QCOMPARE(x[0], (Ids{0, 0, 0}));
    QCOMPARE(x[1], (Ids{4, 3, 0}));
    QCOMPARE(x[2], (Ids{2, 5, 0}));
    QCOMPARE(x[3], (Ids{2, 2, 3}));
    // One file per example, for FILE sharding.
    QCOMPARE(d.fileCount(), 4);
    for (int64_t i = 0; i < 4; ++i)
        QCOMPARE(d.fileOf(i), i);
}

void TestTextLoader::testSplitUsesTrainingVocabulary()
{
    write("train.tsv", kTrain);
    // "awful" is not in the training vocabulary; "pos"/"neg" keep the training indices.
    write("test.tsv", "neg\tawful movie\npos\tgood\n");
    const DatasetSplits splits = loadText(file("train.tsv"), file("test.tsv"), 100, 4);
    QVERIFY(splits.test);
    QCOMPARE(splits.test->size(), 2);
    QCOMPARE(splits.test->numClasses(), 2);
    const std::vector<Ids> x = sequences(*splits.test);
    QCOMPARE(x[0], (Ids{1, 4, 0, 0}));
    QCOMPARE(x[1], (Ids{3, 0, 0, 0}));
    QCOMPARE(labels(*splits.test), (std::vector<float>{0, 1}));

    // A test directory is mapped through the same classes.
    write("testdir/pos/1.txt", "bad good");
    const DatasetSplits fromDir = loadText(file("train.tsv"), file("testdir"), 100, 2);
    QCOMPARE(labels(*fromDir.test), (std::vector<float>{1}));
    QCOMPARE(sequences(*fromDir.test)[0], (Ids{2, 3}));
}

void TestTextLoader::brokenInput_data()
{
    QTest::addColumn<QByteArray>("train"); // null: train.tsv is not written
    QTest::addColumn<QByteArray>("test");  // null: no test split
    QTest::addColumn<QString>("badFile");
    QTest::addColumn<QString>("problem");
    QTest::newRow("missing") << QByteArray() << QByteArray() << "train.tsv" << "not found";
    QTest::newRow("line without tab") << QByteArray("pos\tok\nno tab here\n") << QByteArray() << "train.tsv"
                                      << "line 2 has no tab";
    QTest::newRow("empty label") << QByteArray("pos\tok\n\tno label\n") << QByteArray() << "train.tsv"
                                 << "line 2 has an empty label";
    QTest::newRow("no examples") << QByteArray("\n  \n") << QByteArray() << "train.tsv" << "contains no examples";
    QTest::newRow("unknown test class") << QByteArray("pos\ta\nneg\tb\n") << QByteArray("pos\ta\nmeh\tc\n")
                                        << "test.tsv" << "line 2: label 'meh' is not a class of the training split";
    QTest::newRow("test class index too large") << QByteArray("0\ta\n1\tb\n") << QByteArray("3\ta\n") << "test.tsv"
                                                << "label '3' is not a class of the training split (classes: 0..1)";
}

void TestTextLoader::brokenInput()
{
    QFETCH(QByteArray, train);
    QFETCH(QByteArray, test);
    QFETCH(QString, badFile);
    QFETCH(QString, problem);
    if (!train.isNull())
        write("train.tsv", train);
    if (!test.isNull())
        write("test.tsv", test);
    const std::string bad = file(badFile.toUtf8().constData());
    try {
        loadText(file("train.tsv"), test.isNull() ? "" : file("test.tsv"), 100, 4);
        QFAIL("no DataError");
    } catch (const DataError& e) {
        QCOMPARE(e.file(), bad);
        const QString message = QString::fromStdString(e.what());
        QVERIFY2(message.contains(QString::fromStdString(bad)), qPrintable(message));
        QVERIFY2(message.contains(problem), qPrintable(message));
    }
}

void TestTextLoader::brokenDirectories()
{
    write("train/neg/1.txt", "bad");
    write("train/pos/1.txt", "good");
    write("test/meh/1.txt", "so so");
    write("flat/1.txt", "no class directories");
    const auto expectError = [](const std::function<void()>& load, const std::string& bad, const QString& problem) {
        try {
            load();
            QFAIL("no DataError");
        } catch (const DataError& e) {
            QCOMPARE(e.file(), bad);
            const QString message = QString::fromStdString(e.what());
            QVERIFY2(message.contains(QString::fromStdString(bad)) && message.contains(problem), qPrintable(message));
        }
    };
    expectError([&] { loadText(file("train"), file("test"), 100, 4); }, file("test/meh"),
                "class directory 'meh' is not a class of the training split (classes: neg, pos)");
    expectError([&] { loadText(file("flat"), "", 100, 4); }, file("flat"), "has no class sub-directories");
}

QTEST_GUILESS_MAIN(TestTextLoader)
#include "tst_text_loader.moc"
