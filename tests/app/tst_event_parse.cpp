// EventParser: tricky lines read the same way from the line (simdjson) and from the Json
// (nlohmann) the tests and other callers build, field by field and in the store; a line is
// an event exactly when nlohmann reads it as an object; and what MetricsStore keeps of each
// case: wrong types skipped, integers and floats alike, the last of duplicate keys, nested
// junk, unicode names, NaN in a Json event, lines too long for the kept parser, lines
// simdjson refuses and nlohmann reads, truncated lines and arrays warned about, batches.

#include "store_compare.h"

#include "app/metrics/event_parse.h"
#include "app/metrics/metrics_store.h"

#include <QSignalSpy>
#include <QtTest>

#include <cmath>
#include <limits>
#include <tuple>

using namespace strata::app;

namespace {

const QString kTask = QStringLiteral("worker:0");

const char* const kStep =
    R"({"v":1,"type":"step","t":1763800001.25,"task":"worker:0","step":120,"epoch":0,"steps":60,"loss":0.61,)"
    R"("replicas":[{"replica":0,"device":"cpu:0","loss":0.6,"samples":1920},{"replica":1,"device":"cpu:1","loss":0.62,"samples":1920}],)"
    R"("metrics":{"accuracy":0.78,"mae":2},"lr":0.001,"time_ms":{"step":1.6,"compute":1.5,"comm":0.0,"input":0.02},"samples_per_sec":20000})";

bool same(double a, double b)
{
    return a == b || (std::isnan(a) && std::isnan(b));
}

// Field by field; QCOMPARE inside.
void compareEvents(const ParsedEvent& a, const ParsedEvent& b)
{
    QCOMPARE(b.kind, a.kind);
    QVERIFY2(same(a.t, b.t), qPrintable(QStringLiteral("t %1 %2").arg(a.t).arg(b.t)));
    QCOMPARE(b.task, a.task);
    QCOMPARE(b.json, a.json);
    QCOMPARE(b.line, a.line);
    const StepEvent &x = a.step, &y = b.step;
    QCOMPARE(y.step, x.step);
    QCOMPARE(y.epoch, x.epoch);
    QVERIFY(same(y.lr, x.lr));
    QVERIFY(same(y.samples, x.samples));
    using Field = std::tuple<const char*, double, double>;
    for (const auto& [what, u, v] : std::initializer_list<Field>{
             {"loss", x.loss, y.loss}, {"samples/s", x.samplesPerSec, y.samplesPerSec}, {"step ms", x.stepMs, y.stepMs},
             {"compute ms", x.computeMs, y.computeMs}, {"comm ms", x.commMs, y.commMs}, {"input ms", x.inputMs, y.inputMs}})
        QVERIFY2(same(u, v), what);
    QCOMPARE(y.metrics.size(), x.metrics.size());
    for (size_t i = 0; i < x.metrics.size(); ++i) {
        QCOMPARE(y.metrics[i].name, x.metrics[i].name);
        QVERIFY(same(y.metrics[i].value, x.metrics[i].value));
    }
    QCOMPARE(y.replicas.size(), x.replicas.size());
    for (size_t i = 0; i < x.replicas.size(); ++i) {
        QCOMPARE(y.replicas[i].replica, x.replicas[i].replica);
        QCOMPARE(y.replicas[i].device, x.replicas[i].device);
        QVERIFY(same(y.replicas[i].loss, x.replicas[i].loss));
        QVERIFY(same(y.replicas[i].samples, x.replicas[i].samples));
    }
    QCOMPARE(y.globalStep, x.globalStep);
    QVERIFY(same(y.stalenessMean, x.stalenessMean));
    QVERIFY(same(y.stalenessMax, x.stalenessMax));
    QCOMPARE(y.workers.size(), x.workers.size());
    for (size_t i = 0; i < x.workers.size(); ++i) {
        QCOMPARE(y.workers[i].task, x.workers[i].task);
        QCOMPARE(y.workers[i].steps, x.workers[i].steps);
        QVERIFY(same(y.workers[i].samplesPerSec, x.workers[i].samplesPerSec));
        QVERIFY(same(y.workers[i].stalenessMean, x.workers[i].stalenessMean));
        QVERIFY(same(y.workers[i].stalenessMax, x.workers[i].stalenessMax));
        QCOMPARE(y.workers[i].state, x.workers[i].state);
    }
    QCOMPARE(y.trace.has_value(), x.trace.has_value());
    if (x.trace) {
        QCOMPARE(y.trace->step, x.trace->step);
        QCOMPARE(y.trace->t0Us, x.trace->t0Us);
        QCOMPARE(y.trace->clockOffsetUs, x.trace->clockOffsetUs);
        QCOMPARE(y.trace->spans.size(), x.trace->spans.size());
        for (size_t i = 0; i < x.trace->spans.size(); ++i) {
            const TraceSpan &u = x.trace->spans[i], &v = y.trace->spans[i];
            QCOMPARE(v.lane, u.lane);
            QCOMPARE(v.name, u.name);
            QCOMPARE(v.startUs, u.startUs);
            QCOMPARE(v.durUs, u.durUs);
        }
    }
}

ParsedEvent parse(const QByteArray& line)
{
    std::optional<ParsedEvent> event = EventParser::forThisThread().parseLine(line.toStdString());
    if (!event)
        qFatal("a blank line: %s", line.constData());
    return std::move(*event);
}

template<typename Fn>
void withTask(const MetricsStore& store, Fn fn, const QString& task = kTask)
{
    bool found = false;
    store.read([&](const std::vector<TaskData>& tasks, const std::vector<LogEntry>&) {
        for (const TaskData& td : tasks)
            if (td.task == task) {
                found = true;
                fn(td);
            }
    });
    QVERIFY2(found, qPrintable(task));
}

std::vector<LogEntry> logOf(const MetricsStore& store)
{
    std::vector<LogEntry> log;
    store.read([&](const std::vector<TaskData>&, const std::vector<LogEntry>& entries) { log = entries; });
    return log;
}

// `depth` nested arrays around a 1.
QByteArray nested(int depth)
{
    return QByteArray(depth, '[') + '1' + QByteArray(depth, ']');
}

} // namespace

