// The step timeline end to end (issue 28's acceptance): a real MultiWorkerMirrored job (2
// workers) and a real ParameterServer job (chief, 2 workers, 1 ps) of strata-engine processes
// on 127.0.0.1, exported by `strata export trace` (the command's function, which ui/main.cpp
// hands the arguments after `export` to), and the file read back with a JSON
// reader of its own (QJsonDocument, not the exporter's code): every event's fields of the right
// types, every lane of every task perfectly nested, exactly one process per task named with its
// host, the lanes and phases each strategy records, throughput counters, and the two
// MultiWorkerMirrored workers' all-reduces of one bucket overlapping on the job clock. Then the
// errors: a run that is not there, a steps file with a broken line.

#include "app/trace_export/export_trace_command.h"
#include "../engine/engine_job.h"
#include "../free_ports.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cmath>
#include <map>
#include <set>

using namespace testing;

namespace {

struct Span {
    QString name;
    double ts = 0, dur = 0;
    qint64 step = 0;
};
// (pid, tid) -> its complete events.
using Lanes = std::map<std::pair<int, int>, std::vector<Span>>;

struct Trace {
    std::map<int, QString> processes;                   // pid -> process_name
    std::map<std::pair<int, int>, QString> threads;     // (pid, tid) -> thread_name
    Lanes lanes;
    std::map<int, int> counters;                        // pid -> throughput counters
};

bool isInt(const QJsonValue& v)
{
    return v.isDouble() && std::floor(v.toDouble()) == v.toDouble();
}

// Reads and checks every event: QVERIFY inside, so call through QVERIFY(!QTest::currentTestFailed()).
void readTrace(const QByteArray& text, Trace& trace)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(text, &error);
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    QVERIFY(doc.isObject());
    QVERIFY(doc.object().value("traceEvents").isArray());
    const QJsonArray events = doc.object().value("traceEvents").toArray();
    QVERIFY(!events.isEmpty());
    for (const QJsonValue& value : events) {
        const QJsonObject e = value.toObject();
        const QString what = QString::fromUtf8(QJsonDocument(e).toJson(QJsonDocument::Compact));
        QVERIFY2(e.value("name").isString() && !e.value("name").toString().isEmpty(), qPrintable(what));
        QVERIFY2(e.value("ph").isString(), qPrintable(what));
        QVERIFY2(isInt(e.value("pid")) && isInt(e.value("tid")), qPrintable(what));
        const int pid = e.value("pid").toInt(), tid = e.value("tid").toInt();
        const QString ph = e.value("ph").toString();
        const QJsonObject args = e.value("args").toObject();
        if (ph == "M") {
            QVERIFY2(args.value("name").isString() || args.value("sort_index").isDouble(), qPrintable(what));
            if (e.value("name") == "process_name") {
                QVERIFY2(!trace.processes.count(pid), qPrintable("a second process_name: " + what));
                trace.processes[pid] = args.value("name").toString();
            } else if (e.value("name") == "thread_name") {
                QVERIFY2(!trace.threads.count({pid, tid}), qPrintable("a second thread_name: " + what));
                trace.threads[{pid, tid}] = args.value("name").toString();
            }
        } else if (ph == "X") {
            QVERIFY2(e.value("ts").isDouble() && e.value("ts").toDouble() >= 0, qPrintable(what));
            QVERIFY2(e.value("dur").isDouble() && e.value("dur").toDouble() >= 0, qPrintable(what));
            QVERIFY2(isInt(args.value("step")) && args.value("step").toInteger() >= 1, qPrintable(what));
            trace.lanes[{pid, tid}].push_back({e.value("name").toString(), e.value("ts").toDouble(),
                                               e.value("dur").toDouble(), args.value("step").toInteger()});
        } else if (ph == "C") {
            QVERIFY2(e.value("ts").isDouble() && e.value("ts").toDouble() >= 0, qPrintable(what));
            QVERIFY2(args.value("samples/s").isDouble() && args.value("samples/s").toDouble() > 0, qPrintable(what));
            ++trace.counters[pid];
        } else {
            QFAIL(qPrintable("an event of an unexpected phase: " + what));
        }
    }
}

// Within one lane: each span wholly inside the one enclosing its start, or after it.
void checkNesting(const Trace& trace)
{
    for (const auto& [lane, spans] : trace.lanes) {
        std::vector<Span> sorted = spans;
        std::sort(sorted.begin(), sorted.end(), [](const Span& a, const Span& b) {
            return a.ts != b.ts ? a.ts < b.ts : a.dur > b.dur;
        });
        std::vector<const Span*> open;
        for (const Span& s : sorted) {
            while (!open.empty() && open.back()->ts + open.back()->dur <= s.ts)
                open.pop_back();
            if (!open.empty()) {
                const Span& parent = *open.back();
                QVERIFY2(s.ts + s.dur <= parent.ts + parent.dur,
                         qPrintable(QString("pid %1 tid %2: %3 [%4, +%5] overlaps %6 [%7, +%8]")
                                        .arg(lane.first).arg(lane.second).arg(s.name).arg(s.ts).arg(s.dur)
                                        .arg(parent.name).arg(parent.ts).arg(parent.dur)));
            }
            open.push_back(&s);
        }
    }
}

