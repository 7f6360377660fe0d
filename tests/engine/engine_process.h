#pragma once
// Running the real strata-engine binary from tests, and reading what it wrote.

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QProcess>
#include <QStringList>
#include <QTemporaryDir>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace testing {

using Json = nlohmann::ordered_json;

struct EngineResult {
    int exitCode = -1;
    bool crashed = false; // ended by a signal
    QByteArray out;
    QByteArray err;
    std::vector<Json> events; // stdout parsed as JSON Lines

    const Json* first(const std::string& type) const
    {
        for (const auto& e : events)
            if (e.value("type", "") == type)
                return &e;
        return nullptr;
    }
    QString errText() const { return QString::fromUtf8(err); }
};

// The JSON objects among `text`'s lines (other output, such as --version's, is skipped).
inline std::vector<Json> parseLines(const QByteArray& text)
{
    std::vector<Json> out;
    for (const QByteArray& line : text.split('\n'))
        if (line.startsWith('{'))
            out.push_back(Json::parse(line.toStdString()));
    return out;
}

// Runs strata-engine with `args`, events on stdout, in `env` (default: this process's). It ends
// on the engine's exit; the deadline is for a hang (killed then, and said so in `err`).
inline EngineResult runEngine(const QStringList& args, int timeoutMs = 600000,
                              const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(STRATA_ENGINE_PATH, args);
    EngineResult r;
    const bool finished = p.waitForFinished(timeoutMs);
    if (!finished) {
        p.kill();
        p.waitForFinished();
    }
    r.crashed = p.exitStatus() == QProcess::CrashExit;
    r.exitCode = p.exitCode();
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    if (!finished)
        r.err += QByteArray("\n(the test killed it: still running after ") + QByteArray::number(timeoutMs / 1000) + " s)";
    r.events = parseLines(r.out);
    return r;
}

inline QString writeFile(const QTemporaryDir& dir, const QString& name, const std::string& text)
{
    const QString path = dir.filePath(name);
    std::ofstream(path.toStdString(), std::ios::binary) << text;
    return path;
}

inline QString writeExperiment(const QTemporaryDir& dir, const Json& doc, const QString& name = "exp.strata.json")
{
    return writeFile(dir, name, doc.dump(2));
}

inline std::string readText(const QString& path)
{
    std::ifstream in(path.toStdString(), std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// A small, fast experiment: an MLP on synthetic clusters.
inline Json smallExperiment()
{
    return Json::parse(R"({
      "strata": 1, "name": "small", "seed": 3,
      "model": {"input_shape": [8], "layers": [
        {"type": "Dense", "units": 16, "activation": "relu"},
        {"type": "Dropout", "rate": 0.2},
        {"type": "Dense", "units": 3, "activation": "softmax"}]},
      "data": {"source": {"type": "synthetic", "task": "classification", "samples": 600, "test_samples": 150,
                          "features": 8, "classes": 3},
               "validation": "test"},
      "training": {"epochs": 3, "batch_size": 16, "loss": "sparse_categorical_crossentropy",
                   "metrics": ["accuracy"], "optimizer": {"type": "adam", "learning_rate": 0.01},
                   "checkpoint": {"every_steps": 10}, "threads": 1}
    })");
}

} // namespace testing
