// A full disk (a small tmpfs mounted for the test; it needs root): saving a checkpoint fails
// with an IoError naming the checkpoint and "No space left on device", removes its temporary
// and leaves the previous checkpoint whole; a training run then ends with that error as its
// `error` event, and once there is room again, the rerun resumes from the previous checkpoint.

#include "atomic_temporaries.h"
#include "engine_process.h"

#include "strata/core/error.h"
#include "strata/rundir/checkpoint.h"

#include <QtTest>

#include <fcntl.h>
#include <unistd.h>

using namespace testing;

namespace {

strata::run::Checkpoint filledCheckpoint(int64_t step, int64_t floats)
{
    strata::run::Checkpoint c;
    c.step = step;
    strata::Tensor values(strata::Shape({floats}));
    for (int64_t i = 0; i < floats; ++i)
        values.data()[i] = static_cast<float>(step);
    c.tensors.emplace_back("values", std::move(values));
    return c;
}

// Fills the file system of `path` with `path`, leaving about `leftBytes` free.
bool fillDisk(const QString& path, int64_t leftBytes)
{
    const int fd = ::open(QFile::encodeName(path).constData(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return false;
    const std::vector<char> chunk(64 << 10, 'x');
    int64_t size = 0;
    for (ssize_t n; (n = ::write(fd, chunk.data(), chunk.size())) > 0;)
        size += n;
    const bool full = errno == ENOSPC && ::ftruncate(fd, std::max<int64_t>(0, size - leftBytes)) == 0;
    ::close(fd);
    return full;
}

} // namespace

class TestFullDisk : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_disk;
    bool m_mounted = false;

private slots:
    void initTestCase()
    {
        if (::geteuid() != 0)
            QSKIP("a full disk is a small tmpfs mounted for the test, which needs root");
        m_disk = m_dir.filePath("disk");
        QVERIFY(QDir().mkpath(m_disk));
        QProcess mount;
        mount.start("mount", {"-t", "tmpfs", "-o", "size=4m", "strata-full-disk-test", m_disk});
        mount.waitForFinished();
        if (mount.exitCode() != 0)
            QSKIP(qPrintable("cannot mount a small tmpfs (needs CAP_SYS_ADMIN): " +
                             QString::fromUtf8(mount.readAllStandardError()).trimmed()));
        m_mounted = true;
    }

    void cleanupTestCase()
    {
        if (m_mounted)
            QProcess::execute("umount", {"-l", m_disk});
    }

    void checkpointSaveOnAFullDisk()
    {
        const QString dir = m_disk + "/checkpoints";
        strata::run::CheckpointDirectory checkpoints(dir.toStdString());
        const int64_t floats = 256 << 10; // 1 MiB
        checkpoints.save(filledCheckpoint(1, floats));
        QVERIFY(fillDisk(m_disk + "/filler", 256 << 10));
        try {
            checkpoints.save(filledCheckpoint(2, floats));
            QFAIL("a checkpoint larger than the room left was saved");
        } catch (const strata::IoError& e) {
            const QString message = e.what();
            QVERIFY2(message.contains(QString::fromStdString(checkpoints.pathOf(2))) &&
                         message.contains("No space left on device"),
                     qPrintable(message));
        }
        QCOMPARE(testing::atomicTemporaries(dir), QStringList());
        const auto latest = checkpoints.latest();
        QVERIFY(latest && latest->step == 1);
        QCOMPARE(latest->find("values")->data()[floats - 1], 1.0f);
        QVERIFY(QFile::remove(m_disk + "/filler"));
        checkpoints.save(filledCheckpoint(2, floats));
        QCOMPARE(checkpoints.latest()->step, int64_t(2));
        QVERIFY(QDir(dir).removeRecursively());
    }

    void trainingOnAFullDiskStopsAndResumesOnceThereIsRoom()
    {
        // About 0.8 MiB of checkpoint (weights and Adam's two slots).
        Json doc = smallExperiment();
        doc["model"]["layers"] = Json::parse(R"([{"type": "Dense", "units": 256, "activation": "relu"},
            {"type": "Dense", "units": 256, "activation": "relu"}, {"type": "Dense", "units": 3, "activation": "softmax"}])");
        doc["training"]["epochs"] = 1;
        const QString runDir = m_disk + "/run";
        const QString one = writeExperiment(m_dir, doc, "one.json");
        const EngineResult first = runEngine({"train", one, "--events", "stdout", "--run-dir", runDir});
        QVERIFY2(first.exitCode == 0, qPrintable(first.errText()));

        QVERIFY(fillDisk(m_disk + "/filler", 400 << 10));
        doc["training"]["epochs"] = 2;
        const QString two = writeExperiment(m_dir, doc, "two.json");
        const EngineResult full = runEngine({"train", two, "--events", "stdout", "--run-dir", runDir});
        QCOMPARE(full.exitCode, 1);
        const Json* error = full.first("error");
        QVERIFY2(error, qPrintable(full.errText()));
        QCOMPARE((*error)["kind"].get<std::string>(), std::string("io"));
        const QString message = QString::fromStdString((*error)["message"].get<std::string>());
        QVERIFY2(message.contains(runDir + "/checkpoints/ckpt-0000000040.strata") &&
                     message.contains("No space left on device"),
                 qPrintable(message));
        QCOMPARE(testing::atomicTemporaries(runDir + "/checkpoints"), QStringList());
        const auto latest = strata::run::CheckpointDirectory((runDir + "/checkpoints").toStdString()).latest();
        QVERIFY(latest && latest->step == 38);

        QVERIFY(QFile::remove(m_disk + "/filler"));
        const EngineResult resumed = runEngine({"train", two, "--events", "stdout", "--run-dir", runDir});
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.errText()));
        QCOMPARE((*resumed.first("start"))["resumed_from_step"].get<int>(), 38);
        QCOMPARE(resumed.events.back()["steps"].get<int>(), 76);
    }
};

QTEST_GUILESS_MAIN(TestFullDisk)
#include "tst_full_disk.moc"
