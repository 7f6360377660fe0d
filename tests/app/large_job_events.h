#pragma once
// A MultiWorkerMirrored job of many workers over many hosts (64 over 16 by default: four a
// host, worker:0-3 on node-1), as a launcher feeds the store: each worker placed on its node
// ("node-1 (198.18.0.1)"), its hello, start, placement (one replica on its cpu:0, holding a copy
// of the variables, in a job of every worker), two step windows and a device report. Paces
// differ: worker:N's last window took 40 + (7 N mod 16) ms a step (worker:9, worker:25, ... the
// slowest at 55 ms) and reached step 20 - N mod 3. For the tests of the task table and the
// placement map.

#include "app/metrics/metrics_store.h"

#include <QString>
#include <QStringList>

namespace apptest {

// The window's step time of worker:`n`, in ms.
inline double largeJobStepMs(int n) { return 40 + (7 * n) % 16; }

inline void feedLargeJob(strata::app::MetricsStore& store, int workers = 64, int hosts = 16)
{
    QStringList tasks;
    for (int n = 0; n < workers; ++n)
        tasks << QStringLiteral("\"worker:%1\"").arg(n);
    const int perHost = (workers + hosts - 1) / hosts;
    for (int n = 0; n < workers; ++n) {
        const QString task = QStringLiteral("worker:%1").arg(n);
        const int host = n / perHost + 1;
        store.setTaskPlace(task, QStringLiteral("node-%1").arg(host), QStringLiteral("198.18.0.%1").arg(host));
        const double ms = largeJobStepMs(n);
        store.ingestLines(task, QStringLiteral(R"({"v":1,"type":"hello","t":1000.0,"task":"%1","version":"0.1.0","schema":1,"host":"node-%2","pid":%3,"devices":[{"name":"cpu:0","kind":"cpu"}]}
{"v":1,"type":"start","t":1000.5,"task":"%1","experiment":"large","run_dir":"/tmp/r","strategy":"MultiWorkerMirrored","replicas":%4,"workers":%4,"epochs":1,"steps_per_epoch":100,"total_steps":100,"batch_size":%5,"per_replica_batch_size":32,"params":101770}
{"v":1,"type":"placement","t":1000.6,"task":"%1","strategy":"MultiWorkerMirrored","tasks":[%6],"total_replicas":%4,"replicas":[{"replica":0,"device":"cpu:0"}],"variables":[{"name":"dense/kernel","shape":[784,128],"bytes":401408,"devices":["cpu:0"]},{"name":"dense/bias","shape":[128],"bytes":512,"devices":["cpu:0"]}],"reduction":{"algorithm":"ring","bytes_per_step":401920}}
{"v":1,"type":"step","t":1001.0,"task":"%1","step":10,"epoch":0,"steps":10,"loss":1.9,"replicas":[{"replica":0,"device":"cpu:0","loss":1.9,"samples":320}],"time_ms":{"step":50.0,"compute":40.0,"comm":10.0,"input":0.0},"samples_per_sec":640.0}
{"v":1,"type":"step","t":1002.0,"task":"%1","step":%7,"epoch":0,"steps":10,"loss":1.5,"replicas":[{"replica":0,"device":"cpu:0","loss":1.5,"samples":320}],"time_ms":{"step":%8,"compute":%9,"comm":10.0,"input":0.0},"samples_per_sec":%10}
{"v":1,"type":"device","t":1002.0,"task":"%1","step":20,"window_ms":1000,"devices":[{"device":"cpu:0","replica":0,"utilization":%11,"variable_bytes":401920}]}
)")
                                         .arg(task)
                                         .arg(host)
                                         .arg(100 + n)
                                         .arg(workers)
                                         .arg(32 * workers)
                                         .arg(tasks.join(','))
                                         .arg(20 - n % 3)
                                         .arg(ms)
                                         .arg(ms - 10)
                                         .arg(32 * 1000.0 / ms)
                                         .arg(0.5 + 0.4 * (n % 5) / 4.0)
                                         .toUtf8());
    }
}

} // namespace apptest