class TestEventParse : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void lineAndJsonAgree_data()
    {
        QTest::addColumn<QByteArray>("line");
        const auto row = [](const char* name, const QByteArray& line) { QTest::newRow(name) << line; };
        row("a step as the engine writes it", kStep);
        row("ints for floats, floats for ints",
            R"({"type":"step","t":1000,"step":10.9,"loss":1,"samples_per_sec":3e4,"time_ms":{"step":2,"compute":1.5e0,"comm":-0,"input":-0.0},"metrics":{"a":1,"b":-2,"c":0.5},"replicas":[{"replica":1.7,"loss":2,"samples":320.0}]})");
        row("64-bit integers", R"({"type":"step","t":1,"step":18446744073709551615,"loss":9223372036854775807,"metrics":{"u":18446744073709551615,"n":-9223372036854775808},"replicas":[{"replica":9223372036854775808}]})");
        row("integers beyond 64 bits (simdjson refuses, nlohmann reads floats)",
            R"({"type":"step","t":1,"step":5,"loss":123456789012345678901234567890,"metrics":{"big":-99999999999999999999},"replicas":[{"samples":18446744073709551616}]})");
        row("wrong types",
            R"({"type":"step","t":"soon","task":7,"step":"3","loss":"high","samples_per_sec":null,"time_ms":7,"metrics":[1,2],"replicas":"none"})");
        row("wrong types inside",
            R"({"type":"step","t":2,"step":4,"time_ms":{"step":"1","compute":true,"comm":[],"input":{}},"metrics":{"a":"x","b":null,"c":false,"d":1},"replicas":[1,"r",null,{"replica":"2","device":5,"loss":"1","samples":[]},{"device":"cpu:9"}]})");
        row("missing fields", R"({"type":"step"})");
        row("no type", R"({"t":3,"step":9,"loss":1})");
        row("a type that is not a string", R"({"type":["step"],"t":3,"step":9,"loss":1})");
        row("duplicate keys: the last counts",
            R"({"type":"step","step":1,"step":2,"loss":1,"loss":"x","t":5,"t":6,"time_ms":{"step":1},"time_ms":{"comm":2,"comm":3},)"
            R"("metrics":{"a":1,"a":2,"b":1,"b":"x","c":"x","c":3},"replicas":[{"replica":0,"replica":3,"device":"a","device":null}],"replicas":[{"loss":1,"loss":2}]})");
        // Two fields giving one value, one of them given twice: counted in nlohmann's order
        // (the repeated key in its first place), not the line's (found by the fuzz target).
        row("time_ms twice around step_ms",
            R"({"type":"step","t":1,"time_ms":{"step":1},"step_ms":{"x":1},"time_ms":{"step":2,"compute":3}})");
        row("samples_per_s twice around samples_per_sec",
            R"({"type":"step","t":1,"samples_per_s":1,"samples_per_sec":2,"samples_per_s":3})");
        row("replicas twice around replica_loss",
            R"({"type":"step","t":1,"replicas":[{"loss":1}],"replica_loss":[5],"replicas":[{"loss":2}]})");
        row("the type given twice", R"({"type":"step","type":"log","t":4,"level":"info","message":"m","step":3})");
        row("nested junk",
            R"({"type":"step","t":7,"step":11,"junk":{"a":[{"b":{"c":[1,2,{"d":null}]}}],"e":"\u0041"},"metrics":{"m":{"x":1},"n":[],"o":2},"replicas":[[{"loss":1}],{"loss":2,"extra":{"loss":3}}]})");
        row("unicode device and metric names",
            R"({"type":"step","t":8,"step":12,"metrics":{"précision":0.5,"\u7cbe\u5ea6":0.25},"replicas":[{"replica":0,"device":"gpu:0 \u00e9\ud83d\ude00","loss":1},{"replica":1,"device":"gpu:1 é😀 Ω","loss":2}]})");
        row("a NUL escaped in names", R"({"type":"step","t":8,"step":12,"metrics":{"a\u0000b":1},"replicas":[{"device":"x\u0000y"}]})");
        row("deeper than simdjson goes (1024)", R"({"type":"step","t":9,"step":13,"loss":0.5,"deep":)" + nested(1100) + "}");
        row("hello", R"({"v":1,"type":"hello","t":1763800000.1,"task":"worker:0","version":"0.1.0","schema":1,"host":"box","pid":4242,"devices":[{"name":"cpu:0","kind":"cpu","cores":2,"memory_bytes":25000000000}],"blas":"OpenBLAS"})");
        row("hello with the task's GPUs", R"({"v":1,"type":"hello","t":1,"task":"worker:1","host":"box","pid":1,"devices":[],"cuda_visible_devices":"2,3"})");
        row("hello, GPUs not set", R"({"v":1,"type":"hello","t":1,"task":"worker:1","host":"box","pid":1,"devices":[],"cuda_visible_devices":null})");
        row("hello, GPUs of another type", R"({"v":1,"type":"hello","t":1,"task":"worker:1","cuda_visible_devices":[2,3]})");
        row("placement", R"({"type":"placement","t":2,"replicas":[{"replica":0,"device":"cpu:0","threads":1},{"replica":1,"device":"cpu:1"}],"learning_rate":{"base":0.001,"rule":"none"},"a":-0,"b":-0.0,"c":1e-400,"d":[true,false,null]})");
        row("device", R"({"type":"device","t":3,"step":100,"devices":[{"device":"cpu:0","replica":0,"utilization":0.9,"variable_bytes":407080},{"replica":1,"utilization":"x"}],"process":{"rss_bytes":120000000}})");
        row("epoch", R"({"type":"epoch","t":4,"epoch":0,"epochs":2,"step":500,"train":{"loss":0.6,"accuracy":0.8},"validation":null,"seconds":3})");
        row("error with problems", R"({"type":"error","t":5,"kind":"config","message":"2 problems","fatal":true,"problems":[{"path":"a","message":"b"},7]})");
        row("done", R"({"type":"done","t":6,"status":"stopped","steps":10.5,"test":{"loss":0.4,"accuracy":1}})");
        row("an unknown type", R"({"type":"future","t":6,"anything":[1,{"x":2}]})");
        row("an empty object", "{}");
        row("a line that is an array", "[1, 2, 3]");
        row("a string", R"("step")");
        row("a number", "42");
        row("a truncated line", "{\"v\":1,\"type\":\"step\",\"ste"); // (moc misreads a raw string with an odd count of quotes)
        row("a truncated number", R"({"type":"step","step":)");
        row("two objects on a line", R"({"type":"step"} {"type":"step"})");
        row("a trailing comma", R"({"type":"step","step":1,})");
        row("a lone surrogate", R"({"type":"step","replicas":[{"device":"\ud800"}]})");
        row("invalid UTF-8", "{\"type\":\"step\",\"replicas\":[{\"device\":\"\xff\xfe\"}]}");
        row("a raw tab in a string", "{\"type\":\"step\",\"task\":\"a\tb\"}");
        row("a number too large for a double", R"({"type":"step","loss":1e400})");
        row("NaN written out", R"({"type":"step","loss":NaN})");
        row("a byte order mark", "\xef\xbb\xbf{\"type\":\"step\",\"step\":3}");
        row("garbage", "Segmentation fault (core dumped)");
        // ParameterServer (docs/event-schema.md): a worker's step, flat fields and all; the
        // coordinator's with its view of the workers (wrong types among them); a ps task's
        // traffic; a worker lost.
        row("a ParameterServer worker's step",
            R"({"v":1,"type":"step","t":2,"task":"worker:1","step":9,"global_step":20,"epoch":0,"loss":1.52,"samples":160,"samples_per_s":300.0,"step_ms":107.0,"compute_ms":80.0,"comm_ms":27.0,"staleness_mean":1.2,"staleness_max":2,"replicas":[{"device":"worker:1/cpu:0","loss":1.52,"samples":160}]})");
        row("the coordinator's step",
            R"({"v":1,"type":"step","t":2,"task":"chief:0","step":20,"loss":1.5,"samples_per_sec":700,"workers":[{"task":"worker:0","steps":11,"samples_per_s":400.0,"staleness_mean":0.6,"staleness_max":2,"state":"training"},{"task":3,"steps":"x","state":"waiting"},7]})");
        row("a ps event",
            R"({"v":1,"type":"ps","t":2,"task":"ps:0","shards":2,"variable_bytes":201216,"bytes_in":1207296,"bytes_out":1609728,"bytes_in_per_s":804864.0,"bytes_out_per_s":1006080.0,"updates":6,"updates_per_s":4.0,"pulls":8,"refused":1})");
        row("a step record (steps-<task>.jsonl: no type, an event of none)",
            R"({"t":5.5,"step":3,"epoch":0,"loss":1.25,"replica_loss":[1.0,1.5],"samples":32,"lr":0.01,"step_ms":2.5,"compute_ms":2,"comm_ms":0.25,"input_ms":0.125})");
        row("a step record's trace",
            R"({"type":"step","t":5.5,"step":3,"trace":{"t0":1763800000123456,"spans":[["step","checkpoint",-900,400],["step","step",0,2500],["step","forward",10,800],["reduce","bucket 0",700,300]],"clock_offset_us":-42}})");
        row("a trace with wrong types inside",
            R"({"type":"step","t":1,"step":4,"trace":{"t0":17.9,"clock_offset_us":"x","spans":[["step","step",0],["step",1,0,5],[2,"a",0,5],["step","a","0",5],["step","a",0,-1],"span",null,["step","ok",1.5,2,"extra"],["step","ok",1,2]]}})");
        row("a trace whose t0 is no number", R"({"type":"step","t":1,"step":4,"trace":{"t0":"now","spans":[["step","step",0,5]]}})");
        row("a trace that is no object", R"({"type":"step","t":1,"step":4,"trace":[["step","step",0,5]]})");
        row("a trace beyond 64 bits (nlohmann reads it)",
            R"({"type":"step","t":1,"step":4,"trace":{"t0":5,"spans":[["step","step",0,99999999999999999999999],["step","step",0,7]]}})");
        row("a membership event",
            R"({"v":1,"type":"membership","t":2,"task":"chief:0","member":"worker:1","state":"lost","reason":"unheard for 3.0 s"})");
    }

    void lineAndJsonAgree()
    {
        QFETCH(QByteArray, line);
        const Json json = Json::parse(line.begin(), line.end(), nullptr, false);
        const ParsedEvent fromLine = parse(line);
        // An event exactly when nlohmann reads the line as an object; else the line, as it was.
        const bool object = !json.is_discarded() && json.is_object();
        QCOMPARE(fromLine.kind != ParsedEvent::Kind::NotAnEvent, object);
        if (!object) {
            QCOMPARE(fromLine.line, line);
            return;
        }
        // What a Json event gives is what its line gives, field by field...
        compareEvents(fromLine, EventParser::forThisThread().fromJson(json));
        if (QTest::currentTestFailed())
            return;
        // ...and in the store: the line path and the Json path, after a first step event.
        MetricsStore lines, events;
        lines.ingestLines(kTask, QByteArray(kStep) + '\n' + line + '\n');
        events.ingest(kTask, Json::parse(kStep));
        events.ingest(kTask, json);
        apptest::compareStores(events, lines);
    }

    void aByteOrderMarkOnlyFirst()
    {
        // As nlohmann reads a line: a byte order mark before the object is skipped; one after
        // blanks is not JSON (the simdjson path took it; found by the event_line fuzz target).
        const QByteArray object = R"({"type":"step","step":3})";
        QCOMPARE(parse("\xef\xbb\xbf" + object).kind, ParsedEvent::Kind::Step);
        const ParsedEvent afterBlanks = parse("\t \xef\xbb\xbf" + object);
        QCOMPARE(afterBlanks.kind, ParsedEvent::Kind::NotAnEvent);
        QCOMPARE(afterBlanks.line, "\xef\xbb\xbf" + object);
    }

    void aLineOfManyKeys()
    {
        // 20,000 keys, `loss` and a metric among them given again far apart: read as nlohmann
        // reads the line (the repeated key's last value, in its first place). (More would only
        // slow nlohmann's reading for the comparison: its ordered_json finds a key by scanning.)
        QByteArray metrics = R"({"m0":1)";
        QByteArray line = R"({"type":"step","t":1,"step":1,"loss":1,"time_ms":{"step":1},"step_ms":{"x":1})";
        for (int k = 1; k < 20000; ++k) {
            line += ",\"k" + QByteArray::number(k) + "\":" + QByteArray::number(k);
            metrics += ",\"m" + QByteArray::number(k) + "\":" + QByteArray::number(k);
        }
        metrics += R"(,"m0":-1})";
        line += R"(,"loss":2,"time_ms":{"step":2},"metrics":)" + metrics + "}";
        const ParsedEvent event = parse(line);
        QCOMPARE(event.kind, ParsedEvent::Kind::Step);
        QCOMPARE(event.step.loss, 2.0);
        QVERIFY(std::isnan(event.step.stepMs)); // `step_ms` (not a number) after `time_ms`'s place
        QCOMPARE(event.step.metrics.size(), size_t(20000));
        QCOMPARE(event.step.metrics[0].value, -1.0f);
        compareEvents(event, EventParser::forThisThread().fromJson(Json::parse(line.toStdString())));
    }

    void numbersAsIntegersOrFloats()
    {
        MetricsStore store;
        store.ingestLines(kTask, QByteArray(kStep) + '\n' +
                                     R"({"type":"step","t":1763800002,"step":130.9,"loss":1,"samples_per_sec":3e4,"time_ms":{"step":2,"compute":1.5e0},"metrics":{"accuracy":1,"mae":-2.5},"replicas":[{"replica":1.7,"loss":2,"samples":320}]})");
        withTask(store, [](const TaskData& td) {
            QCOMPARE(td.step, int64_t(130)); // a float step truncated
            QCOMPARE(td.loss.size(), int64_t(2));
            QCOMPARE(td.loss.x(1), 130.0);
            QCOMPARE(td.loss.y(1), 1.0f);
            QCOMPARE(td.samplesPerSec.y(1), 30000.0f);
            QCOMPARE(td.stepMs.y(1), 2.0f);
            QCOMPARE(td.computeMs.y(1), 1.5f);
            QCOMPARE(td.commMs.size(), int64_t(1)); // absent: no point
            QCOMPARE(td.metrics.at("accuracy").y(1), 1.0f);
            QCOMPARE(td.metrics.at("mae").y(0), 2.0f);
            QCOMPARE(td.metrics.at("mae").y(1), -2.5f);
            QCOMPARE(td.replicas.size(), size_t(2));
            QCOMPARE(td.replicas[1].loss.y(1), 2.0f); // replica 1.7 is replica 1
            QCOMPARE(td.replicas[1].samples.y(1), 320.0f);
            QCOMPARE(td.wallSeconds.y(1), float(1763800002 - 1763800001.25));
        });
    }

    void wrongTypesAreSkipped()
    {
        MetricsStore store;
        store.ingestLines(kTask, QByteArray(kStep) + '\n' +
                                     R"({"type":"step","t":"soon","step":"3","loss":"high","time_ms":{"step":"1","comm":0.5},"metrics":{"accuracy":"x","mae":3},"replicas":[1,{"replica":"2","device":5,"loss":0.5},{"device":"cpu:7","loss":[]}]})");
        withTask(store, [](const TaskData& td) {
            QCOMPARE(td.step, int64_t(120)); // kept
            QCOMPARE(td.loss.size(), int64_t(1));
            QCOMPARE(td.stepMs.size(), int64_t(1));
            QCOMPARE(td.commMs.size(), int64_t(2));
            QCOMPARE(td.commMs.y(1), 0.5f);
            QCOMPARE(td.wallSeconds.size(), int64_t(1)); // no time
            QCOMPARE(td.lastEventTime, 1763800001.25);
            QCOMPARE(td.metrics.at("accuracy").size(), int64_t(1));
            QCOMPARE(td.metrics.at("mae").size(), int64_t(2));
            // The replica at position 1 (a "2" is not a number), its device kept; the one at
            // position 2 is named anew and has no loss.
            QCOMPARE(td.replicas.size(), size_t(3));
            QCOMPARE(td.replicas[1].device, QStringLiteral("cpu:1"));
            QCOMPARE(td.replicas[1].loss.y(1), 0.5f);
            QCOMPARE(td.replicas[2].replica, 2);
            QCOMPARE(td.replicas[2].device, QStringLiteral("cpu:7"));
            QVERIFY(td.replicas[2].loss.empty());
        });
    }

    void lastOfDuplicateKeysCounts()
    {
        MetricsStore store;
        store.ingestLines(kTask, R"({"type":"step","step":1,"step":2,"loss":1,"loss":"x","t":5,"t":6,"metrics":{"a":1,"a":2,"b":1,"b":"x"},"replicas":[{"replica":0,"replica":3,"device":"a","device":"b"}]})");
        withTask(store, [](const TaskData& td) {
            QCOMPARE(td.step, int64_t(2));
            QVERIFY(td.loss.empty());
            QCOMPARE(td.firstEventTime, 6.0);
            QCOMPARE(td.metrics.size(), size_t(1));
            QCOMPARE(td.metrics.at("a").y(0), 2.0f);
            QCOMPARE(td.replicas.size(), size_t(1));
            QCOMPARE(td.replicas[0].replica, 3);
            QCOMPARE(td.replicas[0].device, QStringLiteral("b"));
        });
    }

    void unicodeNames()
    {
        MetricsStore store;
        store.ingestLines(kTask, R"({"type":"step","t":8,"step":12,"metrics":{"précision":0.5},"replicas":[{"replica":0,"device":"gpu:0 \u00e9\ud83d\ude00"},{"replica":1,"device":"gpu:1 é😀"}]})");
        withTask(store, [](const TaskData& td) {
            QCOMPARE(td.metrics.count(QString::fromUtf8("précision")), size_t(1));
            QCOMPARE(td.replicas[0].device, QString::fromUtf8("gpu:0 é😀"));
            QCOMPARE(td.replicas[1].device, QString::fromUtf8("gpu:1 é😀"));
        });
    }

    void nanInAJsonEvent()
    {
        // Only a Json can hold NaN (JSON text cannot): absent for the series a field feeds, but
        // kept as a metric's value, as the store always did.
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const Json replica = {{"loss", nan}, {"samples", 3}};
        MetricsStore store;
        store.ingest(kTask, Json{{"type", "step"}, {"t", 10.0}, {"step", 5}, {"loss", nan},
                                 {"time_ms", {{"step", nan}, {"comm", 1.0}}}, {"metrics", {{"accuracy", nan}}},
                                 {"replicas", Json::array({replica})}});
        store.ingest(kTask, Json{{"type", "step"}, {"t", nan}, {"step", 6}, {"loss", 1.0}});
        withTask(store, [](const TaskData& td) {
            QCOMPARE(td.step, int64_t(6));
            QCOMPARE(td.loss.size(), int64_t(1));
            QCOMPARE(td.loss.x(0), 6.0);
            QVERIFY(td.stepMs.empty());
            QCOMPARE(td.commMs.size(), int64_t(1));
            QCOMPARE(td.metrics.at("accuracy").size(), int64_t(1));
            QVERIFY(std::isnan(td.metrics.at("accuracy").y(0)));
            QVERIFY(td.replicas[0].loss.empty());
            QCOMPARE(td.replicas[0].samples.size(), int64_t(1));
            QCOMPARE(td.wallSeconds.size(), int64_t(1)); // the step without a time has none
            QCOMPARE(td.firstEventTime, 10.0);
            QCOMPARE(td.lastEventTime, 10.0);
        });
    }

    void stepRecords()
    {
        // The full-resolution records: every object a step, its flat fields read as a step
        // event's; replica_loss by position (a value that is not a number is absent, the
        // others keep their replica); a blank line is nothing, another line not an event.
        const QByteArray records =
            R"({"t":5.5,"step":3,"epoch":1,"loss":1.25,"replica_loss":[1.0,"x",1.5],"samples":32,"lr":0.01,"step_ms":2.5,"compute_ms":2,"comm_ms":0.25,"input_ms":0.125,"global_step":7,"staleness_mean":0.5,"staleness_max":1})"
            "\n\n[1]\n"
            R"({"step":4,"type":"log"})";
        std::vector<ParsedEvent> parsed;
        for (const QByteArray& line : records.split('\n'))
            if (std::optional<ParsedEvent> record = EventParser::forThisThread().parseStepRecord(line.toStdString()))
                parsed.push_back(std::move(*record));
        QCOMPARE(parsed.size(), size_t(3));
        const ParsedEvent& r = parsed[0];
        QCOMPARE(r.kind, ParsedEvent::Kind::Step);
        QCOMPARE(r.t, 5.5);
        QCOMPARE(r.step.step, std::optional<int64_t>(3));
        QCOMPARE(r.step.epoch, std::optional<int64_t>(1));
        QCOMPARE(r.step.loss, 1.25);
        QCOMPARE(r.step.samples, 32.0);
        QCOMPARE(r.step.lr, 0.01);
        QCOMPARE(r.step.stepMs, 2.5);
        QCOMPARE(r.step.computeMs, 2.0);
        QCOMPARE(r.step.commMs, 0.25);
        QCOMPARE(r.step.inputMs, 0.125);
        QCOMPARE(r.step.globalStep, std::optional<int64_t>(7));
        QCOMPARE(r.step.stalenessMean, 0.5);
        QCOMPARE(r.step.stalenessMax, 1.0);
        QCOMPARE(r.step.replicas.size(), size_t(2));
        QCOMPARE(r.step.replicas[0].replica, 0);
        QCOMPARE(r.step.replicas[0].loss, 1.0);
        QCOMPARE(r.step.replicas[1].replica, 2);
        QCOMPARE(r.step.replicas[1].loss, 1.5);
        QCOMPARE(parsed[1].kind, ParsedEvent::Kind::NotAnEvent);
        QCOMPARE(parsed[1].line, QByteArray("[1]"));
        QCOMPARE(parsed[2].kind, ParsedEvent::Kind::Step); // even with a type
        QCOMPARE(parsed[2].step.step, std::optional<int64_t>(4));
        // As events the same lines are not steps: the parser goes back to reading events.
        parsed.clear();
        EventParser::forThisThread().parseLines(records.constData(), size_t(records.size()), parsed);
        QCOMPARE(parsed[0].kind, ParsedEvent::Kind::Other);
        QCOMPARE(parsed[2].kind, ParsedEvent::Kind::Other);
    }

    void aStepRecordsTrace()
    {
        // A record's trace as the engine writes it (docs/event-schema.md, "Step timelines"):
        // t0, the spans in order with their lanes and names interned, the record's step even
        // when it comes after the trace; junk spans skipped, the rest kept.
        const QByteArray line =
            R"({"t":5.5,"trace":{"t0":1763800000123456,"clock_offset_us":-42,"spans":[["step","evaluation",-900,400],)"
            R"(["step","step",0,2500],["bad"],["reduce","bucket 1",700,300],["step","step",2600,-5]]},"step":3})";
        std::optional<ParsedEvent> record = EventParser::forThisThread().parseStepRecord(line.toStdString());
        QVERIFY(record && record->step.trace);
        const StepTrace& trace = *record->step.trace;
        QCOMPARE(trace.step, int64_t(3));
        QCOMPARE(trace.t0Us, int64_t(1763800000123456));
        QCOMPARE(trace.clockOffsetUs, std::optional<int64_t>(-42));
        QCOMPARE(trace.spans.size(), size_t(3));
        QCOMPARE(trace.spans[0].lane, QStringLiteral("step"));
        QCOMPARE(trace.spans[0].name, QStringLiteral("evaluation"));
        QCOMPARE(trace.spans[0].startUs, int64_t(-900));
        QCOMPARE(trace.spans[0].durUs, int64_t(400));
        QCOMPARE(trace.spans[2].lane, QStringLiteral("reduce"));
        QCOMPARE(trace.spans[2].name, QStringLiteral("bucket 1"));
        QCOMPARE(trace.spans[2].startUs, int64_t(700));
        // Interned: the two spans of one lane share its text.
        QVERIFY(trace.spans[0].lane.constData() == trace.spans[1].lane.constData());
        // Without a clock offset it is absent; a record without a trace has none.
        record = EventParser::forThisThread().parseStepRecord(R"({"step":4,"trace":{"t0":1,"spans":[]}})");
        QVERIFY(record && record->step.trace && !record->step.trace->clockOffsetUs && record->step.trace->spans.empty());
        record = EventParser::forThisThread().parseStepRecord(R"({"step":4})");
        QVERIFY(record && !record->step.trace);
    }

    void linesThatAreNotEventsAreWarnedAbout()
    {
        MetricsStore store;
        const QByteArray longGarbage(200, 'x');
        store.ingestLines(kTask, "[1, 2, 3]\n" + longGarbage + "\n  \t\r\n" + QByteArray(kStep) +
                                     "\n{\"v\":1,\"type\":\"step\",\"ste");
        QCOMPARE(store.eventCount(), int64_t(1));
        const auto log = logOf(store);
        QCOMPARE(log.size(), size_t(3));
        QCOMPARE(log[0].message, QStringLiteral("worker:0: not a JSON event: [1, 2, 3]"));
        QCOMPARE(log[1].message, QStringLiteral("worker:0: not a JSON event: %1…").arg(QString(80, 'x')));
        QCOMPARE(log[2].message, QStringLiteral("worker:0: not a JSON event: {\"v\":1,\"type\":\"step\",\"ste"));
        // A Json that is not an object: warned about as its line would be.
        store.ingest(kTask, Json::array({1, 2, 3}));
        QCOMPARE(logOf(store).back().message, QStringLiteral("worker:0: not a JSON event: [1,2,3]"));
        QCOMPARE(store.eventCount(), int64_t(1));
    }

    void veryLongLines()
    {
        // 300 replicas (about 20 KB), a line of 3 MiB (beyond the parser's kept capacity, parsed
        // by one of its own), then ordinary lines: the thread's parser still reads them.
        QByteArray replicas;
        for (int r = 0; r < 300; ++r)
            replicas += QStringLiteral(R"(%1{"replica":%2,"device":"cpu:%2","loss":%3,"samples":32})")
                            .arg(r ? "," : "").arg(r).arg(1.0 + r)
                            .toUtf8();
        const QByteArray wide = R"({"type":"step","t":1,"step":1,"replicas":[)" + replicas + "]}";
        // (Plain literals: moc misreads a raw string with an odd count of quotes.)
        const QByteArray note(3 << 20, 'n');
        const QByteArray huge = "{\"type\":\"step\",\"t\":2,\"step\":2,\"loss\":0.5,\"note\":\"" + note +
                                "\",\"metrics\":{\"accuracy\":0.25}}";
        const QByteArray hugeBad = "{\"type\":\"step\",\"t\":3,\"step\":3,\"note\":\"" + note;
        MetricsStore store;
        store.ingestLines(kTask, wide + '\n' + huge + '\n' + hugeBad + '\n' + kStep + '\n');
        QCOMPARE(store.eventCount(), int64_t(3));
        withTask(store, [](const TaskData& td) {
            QCOMPARE(td.replicas.size(), size_t(300));
            QCOMPARE(td.replicas[299].device, QStringLiteral("cpu:299"));
            QCOMPARE(td.replicas[299].loss.y(0), 300.0f);
            QCOMPARE(td.loss.size(), int64_t(2));
            QCOMPARE(td.loss.x(0), 2.0);
            QCOMPARE(td.metrics.at("accuracy").y(0), 0.25f);
            QCOMPARE(td.step, int64_t(120));
        });
        QCOMPARE(logOf(store).size(), size_t(1)); // the torn 3 MiB line
        compareEvents(parse(huge), EventParser::forThisThread().fromJson(Json::parse(huge.toStdString())));
    }

    void eventsNameTheirTaskWhenTheCallerDoesNot()
    {
        MetricsStore store;
        store.ingestLines(QString(), QByteArray(kStep) + "\n" + R"({"type":"step","task":3,"step":1})");
        store.ingest(QString(), Json{{"type", "log"}, {"t", 1.0}, {"task", "chief:0"}, {"message", "m"}});
        store.read([](const std::vector<TaskData>& tasks, const std::vector<LogEntry>& log) {
            QCOMPARE(tasks.size(), size_t(3));
            QCOMPARE(tasks[0].task, QStringLiteral("worker:0"));
            QCOMPARE(tasks[1].task, QStringLiteral("?")); // not a string
            QCOMPARE(tasks[2].task, QStringLiteral("chief:0"));
            QCOMPARE(log.back().task, QStringLiteral("chief:0"));
        });
    }

    void aBatchIsOneNotification()
    {
        // The same as one event at a time, under one lock; the state change and the warning are
        // reported once.
        QByteArray lines = "{\"type\":\"hello\",\"t\":1}\nnot json\n";
        for (int s = 1; s <= 100; ++s)
            lines += QStringLiteral(R"({"type":"step","t":%1,"step":%1,"loss":%2})").arg(s).arg(1.0 / s).toUtf8() + '\n';
        std::vector<ParsedEvent> batch;
        EventParser::forThisThread().parseLines(lines.constData(), size_t(lines.size()), batch);
        QCOMPARE(batch.size(), size_t(102));

        MetricsStore one, each;
        QSignalSpy states(&one, &MetricsStore::taskStateChanged), logs(&one, &MetricsStore::logAppended);
        one.ingest(kTask, std::move(batch));
        QCOMPARE(states.count(), 1);
        QCOMPARE(logs.count(), 1);
        for (const QByteArray& line : lines.split('\n'))
            each.ingestLines(kTask, line);
        apptest::compareStores(each, one);
    }
};

QTEST_GUILESS_MAIN(TestEventParse)
#include "tst_event_parse.moc"
