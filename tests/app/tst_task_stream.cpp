// The task stream (no process): a front process's stdout cut into the task's event lines and
// the follower's own lines: heartbeats, the `follow` line, `step_records` frames whose
// records may hold anything, and `exit` events read as the task's end; every way a chunk can
// split a line or a frame; lines that are no JSON, or whose fields are not what the follower
// writes, kept as event lines; a line's type read as JSON reads it (spaces, escapes, a key
// given twice), never found by searching the text.

#include "app/launch/job/task_stream.h"

#include "strata/schema/events.h"

#include <QtTest>

using namespace strata::app;

namespace {

const QByteArray kStep = R"({"v":1,"type":"step","t":1.5,"task":"worker:0","step":3,"loss":0.5})";
const QByteArray kLog = R"({"v":1,"type":"log","t":1.6,"task":"worker:0","message":"\"type\":\"exit\""})";
const QByteArray kFollow = R"({"v":1,"type":"follow","t":1.0,"task":"worker:0","offset":120,"stderr_offset":7,"steps_offset":300})";
const QByteArray kExit = R"({"v":1,"type":"exit","t":2.0,"task":"worker:0","code":0})";
const QByteArray kRecords = "{\"step\":1,\"loss\":0.7}\n{\"step\":2,\"loss\":0.6}\n";

QByteArray frame(const QByteArray& records)
{
    return R"({"type":"step_records","bytes":)" + QByteArray::number(records.size()) + "}\n" + records;
}

// Everything `stream` makes of `data` fed in `pieces` chunks (at every `size`-th byte; 0: one chunk).
struct Taken {
    QList<FollowLine> follows;
    QByteArray records, lines;
    std::optional<TaskEnd> exit;
    bool recordsSaid = true; // every piece's recordsArrived() said whether it held records
};
Taken takeAll(TaskStream& stream, const QByteArray& data, qsizetype size = 0)
{
    Taken all;
    for (qsizetype at = 0; at < data.size(); at += size > 0 ? size : data.size()) {
        const StreamPiece piece = stream.take(data.mid(at, size > 0 ? size : data.size()));
        if (piece.follow)
            all.follows << *piece.follow;
        all.recordsSaid = all.recordsSaid && piece.recordsArrived() == !piece.stepRecords.isEmpty();
        all.records += piece.stepRecords;
        all.lines += piece.eventLines;
        if (piece.exit)
            all.exit = piece.exit;
    }
    return all;
}

} // namespace

