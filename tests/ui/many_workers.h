#pragma once
// A synchronous job of many workers as their engines report it, for the dashboard's tests: each
// worker one replica, every step reported (as the step records give them). Every worker
// computes a step in about 6 ms (worker w in 6 + w/100 ms) and then waits for the slowest in the
// gradient reduction, so that every step takes 16 ms on every worker; the `slow` workers compute
// in 15 ms. Worker w's loss is 0.5 + 2/sqrt(step) + w/1000 (worker 63's the highest); a device
// report every 50 steps.

#include "app/metrics/metrics_store.h"

#include <QList>
#include <QString>

#include <cmath>

namespace uitest {

inline double computeMs(int worker, const QList<int>& slow)
{
    return slow.contains(worker) ? 15.0 : 6.0 + worker / 100.0;
}

inline void feedWorkers(strata::app::MetricsStore& store, int workers, int steps, const QList<int>& slow = {})
{
    for (int w = 0; w < workers; ++w) {
        const QString task = QStringLiteral("worker:%1").arg(w);
        QByteArray lines = QStringLiteral(R"({"v":1,"type":"hello","t":1000,"task":"%1","host":"box","devices":[{"name":"cpu:0","kind":"cpu"}]}
{"v":1,"type":"start","t":1000,"task":"%1","total_steps":%2,"strategy":"MultiWorkerMirrored"}
)")
                               .arg(task)
                               .arg(steps)
                               .toUtf8();
        const double compute = computeMs(w, slow);
        for (int s = 1; s <= steps; ++s) {
            const double loss = 0.5 + 2.0 / std::sqrt(double(s)) + w / 1000.0;
            lines += QStringLiteral(R"({"v":1,"type":"step","t":%1,"task":"%2","step":%3,"epoch":0,"steps":1,"loss":%4,)"
                                    R"("replicas":[{"replica":0,"device":"cpu:0","loss":%4,"samples":32}],"metrics":{"accuracy":%5},)"
                                    R"("time_ms":{"step":16,"compute":%6,"comm":%7,"input":0.5},"samples_per_sec":2000})")
                         .arg(1000 + s * 0.016)
                         .arg(task)
                         .arg(s)
                         .arg(loss)
                         .arg(1.0 - loss / 3)
                         .arg(compute)
                         .arg(15.5 - compute)
                         .toUtf8() +
                     '\n';
            if (s % 50 == 0)
                lines += QStringLiteral(R"({"v":1,"type":"device","t":%1,"task":"%2","step":%3,"window_ms":1000,"devices":[)"
                                        R"({"device":"cpu:0","replica":0,"utilization":%4,"variable_bytes":4096}],)"
                                        R"("process":{"rss_bytes":%5}})")
                             .arg(1000 + s * 0.016)
                             .arg(task)
                             .arg(s)
                             .arg(compute / 16)
                             .arg(50e6 + w * 1e5)
                             .toUtf8() +
                         '\n';
        }
        store.ingestLines(task, lines);
    }
}

} // namespace uitest
