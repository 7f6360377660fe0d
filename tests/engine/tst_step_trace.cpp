// The step timeline's recording: SpanRecorder (lanes, reserved storage, drops counted),
// ClockOffset (the shortest round trip's offset, refreshed), StepTracer (a step record's
// `trace`: t0 on the job clock, spans from t0 in whole microseconds, negative before the step,
// perfect nesting within a lane whatever the hooks recorded, the offset written when it
// changes).

#include "strata/core/clock_offset.h"
#include "strata/core/span_recorder.h"
#include "strata/report/event_sink.h"
#include "strata/report/step_trace.h"

#include <QtTest>

#include <QTemporaryDir>

#include <fstream>
#include <thread>

using namespace strata;
using Clock = SpanRecorder::Clock;
using Json = nlohmann::ordered_json;
using std::chrono::microseconds;

namespace {

// The trace's spans of `lane` as [name, start, end].
std::vector<std::tuple<std::string, int64_t, int64_t>> spansOf(const Json& trace, const std::string& lane)
{
    std::vector<std::tuple<std::string, int64_t, int64_t>> out;
    for (const Json& s : trace.at("spans")) {
        if (s.at(0).get<std::string>() != lane)
            continue;
        const int64_t start = s.at(2).get<int64_t>();
        out.emplace_back(s.at(1).get<std::string>(), start, start + s.at(3).get<int64_t>());
    }
    return out;
}

} // namespace

