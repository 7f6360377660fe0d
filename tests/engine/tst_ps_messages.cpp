// The coordinator's and the workers' messages (engine/ps/messages.h): what each writer writes,
// its reader reads back, and the headers are those the tasks sent before the writers existed
// (a job's tasks of two builds still understand each other).

#include "ps/curve_keys.h"
#include "ps/messages.h"
#include "ps/transport.h"
#include "strata/distribute/communicator.h"

#include <QtTest>

using namespace strata;

class TestPsMessages : public QObject {
    Q_OBJECT

private slots:
    void aDeadlineAlreadyPastIsALookNotAWait()
    {
        // ZeroMQ waits forever on any negative timeout. A heartbeat whose deadline passed between
        // its check and its receive waited so for its killed coordinator's reply, and the
        // worker hung joining it: a past deadline looks and returns (here, nothing listens).
        zmq::context_t context;
        ps::Client client(context, ps::deriveCurveKeys("token"), "tcp://127.0.0.1:9", "chief:0");
        QVERIFY(!client.receive(std::chrono::milliseconds(-3)));
        QVERIFY(!client.receive(std::chrono::milliseconds(0)));
    }

    void stepOrdersRoundTrip()
    {
        const ps::StepOrder step{.op = "step", .step = 7, .batch = 7, .epoch = 1, .run = "42-1"};
        const ps::Json header = ps::headerOf(step);
        QCOMPARE(header, ps::Json({{"op", "step"}, {"run", "42-1"}, {"step", 7}, {"batch", 7}, {"epoch", 1}}));
        const ps::StepOrder read = ps::readStepOrder(header);
        QCOMPARE(read.op, step.op);
        QCOMPARE(read.step, step.step);
        QCOMPARE(read.batch, step.batch);
        QCOMPARE(read.epoch, step.epoch);
        QCOMPARE(read.run, step.run);

        const ps::Json stop = ps::headerOf(ps::StepOrder{.op = "stop", .status = "completed"});
        QCOMPARE(stop, ps::Json({{"op", "stop"}, {"status", "completed"}}));
        QCOMPARE(ps::readStepOrder(stop).status, std::string("completed"));
        QCOMPARE(ps::headerOf(ps::StepOrder{.op = "ping"}), ps::Json({{"op", "ping"}}));

        // The coordinator's time for a heartbeat's (the step timeline's clock offset).
        const ps::Json clock = ps::headerOf(ps::StepOrder{.op = "clock", .sentUs = 1763800000000001, .chiefUs = -5});
        QCOMPARE(clock, ps::Json({{"op", "clock"}, {"sent_us", 1763800000000001}, {"chief_us", -5}}));
        const ps::StepOrder readClock = ps::readStepOrder(clock);
        QCOMPARE(readClock.sentUs, int64_t(1763800000000001));
        QCOMPARE(readClock.chiefUs, int64_t(-5));
        bool refused = false;
        try {
            ps::readStepOrder(ps::Json{{"op", "clock"}, {"sent_us", "soon"}, {"chief_us", 1}});
        } catch (const strata::distribute::CollectiveError&) {
            refused = true;
        }
        QVERIFY(refused);
    }

    void workerMessagesRoundTrip()
    {
        const ps::Json hello = ps::headerOf(ps::WorkerMessage{.op = "hello", .task = "worker:1", .pid = 1234});
        QCOMPARE(hello, ps::Json({{"op", "hello"}, {"task", "worker:1"}, {"pid", 1234}}));
        const ps::WorkerMessage read = ps::readWorkerMessage(hello);
        QCOMPARE(read.op, std::string("hello"));
        QCOMPARE(read.task, std::string("worker:1"));
        QCOMPARE(read.pid, int64_t(1234));
        QCOMPARE(read.sentUs, int64_t(0)); // a hello asks no time
        // A heartbeat that gives its time, for the coordinator's "clock" reply.
        const ps::Json heartbeat =
            ps::headerOf(ps::WorkerMessage{.op = "heartbeat", .task = "worker:1", .pid = 1234, .sentUs = 99});
        QCOMPARE(heartbeat, ps::Json({{"op", "heartbeat"}, {"task", "worker:1"}, {"pid", 1234}, {"sent_us", 99}}));
        QCOMPARE(ps::readWorkerMessage(heartbeat).sentUs, int64_t(99));
    }

    void stepResultsRoundTrip()
    {
        ps::StepResult r{.step = 3, .samples = 16, .lossSum = 9.5, .regularization = 0.25, .stalenessMean = 1.5,
                         .stalenessMax = 2, .stepMs = 4.0, .computeMs = 3.0, .commMs = 1.0};
        r.metrics = {{12.0, 16.0}, {0.5, 1.0}};
        const ps::Json header = ps::resultHeader({.op = "result", .task = "worker:0", .run = "42-1"}, r);
        QCOMPARE(QString::fromStdString(header.dump()),
                 QStringLiteral(R"({"comm_ms":1.0,"compute_ms":3.0,"loss_sum":9.5,"metrics":[[12.0,16.0],[0.5,1.0]],)"
                                R"("op":"result","regularization":0.25,"run":"42-1","samples":16,"staleness_max":2,)"
                                R"("staleness_mean":1.5,"step":3,"step_ms":4.0,"task":"worker:0"})"));
        const ps::WorkerMessage from = ps::readWorkerMessage(header);
        QCOMPARE(from.op, std::string("result"));
        QCOMPARE(from.run, std::string("42-1"));
        const ps::StepResult read = ps::readStepResult(header);
        QCOMPARE(read.step, r.step);
        QCOMPARE(read.samples, r.samples);
        QCOMPARE(read.lossSum, r.lossSum);
        QCOMPARE(read.regularization, r.regularization);
        QCOMPARE(read.metrics, r.metrics);
        QCOMPARE(read.stalenessMean, r.stalenessMean);
        QCOMPARE(read.stalenessMax, r.stalenessMax);
        QCOMPARE(read.stepMs, r.stepMs);
        QCOMPARE(read.computeMs, r.computeMs);
        QCOMPARE(read.commMs, r.commMs);
    }
};

QTEST_GUILESS_MAIN(TestPsMessages)
#include "tst_ps_messages.moc"