// The names on (pid, lane named `lane`).
std::set<QString> namesOn(const Trace& trace, int pid, const QString& lane)
{
    std::set<QString> names;
    for (const auto& [key, spans] : trace.lanes)
        if (key.first == pid && trace.threads.at(key) == lane)
            for (const Span& s : spans)
                names.insert(s.name);
    return names;
}

const std::vector<Span>* laneOf(const Trace& trace, int pid, const QString& lane)
{
    for (const auto& [key, spans] : trace.lanes)
        if (key.first == pid && trace.threads.at(key) == lane)
            return &spans;
    return nullptr;
}

struct Exported {
    int exitCode = -1;
    QByteArray out, err;
};

// `strata export trace ARGS...`, its output and errors captured.
Exported exportTrace(const QStringList& args)
{
    char* outText = nullptr;
    char* errText = nullptr;
    size_t outSize = 0, errSize = 0;
    std::FILE* out = open_memstream(&outText, &outSize);
    std::FILE* err = open_memstream(&errText, &errSize);
    Exported e;
    e.exitCode = strata::app::exportTraceCommand(QStringList{"trace"} + args, out, err);
    std::fclose(out);
    std::fclose(err);
    e.out = QByteArray(outText, qsizetype(outSize));
    e.err = QByteArray(errText, qsizetype(errSize));
    std::free(outText);
    std::free(errText);
    return e;
}

} // namespace

class TestTraceExport : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    // Runs the job to completion; the host each task's hello gave.
    std::map<QString, QString> runJob(const Json& doc, const QStringList& names, const QString& runDir)
    {
        std::map<QString, QString> hosts;
        Job job(writeExperiment(m_dir, doc, QFileInfo(runDir).fileName() + ".strata.json"), names, runDir);
        const bool ended = job.allExited(kStuck);
        for (int i = 0; i < job.size(); ++i) {
            const Json* done = job.task(i).last("done");
            if (!ended || !done || (*done)["status"] != "completed") {
                std::fprintf(stderr, "%s\n", qPrintable("What each task was doing:\n" + job.report()));
                QTest::qFail(qPrintable(job.task(i).name + " did not complete (each task's report above)"), __FILE__,
                             __LINE__);
                return {};
            }
            if (const Json* hello = job.task(i).last("hello"))
                hosts[job.task(i).name] = QString::fromStdString((*hello)["host"].get<std::string>());
        }
        return hosts;
    }