class TestStepTrace : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void recorderKeepsLanesApartAndCountsDrops()
    {
        SpanRecorder r(4);
        const auto t = Clock::now();
        for (int i = 0; i < 6; ++i)
            r.add(TraceLane::Reduce, "bucket", t + microseconds(i), t + microseconds(i + 1), i);
        r.add(TraceLane::Step, "forward", t, t + microseconds(5));
        std::vector<SpanRecorder::Span> taken;
        QCOMPARE(r.take(TraceLane::Reduce, taken), size_t(2)); // past the capacity of 4
        QCOMPARE(taken.size(), size_t(4));
        QCOMPARE(taken[3].index, 3);
        QCOMPARE(std::string(taken[0].name), std::string("bucket"));
        QCOMPARE(r.take(TraceLane::Reduce, taken), size_t(0)); // taken: the lane is empty again
        QVERIFY(taken.empty());
        QCOMPARE(r.take(TraceLane::Step, taken), size_t(0));
        QCOMPARE(taken.size(), size_t(1));
        QCOMPARE(std::string(traceLaneName(TraceLane::Ps)), std::string("ps"));
    }

    void recorderAllocatesNothingPerSpan()
    {
        // The storage reserved at construction is what every step reuses: spans swap between
        // the lane and the taker's vector, never a reallocation.
        SpanRecorder r(8);
        std::vector<SpanRecorder::Span> taken;
        r.take(TraceLane::Step, taken);
        const auto t = Clock::now();
        std::vector<const SpanRecorder::Span*> storage;
        for (int step = 0; step < 4; ++step) {
            for (int i = 0; i < 8; ++i)
                r.add(TraceLane::Step, "x", t, t);
            r.take(TraceLane::Step, taken);
            QCOMPARE(taken.size(), size_t(8));
            storage.push_back(taken.data());
        }
        // Two buffers alternate.
        QCOMPARE(storage[0], storage[2]);
        QCOMPARE(storage[1], storage[3]);
    }

    void scopeRecordsOnlyWithARecorder()
    {
        SpanRecorder r;
        {
            SpanScope a(&r, TraceLane::Ps, "pull");
            SpanScope none(nullptr, TraceLane::Ps, "push");
            a.end();
            a.end(); // once
        }
        std::vector<SpanRecorder::Span> taken;
        r.take(TraceLane::Ps, taken);
        QCOMPARE(taken.size(), size_t(1));
        QCOMPARE(std::string(taken[0].name), std::string("pull"));
        QVERIFY(taken[0].end >= taken[0].begin);
    }

    void clockOffsetTakesTheShortestRoundTrip()
    {
        // The peer is 5000 µs ahead. Replies delayed one way skew a sample by half the delay;
        // the fastest exchange is the one to believe.
        ClockOffset c;
        QCOMPARE(c.offsetUs(), int64_t(0));
        QCOMPARE(c.roundTripUs(), int64_t(-1));
        const int64_t ahead = 5000;
        // sent 1000, request took 800 µs, reply 200: the peer read its clock at 1800 (+ahead).
        c.add(1000, 1800 + ahead, 2000);
        QCOMPARE(c.offsetUs(), ahead + 300);
        QCOMPARE(c.roundTripUs(), int64_t(1000));
        c.add(3000, 3050 + ahead, 3100); // symmetric and fast: exact
        QCOMPARE(c.offsetUs(), ahead);
        QCOMPARE(c.roundTripUs(), int64_t(100));
        c.add(4000, 4400 + ahead, 4500); // slower: ignored
        QCOMPARE(c.offsetUs(), ahead);
        // A clock that stepped back during an exchange gives no sample.
        c.add(9000, 1, 8000);
        QCOMPARE(c.roundTripUs(), int64_t(100));
        // Refreshed: once the fast sample is older than the window, the best of the newer ones
        // (the peer's clock has moved to +7000 meanwhile).
        for (int i = 0; i < int(ClockOffset::kSamples); ++i) {
            const int64_t sent = 10000 + 1000 * i;
            c.add(sent, sent + 100 + 7000 + (i == 3 ? 0 : 50), sent + 200 + (i == 3 ? 0 : 100));
        }
        QCOMPARE(c.roundTripUs(), int64_t(200));
        QCOMPARE(c.offsetUs(), int64_t(7000));
        // Unix microseconds, as the job clock is written.
        const int64_t now = systemMicroseconds();
        QVERIFY(now > int64_t(1700000000) * 1000000 && now < int64_t(4000000000) * 1000000);
    }

    void traceIsRelativeToTheStepAndNestsPerfectly()
    {
        run::StepTracer tracer;
        SpanRecorder& r = *tracer.recorder();
        const int64_t before = systemMicroseconds();
        const auto t0 = Clock::now();
        const int64_t after = systemMicroseconds();
        const auto at = [&](int64_t us) { return t0 + microseconds(us); };
        // Between the steps, before t0: a checkpoint.
        r.add(TraceLane::Step, "checkpoint", at(-900), at(-400));
        r.add(TraceLane::Step, "step", at(0), at(1000));
        r.add(TraceLane::Step, "input", at(0), at(100));
        r.add(TraceLane::Step, "forward", at(100), at(400));
        // A hook that ran past its parent (recorded on another clock reading): clamped inside.
        r.add(TraceLane::Step, "backward", at(400), at(1200));
        // Overlapping spans of another lane are that lane's business.
        r.add(TraceLane::Reduce, "bucket", at(300), at(700), 0);
        r.add(TraceLane::Reduce, "bucket", at(700), at(950), 1);
        const Json trace = Json::parse(tracer.take(t0, -250));
        // t0: this clock's reading at the step's start, plus the offset (within what separates
        // the tracer's two clock readings, a few microseconds unless the machine is loaded).
        const int64_t t0Us = trace.at("t0").get<int64_t>() + 250;
        QVERIFY2(t0Us >= before - 50000 && t0Us <= after + 50000, qPrintable(QString::number(t0Us - before)));
        QCOMPARE(trace.at("clock_offset_us").get<int64_t>(), int64_t(-250));
        using S = std::tuple<std::string, int64_t, int64_t>;
        const auto step = spansOf(trace, "step");
        QCOMPARE(step.size(), size_t(5));
        QCOMPARE(step[0], S("checkpoint", -900, -400));
        QCOMPARE(step[1], S("step", 0, 1000));
        QCOMPARE(step[2], S("input", 0, 100));
        QCOMPARE(step[4], S("backward", 400, 1000));
        const auto reduce = spansOf(trace, "reduce");
        QCOMPARE(reduce, (std::vector<S>{{"bucket 0", 300, 700}, {"bucket 1", 700, 950}}));
        // Taken: the next step starts afresh, and the offset is not repeated until it changes.
        const Json next = Json::parse(tracer.take(at(2000), -250));
        QVERIFY(next.at("spans").empty());
        QVERIFY(!next.contains("clock_offset_us"));
        QCOMPARE(next.at("t0").get<int64_t>(), trace.at("t0").get<int64_t>() + 2000);
        QCOMPARE(Json::parse(tracer.take(at(3000), 40)).at("clock_offset_us").get<int64_t>(), int64_t(40));
    }

    void spansFromAnotherThreadAreTaken()
    {
        // The reduce lane is written by ProcessGroup's queue thread while the step lane is
        // written here; the step's thread takes both once the other is done.
        run::StepTracer tracer;
        const auto t0 = Clock::now();
        std::thread queue([&] {
            for (int k = 0; k < 3; ++k)
                SpanScope bucket(tracer.recorder(), TraceLane::Reduce, "bucket", k);
        });
        {
            SpanScope step(tracer.recorder(), TraceLane::Step, "step");
            queue.join();
        }
        const Json trace = Json::parse(tracer.take(t0, 0));
        const auto reduce = spansOf(trace, "reduce");
        QCOMPARE(reduce.size(), size_t(3));
        QCOMPARE(std::get<0>(reduce[2]), std::string("bucket 2"));
        for (const auto& [name, start, end] : reduce)
            QVERIFY(start >= 0 && end >= start);
    }

    void recordCarriesTheTrace()
    {
        // The text goes into the step record's line as its `trace` field, beside the others.
        QTemporaryDir dir;
        run::StepTracer tracer;
        const auto t0 = Clock::now();
        tracer.recorder()->add(TraceLane::Ps, "pull", t0, t0 + microseconds(40));
        const std::string text = tracer.take(t0, 7);
        {
            run::EventSink sink("worker:1", nullptr);
            sink.openRunFiles(dir.path().toStdString());
            sink.record(Json{{"step", 3}, {"loss", 0.5}}, text);
            sink.record(Json{{"step", 4}}); // without a timeline
        }
        std::ifstream in(dir.filePath("steps-worker-1.jsonl").toStdString());
        std::string line;
        QVERIFY(std::getline(in, line));
        const Json record = Json::parse(line);
        QCOMPARE(record.at("step").get<int>(), 3);
        QCOMPARE(record.at("loss").get<double>(), 0.5);
        QCOMPARE(record.at("trace"), Json::parse(text));
        QCOMPARE(record.at("trace").at("spans"), Json::parse(R"([["ps", "pull", 0, 40]])"));
        QVERIFY(std::getline(in, line));
        QVERIFY(!Json::parse(line).contains("trace"));
    }
};

QTEST_GUILESS_MAIN(TestStepTrace)
#include "tst_step_trace.moc"