class TestTaskStream : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void eventNamesAreTheSchemas()
    {
        QCOMPARE(QByteArray(strata::schema::event::kFollow), QByteArray("follow"));
        QCOMPARE(QByteArray(strata::schema::event::kStepRecords), QByteArray("step_records"));
        QCOMPARE(QByteArray(strata::schema::event::kExit), QByteArray("exit"));
    }

    // Whatever the chunks, the same lines, follow line, records and end come out.
    void framingAcrossChunks_data()
    {
        QTest::addColumn<qsizetype>("size");
        for (qsizetype size : {0, 1, 2, 3, 7, 16, 61, 100})
            QTest::addRow("chunks of %lld bytes", qlonglong(size)) << size;
    }
    void framingAcrossChunks()
    {
        QFETCH(qsizetype, size);
        const QByteArray data =
            kFollow + "\n" + kStep + "\n\n" + frame(kRecords) + kLog + "\n" + frame("{\"step\":3}\n") + "\n" + kExit + "\n";
        TaskStream stream(true);
        const Taken all = takeAll(stream, data, size);
        QVERIFY(all.recordsSaid);
        QCOMPARE(all.follows.size(), 1);
        QCOMPARE(all.follows[0].offset, qint64(120));
        QCOMPARE(all.follows[0].stderrOffset, qint64(7));
        QCOMPARE(all.follows[0].stepsOffset, qint64(300));
        QCOMPARE(all.records, kRecords + "{\"step\":3}\n");
        QCOMPARE(all.lines, kStep + "\n" + kLog + "\n" + kExit + "\n");
        QVERIFY(all.exit);
        QCOMPARE(all.exit->exitCode, 0);
        QVERIFY(!all.exit->crashed);
        QCOMPARE(all.exit->task, QStringLiteral("worker:0"));
        QVERIFY(stream.takeRest().isEmpty());
    }

    // A piece holds only what is complete; the rest waits for the next chunk.
    void partialLinesWait()
    {
        TaskStream stream;
        StreamPiece piece = stream.take(kStep.left(10));
        QVERIFY(piece.eventLines.isEmpty());
        piece = stream.take(kStep.mid(10) + "\n" + kLog.left(5));
        QCOMPARE(piece.eventLines, kStep + "\n");
        QCOMPARE(stream.takeRest(), kLog.left(5));
        QVERIFY(stream.takeRest().isEmpty());
    }

    // A frame's records are bytes, not lines: events, follow lines and frames among them stay records.
    void recordsAreNotRead()
    {
        const QByteArray records = kExit + "\n" + kFollow + "\n" + frame("x") + "\n";
        TaskStream stream(true);
        const Taken all = takeAll(stream, frame(records) + kStep + "\n", 5);
        QCOMPARE(all.records, records);
        QCOMPARE(all.lines, kStep + "\n");
        QVERIFY(all.follows.isEmpty());
        QVERIFY(!all.exit);
    }

    void emptyFrame()
    {
        TaskStream stream(true);
        const StreamPiece piece = stream.take(frame({}) + kStep + "\n");
        QVERIFY(!piece.recordsArrived());
        QCOMPARE(piece.eventLines, kStep + "\n");
    }

    // A follower that does not relay records: a step_records line is an event like any other.
    void framesOnlyWhenRelayed()
    {
        TaskStream stream(false);
        const QByteArray line = R"({"type":"step_records","bytes":3})";
        const StreamPiece piece = stream.take(line + "\nabc\n");
        QVERIFY(!piece.recordsArrived());
        QCOMPARE(piece.eventLines, line + "\nabc\n");
    }

    void followWithoutSteps()
    {
        TaskStream stream;
        const StreamPiece piece = stream.take(R"({"v":1,"type":"follow","offset":5,"stderr_offset":6})" "\n");
        QVERIFY(piece.follow);
        QCOMPARE(piece.follow->offset, qint64(5));
        QCOMPARE(piece.follow->stderrOffset, qint64(6));
        QCOMPARE(piece.follow->stepsOffset, qint64(-1));
        QVERIFY(piece.eventLines.isEmpty());
    }

    void exitEnds_data()
    {
        QTest::addColumn<QByteArray>("line");
        QTest::addColumn<int>("code");
        QTest::addColumn<bool>("crashed");
        QTest::addColumn<bool>("vanished");
        QTest::newRow("status") << QByteArray(R"({"v":1,"type":"exit","t":2,"task":"worker:0","code":1})") << 1 << false << false;
        QTest::newRow("signal") << QByteArray(R"({"v":1,"type":"exit","t":2,"task":"worker:0","signal":9,"signal_name":"KILL"})")
                                << 9 << true << false;
        QTest::newRow("vanished") << QByteArray(R"({"v":1,"type":"exit","t":2,"task":"worker:0","vanished":true,"message":"gone"})")
                                  << 0 << false << true;
        // Read as JSON: spaces, escapes and a key given twice (the last counts, as nlohmann keeps it).
        QTest::newRow("spaces") << QByteArray(R"( { "type" : "exit" , "code" : 4 } )") << 4 << false << false;
        QTest::newRow("escaped") << QByteArray(R"({"type":"\u0065xit","code":5})") << 5 << false << false;
        QTest::newRow("given twice") << QByteArray(R"({"type":"log","code":6,"type":"exit"})") << 6 << false << false;
    }
    void exitEnds()
    {
        QFETCH(QByteArray, line);
        QFETCH(int, code);
        QFETCH(bool, crashed);
        QFETCH(bool, vanished);
        TaskStream stream;
        const StreamPiece piece = stream.take(kStep + "\n" + line + "\n");
        QVERIFY(piece.exit);
        QCOMPARE(piece.exit->exitCode, code);
        QCOMPARE(piece.exit->crashed, crashed);
        QCOMPARE(!piece.exit->vanished.isEmpty(), vanished);
        // The supervisor's line is an event of the task too (its events file holds it).
        QCOMPARE(piece.eventLines, kStep + "\n" + line + "\n");
    }

    // Lines that only look like the follower's, or are no JSON: event lines, read as nothing else.
    void malformedLines_data()
    {
        QTest::addColumn<QByteArray>("line");
        QTest::newRow("not JSON") << QByteArray("not json at all");
        QTest::newRow("truncated follow") << QByteArray(R"({"v":1,"type":"follow","offset":1)");
        QTest::newRow("truncated exit") << QByteArray(R"({"v":1,"type":"exit","code":0)");
        QTest::newRow("trailing text") << QByteArray(R"({"type":"exit","code":0} x)");
        QTest::newRow("an array") << QByteArray(R"(["type","exit"])");
        QTest::newRow("exit quoted in a message") << kLog;
        QTest::newRow("exit in a nested object") << QByteArray(R"({"type":"log","detail":{"type":"exit","code":0}})");
        QTest::newRow("type not a string") << QByteArray(R"({"type":3,"code":0})");
        QTest::newRow("type given twice, exit first") << QByteArray(R"({"type":"exit","type":"log","code":0})");
        QTest::newRow("frame without bytes") << QByteArray(R"({"type":"step_records"})");
        QTest::newRow("frame of negative bytes") << QByteArray(R"({"type":"step_records","bytes":-4})");
        QTest::newRow("frame of text bytes") << QByteArray(R"({"type":"step_records","bytes":"4"})");
        QTest::newRow("NUL byte") << QByteArray("{\"type\":\"exit\"\0}", 16);
    }
    void malformedLines()
    {
        QFETCH(QByteArray, line);
        TaskStream stream(true);
        const StreamPiece piece = stream.take(line + "\n" + kStep + "\n");
        QVERIFY(!piece.exit);
        QVERIFY(!piece.follow);
        QVERIFY(!piece.recordsArrived());
        QCOMPARE(piece.eventLines, line + "\n" + kStep + "\n");
    }

    // A follow line whose offsets are not integers: those are absent (0, and no relayed records).
    void followFieldsOfTheWrongType()
    {
        TaskStream stream;
        const StreamPiece piece = stream.take(R"({"type":"follow","offset":"12","stderr_offset":null,"steps_offset":[1]})" "\n");
        QVERIFY(piece.follow);
        QCOMPARE(piece.follow->offset, qint64(0));
        QCOMPARE(piece.follow->stderrOffset, qint64(0));
        QCOMPARE(piece.follow->stepsOffset, qint64(-1));
    }

    void lastExitCounts()
    {
        TaskStream stream;
        const StreamPiece piece =
            stream.take(R"({"type":"exit","code":1})" "\n" R"({"type":"exit","signal":15})" "\n");
        QVERIFY(piece.exit);
        QVERIFY(piece.exit->crashed);
        QCOMPARE(piece.exit->exitCode, 15);
    }

    // A new front process sends from the last whole line again: what was half-read is forgotten.
    void resetForgetsHalfRead()
    {
        TaskStream stream(true);
        stream.take(frame(kRecords).left(40));
        stream.reset();
        const StreamPiece piece = stream.take(kStep + "\n");
        QVERIFY(!piece.recordsArrived());
        QCOMPARE(piece.eventLines, kStep + "\n");
        stream.take(kStep.left(4));
        stream.reset(false);
        QCOMPARE(stream.take(kLog + "\n").eventLines, kLog + "\n");
    }
};

QTEST_GUILESS_MAIN(TestTaskStream)
#include "tst_task_stream.moc"