private Q_SLOTS:
    void multiWorkerAndParameterServerRuns()
    {
        // MultiWorkerMirrored: 2 workers, small buckets (several per step), a checkpoint every
        // 10 steps and a validation each epoch (the spans between steps).
        Json mwm = smallExperiment();
        mwm["model"]["layers"][0]["units"] = 64; // 835 variables: two buckets of 1 KiB
        mwm["training"]["epochs"] = 2;
        mwm["strategy"] = {{"type", "MultiWorkerMirrored"}, {"timeout_seconds", 10}, {"bucket_bytes", 1024}};
        const int port = freePorts(2);
        mwm["cluster"] = {{"nodes", {{{"name", "local"}, {"host", "127.0.0.1"}}}},
                          {"tasks", {{{"type", "worker"}, {"node", "local"}, {"count", 2}, {"port", port}}}}};
        const QString mwmDir = m_dir.filePath("mwm");
        const auto mwmHosts = runJob(mwm, {"worker:0", "worker:1"}, mwmDir);
        QVERIFY(!QTest::currentTestFailed());

        Json ps = smallExperiment();
        ps["training"]["epochs"] = 1;
        ps["strategy"] = {{"type", "ParameterServer"}, {"timeout_seconds", 10}};
        const int psPort = freePorts(4);
        ps["cluster"] = {{"nodes", {{{"name", "local"}, {"host", "127.0.0.1"}}}},
                         {"tasks", {{{"type", "chief"}, {"node", "local"}, {"port", psPort}},
                                    {{"type", "worker"}, {"node", "local"}, {"count", 2}, {"port", psPort + 1}},
                                    {{"type", "ps"}, {"node", "local"}, {"count", 1}, {"port", psPort + 3}}}}};
        const QString psDir = m_dir.filePath("ps");
        const auto psHosts = runJob(ps, {"chief:0", "ps:0", "worker:0", "worker:1"}, psDir);
        QVERIFY(!QTest::currentTestFailed());

        const QString out = m_dir.filePath("trace.json");
        const Exported e = exportTrace({mwmDir, psDir, out});
        QVERIFY2(e.exitCode == 0, e.err.constData());
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        Trace trace;
        readTrace(file.readAll(), trace);
        QVERIFY(!QTest::currentTestFailed());
        checkNesting(trace);
        QVERIFY(!QTest::currentTestFailed());

        // Exactly one process per task that trains, named with its run and host (the
        // coordinator and the ps task train nothing: no timeline).
        std::map<QString, int> pidOf;
        for (const auto& [pid, name] : trace.processes)
            pidOf[name] = pid;
        QStringList expected;
        for (const QString& task : {"worker:0", "worker:1"}) {
            expected << QString("mwm: %1 @ %2").arg(task, mwmHosts.at(task));
            expected << QString("ps: %1 @ %2").arg(task, psHosts.at(task));
        }
        QCOMPARE(trace.processes.size(), size_t(4));
        for (const QString& name : expected)
            QVERIFY2(pidOf.count(name), qPrintable(name + " is no process"));
        // Every (pid, tid) with events is a named thread of a named process; counters for all.
        for (const auto& [key, spans] : trace.lanes) {
            QVERIFY(trace.processes.count(key.first));
            QVERIFY2(trace.threads.count(key), qPrintable(QString("pid %1 tid %2 unnamed").arg(key.first).arg(key.second)));
        }
        for (const auto& [pid, name] : trace.processes)
            QVERIFY2(trace.counters[pid] > 0, qPrintable(name + " has no throughput counter"));

        // What each strategy records.
        for (const QString& task : {"worker:0", "worker:1"}) {
            const int m = pidOf.at(QString("mwm: %1 @ %2").arg(task, mwmHosts.at(task)));
            for (const char* phase : {"step", "input", "forward", "backward", "wait", "optimizer", "checkpoint", "evaluation"})
                QVERIFY2(namesOn(trace, m, "step").count(phase), phase);
            QVERIFY(namesOn(trace, m, "reduce").count("bucket 0"));
            QVERIFY(namesOn(trace, m, "reduce").count("bucket 1"));
            const int p = pidOf.at(QString("ps: %1 @ %2").arg(task, psHosts.at(task)));
            QCOMPARE(namesOn(trace, p, "ps"), (std::set<QString>{"pull", "push"}));
            for (const char* phase : {"step", "input", "forward", "backward"})
                QVERIFY2(namesOn(trace, p, "step").count(phase), phase);
        }

        // One job clock: a bucket's all-reduce ends on no worker before it began on the other
        // (a ring exchanges with every rank), within a millisecond of clock error.
        const auto* reduce0 = laneOf(trace, pidOf.at(expected[0]), "reduce");
        const auto* reduce1 = laneOf(trace, pidOf.at(expected[2]), "reduce");
        QVERIFY(reduce0 && reduce1);
        std::map<std::pair<qint64, QString>, const Span*> byStep;
        for (const Span& s : *reduce1)
            byStep[{s.step, s.name}] = &s;
        int compared = 0;
        for (const Span& a : *reduce0) {
            const auto it = byStep.find({a.step, a.name});
            if (it == byStep.end())
                continue;
            const Span& b = *it->second;
            QVERIFY2(a.ts <= b.ts + b.dur + 1000 && b.ts <= a.ts + a.dur + 1000,
                     qPrintable(QString("step %1 %2: [%3, +%4] and [%5, +%6]").arg(a.step).arg(a.name).arg(a.ts).arg(a.dur)
                                    .arg(b.ts).arg(b.dur)));
            ++compared;
        }
        QVERIFY(compared >= 10);
    }

    void errorsNameTheFile()
    {
        // A run that is not there.
        const QString missing = m_dir.filePath("no-such-run");
        Exported e = exportTrace({missing, m_dir.filePath("x.json")});
        QCOMPARE(e.exitCode, 1);
        QVERIFY2(e.err.contains(missing.toUtf8()), e.err.constData());
        // A steps file with a line that is no JSON object (not the last, unfinished one).
        const QString broken = m_dir.filePath("broken");
        QDir().mkpath(broken);
        QFile steps(broken + "/steps-worker-0.jsonl");
        QVERIFY(steps.open(QIODevice::WriteOnly));
        steps.write(R"({"step":1,"trace":{"t0":5,"spans":[["step","step",0,10]]}})" "\n" "garbage\n");
        steps.close();
        e = exportTrace({broken, m_dir.filePath("x.json")});
        QCOMPARE(e.exitCode, 1);
        QVERIFY2(e.err.contains("steps-worker-0.jsonl, line 2"), e.err.constData());
        QVERIFY(!QFile::exists(m_dir.filePath("x.json")));
        // Bad arguments.
        QCOMPARE(exportTrace({broken}).exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestTraceExport)
#include "tst_trace_export.moc"
