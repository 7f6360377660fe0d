// Crash consistency of checkpoints: a writer killed with SIGKILL at random moments, 100 times,
// leaves each time the previous complete checkpoint or the new one (never a damaged one); and
// a write stopped exactly between write(), fsync() and rename() (fault_injection.cpp, an
// LD_PRELOAD library) fails with a message naming the checkpoint, removes its temporary and
// leaves the previous checkpoint as it was, or, killed there, leaves the previous or the new
// one whole.

#include "atomic_temporaries.h"

#include "strata/rundir/checkpoint.h"

#include "writer_process.h"

#include <QtTest>

#include <csignal>
#include <random>

namespace {

using strata::run::CheckpointDirectory;

// The checkpoint's step when every value it holds equals it (as checkpoint_writer writes
// them); -1 for a mix.
int64_t wholeStep(const strata::run::Checkpoint& c)
{
    const strata::Tensor* values = c.find("values");
    if (!values)
        return -1;
    for (int64_t i = 0; i < values->numel(); ++i)
        if (values->data()[i] != static_cast<float>(c.step))
            return -1;
    return c.step;
}

// The newest intact checkpoint's step (0: none); fails the test on any damaged file.
int64_t checkedLatest(const QString& dir)
{
    const CheckpointDirectory checkpoints(dir.toStdString());
    for (const std::string& path : checkpoints.list()) {
        // Every file under a checkpoint's name is whole: it got there by rename.
        const auto c = strata::run::readCheckpoint(path);
        if (wholeStep(c) != c.step)
            throw std::runtime_error(path + " mixes two checkpoints");
    }
    const auto latest = checkpoints.latest();
    return latest ? latest->step : 0;
}


} // namespace

class TestCrashConsistency : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    void checkpointWriterKilledAtRandom()
    {
        const QString dir = m_dir.filePath("killed");
        const quint32 seed = QRandomGenerator::global()->generate();
        qInfo("kill delays from seed %u", seed);
        std::mt19937 random(seed);
        std::uniform_int_distribution<int> delayMs(0, 40);
        int64_t reported = 0; // the last step a writer said it saved (0: none yet)
        int old = 0, fresh = 0, midWrite = 0;
        for (int kill = 0; kill < 100; ++kill) {
            QProcess writer;
            writer.start(STRATA_CHECKPOINT_WRITER, {"loop", dir, "1"});
            QVERIFY(writer.waitForStarted());
            QByteArray out;
            while (!out.contains("ready\n") && writer.waitForReadyRead(10000))
                out += writer.readAllStandardOutput();
            QVERIFY2(out.contains("ready\n"), "the writer did not start");
            QElapsedTimer since;
            since.start();
            const int delay = delayMs(random);
            while (since.elapsed() < delay)
                writer.waitForReadyRead(1);
            ::kill(static_cast<pid_t>(writer.processId()), SIGKILL);
            QVERIFY(writer.waitForFinished(10000));
            out += writer.readAllStandardOutput();
            for (const QString& line : QString::fromUtf8(out).split('\n', Qt::SkipEmptyParts))
                if (line.startsWith("saved "))
                    reported = std::max<int64_t>(reported, line.section(' ', 1).toLongLong());
            midWrite += testing::atomicTemporaries(dir).isEmpty() ? 0 : 1;
            int64_t latest = 0;
            try {
                latest = checkedLatest(dir);
            } catch (const std::exception& e) {
                QFAIL(qPrintable(QString("kill %1: %2").arg(kill).arg(e.what())));
            }
            // The previous complete checkpoint, or the one being written when it was killed.
            QVERIFY2(latest == reported || latest == reported + 1,
                     qPrintable(QString("kill %1: latest %2, last reported %3").arg(kill).arg(latest).arg(reported)));
            latest == reported ? ++old : ++fresh;
            reported = latest; // the next writer goes on from it
        }
        qInfo("100 kills: %d left the previous checkpoint, %d the new one; %d killed mid-write (a temporary "
              "left); %lld checkpoints saved in all", old, fresh, midWrite, static_cast<long long>(reported));
        QCOMPARE(old + fresh, 100);
        QVERIFY2(reported > 0, "no writer ever saved a checkpoint: the loop tested nothing");
        QVERIFY2(midWrite > 0, "no kill fell inside a write");
    }

    void faultBetweenWriteSyncAndRename_data()
    {
        QTest::addColumn<QString>("call");
        QTest::addColumn<int>("nth");
        QTest::addColumn<QString>("action");
        QTest::addColumn<int>("error");
        QTest::addColumn<int>("expectedLatest"); // the checkpoint left: 1 the previous, 2 the new one
        QTest::addColumn<QString>("expectedMessage");
        // A failure: the error names the checkpoint and the cause; the temporary is removed.
        QTest::newRow("write fails: disk full") << "write" << 5 << "fail" << ENOSPC << 1 << "No space left on device";
        QTest::newRow("fsync fails") << "fsync" << 1 << "fail" << EIO << 1 << "Input/output error (while syncing";
        QTest::newRow("rename fails") << "rename" << 1 << "fail" << EIO << 1 << "Input/output error (while renaming";
        QTest::newRow("directory fsync fails") << "fsync" << 2 << "fail" << EIO << 2
                                               << "cannot sync the directory";
        // Killed there: the previous or the new checkpoint, whole.
        QTest::newRow("killed during the writes") << "write" << 5 << "kill-before" << 0 << 1 << "";
        QTest::newRow("killed before fsync") << "fsync" << 1 << "kill-before" << 0 << 1 << "";
        QTest::newRow("killed before rename") << "rename" << 1 << "kill-before" << 0 << 1 << "";
        QTest::newRow("killed after rename") << "rename" << 1 << "kill-after" << 0 << 2 << "";
    }

    void faultBetweenWriteSyncAndRename()
    {
        QFETCH(QString, call);
        QFETCH(int, nth);
        QFETCH(QString, action);
        QFETCH(int, error);
        QFETCH(int, expectedLatest);
        QFETCH(QString, expectedMessage);
        const QString dir = m_dir.filePath(QString("fault-%1-%2-%3").arg(call).arg(nth).arg(action));
        QCOMPARE(runWriter(STRATA_CHECKPOINT_WRITER, {"save", dir, "1", "1"}).exitCode, 0);

        const QProcessEnvironment env =
            faultEnvironment(STRATA_FAULT_INJECTION, call, "/" + QFileInfo(dir).fileName(), nth, action, error);
        const WriterResult r = runWriter(STRATA_CHECKPOINT_WRITER, {"save", dir, "2", "1"}, env);
        if (action == "fail") {
            QCOMPARE(r.exitCode, 1);
            const QString path = dir + "/ckpt-0000000002.strata";
            QVERIFY2(r.out.startsWith("error: cannot ") && r.out.contains(path) && r.out.contains(expectedMessage),
                     qPrintable(r.out));
            QCOMPARE(testing::atomicTemporaries(dir), QStringList());
        } else {
            QVERIFY2(r.killed, qPrintable(r.out));
        }
        QCOMPARE(checkedLatest(dir), int64_t(expectedLatest));
        // The next save goes through, and clears what a killed writer left.
        QCOMPARE(runWriter(STRATA_CHECKPOINT_WRITER, {"save", dir, "3", "1"}).exitCode, 0);
        QCOMPARE(testing::atomicTemporaries(dir), QStringList());
        QCOMPARE(checkedLatest(dir), int64_t(3));
    }
};

QTEST_GUILESS_MAIN(TestCrashConsistency)
#include "tst_crash_consistency.moc"
