// Checkpoint files: round trip, atomic replacement, the newest two kept, damage detected and
// the previous checkpoint used instead.

#include "strata/core/error.h"
#include "strata/rundir/checkpoint.h"
#include "strata/rundir/model_state.h"

#include <QtTest>

#include <fstream>

using namespace strata;
using namespace strata::run;

namespace {

Checkpoint sample(int64_t step)
{
    Checkpoint c;
    c.step = step;
    c.epoch = step / 10;
    c.stepInEpoch = step % 10;
    c.streamBatch = step + 1;
    c.extra["note"] = "hello";
    Tensor a({2, 3});
    for (int i = 0; i < 6; ++i)
        a.data()[i] = static_cast<float>(step) + 0.5f * static_cast<float>(i);
    c.tensors.emplace_back("dense/kernel", a);
    c.tensors.emplace_back("dense/bias", Tensor::full({3}, -1.25f));
    return c;
}

void damage(const QString& path, qint64 offsetFromEnd)
{
    std::fstream f(path.toStdString(), std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(-offsetFromEnd, std::ios::end);
    char byte = 0;
    f.read(&byte, 1);
    byte = static_cast<char>(byte ^ 0x5a);
    f.seekp(-offsetFromEnd, std::ios::end);
    f.write(&byte, 1);
}

} // namespace

class TestCheckpoint : public QObject {
    Q_OBJECT

private slots:
    void roundTrip()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("c.strata");
        writeCheckpoint(path.toStdString(), sample(42));
        QVERIFY(!QFile::exists(path + ".tmp"));
        const Checkpoint c = readCheckpoint(path.toStdString());
        QCOMPARE(c.step, int64_t(42));
        QCOMPARE(c.epoch, int64_t(4));
        QCOMPARE(c.stepInEpoch, int64_t(2));
        QCOMPARE(c.streamBatch, int64_t(43));
        QCOMPARE(c.extra["note"].get<std::string>(), std::string("hello"));
        QCOMPARE(c.tensors.size(), size_t(2));
        const Tensor* kernel = c.find("dense/kernel");
        QVERIFY(kernel);
        QCOMPARE(kernel->shape(), Shape({2, 3}));
        QCOMPARE(kernel->data()[5], 44.5f);
        QCOMPARE(c.find("dense/bias")->data()[2], -1.25f);
        QVERIFY(!c.find("nope"));
        // Tensor data starts 64-byte aligned in the file (mappable).
        QCOMPARE(QFileInfo(path).size() % 4, qint64(0));
    }

    void keepsTheNewestTwo()
    {
        QTemporaryDir dir;
        CheckpointDirectory checkpoints(dir.filePath("ckpts").toStdString());
        for (int64_t step : {10, 20, 30, 40})
            checkpoints.save(sample(step));
        const auto files = checkpoints.list();
        QCOMPARE(files.size(), size_t(2));
        QVERIFY(QString::fromStdString(files[0]).endsWith("ckpt-0000000040.strata"));
        QVERIFY(QString::fromStdString(files[1]).endsWith("ckpt-0000000030.strata"));
        QCOMPARE(checkpoints.latest()->step, int64_t(40));
        QVERIFY(QDir(dir.filePath("ckpts")).entryList({"*.tmp"}, QDir::Files).isEmpty());
    }

    void damagedNewestFallsBackToThePrevious_data()
    {
        QTest::addColumn<QString>("how");
        QTest::addColumn<QString>("reason");
        QTest::newRow("flipped data byte") << "flip" << "CRC mismatch";
        QTest::newRow("truncated") << "truncate" << "truncated";
        QTest::newRow("bad magic") << "magic" << "bad magic";
        QTest::newRow("empty") << "empty" << "bad magic";
    }

    void damagedNewestFallsBackToThePrevious()
    {
        QFETCH(QString, how);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        CheckpointDirectory checkpoints(dir.filePath("c").toStdString());
        checkpoints.save(sample(10));
        const QString newest = QString::fromStdString(checkpoints.save(sample(20)));
        if (how == "flip")
            damage(newest, 3);
        else if (how == "truncate")
            QFile(newest).resize(QFileInfo(newest).size() - 7);
        else if (how == "magic")
            damage(newest, QFileInfo(newest).size());
        else
            QFile(newest).resize(0);

        QVERIFY_THROWS_EXCEPTION(DataError, readCheckpoint(newest.toStdString()));
        std::vector<std::string> skipped;
        const auto c = checkpoints.latest(&skipped);
        QVERIFY(c);
        QCOMPARE(c->step, int64_t(10));
        QCOMPARE(skipped.size(), size_t(1));
        QVERIFY2(QString::fromStdString(skipped[0]).contains(reason), skipped[0].c_str());
        QVERIFY2(QString::fromStdString(skipped[0]).contains(newest), skipped[0].c_str());
    }

    void noCheckpointAtAll()
    {
        QTemporaryDir dir;
        QVERIFY(!CheckpointDirectory(dir.filePath("none").toStdString()).latest());
    }

    void restoringIntoAnotherModelNamesTheVariable()
    {
        schema::Problems problems;
        const auto model = [&](int units) {
            return schema::parseModel(schema::Json{{"input_shape", {2}}, {"layers", {{{"type", "Dense"}, {"units", units}}}}},
                                    "model", problems);
        };
        nn::Sequential a(model(3), 1), b(model(4), 1);
        Checkpoint c;
        captureState(a, nullptr, c);
        try {
            restoreState(c, b, nullptr, "the checkpoint");
            QFAIL("no ShapeError");
        } catch (const ShapeError& e) {
            QVERIFY2(QString(e.what()).contains("\"dense/kernel\" has shape (2, 3), the model needs (2, 4)"), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestCheckpoint)
#include "tst_checkpoint.moc"
