// StepRecordTail: a steps-<task>.jsonl followed as it grows. A line written in pieces (the
// engine's buffered writes land in the file at any byte) is read once whole, with its values,
// never as two bad halves; reads bounded in size split lines anywhere and lose none; lines
// that are not records are counted, not handed out; a file that appears later, and one that
// cannot be read.

#include "app/rundir/step_record_tail.h"

#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

#include <unistd.h>

using namespace strata::app;

namespace {

QByteArray record(int64_t step, double loss, double accuracy)
{
    return QStringLiteral(R"({"t":1763800000.%1,"step":%1,"epoch":0,"loss":%2,"replica_loss":[%2,%3],"samples":32,)"
                          R"("lr":0.001,"step_ms":2.5,"compute_ms":2,"comm_ms":0.25,"input_ms":0.25,"metrics":{"accuracy":%4}})")
               .arg(step)
               .arg(loss, 0, 'g', 17)
               .arg(loss * 2, 0, 'g', 17)
               .arg(accuracy, 0, 'g', 17)
        .toUtf8();
}

void append(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Append));
    QCOMPARE(f.write(bytes), bytes.size());
}

} // namespace

class TestStepRecordTail : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private Q_SLOTS:
    void partialLineAtTheEndIsReadWhenComplete()
    {
        const QString path = m_dir.filePath("steps-worker-0.jsonl");
        StepRecordTail tail(path);
        std::vector<ParsedEvent> records;
        QString error;
        // Not there yet: nothing, and no error.
        QVERIFY(tail.read(records, &error));
        QVERIFY(records.empty());
        QVERIFY(error.isEmpty());

        const QByteArray third = record(3, 2.125, 0.75);
        append(path, record(1, 2.5, 0.25) + '\n' + record(2, 2.25, 0.5) + '\n' + third.left(40));
        QVERIFY(tail.read(records, &error));
        QCOMPARE(records.size(), size_t(2));
        QCOMPARE(StepRecordTail::stepOf(records[1]), int64_t(2));
        QCOMPARE(tail.offset(), qint64(record(1, 2.5, 0.25).size() + record(2, 2.25, 0.5).size() + 2));
        QCOMPARE(tail.skipped(), int64_t(0)); // the half line was not taken for a bad one

        // Nothing new: the half line stays held back.
        QVERIFY(tail.read(records, &error));
        QCOMPARE(records.size(), size_t(2));

        // The rest of it lands, then the start of the next.
        append(path, third.mid(40) + '\n' + record(4, 2.0, 0.8).left(5));
        QVERIFY(tail.read(records, &error));
        QCOMPARE(records.size(), size_t(3));
        const StepEvent& r = records[2].step;
        QCOMPARE(*r.step, int64_t(3));
        QCOMPARE(r.loss, 2.125);
        QCOMPARE(int(r.replicas.size()), 2);
        QCOMPARE(r.replicas[1].loss, 4.25);
        QCOMPARE(r.stepMs, 2.5);
        QCOMPARE(r.inputMs, 0.25);
        QCOMPARE(int(r.metrics.size()), 1);
        QCOMPARE(r.metrics[0].name, QString("accuracy"));
        QCOMPARE(r.metrics[0].value, 0.75f);
        QCOMPARE(records[2].t, 1763800000.3);
        QCOMPARE(tail.skipped(), int64_t(0));

        append(path, record(4, 2.0, 0.8).mid(5) + '\n');
        QVERIFY(tail.read(records, &error));
        QCOMPARE(records.size(), size_t(4));
        QCOMPARE(records[3].step.loss, 2.0);
        QCOMPARE(tail.offset(), QFileInfo(path).size());
        QVERIFY(tail.atEnd());
    }

    void smallReadsSplitLinesAnywhere()
    {
        // Read 7 bytes at a time: every line is cut, most several times; each comes out once.
        const QString path = m_dir.filePath("steps-worker-1.jsonl");
        QByteArray all;
        for (int64_t s = 1; s <= 50; ++s)
            all += record(s, 3.0 / double(s), 0.01 * double(s)) + '\n';
        append(path, all);
        StepRecordTail tail(path);
        std::vector<ParsedEvent> records;
        QString error;
        int reads = 0;
        do {
            QVERIFY(tail.read(records, &error, 7));
            ++reads;
        } while (!tail.atEnd());
        QCOMPARE(reads, int((all.size() + 6) / 7));
        QCOMPARE(records.size(), size_t(50));
        for (int64_t s = 1; s <= 50; ++s) {
            QCOMPARE(StepRecordTail::stepOf(records[size_t(s - 1)]), s);
            QCOMPARE(records[size_t(s - 1)].step.loss, 3.0 / double(s));
        }
        QCOMPARE(tail.skipped(), int64_t(0));
    }

    void startsAtAnOffsetAndSkipsWhatIsNoRecord()
    {
        // From an offset (a session's start); a torn line ended by the next session's newline,
        // a blank line, a line without a step, one that is not JSON: counted, not handed out.
        const QString path = m_dir.filePath("steps-worker-2.jsonl");
        const QByteArray earlier = record(1, 9, 0) + '\n';
        append(path, earlier + record(7, 1, 0).left(30) + '\n' + "\n" + R"({"t":1,"loss":2})" + '\n' + "not json\n" +
                         record(8, 1.5, 0.5) + '\n');
        StepRecordTail tail(path, earlier.size());
        std::vector<ParsedEvent> records;
        QString error;
        QVERIFY(tail.read(records, &error));
        QCOMPARE(records.size(), size_t(1));
        QCOMPARE(StepRecordTail::stepOf(records[0]), int64_t(8));
        QCOMPARE(tail.skipped(), int64_t(3));
    }

    void unreadableFileIsAnError()
    {
        if (::geteuid() == 0)
            QSKIP("root reads any file");
        const QString path = m_dir.filePath("steps-worker-3.jsonl");
        append(path, record(1, 1, 0) + '\n');
        QVERIFY(QFile::setPermissions(path, QFileDevice::WriteOwner));
        StepRecordTail tail(path);
        std::vector<ParsedEvent> records;
        QString error;
        QVERIFY(!tail.read(records, &error));
        QVERIFY2(error.contains(path), qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestStepRecordTail)
#include "tst_step_record_tail.moc"
