#pragma once
// A MultiWorkerMirrored job whose engines record each step's timeline, for the Timeline panel's
// tests: every worker's step records (steps-<task>.jsonl) with their `trace`, fed to the store as
// the launcher feeds them (MetricsStore::ingest with records). Worker w's step s begins at
// stepT0(s) + w*kSkewUs on the job clock (the tasks start a step a little apart): input 0.5 ms,
// forward 2 ms, backward 3 ms (the `slow` workers' 6 ms), during which the "reduce" lane
// all-reduces bucket 0 (from halfway through the backward pass, 1 ms) and bucket 1 (from its end,
// 1 ms); then the step lane waits for the slowest worker's bucket 1, and the optimizer takes
// 0.5 ms. Steps are 100 µs apart.

#include "app/metrics/metrics_store.h"

#include <QList>
#include <QString>

namespace uitest {

constexpr int64_t kJobT0Us = 1'764'000'000'000'000; // the job clock, unix µs
constexpr int64_t kSkewUs = 20;

struct TracedJob {
    int workers = 8;
    QList<int> slow;

    int64_t backwardUs(int worker) const { return slow.contains(worker) ? 6000 : 3000; }
    // Where the step lane's wait ends: the slowest worker's last bucket reduced.
    int64_t waitEndUs() const { return 2500 + (slow.isEmpty() ? 3000 : 6000) + 1000; }
    int64_t stepUs() const { return waitEndUs() + 500; }
    int64_t stepT0(int64_t step) const { return kJobT0Us + (step - 1) * (stepUs() + 100); }

    // Worker w's record of step s, as the engine writes it.
    QByteArray record(int worker, int64_t step) const
    {
        const int64_t b = backwardUs(worker), wait = waitEndUs();
        const int64_t t0 = stepT0(step) + worker * kSkewUs;
        const QString spans =
            QStringLiteral(R"([["step","step",0,%1],["step","input",0,500],["step","forward",500,2000],)"
                           R"(["step","backward",2500,%2],["step","wait",%3,%4],["step","optimizer",%5,500],)"
                           R"(["reduce","bucket 0",%6,1000],["reduce","bucket 1",%3,1000]])")
                .arg(stepUs())
                .arg(b)
                .arg(2500 + b)
                .arg(wait - 2500 - b)
                .arg(wait)
                .arg(2500 + b / 2);
        return QStringLiteral(R"({"t":%1,"step":%2,"epoch":0,"loss":%3,"replica_loss":[%3],"samples":32,)"
                              R"("step_ms":%4,"compute_ms":%5,"comm_ms":%6,"input_ms":0.5,)"
                              R"("trace":{"t0":%7,"spans":%8,"clock_offset_us":%9}})")
            .arg(double(t0 + stepUs()) / 1e6, 0, 'f', 6)
            .arg(step)
            .arg(1.0 + 1.0 / double(step))
            .arg(double(stepUs()) / 1000)
            .arg(double(2000 + b) / 1000)
            .arg(double(wait - 2500 - b) / 1000)
            .arg(t0)
            .arg(spans)
            .arg(worker * 7)
            .toUtf8();
    }

    // Steps [from, to] of every worker into `store` (the first call also says hello and start).
    void feed(strata::app::MetricsStore& store, int64_t from, int64_t to) const
    {
        using namespace strata::app;
        for (int w = 0; w < workers; ++w) {
            const QString task = QStringLiteral("worker:%1").arg(w);
            std::vector<ParsedEvent> events;
            if (from == 1) {
                const QByteArray lines =
                    QStringLiteral(R"({"v":1,"type":"hello","t":1764000000,"task":"%1","host":"box","devices":[{"name":"cpu:0","kind":"cpu"}]}
{"v":1,"type":"start","t":1764000000,"task":"%1","total_steps":1000,"strategy":"MultiWorkerMirrored","workers":%2}
)")
                        .arg(task)
                        .arg(workers)
                        .toUtf8();
                EventParser::forThisThread().parseLines(lines.constData(), size_t(lines.size()), events);
            }
            std::vector<ParsedEvent> records;
            for (int64_t s = from; s <= to; ++s)
                records.push_back(*EventParser::forThisThread().parseStepRecord(record(w, s).toStdString()));
            store.ingest(task, std::move(events), std::move(records));
        }
    }
};

} // namespace uitest
