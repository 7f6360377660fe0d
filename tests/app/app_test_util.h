#pragma once
// Helpers for the app tests that run engines: small experiments, stand-in engines written
// as shell scripts, and reading a run's task out of a MetricsStore.

#include "app/metrics/metrics_store.h"

#include "../event_deadline.h"
#include "../free_ports.h"

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QString>
#include <QTemporaryDir>
#include <QTest>


namespace apptest {

using Json = nlohmann::ordered_json;

const QString kTask = QStringLiteral("worker:0");

// A small MLP on synthetic clusters: 600 examples in batches of 16 (38 steps an epoch),
// one GEMM thread; well under a second a run.
inline Json tinyExperiment(int epochs = 2)
{
    Json e = Json::parse(R"({
      "strata": 1, "name": "tiny", "seed": 5,
      "strategy": {"type": "OneDevice", "device": "cpu:0"},
      "model": {"input_shape": [8], "layers": [
        {"type": "Dense", "units": 16, "activation": "relu"},
        {"type": "Dense", "units": 3}]},
      "data": {"source": {"type": "synthetic", "task": "classification", "samples": 600, "test_samples": 150,
                          "features": 8, "classes": 3},
               "validation": "test"},
      "training": {"epochs": 2, "batch_size": 16,
                   "loss": {"type": "sparse_categorical_crossentropy", "from_logits": true},
                   "metrics": ["accuracy"], "optimizer": {"type": "adam", "learning_rate": 0.01}, "threads": 1}
    })");
    e["training"]["epochs"] = epochs;
    return e;
}

// The same model trained for far longer than any test waits: it has to be stopped or killed.
inline Json endlessExperiment()
{
    Json e = tinyExperiment(100000);
    e["name"] = "endless";
    e["data"]["validation"] = "none";
    e["data"]["evaluate_test"] = false;
    return e;
}

// An experiment the engine fails on at startup: an MNIST directory whose four files are all
// there (validation finds them) but are no IDX files. Its directory, made in `dir`.
inline Json unreadableDataExperiment(const QTemporaryDir& dir, QString* dataDir)
{
    *dataDir = dir.filePath("not-mnist");
    QDir().mkpath(*dataDir);
    for (const char* name : {"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                             "t10k-labels-idx1-ubyte"}) {
        QFile file(QDir(*dataDir).filePath(name));
        if (!file.open(QIODevice::WriteOnly) || file.write("not an IDX file") < 0)
            qFatal("cannot write %s", qPrintable(file.fileName()));
    }
    Json e = tinyExperiment();
    e["data"]["source"] = {{"type", "mnist"}, {"dir", dataDir->toStdString()}};
    e["model"]["input_shape"] = {28, 28};
    e["model"]["layers"].insert(e["model"]["layers"].begin(), Json{{"type", "Flatten"}});
    return e;
}

// A TCP port free on 127.0.0.1 now (tests/free_ports.h): a multi-worker job's ports that tests
// running side by side do not share (the automatic ports of a cluster are fixed).
using testing::freePort;
using testing::freePorts;
using testing::kEventDeadlineMs;

// `experiment` under MultiWorkerMirrored on this machine: `workers` worker tasks (after a
// chief when asked) from a free port on, each with `devices` local replicas (cpu:0..).
inline Json multiWorker(Json experiment, int workers, int devices = 1, bool chief = false)
{
    Json strategy{{"type", "MultiWorkerMirrored"}, {"timeout_seconds", 5}, {"logical_cpu_devices", std::max(devices, 2)}};
    if (devices > 1) {
        strategy["devices"] = Json::array();
        for (int d = 0; d < devices; ++d)
            strategy["devices"].push_back("cpu:" + std::to_string(d));
    }
    experiment["strategy"] = strategy;
    Json tasks = Json::array();
    const int port = freePorts(chief ? workers + 1 : workers);
    if (chief)
        tasks.push_back({{"type", "chief"}, {"node", "local"}, {"port", port}});
    tasks.push_back({{"type", "worker"}, {"node", "local"}, {"count", workers}, {"port", chief ? port + 1 : port}});
    experiment["cluster"] = {{"nodes", {{{"name", "local"}, {"host", "127.0.0.1"}}}}, {"tasks", tasks}};
    return experiment;
}

inline QString writeFile(const QString& path, const QByteArray& text)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(text) != text.size())
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

// A stand-in engine: a /bin/sh script, executable.
inline QString writeScript(const QTemporaryDir& dir, const QString& name, const QByteArray& body)
{
    const QString path = writeFile(dir.filePath(name), "#!/bin/sh\n" + body);
    QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadGroup |
                                    QFile::ExeGroup | QFile::ReadOther | QFile::ExeOther);
    return path;
}

inline std::string readJsonText(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll().toStdString() : std::string();
}

inline QList<Json> readJsonLines(const QString& path)
{
    QList<Json> out;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return out;
    // A file still being written may end inside a line: only whole lines count.
    QByteArray text = f.readAll();
    text.truncate(text.lastIndexOf('\n') + 1);
    for (const QByteArray& line : text.split('\n'))
        if (!line.trimmed().isEmpty())
            out << Json::parse(line.toStdString(), nullptr, false);
    return out;
}

// The events a task's engine wrote: its events file without the closing `exit` line its
// supervisor adds (how the process ended).
inline QList<Json> engineEvents(const QString& path)
{
    QList<Json> events = readJsonLines(path);
    if (!events.isEmpty() && events.back().value("type", std::string()) == "exit")
        events.removeLast();
    return events;
}

// Calls fn(TaskData) under the store's lock; false when the store has not heard of the task.
template<typename Fn>
bool withTask(const strata::app::MetricsStore& store, Fn fn, const QString& task = kTask)
{
    bool found = false;
    store.read([&](const std::vector<strata::app::TaskData>& tasks, const std::vector<strata::app::LogEntry>&) {
        for (const auto& td : tasks)
            if (td.task == task) {
                found = true;
                fn(td);
            }
    });
    return found;
}

inline std::vector<strata::app::LogEntry> logOf(const strata::app::MetricsStore& store)
{
    std::vector<strata::app::LogEntry> out;
    store.read([&](const std::vector<strata::app::TaskData>&, const std::vector<strata::app::LogEntry>& log) { out = log; });
    return out;
}

// The log, a line per entry ("task: message"), for a failure's message.
inline QString logText(const strata::app::MetricsStore& store)
{
    QStringList lines;
    for (const strata::app::LogEntry& e : logOf(store))
        lines << e.task + ": " + e.message;
    return lines.join('\n');
}

inline int64_t stepOf(const strata::app::MetricsStore& store)
{
    int64_t step = 0;
    withTask(store, [&](const strata::app::TaskData& td) { step = td.step; });
    return step;
}

inline int64_t lossPointsOf(const strata::app::MetricsStore& store)
{
    int64_t n = 0;
    withTask(store, [&](const strata::app::TaskData& td) { n = td.loss.size(); });
    return n;
}

} // namespace apptest
